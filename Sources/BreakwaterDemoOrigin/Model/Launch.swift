// A launch of the demo catalog, as the launches schema exposes it.

import Graphiti

/// One launch of the catalog; `isBooked` depends on who asks, so it is resolved per request.
struct Launch: Sendable, Equatable {
    var id: Identifier
    var site: String?
    var mission: Mission?
    var rocket: Rocket?

    func isBooked(context: LaunchesContext, arguments _: NoArguments) -> Bool {
        guard let user = context.user else { return false }
        return context.ledger.isBooked(id.rawValue, by: user.email)
    }
}
