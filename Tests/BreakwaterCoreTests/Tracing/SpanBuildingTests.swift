// The spans of a traced request and of its fetch (docs/TRACING.md, "What is exported"): names,
// kinds, parent links and attributes, built from the facts at hand.

import BreakwaterCore
import Testing

struct SpanBuildingTests {
    static let client = TraceParent.parse("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01")!

    static func request(waited: Bool = false) -> TracedRequest {
        let trace = TracedRequest(
            context: client.child(SpanID(0x11)), parent: client.spanID, start: 1_000, method: "GET", path: "/graphql",
            protocolVersion: .http2)
        trace.operationName = "GetLaunches"
        trace.operationKind = .query
        trace.documentHash = SHA256Digest(hex: String(repeating: "ab", count: 32))
        trace.cacheKey = CacheKey(digest: SHA256Digest(hex: String(repeating: "cd", count: 32))!)
        trace.requestID = "req-1"
        trace.decided = 1_200
        if waited { trace.waitStarted = 1_300 }
        return trace
    }

    @Test func aHitIsARequestSpanUnderTheClientsSpanWithItsCacheDecision() throws {
        let spans = Self.request().spans(status: 200, cache: .hit, end: 2_000, ids: RandomTraceIDs(seed: 1))
        try #require(spans.count == 2)
        let request = spans[0]
        #expect(request.name == "GET /graphql")
        #expect(request.kind == .server)
        #expect(request.traceID == Self.client.traceID)
        #expect(request.parentSpanID == Self.client.spanID)
        #expect(request.spanID == SpanID(0x11))
        #expect((request.start, request.end) == (1_000, 2_000))
        #expect(request[TraceAttributes.httpMethod] == .string("GET"))
        #expect(request[TraceAttributes.httpStatus] == .int(200))
        #expect(request[TraceAttributes.protocolVersion] == .string("2"))
        #expect(request[TraceAttributes.operationName] == .string("GetLaunches"))
        #expect(request[TraceAttributes.operationType] == .string("query"))
        #expect(request[TraceAttributes.documentHash] == .string(String(repeating: "ab", count: 32)))
        #expect(request[TraceAttributes.cache] == .string("HIT"))
        #expect(request[TraceAttributes.requestID] == .string("req-1"))
        #expect(request.error == nil)
        let decision = spans[1]
        #expect(decision.name == TraceSpanNames.cacheDecision)
        #expect(decision.kind == .internal)
        #expect(decision.parentSpanID == request.spanID)
        #expect(decision.traceID == Self.client.traceID)
        #expect(decision.spanID != request.spanID)
        #expect((decision.start, decision.end) == (1_000, 1_200))
        #expect(decision[TraceAttributes.cacheResult] == .string("HIT"))
        #expect(decision[TraceAttributes.cacheKey] == .string(String(repeating: "cd", count: 32)))
        #expect(decision[TraceAttributes.bypassReason] == nil)
    }

    @Test func aBypassNamesItsReasonAndAFailureIsAnError() throws {
        let trace = Self.request()
        trace.bypassReason = .originFailure
        let spans = trace.spans(status: 502, cache: .bypass, end: 3_000, ids: RandomTraceIDs(seed: 1))
        #expect(spans[0].error != nil, "a 5xx is the server's failure")
        #expect(spans[1][TraceAttributes.bypassReason] == .string("origin-failure"))
        let clientError = Self.request().spans(status: 400, cache: .bypass, end: 3_000, ids: RandomTraceIDs(seed: 1))
        #expect(clientError[0].error == nil, "a 4xx is the client's")
    }

    @Test func aWaiterOfACoalescedFetchHasItsWait() throws {
        let spans = Self.request(waited: true).spans(status: 200, cache: .miss, end: 5_000, ids: RandomTraceIDs(seed: 1))
        let wait = try #require(spans.first { $0.name == TraceSpanNames.coalescedWait })
        #expect(wait.parentSpanID == SpanID(0x11))
        #expect((wait.start, wait.end) == (1_300, 5_000))
    }

    @Test func anAnswerThatIsNoGraphQLAnswerHasNoCacheDecision() {
        let spans = Self.request().spans(status: 204, cache: nil, end: 1_500, ids: RandomTraceIDs(seed: 1))
        #expect(spans.map(\.name) == ["GET /graphql"])
    }

    @Test func theOriginFetchIsTheChildTheOriginsTraceparentNames() throws {
        let trace = Self.request()
        let fetch = trace.fetch(ids: RandomTraceIDs(seed: 3))
        #expect(fetch.originContext.traceID == Self.client.traceID)
        #expect(fetch.originContext.spanID == fetch.originSpanID)
        #expect(fetch.originContext.flags == Self.client.flags)
        let span = fetch.originFetch(
            start: 1_210, end: 1_900, method: "POST", host: "127.0.0.1", port: 4000, status: 200, failure: nil,
            reused: true, attempt: 1)
        #expect(span.kind == .client)
        #expect(span.spanID == fetch.originSpanID)
        #expect(span.parentSpanID == trace.context.spanID)
        #expect(span[TraceAttributes.connectionReused] == .bool(true))
        #expect(span[TraceAttributes.attempt] == .int(1))
        #expect(span[TraceAttributes.httpStatus] == .int(200))
        #expect(span[TraceAttributes.serverPort] == .int(4000))
        let failed = fetch.originFetch(
            start: 1, end: 2, method: "POST", host: "h", port: 1, status: nil, failure: "refused", reused: false,
            attempt: 2)
        #expect(failed.error == "refused")
        #expect(failed[TraceAttributes.httpStatus] == nil)
    }

    @Test func theFleetStepsHangUnderTheRequestSpan() {
        let fetch = Self.request().fetch(ids: RandomTraceIDs(seed: 3))
        let ids = RandomTraceIDs(seed: 4)
        let l2 = fetch.l2Lookup(start: 1, end: 2, hit: false, ids: ids)
        let lease = fetch.lease(start: 2, end: 3, acquired: false, ids: ids)
        let wait = fetch.fleetWait(start: 3, end: 9, arrived: true, ids: ids)
        #expect([l2.name, lease.name, wait.name] == [TraceSpanNames.l2Lookup, TraceSpanNames.fleetLease, TraceSpanNames.fleetWait])
        #expect([l2, lease, wait].allSatisfy { $0.parentSpanID == SpanID(0x11) && $0.traceID == Self.client.traceID })
        #expect(Set([l2.spanID, lease.spanID, wait.spanID]).count == 3)
        #expect(l2[TraceAttributes.l2Result] == .string("miss"))
        #expect(lease[TraceAttributes.leaseAcquired] == .bool(false))
        #expect(wait[TraceAttributes.leaseEntryArrived] == .bool(true))
    }

    @Test func aPurgeCallIsARootSpanOfItsOwn() {
        let context = SpanContext(traceID: TraceID(high: 1, low: 2), spanID: SpanID(3), flags: 1)
        let span = PurgeTrace.span(
            context: context, target: "varnish", method: "PURGE", url: OriginURL(parsing: "http://127.0.0.1:6081/")!,
            purges: 4, attempt: 1, status: 503, failure: nil, start: 10, end: 20)
        #expect(span.parentSpanID == nil)
        #expect(span.kind == .client)
        #expect(span[TraceAttributes.cdnPurges] == .int(4))
        #expect(span.error != nil)
    }

    @Test func aSpanNeverEndsBeforeItStarts() {
        let span = Span(name: "x", kind: .internal, context: Self.client, parent: nil, start: 10, end: 5)
        #expect(span.end == 10)
    }
}
