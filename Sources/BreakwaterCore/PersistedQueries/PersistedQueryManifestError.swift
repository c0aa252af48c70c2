// Why a persisted-query manifest was refused, naming the file and the spot to fix.

/// A manifest that could not be read: the file and what is wrong with it.
package struct PersistedQueryManifestError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong; operations are numbered from 0 in the order of the `operations` array.
    package enum Problem: Sendable, Equatable {
        case unreadable
        case notJSON(String)
        case notAnObject
        case unknownFormat(String)
        case unsupportedVersion(String)
        case operationsNotAnArray
        case operationNotAnObject(index: Int)
        case operationWithoutBody(index: Int)
        case invalidApolloID(index: Int, id: String)
        case unknownOperationType(index: Int, type: String)
        case duplicateID(String)
        case relayDocumentNotAString(id: String)
    }

    package let file: String
    package let problem: Problem

    package init(file: String, problem: Problem) {
        self.file = file
        self.problem = problem
    }

    package var description: String {
        let message =
            switch problem {
            case .unreadable: "cannot read the file"
            case .notJSON(let reason): "not JSON: \(reason)"
            case .notAnObject:
                "expected a JSON object: an Apollo persisted-query manifest or a Relay map of id to document"
            case .unknownFormat(let format):
                "format is \(format), expected \"apollo-persisted-query-manifest\""
            case .unsupportedVersion(let version): "version is \(version), only version 1 is supported"
            case .operationsNotAnArray: "\"operations\" must be an array of operations"
            case .operationNotAnObject(let index): "operation \(index) is not an object"
            case .operationWithoutBody(let index): "operation \(index) has no \"body\" string"
            case .invalidApolloID(let index, let id):
                "operation \(index) has id \"\(id)\", expected the 64 hex digits of the body's SHA-256"
            case .unknownOperationType(let index, let type):
                "operation \(index) has type \"\(type)\", expected query, mutation or subscription"
            case .duplicateID(let id): "id \"\(id)\" names two different documents"
            case .relayDocumentNotAString(let id): "the document of id \"\(id)\" is not a string"
            }
        return "persisted-query manifest \(file): \(message)"
    }
}
