// Errors of the I/O layer, with messages an operator can act on.

/// Why a listener, an origin client or TLS could not be set up.
package struct ServerError: Error, CustomStringConvertible {
    package let description: String

    static func cannotResolve(_ address: String, _ reason: String) -> ServerError {
        ServerError(description: "cannot resolve \(address): \(reason)")
    }

    static func cannotListen(_ address: String, _ reason: String) -> ServerError {
        ServerError(description: "cannot listen on \(address): \(reason)")
    }

    /// A file the configuration names could not be used (persisted-query store, manifest).
    static func setup(_ reason: String) -> ServerError {
        ServerError(description: reason)
    }

    static func tls(_ reason: String) -> ServerError {
        ServerError(description: "TLS: \(reason)")
    }
}
