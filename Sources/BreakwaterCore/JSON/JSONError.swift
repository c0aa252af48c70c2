// The error the JSON parser throws; its text reaches API clients in 400 bodies, so it names
// what was wrong and where, in words a client developer can act on.

/// A JSON syntax error: what was expected or found, at which byte of the input.
package struct JSONError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A human-readable sentence fragment, e.g. `expected ':' after object key`.
    package var message: String
    /// Zero-based offset of the offending byte in the input (the input's length at its end).
    package var offset: Int

    package init(message: String, offset: Int) { (self.message, self.offset) = (message, offset) }

    package var description: String { "JSON error at byte \(offset): \(message)" }
}
