// A request flow over real core parts (registry, endpoint, store, policy) and a manual clock,
// with no sockets: what the flow tests drive.

@testable import BreakwaterCore
import BreakwaterFixtures

/// One proxy's flow settings, built from a configuration.
final class FlowFixture {
    static let hasher = SoftwareSHA256()
    static let launchDocument = "query GetLaunch($id: ID!) { launch(id: $id) { id site } }"
    static let launchDigest = hasher.sha256(launchDocument)
    static let mutationDocument = "mutation Book($ids: [ID]!) { bookTrips(launchIds: $ids) { success } }"

    let clock = ManualClock()
    let registry: PersistedQueryRegistry
    let store: ResponseStore
    let environment: FlowEnvironment
    let memo = OperationMemo()

    init(
        configure: (inout Configuration) -> Void = { _ in }, maxRegistryEntries: Int = 100, maxBytes: Int = 1 << 20,
        sharesDocuments: Bool = false, sharesResponses: Bool = false, rewrites: DocumentRewrites? = nil,
        expectsSchema: Bool = false
    ) {
        var configuration = Configuration()
        configuration.cache.rules = [
            .init(operation: "GetLaunch", ttl: .seconds(30)),
            .init(operation: "Me", ttl: .seconds(30), scope: .perUser),
        ]
        configuration.cache.staleWhileRevalidate = .seconds(10)
        configuration.cache.staleIfError = .seconds(60)
        configure(&configuration)
        registry = try! PersistedQueryRegistry(
            maxEntries: maxRegistryEntries, store: nil, manifest: nil, hasher: Self.hasher)
        store = ResponseStore(maxBytes: maxBytes)
        let endpoint = GraphQLEndpoint(
            configuration: configuration,
            resolver: DocumentResolver(mode: .automatic, registry: registry, hasher: Self.hasher),
            documents: DocumentCache(capacity: 100))
        environment = FlowEnvironment(
            endpoint: endpoint, policy: CachePolicy(configuration.cache, forwardHeaders: configuration.origin.forwardHeaders),
            store: store, upstreamHeaders: UpstreamHeaders(forwardHeaders: configuration.origin.forwardHeaders),
            hasher: Self.hasher, clock: clock, sharesDocuments: sharesDocuments, sharesResponses: sharesResponses,
            originTimeout: .seconds(5), rewrites: rewrites, perUserOperations: PerUserOperations(),
            expectsSchema: expectsSchema)
    }

    /// A flow for `request`, started; returns the flow (for later events and effects) and its step.
    func start(_ request: HTTPRequest) -> (RequestFlow, RequestFlow.Step) {
        var flow = RequestFlow(request: request, environment: environment, memo: memo)
        let step = flow.start()
        return (flow, step)
    }

    /// A flow started on a loop whose memo has not seen `request` (another event loop).
    func startElsewhere(_ request: HTTPRequest) -> RequestFlow.Step {
        var flow = RequestFlow(request: request, environment: environment, memo: nil)
        return flow.start()
    }

    /// Performs a flow's registration effects as the server layer does.
    func perform(_ effects: [RequestFlow.Effect]) {
        for case .register(let document, _) in effects { registry.register(document.digest, document: document.text) }
    }

    // MARK: Requests

    static func hashedGET(
        _ digest: SHA256Digest = launchDigest, id: String = "1", headers: HTTPHeaders = [:]
    ) -> HTTPRequest {
        let extensions = #"{"persistedQuery":{"version":1,"sha256Hash":"\#(digest.hex)"}}"#
        let target = "/graphql?operationName=GetLaunch&variables=" + QueryString.encode(#"{"id":"\#(id)"}"#)
            + "&extensions=" + QueryString.encode(extensions)
        return HTTPRequest(method: .get, target: target, headers: headers)
    }

    static func register(_ document: String = launchDocument, id: String = "1") -> HTTPRequest {
        let digest = hasher.sha256(document)
        var body: [UInt8] = []
        body += Array(#"{"query":"#.utf8)
        JSONWriter.quotedString(document, into: &body)
        body += Array(#","variables":{"id":"\#(id)"},"extensions":{"persistedQuery":{"version":1,"sha256Hash":"\#(digest.hex)"}}}"#.utf8)
        return HTTPRequest(method: .post, target: "/graphql", headers: ["Content-Type": "application/json"], body: body)
    }

    static func post(_ json: String, headers: HTTPHeaders = [:]) -> HTTPRequest {
        var all: HTTPHeaders = ["Content-Type": "application/json"]
        all.fields += headers.fields
        return HTTPRequest(method: .post, target: "/graphql", headers: all, body: Array(json.utf8))
    }

    /// An origin answer: 200 JSON unless told otherwise.
    static func answer(
        _ body: String = #"{"data":{"launch":{"id":"1","site":"KSC"}}}"#, status: Int = 200,
        headers: HTTPHeaders = ["Content-Type": "application/json"]
    ) -> UpstreamResult {
        .response(HTTPResponse(status: status, headers: headers, body: body))
    }
}

extension RequestFlow.Step {
    var reply: FlowReply? {
        if case .reply(let reply) = self { return reply }
        return nil
    }

    var joinedPlan: FetchPlan? {
        if case .join(let plan) = self { return plan }
        return nil
    }
}

extension FetchFlow.Step {
    var outcome: FetchOutcome? {
        if case .finish(let outcome) = self { return outcome }
        return nil
    }
}
