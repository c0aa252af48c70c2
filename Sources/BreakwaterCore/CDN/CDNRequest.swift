// One call to a target's purge API as a value (docs/CDN.md): the server sends it with
// Breakwater's own HTTP client and reports the answer back to the queue.

/// A purge call: method, where it goes, its headers and body.
package struct CDNRequest: Sendable, Equatable {
    package var method: String
    /// Scheme, host and port to connect to, and the path (and query) to request.
    package var url: OriginURL
    package var headers: HTTPHeaders
    package var body: [UInt8]
    /// Tags (purge-everything counts one) this call carries, for the statistics.
    package var purges: Int
    /// What the call carries, for the queue to take back into its next round when calls waiting
    /// for a retry pass `max_queue` (docs/CDN.md, "Bounds").
    package var carried: CDNPurge

    package init(
        method: String, url: OriginURL, headers: HTTPHeaders, body: [UInt8] = [], purges: Int, carried: CDNPurge
    ) {
        (self.method, self.url, self.headers, self.body, self.purges) = (method, url, headers, body, purges)
        self.carried = carried
    }

    /// The body as text, for tests and logs.
    package var bodyText: String { String(decoding: body, as: UTF8.self) }
}
