// The shorthand verbs of the test clients, written once for the one-shot client and for a kept
// connection.

/// Something that sends one HTTP request and returns its response.
public protocol HTTPRequestSending {
    func send(
        method: String, target: String, headers: [(String, String)], body: [UInt8], timeout: Duration
    ) throws -> HTTPClientResponse
}

extension HTTPRequestSending {
    /// Sends a request; no headers, no body and a 10 s timeout unless given.
    public func send(
        method: String, target: String, headers: [(String, String)] = [], body: [UInt8] = [],
        timeout: Duration = .seconds(10)
    ) throws -> HTTPClientResponse {
        try send(method: method, target: target, headers: headers, body: body, timeout: timeout)
    }

    /// Sends a GET request.
    public func get(_ target: String, headers: [(String, String)] = []) throws -> HTTPClientResponse {
        try send(method: "GET", target: target, headers: headers)
    }

    /// Sends a POST request with `json` as the body and `Content-Type: application/json`.
    public func post(_ target: String, json: String, headers: [(String, String)] = []) throws -> HTTPClientResponse {
        try send(
            method: "POST", target: target, headers: [("Content-Type", "application/json")] + headers,
            body: Array(json.utf8))
    }
}
