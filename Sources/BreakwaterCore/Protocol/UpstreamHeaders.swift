// Which client headers reach the origin, and what a proxy adds (README "The origin side").

/// Builds the headers of an upstream request from the client's.
package struct UpstreamHeaders: Sendable {
    /// `origin.forward_headers`, compared case-insensitively.
    private let forwarded: [String]
    /// Bit n set when some forwarded name is n bytes long: most client fields are ruled out by
    /// their length alone, before any comparison.
    private let forwardedLengths: UInt64
    private let forwardsRequestID: Bool

    package init(forwardHeaders: [String]) {
        forwarded = forwardHeaders.map { $0.lowercased() }
        forwardedLengths = forwarded.reduce(0) { $0 | Self.lengthBit($1.utf8.count) }
        forwardsRequestID = forwarded.contains("x-request-id")
    }

    /// The length's bit; every length from 63 up shares the last one.
    private static func lengthBit(_ length: Int) -> UInt64 { 1 << UInt64(min(length, 63)) }

    /// The client's listed headers (minus hop-by-hop ones), then `Content-Type` (only when the
    /// upstream request carries a body: `sendsBody`; a GET to the origin has none), `Accept`,
    /// `X-Forwarded-For`, `X-Forwarded-Proto`, `Via`. `requestID`, when given, replaces the
    /// client's `X-Request-Id`. The fields the client's `Connection` header names are gone
    /// already (`HTTPRequest.removeConnectionScopedFields`, as the request arrived), so what the
    /// key was built from is what goes.
    ///
    /// Every miss builds these: names are compared in place, without lowercased copies, and the
    /// common request (no prior `X-Forwarded-For` or `Via`) allocates only the result.
    package func make(
        from client: HTTPHeaders, requestID: String? = nil, remoteAddress: String, isSecure: Bool, sendsBody: Bool = true
    ) -> HTTPHeaders {
        var priorChain: [String] = []
        var priorVia: [String] = []
        var clientRequestID: String?
        for field in client.fields {
            // Told apart by length first: one comparison at most per field.
            switch field.name.utf8.count {
            case 3 where field.name.equalsIgnoringASCIICase("Via"):
                priorVia.append(field.value)
            case 12 where clientRequestID == nil && field.name.equalsIgnoringASCIICase("X-Request-Id"):
                clientRequestID = field.value
            case 15 where field.name.equalsIgnoringASCIICase("X-Forwarded-For"):
                priorChain.append(field.value)
            default:
                break
            }
        }
        // Room for the forwarded fields and the six added below: the array grows once.
        var headers = HTTPHeaders(capacity: client.fields.count + 6)
        for field in client.fields {
            guard isForwarded(field.name), !HopByHopFields.contains(field.name),
                requestID == nil || !field.name.equalsIgnoringASCIICase("X-Request-Id")
            else {
                continue
            }
            headers.add(field.name, field.value)
        }
        // README "The origin side": the request id is always passed on, listed or not.
        if let requestID {
            headers.add("X-Request-Id", requestID)
        } else if !forwardsRequestID, let clientRequestID {
            headers.add("X-Request-Id", clientRequestID)
        }
        if sendsBody { headers.add("Content-Type", "application/json") }
        headers.add("Accept", "application/json")
        let forwardedFor =
            priorChain.isEmpty ? remoteAddress : "\(priorChain.joined(separator: ", ")), \(remoteAddress)"
        if !forwardedFor.isEmpty { headers.add("X-Forwarded-For", forwardedFor) }
        headers.add("X-Forwarded-Proto", isSecure ? "https" : "http")
        headers.add("Via", priorVia.isEmpty ? "1.1 breakwater" : "\(priorVia.joined(separator: ", ")), 1.1 breakwater")
        return headers
    }

    /// Whether `origin.forward_headers` lists `name`.
    private func isForwarded(_ name: String) -> Bool {
        forwardedLengths & Self.lengthBit(name.utf8.count) != 0
            && forwarded.contains { $0.equalsIgnoringASCIICase(name) }
    }
}
