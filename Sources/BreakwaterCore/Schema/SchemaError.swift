// Why a schema could not be learned from SDL text or an introspection answer.

/// A schema source that does not describe a usable schema; the proxy then runs without one.
package struct SchemaError: Error, Sendable, Equatable, CustomStringConvertible {
    package var message: String
    /// The SDL file the problem is in, when it came from one.
    package var file: String?
    /// The line of the SDL text the parser stopped at, when it says.
    package var line: Int?

    package init(_ message: String, file: String? = nil, line: Int? = nil) {
        self.message = message
        self.file = file
        self.line = line
    }

    /// `file:line: message` as other configuration errors read, as much of it as is known.
    package var description: String {
        switch (file, line) {
        case (let file?, let line?): "\(file):\(line): \(message)"
        case (let file?, nil): "\(file): \(message)"
        case (nil, let line?): "line \(line): \(message)"
        case (nil, nil): message
        }
    }
}
