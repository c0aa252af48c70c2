// Which client headers reach the origin, and what a proxy adds (SPEC section 4).

/// Builds the headers of an upstream request from the client's.
package struct UpstreamHeaders: Sendable {
    /// `origin.forward_headers`, compared case-insensitively.
    private let forwarded: [String]

    /// Headers that describe one connection, never another (RFC 9110 section 7.6.1).
    package static let hopByHop: Set<String> = [
        "connection", "keep-alive", "proxy-connection", "proxy-authenticate", "proxy-authorization",
        "te", "trailer", "transfer-encoding", "upgrade",
    ]

    package init(forwardHeaders: [String]) {
        forwarded = forwardHeaders.map { $0.lowercased() }
    }

    /// The client's listed headers (minus hop-by-hop ones, and those the client's `Connection`
    /// header names), then `Content-Type`, `Accept`, `X-Forwarded-For`, `X-Forwarded-Proto`, `Via`.
    /// `requestID`, when given, replaces the client's `X-Request-Id`.
    package func make(from client: HTTPHeaders, requestID: String? = nil, remoteAddress: String, isSecure: Bool)
        -> HTTPHeaders
    {
        let connectionScoped = Set(
            client.values(of: "Connection").flatMap { $0.split(separator: ",") }.map {
                $0.trimmingWhitespace().lowercased()
            })
        // Room for the forwarded fields and the six added below: the array grows once.
        var headers = HTTPHeaders(capacity: client.fields.count + 6)
        for field in client.fields {
            let name = field.name.lowercased()
            guard forwarded.contains(name), !Self.hopByHop.contains(name), !connectionScoped.contains(name),
                requestID == nil || name != "x-request-id"
            else {
                continue
            }
            headers.add(field.name, field.value)
        }
        // SPEC section 4: the request id is always passed on, listed or not.
        if let requestID {
            headers.add("X-Request-Id", requestID)
        } else if !forwarded.contains("x-request-id"), let requestID = client["X-Request-Id"] {
            headers.add("X-Request-Id", requestID)
        }
        headers.add("Content-Type", "application/json")
        headers.add("Accept", "application/json")
        let priorChain = client.values(of: "X-Forwarded-For").joined(separator: ", ")
        let forwardedFor = priorChain.isEmpty ? remoteAddress : "\(priorChain), \(remoteAddress)"
        if !forwardedFor.isEmpty { headers.add("X-Forwarded-For", forwardedFor) }
        headers.add("X-Forwarded-Proto", isSecure ? "https" : "http")
        let priorVia = client.values(of: "Via").joined(separator: ", ")
        headers.add("Via", priorVia.isEmpty ? "1.1 breakwater" : "\(priorVia), 1.1 breakwater")
        return headers
    }
}
