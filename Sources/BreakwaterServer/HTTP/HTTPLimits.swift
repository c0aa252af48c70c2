// The limits evhttp enforces for one listener, and its TLS settings.

/// Size and time limits applied to every connection of a listener, and TLS when set.
package struct HTTPLimits: Sendable {
    package var maxHeaderBytes: Int
    package var maxBodyBytes: Int
    package var idleTimeout: Duration
    /// Terminate TLS with this context; plain HTTP when nil.
    package var tls: TLSServerContext?

    package init(
        maxHeaderBytes: Int = 64 << 10, maxBodyBytes: Int = 1 << 20, idleTimeout: Duration = .seconds(60),
        tls: TLSServerContext? = nil
    ) {
        self.maxHeaderBytes = maxHeaderBytes
        self.maxBodyBytes = maxBodyBytes
        self.idleTimeout = idleTimeout
        self.tls = tls
    }
}
