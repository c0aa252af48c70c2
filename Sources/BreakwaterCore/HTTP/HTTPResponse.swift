// A response to send: status, headers and body bytes.

/// One HTTP response.
package struct HTTPResponse: Sendable {
    package var status: Int
    package var headers: HTTPHeaders
    package var body: [UInt8]

    package init(status: Int, headers: HTTPHeaders = [:], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    package init(status: Int, headers: HTTPHeaders = [:], body: String) {
        self.init(status: status, headers: headers, body: Array(body.utf8))
    }
}
