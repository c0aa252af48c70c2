// A request to send to the origin.

import BreakwaterCore

/// One request for the origin: the pool adds `Host` and the body's length.
package struct UpstreamRequest: Sendable {
    package var method: String
    /// Path and query string on the origin.
    package var target: String
    package var headers: HTTPHeaders
    /// Fields already written (`UpstreamHeaderBlock.bytes`, each `\r\nName: value`), sent
    /// after `headers` as they are.
    package var written: [UInt8]
    package var body: [UInt8]

    package init(method: String, target: String, headers: HTTPHeaders, written: [UInt8] = [], body: [UInt8]) {
        self.method = method
        self.target = target
        self.headers = headers
        self.written = written
        self.body = body
    }
}
