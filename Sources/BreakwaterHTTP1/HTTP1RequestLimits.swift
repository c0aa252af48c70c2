// The size limits a request parser enforces (server.max_uri_bytes, max_header_bytes, max_body_bytes).

/// Size limits of one request; going over one is a verdict (414, 431, 413).
package struct HTTP1RequestLimits: Sendable, Equatable {
    /// Longest request-target (path and query string) in bytes.
    package var maxTargetBytes: Int
    /// Longest request line plus header lines, in bytes, without the final empty line.
    package var maxHeadBytes: Int
    /// Largest body, after chunked decoding.
    package var maxBodyBytes: Int

    package init(maxTargetBytes: Int = 32768, maxHeadBytes: Int = 64 << 10, maxBodyBytes: Int = 1 << 20) {
        self.maxTargetBytes = maxTargetBytes
        self.maxHeadBytes = maxHeadBytes
        self.maxBodyBytes = maxBodyBytes
    }
}
