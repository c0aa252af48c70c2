// A response to send: status, headers and body bytes, or a prebuilt block (a cached answer).

/// One HTTP response.
package struct HTTPResponse: Sendable {
    package var status: Int
    /// The headers written before `prebuilt`'s lines when there is one (the per-request ones).
    package var headers: HTTPHeaders
    package var body: [UInt8]
    /// Header lines and body serialised once (a cache entry's): when set, `body` is empty and
    /// the engine writes the status line, `headers`, then these bytes.
    package var prebuilt: PrebuiltResponse?
    /// The request's id, written as `X-Request-Id` by the engine: set on the way out without
    /// copying `headers` (which the answer's maker still shares).
    package var requestID: String?

    package init(status: Int, headers: HTTPHeaders = [:], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
        prebuilt = nil
        requestID = nil
    }

    package init(status: Int, headers: HTTPHeaders = [:], body: String) {
        self.init(status: status, headers: headers, body: Array(body.utf8))
    }

    /// A response whose fixed lines and body are `prebuilt`, after `headers`.
    package init(status: Int, headers: HTTPHeaders, prebuilt: PrebuiltResponse) {
        self.status = status
        self.headers = headers
        body = []
        self.prebuilt = prebuilt
        requestID = nil
    }

    /// The body's length, prebuilt or not.
    package var bodyCount: Int { prebuilt?.bodyCount ?? body.count }

    /// The body's bytes, copied out of a prebuilt block if need be (batches, tests).
    package var completeBody: [UInt8] { prebuilt?.body ?? body }

    /// The first value of `name` among `headers`, the request id, then the prebuilt lines.
    package func headerValue(_ name: String) -> String? {
        if let value = headers[name] { return value }
        if let requestID, name.equalsIgnoringASCIICase("X-Request-Id") { return requestID }
        return prebuilt?.value(of: name)
    }
}
