// What a GraphQL document asks for: its operations and their kinds, found by parsing it (no schema,
// no validation: the origin validates). The proxy needs this to refuse mutations over GET, to
// keep mutations out of the cache and to reject an operationName the document does not hold.

private import GraphQL

/// The kind of a GraphQL operation; the anonymous `{ ... }` shorthand is a query.
package enum OperationKind: String, Sendable, Equatable {
    case query, mutation, subscription
}

/// The operations and fragment names of one parsed GraphQL document.
package struct OperationAnalysis: Sendable {
    /// One operation definition of the document.
    package struct Operation: Sendable, Equatable {
        /// Nil for an anonymous operation.
        package var name: String?
        package var kind: OperationKind

        package init(name: String?, kind: OperationKind) {
            self.name = name
            self.kind = kind
        }
    }

    /// Deepest nesting of `{`, `[` and `(` we hand to the parser, which recurses once per level and
    /// would overflow the stack on a few thousand nested braces. A debug build needs up to 4 KiB per
    /// level, so 128 levels stay within half of an event-loop thread's 1 MiB stack; real documents
    /// (the introspection query included) nest a few dozen levels at most.
    package static let maxNestingDepth = 128

    /// The operations in document order.
    package let operations: [Operation]
    package let fragmentNames: Set<String>

    /// Parses `document`; throws on a syntax error, over-deep nesting, a name with the proxy's
    /// reserved prefix (`__bw_`), or a document without operations.
    package init(document: String) throws(DocumentError) {
        guard !(try GraphQLSourceCheck.check(document)).usesReservedPrefix else { throw .reservedName }
        let parsed: Document
        do {
            parsed = try parse(source: document, noLocation: true)
        } catch {
            throw Self.syntaxError(from: error)
        }
        var operations: [Operation] = []
        var fragmentNames: Set<String> = []
        for definition in parsed.definitions {
            if let operation = definition as? OperationDefinition {
                operations.append(Operation(name: operation.name?.value, kind: OperationKind(operation.operation)))
            } else if let fragment = definition as? FragmentDefinition {
                fragmentNames.insert(fragment.name.value)
            }
        }
        guard !operations.isEmpty else { throw .noOperation }
        self.operations = operations
        self.fragmentNames = fragmentNames
    }

    /// The operation a request runs: the one named `operationName`, or the only one when no name is given.
    package func select(operationName: String?) throws(DocumentError) -> Operation {
        guard let operationName else {
            guard operations.count == 1 else { throw .ambiguousOperation }
            return operations[0]
        }
        guard let operation = operations.first(where: { $0.name == operationName }) else {
            throw .unknownOperation(named: operationName)
        }
        return operation
    }
}

extension OperationKind {
    fileprivate init(_ type: OperationType) {
        switch type {
        case .query: self = .query
        case .mutation: self = .mutation
        case .subscription: self = .subscription
        }
    }
}

// MARK: - Errors

extension OperationAnalysis {
    /// Rewords the library's `Syntax Error GraphQL (1:12) Expected Name, found <EOF>` plus a source
    /// excerpt into graphql-js's `Syntax Error: Expected Name, found <EOF>.`: clients see the same
    /// text as from Apollo, and the excerpt would echo an arbitrarily long document back.
    private static func syntaxError(from error: any Error) -> DocumentError {
        guard let error = error as? GraphQLError else {
            return DocumentError(kind: .syntax, message: "Syntax Error: \(error)")
        }
        let locations = error.locations.map { SourceLocation(line: $0.line, column: $0.column) }
        var message = Substring(error.message)
        if message.hasPrefix("Syntax Error "), let location = message.firstRange(of: ") ") {
            message = message[location.upperBound...]
            // The excerpt's lines all start with a line number, so its "\n\n" separator is the last one.
            if let excerpt = message.ranges(of: "\n\n").last { message = message[..<excerpt.lowerBound] }
            // Some lexer messages interpolate a UTF8View, whose debug form quotes the whole document.
            if let leak = message.firstRange(of: "UTF8View(") {
                message = message[..<leak.lowerBound]
                while let last = message.last, last == " " || last == ":" { message.removeLast() }
            }
            message = "Syntax Error: " + message + (message.hasSuffix(".") ? "" : ".")
        }
        return DocumentError(kind: .syntax, message: String(message), locations: locations)
    }
}
