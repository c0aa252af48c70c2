// The limits evhttp enforces for one listener.

/// Size and time limits applied to every connection of a listener.
package struct HTTPLimits: Sendable {
    package var maxHeaderBytes: Int
    package var maxBodyBytes: Int
    package var idleTimeout: Duration

    package init(maxHeaderBytes: Int = 64 << 10, maxBodyBytes: Int = 1 << 20, idleTimeout: Duration = .seconds(60)) {
        self.maxHeaderBytes = maxHeaderBytes
        self.maxBodyBytes = maxBodyBytes
        self.idleTimeout = idleTimeout
    }
}
