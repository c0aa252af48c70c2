// ProxyHandler performing the flows' steps on a real event loop, in-process, against a scripted
// origin in place of its pool (OriginSending): one fetch for many waiters, each answered on its
// own, a stored answer served without the origin, a mutation's purge performed before its answer
// goes out, and the origin's failures turned into the flow's answers.

import BreakwaterCore
import Dispatch
import Synchronization
import Testing

@testable import BreakwaterServer

/// The origin as a test scripts it: records what the proxy sends and answers when told to.
/// Touched only on the loop's thread.
final class ScriptedOrigin: OriginSending, @unchecked Sendable {
    private(set) var requests: [UpstreamRequest] = []
    private var pending: [(UpstreamResult) -> Void] = []
    /// Exchanges the proxy cancelled (nobody waited on them any more).
    private(set) var cancelled = 0

    func cancel(_ receiver: any OriginReceiving) { cancelled += 1 }

    func send(_ request: UpstreamRequest, completion: @escaping (UpstreamResult) -> Void) {
        requests.append(request)
        pending.append(completion)
    }

    /// Answers every request waiting so far with `result`.
    func answerAll(_ result: UpstreamResult) {
        let waiting = pending
        pending.removeAll()
        for completion in waiting { completion(result) }
    }
}

/// The answers a handler gives, from any thread, with a wait for the next ones.
final class RecordingResponder: HTTPResponder {
    private let answers = Mutex<[HTTPResponse]>([])
    private let arrived = DispatchSemaphore(value: 0)

    func respond(_ response: HTTPResponse) {
        answers.withLock { $0.append(response) }
        arrived.signal()
    }

    func closeConnection() { arrived.signal() }

    private let leaveHook = Mutex<(@Sendable () -> Void)?>(nil)

    func whenClientLeaves(_ body: @escaping @Sendable () -> Void) { leaveHook.withLock { $0 = body } }

    /// The client goes away (a reset stream, a closed connection): runs the handler's hook.
    func leave() { leaveHook.withLock { $0.take() }?() }

    /// The answer once it came, within two seconds.
    func answer() -> HTTPResponse? {
        guard arrived.wait(timeout: .now() + 2) == .success else { return nil }
        return answers.withLock { $0.last }
    }

    var count: Int { answers.withLock { $0.count } }
}

@Suite(.serialized) final class ProxyHandlerTests {
    static let detail = #"{"query":"query GetLaunchDetail { launch(id: \"92\") { __typename id site } }"}"#
    static let book = #"{"query":"mutation Book { bookTrips(launchIds: [\"92\"]) { launches { __typename id } } }"}"#
    static let answerBody = #"{"data":{"launch":{"__typename":"Launch","id":"92","site":"KSC"}}}"#

    let group: EventLoopGroup
    let origin = ScriptedOrigin()
    let cache: ProcessCache
    let handler: ProxyHandler

    init() throws {
        var configuration = Configuration()
        configuration.origin.schema = .off
        configuration.cache.rules = [.init(operation: "GetLaunchDetail", ttl: .seconds(30))]
        configuration.logging.accessLog = .off
        group = try EventLoopGroup(count: 1)
        let registry = try PersistedQueryRegistry(maxEntries: 100, store: nil, manifest: nil, hasher: OpenSSLSHA256())
        let settings = ProxySettings(
            configuration: configuration,
            resolver: DocumentResolver(mode: .automatic, registry: registry, hasher: OpenSSLSHA256()),
            documents: DocumentCache(capacity: 100), rewrites: DocumentRewrites())
        cache = ProcessCache(maxBytes: 1 << 20)
        handler = try ProxyHandler(
            loop: group.loops[0], settings: settings, cache: cache, statistics: LoopStatistics(),
            accessLog: ProxyAccessLog(loopCount: 1, logging: configuration.logging).buffers[0], pool: origin)
        // A loop with no event returns at once: a long timer keeps this listener-less one running.
        let loop = group.loops[0]
        loop.execute { loop.schedule(after: .seconds(3600)) {} }
        group.start()
    }

    deinit { group.stopAndWait() }

    /// Runs `work` on the handler's loop and waits for it.
    func onLoop(_ work: @escaping @Sendable () -> Void) {
        let done = DispatchSemaphore(value: 0)
        group.loops[0].execute {
            work()
            done.signal()
        }
        done.wait()
    }

    func post(_ json: String, to responder: RecordingResponder) {
        let request = HTTPRequest(
            method: .post, target: "/graphql", headers: ["Content-Type": "application/json", "Host": "x"],
            body: Array(json.utf8), remoteAddress: "127.0.0.1")
        onLoop { [handler] in handler.handle(request, responder: responder) }
    }

    func originAnswers(_ body: String, status: Int = 200) {
        let response = HTTPResponse(status: status, headers: ["Content-Type": "application/json"], body: body)
        onLoop { [origin] in origin.answerAll(.response(response)) }
    }

    var originRequestCount: Int {
        let count = Mutex(0)
        onLoop { [origin] in count.withLock { $0 = origin.requests.count } }
        return count.withLock { $0 }
    }

    @Test func theLastWaiterLeavingCancelsTheOriginExchangeAndTheNextMissFetchesAgain() throws {
        let waiters = (0..<2).map { _ in RecordingResponder() }
        for waiter in waiters { post(Self.detail, to: waiter) }
        #expect(originRequestCount == 1)
        onLoop { waiters[0].leave() }
        #expect(cancelledCount == 0, "another client still waits on the fetch")
        onLoop { waiters[1].leave() }
        #expect(cancelledCount == 1, "nobody waits: the exchange is cancelled")
        // The cancelled exchange's late answer answers nobody.
        originAnswers(Self.answerBody)
        #expect(waiters.allSatisfy { $0.count == 0 })
        let next = RecordingResponder()
        post(Self.detail, to: next)
        #expect(originRequestCount == 2, "the key is idle again: a new fetch")
        originAnswers(Self.answerBody)
        #expect(next.answer()?.status == 200)
    }

    /// Exchanges the handler cancelled, read on its loop.
    var cancelledCount: Int {
        let count = Mutex(0)
        onLoop { [origin] in count.withLock { $0 = origin.cancelled } }
        return count.withLock { $0 }
    }

    @Test func oneFetchAnswersEveryWaiterAndTheStoredAnswerServesTheNext() throws {
        let waiters = (0..<3).map { _ in RecordingResponder() }
        for waiter in waiters { post(Self.detail, to: waiter) }
        #expect(originRequestCount == 1, "the waiters joined the first fetch")
        #expect(waiters.allSatisfy { $0.count == 0 }, "nobody is answered before the origin")
        originAnswers(Self.answerBody)
        for waiter in waiters {
            let answer = try #require(waiter.answer())
            #expect(answer.status == 200)
            #expect(answer.headers["X-Cache"] == "MISS")
            #expect(String(decoding: answer.completeBody, as: UTF8.self) == Self.answerBody)
        }
        let later = RecordingResponder()
        post(Self.detail, to: later)
        let hit = try #require(later.answer())
        #expect(hit.headers["X-Cache"] == "HIT")
        #expect(originRequestCount == 1, "a hit does not reach the origin")
    }

    @Test func aMutationsPurgeIsPerformedBeforeItsAnswerGoesOut() throws {
        let reader = RecordingResponder()
        post(Self.detail, to: reader)
        originAnswers(Self.answerBody)
        _ = try #require(reader.answer())
        #expect(cache.store.statistics.entries == 1)
        let booker = RecordingResponder()
        post(Self.book, to: booker)
        originAnswers(#"{"data":{"bookTrips":{"launches":[{"__typename":"Launch","id":"92"}]}}}"#)
        let booked = try #require(booker.answer())
        #expect(booked.headers["X-Cache"] == "BYPASS")
        #expect(cache.store.statistics.entries == 0, "Launch:92 was purged by the time the mutation was answered")
        let again = RecordingResponder()
        post(Self.detail, to: again)
        #expect(originRequestCount == 3, "the purged read goes to the origin again")
    }

    @Test(arguments: [
        (UpstreamResult.failure(.timeout), 504, "ORIGIN_TIMEOUT"),
        (.failure(.refused("connection refused")), 502, "ORIGIN_UNAVAILABLE"),
    ])
    func anOriginFailureWithoutAStaleEntryIsTheFlowsError(result: UpstreamResult, status: Int, code: String) throws {
        let client = RecordingResponder()
        post(Self.detail, to: client)
        onLoop { [origin] in origin.answerAll(result) }
        let answer = try #require(client.answer())
        #expect(answer.status == status)
        #expect(AnswerErrorCode.code(in: answer.completeBody) == code)
        #expect(cache.store.statistics.entries == 0, "a failure is never stored")
    }
}
