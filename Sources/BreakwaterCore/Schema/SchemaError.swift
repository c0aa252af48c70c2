// Why a schema could not be learned from SDL text or an introspection answer.

/// A schema source that does not describe a usable schema; the proxy then runs without one.
package struct SchemaError: Error, Sendable, Equatable, CustomStringConvertible {
    package var message: String

    package init(_ message: String) { self.message = message }

    package var description: String { message }
}
