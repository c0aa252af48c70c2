// The rules of the client-facing GraphQL endpoint, as one pure function of a request: route,
// method, limits, CORS, parsing, the APQ table, operation analysis, and the origin request.
// The I/O layer carries out its decision; tests call it without sockets.

/// What to do with one client request.
package enum EndpointDecision: Sendable {
    /// Answer at once (errors, preflights, APQ answers); `apqEvent` names the APQ answers the
    /// statistics count.
    case respond(HTTPResponse, apqEvent: RequestStatistics.APQEvent?)
    /// Fetch from the origin (or, later, the cache) and answer with the result.
    case forward(PreparedOperation)
}

/// An operation ready to be fetched.
package struct PreparedOperation: Sendable {
    package var document: ResolvedDocument
    /// The selected operation's name, or the name the client gave.
    package var operationName: String?
    package var kind: OperationKind
    package var variables: JSONValue?
    package var clientMethod: GraphQLRequest.Method
    package var origin: OriginRequest
    /// Headers every answer to this request carries (CORS).
    package var responseHeaders: HTTPHeaders
}

/// Decides what each request to `server.graphql_path` gets.
package struct GraphQLEndpoint: Sendable {
    private let graphqlPath: String
    private let maxURIBytes: Int
    private let maxHeaderBytes: Int
    private let maxBodyBytes: Int
    private let cors: CORSPolicy?
    private let originPath: String
    private let originPrefersGET: Bool
    private let maxGetTargetBytes: Int
    package let resolver: DocumentResolver
    package let documents: DocumentCache

    package init(configuration: Configuration, resolver: DocumentResolver, documents: DocumentCache) {
        graphqlPath = configuration.server.graphqlPath
        maxURIBytes = configuration.server.maxURIBytes
        maxHeaderBytes = configuration.server.maxHeaderBytes.bytes
        maxBodyBytes = configuration.server.maxBodyBytes.bytes
        cors = configuration.server.cors.map(CORSPolicy.init)
        originPath = configuration.origin.url.path
        originPrefersGET = configuration.origin.method == .get
        maxGetTargetBytes = configuration.origin.maxGetURIBytes.bytes
        self.resolver = resolver
        self.documents = documents
    }

    /// What `request` gets. With a `memo`, a request whose raw parameters resolved before is
    /// not parsed again (the header-dependent checks still run); also returns the memo key the
    /// operation is (now) kept under, and the shared cache key remembered with it, if any.
    package func decide(_ request: HTTPRequest, memo: OperationMemo?)
        -> (decision: EndpointDecision, memoKey: OperationMemo.Key?, sharedCacheKey: CacheKey?)
    {
        let corsHeaders = cors?.responseHeaders(origin: request.headers["Origin"]) ?? HTTPHeaders()
        do {
            try check(request)
            let memoKey = memo != nil ? OperationMemo.key(for: request) : nil
            if let memoKey, let known = memo?[memoKey] {
                var operation = known.operation
                operation.responseHeaders = corsHeaders
                return (.forward(operation), memoKey, known.sharedCacheKey)
            }
            var operation = try resolve(request)
            if let memoKey { memo?[memoKey] = MemoizedOperation(operation: operation, sharedCacheKey: nil) }
            operation.responseHeaders = corsHeaders
            return (.forward(operation), memoKey, nil)
        } catch let answer as EarlyAnswer {
            var response = answer.response
            response.headers.fields += corsHeaders.fields
            return (.respond(response, apqEvent: answer.apqEvent), nil, nil)
        } catch {
            preconditionFailure("prepare throws only EarlyAnswer")
        }
    }

    /// An answer decided before any fetch; thrown to leave `prepare` early.
    private struct EarlyAnswer: Error {
        let response: HTTPResponse
        var apqEvent: RequestStatistics.APQEvent?

        init(_ error: GraphQLErrorResponse) {
            response = error.response
            switch error.code {
            case GraphQLErrorResponse.persistedQueryNotFound.code: apqEvent = .notFound
            case GraphQLErrorResponse.hashMismatch.code: apqEvent = .hashMismatch
            default: apqEvent = nil
            }
        }

        init(_ response: HTTPResponse) { self.response = response }
    }

    /// The checks every request passes before its parameters are read: limits, route, method,
    /// media type, preflight.
    private func check(_ request: HTTPRequest) throws(EarlyAnswer) {
        // The request-target is what CDNs limit; measure it before anything else.
        let targetLength = request.target.utf8.count
        if targetLength > maxURIBytes { throw EarlyAnswer(.uriTooLong(length: targetLength, limit: maxURIBytes)) }
        let headerLength = Self.headerLength(of: request)
        if headerLength > maxHeaderBytes {
            throw EarlyAnswer(.headersTooLarge(length: headerLength, limit: maxHeaderBytes))
        }
        guard request.path == graphqlPath else { throw EarlyAnswer(.notFound(path: request.path)) }
        switch request.method {
        case "GET":
            break
        case "POST":
            if request.body.count > maxBodyBytes {
                throw EarlyAnswer(.bodyTooLarge(length: request.body.count, limit: maxBodyBytes))
            }
            guard MediaType.isJSON(request.headers["Content-Type"]) else {
                throw EarlyAnswer(.unsupportedMediaType(request.headers["Content-Type"]))
            }
        case "OPTIONS" where cors != nil:
            throw EarlyAnswer(cors!.preflight(origin: request.headers["Origin"]))
        default:
            throw EarlyAnswer(.methodNotAllowed(request.method.token))
        }
    }

    /// Parses, resolves and analyses a request that passed `check`.
    private func resolve(_ request: HTTPRequest) throws(EarlyAnswer) -> PreparedOperation {
        do {
            let graphQLRequest = try GraphQLRequestParser.parse(request)
            let document = try resolver.resolve(graphQLRequest)
            let operation = try select(graphQLRequest, in: document)
            if document.shouldRegister {
                resolver.registry.register(document.digest, document: document.text)
            }
            let operationName = operation.name ?? graphQLRequest.operationName
            return PreparedOperation(
                document: document, operationName: operationName, kind: operation.kind,
                variables: graphQLRequest.variables, clientMethod: graphQLRequest.method,
                origin: OriginRequest.make(
                    document: document.text, operationName: graphQLRequest.operationName,
                    variables: graphQLRequest.variables, path: originPath, preferGET: originPrefersGET,
                    isQuery: operation.kind == .query, maxGetTargetBytes: maxGetTargetBytes),
                responseHeaders: [:])
        } catch {
            throw EarlyAnswer(error)
        }
    }

    /// The operation the request runs; mutations only over POST, no subscriptions.
    private func select(_ request: GraphQLRequest, in document: ResolvedDocument) throws(GraphQLErrorResponse)
        -> OperationAnalysis.Operation
    {
        let operation: OperationAnalysis.Operation
        do {
            operation = try documents.analysis(for: document.digest, document: document.text)
                .select(operationName: request.operationName)
        } catch {
            throw .documentError(error)
        }
        switch operation.kind {
        case .query: break
        case .mutation where request.method == .get: throw .mutationOverGET("mutation")
        case .mutation: break
        case .subscription: throw .subscriptionNotSupported
        }
        return operation
    }

    /// Bytes of the request line and header fields as they came on the wire (HTTP/1.1).
    private static func headerLength(of request: HTTPRequest) -> Int {
        request.headers.fields.reduce(request.method.token.utf8.count + request.target.utf8.count + 12) {
            $0 + $1.name.utf8.count + $1.value.utf8.count + 4
        }
    }
}
