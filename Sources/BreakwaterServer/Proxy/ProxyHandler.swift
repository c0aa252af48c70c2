// The GraphQL route of one event loop: checks the request, sends it to the origin through the
// loop's pool, relays the answer.

import BreakwaterCore

/// Serves `server.graphql_path` on one event loop.
final class ProxyHandler: HTTPHandler, @unchecked Sendable {
    private let graphqlPath: String
    private let originPath: String
    private let upstreamHeaders: UpstreamHeaders
    private let pool: OriginPool

    init(configuration: Configuration, pool: OriginPool) {
        graphqlPath = configuration.server.graphqlPath
        originPath = configuration.origin.url.path
        upstreamHeaders = UpstreamHeaders(forwardHeaders: configuration.origin.forwardHeaders)
        self.pool = pool
    }

    func handle(_ request: HTTPRequest, responder: any HTTPResponder) {
        guard request.path == graphqlPath else {
            return responder.respond(GraphQLErrorResponse.notFound(path: request.path).response)
        }
        switch request.method {
        case "POST":
            guard MediaType.isJSON(request.headers["Content-Type"]) else {
                return responder.respond(
                    GraphQLErrorResponse.unsupportedMediaType(request.headers["Content-Type"]).response)
            }
            forward(request, responder: responder)
        default:
            responder.respond(GraphQLErrorResponse.methodNotAllowed(request.method).response)
        }
    }

    private func forward(_ request: HTTPRequest, responder: any HTTPResponder) {
        let upstream = UpstreamRequest(
            method: "POST", target: originPath,
            headers: upstreamHeaders.make(
                from: request.headers, remoteAddress: request.remoteAddress, isSecure: request.isSecure),
            body: request.body)
        pool.send(upstream) { result in
            switch result {
            case .response(let answer):
                var response = OriginAnswer.relay(answer)
                // Nothing is stored yet: every answer is fetched and not stored (SPEC 5.2).
                response.headers.add("X-Cache", "BYPASS")
                if !response.headers.contains("Cache-Control") {
                    response.headers.add("Cache-Control", "private, no-store")
                }
                responder.respond(response)
            case .failure(let failure):
                responder.respond(GraphQLErrorResponse.originUnavailable(failure).response)
            }
        }
    }
}
