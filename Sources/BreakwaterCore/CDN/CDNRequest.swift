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

    package init(method: String, url: OriginURL, headers: HTTPHeaders, body: [UInt8] = [], purges: Int) {
        (self.method, self.url, self.headers, self.body, self.purges) = (method, url, headers, body, purges)
    }

    /// The body as text, for tests and logs.
    package var bodyText: String { String(decoding: body, as: UTF8.self) }
}
