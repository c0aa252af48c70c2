// Why a GraphQL document cannot be served: it does not parse, or it does not name one operation.
// The messages reach clients in 400 bodies, worded as graphql-js words them (Apollo relays those).

/// A document that does not parse or whose operation cannot be chosen.
package struct DocumentError: Error, Equatable, Sendable, CustomStringConvertible {
    /// What went wrong, in the broad terms a caller maps to an answer.
    package enum Kind: Sendable, Equatable {
        /// The text is not a GraphQL document (or nests deeper than we parse).
        case syntax
        /// `operationName` names no operation in the document.
        case unknownOperation
        /// No `operationName` although the document holds several operations.
        case ambiguousOperation
        /// The document holds only fragments.
        case noOperation
        /// A name starts with the proxy's reserved prefix (`__bw_`).
        case reservedName
    }

    package var kind: Kind
    /// The client-facing message, e.g. `Syntax Error: Expected Name, found <EOF>.`
    package var message: String
    /// Where in the document; empty when the error is about the document as a whole.
    package var locations: [SourceLocation]

    package init(kind: Kind, message: String, locations: [SourceLocation] = []) {
        (self.kind, self.message, self.locations) = (kind, message, locations)
    }

    package var description: String {
        locations.isEmpty ? message : "\(message) (at \(locations.map(\.description).joined(separator: ", ")))"
    }

    // MARK: - graphql-js's operation errors

    static func unknownOperation(named name: String) -> Self {
        Self(kind: .unknownOperation, message: "Unknown operation named \"\(name)\".")
    }

    static let ambiguousOperation = Self(
        kind: .ambiguousOperation, message: "Must provide operation name if query contains multiple operations.")

    static let noOperation = Self(kind: .noOperation, message: "Must provide an operation.")

    // MARK: - The proxy's own

    static let reservedName = Self(
        kind: .reservedName,
        message: "Names starting with \"\(ReservedAlias.prefix)\" are reserved by the proxy: rename the alias or field.")
}

/// A one-based line and column in a document, as GraphQL error `locations` give them.
package struct SourceLocation: Sendable, Equatable, CustomStringConvertible {
    package var line: Int
    package var column: Int

    package init(line: Int, column: Int) { (self.line, self.column) = (line, column) }

    package var description: String { "\(line):\(column)" }
}
