// The user `me` answers with, derived from the `Authorization` header.

import Graphiti

/// A signed-in user; `trips` reads the ledger at resolve time.
struct User: Sendable, Equatable {
    var id: Identifier
    var email: String

    func trips(context: LaunchesContext, arguments _: NoArguments) -> [Launch?] {
        context.ledger.bookings(of: email).map { context.catalog.launch(id: $0) }
    }
}
