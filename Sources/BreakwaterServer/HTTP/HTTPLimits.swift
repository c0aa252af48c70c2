// The limits the HTTP engine enforces on every connection of a listener, and its TLS settings.

import BreakwaterHTTP1
import BreakwaterHTTP2

/// Size and time limits applied to every connection of a listener, and TLS when set.
package struct HTTPLimits: Sendable {
    /// Longest request-target; nil: only the head limit bounds it.
    package var maxURIBytes: Int?
    package var maxHeaderBytes: Int
    package var maxBodyBytes: Int
    /// An idle keep-alive connection (or one whose client stopped reading) is closed after this.
    package var idleTimeout: Duration
    /// A request head must be complete this long after its first byte (slowloris): else 408.
    package var headerTimeout: Duration
    /// A request body must be complete this long after its head: else 408.
    package var bodyTimeout: Duration
    /// Open connections of the listener across its loops; more are closed at accept.
    package var maxConnections: Int
    /// Terminate TLS with this context; plain HTTP when nil.
    package var tls: TLSServerContext?
    /// HTTP/2's concurrent streams per connection; nil: the listener speaks HTTP/1.1 only. On,
    /// a plain connection that opens with the preface is HTTP/2, and a TLS one whose handshake
    /// chose `h2` (the context must offer it).
    package var http2MaxStreams: Int?

    package init(
        maxURIBytes: Int? = nil, maxHeaderBytes: Int = 64 << 10, maxBodyBytes: Int = 1 << 20,
        idleTimeout: Duration = .seconds(60), headerTimeout: Duration = .seconds(10),
        bodyTimeout: Duration = .seconds(30), maxConnections: Int = 10_000, tls: TLSServerContext? = nil,
        http2MaxStreams: Int? = nil
    ) {
        self.http2MaxStreams = http2MaxStreams
        self.maxURIBytes = maxURIBytes
        self.maxHeaderBytes = maxHeaderBytes
        self.maxBodyBytes = maxBodyBytes
        self.idleTimeout = idleTimeout
        self.headerTimeout = headerTimeout
        self.bodyTimeout = bodyTimeout
        self.maxConnections = maxConnections
        self.tls = tls
    }

    /// What an HTTP/2 connection runs with, or nil when HTTP/2 is off.
    var http2Settings: HTTP2Settings? {
        guard let http2MaxStreams else { return nil }
        return HTTP2Settings(
            maxStreams: http2MaxStreams,
            headLimits: HTTP2HeadLimits(
                maxTargetBytes: min(maxURIBytes ?? maxHeaderBytes, maxHeaderBytes), maxHeadBytes: maxHeaderBytes,
                maxBodyBytes: maxBodyBytes),
            deadlines: HTTP2StreamDeadlines.Configuration(
                idleTimeout: MonotonicTime.nanoseconds(idleTimeout), headerTimeout: MonotonicTime.nanoseconds(headerTimeout),
                bodyTimeout: MonotonicTime.nanoseconds(bodyTimeout)))
    }

    /// What the request parser enforces.
    var parserLimits: HTTP1RequestLimits {
        HTTP1RequestLimits(
            maxTargetBytes: min(maxURIBytes ?? maxHeaderBytes, maxHeaderBytes), maxHeadBytes: maxHeaderBytes,
            maxBodyBytes: maxBodyBytes)
    }
}
