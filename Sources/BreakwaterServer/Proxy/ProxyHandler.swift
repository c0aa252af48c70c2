// The GraphQL listener of one event loop: asks the endpoint rules what a request gets, fetches
// from the origin through the loop's pool when they say so, and relays the answer.

import BreakwaterCore

/// Serves client requests on one event loop.
final class ProxyHandler: HTTPHandler, @unchecked Sendable {
    private let endpoint: GraphQLEndpoint
    private let upstreamHeaders: UpstreamHeaders
    private let pool: OriginPool

    init(configuration: Configuration, endpoint: GraphQLEndpoint, pool: OriginPool) {
        self.endpoint = endpoint
        upstreamHeaders = UpstreamHeaders(forwardHeaders: configuration.origin.forwardHeaders)
        self.pool = pool
    }

    func handle(_ request: HTTPRequest, responder: any HTTPResponder) {
        switch endpoint.decide(request) {
        case .respond(let response):
            responder.respond(response)
        case .forward(let operation):
            forward(operation, for: request, responder: responder)
        }
    }

    private func forward(_ operation: PreparedOperation, for request: HTTPRequest, responder: any HTTPResponder) {
        var headers = upstreamHeaders.make(
            from: request.headers, remoteAddress: request.remoteAddress, isSecure: request.isSecure)
        if operation.origin.method == "GET" { headers.remove("Content-Type") }
        let upstream = UpstreamRequest(
            method: operation.origin.method, target: operation.origin.target, headers: headers,
            body: operation.origin.body)
        pool.send(upstream) { result in
            var response: HTTPResponse
            switch result {
            case .response(let answer):
                response = OriginAnswer.relay(answer)
                // Nothing is stored yet: every answer is fetched and not stored (SPEC 5.2).
                response.headers.add("X-Cache", "BYPASS")
                if !response.headers.contains("Cache-Control") {
                    response.headers.add("Cache-Control", "private, no-store")
                }
            case .failure(let failure):
                response = GraphQLErrorResponse.originUnavailable(failure).response
            }
            response.headers.fields += operation.responseHeaders.fields
            responder.respond(response)
        }
    }
}
