// Two proxies of a fleet in one process, on a manual clock, performing the flows' steps as the
// server does (the in-flight table, lone fetches, the fleet tier and its lease), with an origin
// whose every answer names the fetch that made it: what the sharing property tests drive.

@testable import BreakwaterCore
import BreakwaterFixtures

/// A fleet of proxies over real core parts, driven one event at a time.
final class SharingSimulation {
    /// How the origin answers one fetch.
    enum AnswerKind: CaseIterable {
        case publicTTL, zeroTTL, privateCacheControl, noStore, setCookie, graphQLErrors, varyStar, serverError,
            unreachable
    }

    /// One origin fetch: for whom, with what, and how it was answered.
    struct Fetch {
        /// The client request whose plan it carried (the stale request, for a refresh).
        let request: Int
        let upstream: HTTPHeaders
        let isPerUser: Bool
        let operationName: String?
        let variables: String
        let kind: AnswerKind
    }

    /// A client request and what its answer may depend on.
    struct Request {
        let http: HTTPRequest
        let operationName: String
        let variables: String
    }

    /// Whom a fetch answers.
    private enum Answering {
        case client(Int)
        case alone(Int, CacheKey)
        case waiters(CacheKey)
    }

    private struct Waiter {
        let request: Int
        let plan: FetchPlan
        let proxy: Int
        let client: ClientView
    }

    private final class Run {
        var flow: FetchFlow
        let answering: Answering
        let proxy: Int
        /// The request whose plan this is.
        let request: Int

        init(flow: FetchFlow, answering: Answering, proxy: Int, request: Int) {
            self.flow = flow
            self.answering = answering
            self.proxy = proxy
            self.request = request
        }
    }

    let proxies: [FlowFixture]
    private let tables: [InFlightTable<CacheKey, Waiter>]
    private var tier: [CacheKey: CacheEntry] = [:]
    private var leases: Set<CacheKey> = []
    private var awaitingLease: [CacheKey: [Run]] = [:]
    private var atOrigin: [Run] = []
    private var clients: [Int: ClientView] = [:]
    private(set) var requests: [Request] = []
    private(set) var fetches: [Fetch] = []
    /// Every answer a client got, in order.
    private(set) var answers: [(request: Int, reply: FlowReply)] = []
    private var random: SplitMix64

    init(proxies: [FlowFixture], seed: UInt64) {
        self.proxies = proxies
        tables = proxies.map { _ in InFlightTable() }
        random = SplitMix64(seed: seed)
    }

    /// Fetches waiting for the origin.
    var pendingAtOrigin: Int { atOrigin.count }

    // MARK: Events

    /// `request` arrives at proxy `proxy`, as the server receives it.
    func arrive(_ request: Request, at proxy: Int) {
        let index = requests.count
        requests.append(request)
        var http = request.http
        http.removeConnectionScopedFields()
        let fixture = proxies[proxy]
        var (flow, step) = fixture.start(http)
        fixture.perform(flow.takeEffects())
        clients[index] = flow.client
        let now = fixture.clock.now
        switch step {
        case .reply(let reply):
            answers.append((index, reply))
        case .lookupDocument:
            preconditionFailure("the simulation's proxies share no registry")
        case .fetch(let plan):
            start(plan, answering: .client(index), proxy: proxy, request: index)
        case .join(let plan):
            let key = plan.key!
            let waiter = Waiter(request: index, plan: plan, proxy: proxy, client: flow.client)
            switch tables[proxy].join(key, waiter: waiter, now: now) {
            case .startFetch: start(plan, answering: .waiters(key), proxy: proxy, request: index)
            case .wait: break
            case .fetchAlone: start(plan.alone, answering: .alone(index, key), proxy: proxy, request: index)
            }
        case .replyAndRefresh(let reply, let plan):
            answers.append((index, reply))
            let key = plan.key!
            if tables[proxy].beginRefresh(key) == .startRefresh {
                start(plan, answering: .waiters(key), proxy: proxy, request: index)
            }
        }
    }

    /// The origin answers one waiting fetch, chosen at random, in a way chosen at random.
    func answerOne() {
        guard !atOrigin.isEmpty else { return }
        let run = atOrigin.remove(at: random.next(below: atOrigin.count))
        let kind = AnswerKind.allCases[random.next(below: AnswerKind.allCases.count)]
        let plan = run.flow.plan
        let tag = fetches.count
        fetches.append(
            Fetch(
                request: run.request, upstream: plan.upstreamHeaders.headers, isPerUser: plan.isPerUser,
                operationName: plan.operation.operationName, variables: requests[run.request].variables, kind: kind))
        advance(run, run.flow.originAnswered(Self.answer(kind, tag: tag, operationName: plan.operation.operationName)))
    }

    /// Time passes on every proxy.
    func advanceClocks(by duration: Duration) {
        for proxy in proxies { proxy.clock.advance(by: duration) }
    }

    // MARK: Performing the fetch steps

    private func start(_ plan: FetchPlan, answering: Answering, proxy: Int, request: Int) {
        var flow = FetchFlow(plan: plan, environment: proxies[proxy].environment)
        let first = flow.start()
        advance(Run(flow: flow, answering: answering, proxy: proxy, request: request), first)
    }

    private func advance(_ run: Run, _ step: FetchFlow.Step) {
        for effect in run.flow.takeEffects() {
            switch effect {
            case .storeInTier(let key, _):
                tier[key] = run.flow.storedEntry
            case .releaseLease(let key):
                leases.remove(key)
                for waiting in awaitingLease.removeValue(forKey: key) ?? [] {
                    advance(waiting, waiting.flow.awaitedEntry(tier[key]))
                }
            case .purgeEntities:
                break
            }
        }
        switch step {
        case .lookupTier(let key):
            advance(run, run.flow.tierLookedUp(tier[key], purges: FleetPurgeCount(0)))
        case .acquireLease(let key, _):
            advance(run, run.flow.leaseAnswered(leases.insert(key).inserted))
        case .awaitTierEntry(let key, _):
            awaitingLease[key, default: []].append(run)
        case .send:
            atOrigin.append(run)
        case .finish(let outcome):
            finish(run, outcome)
        }
    }

    private func finish(_ run: Run, _ outcome: FetchOutcome) {
        let table = tables[run.proxy]
        let now = proxies[run.proxy].clock.now
        switch run.answering {
        case .client(let request):
            answers.append((request, outcome.reply(for: clients[request]!)))
        case .alone(let request, let key):
            table.answeredAlone(key, sharing: AnswerSharing(outcome), now: now)
            answers.append((request, outcome.reply(for: clients[request]!)))
        case .waiters(let key):
            let completion = table.complete(key, sharing: AnswerSharing(outcome), now: now)
            for waiter in completion.answered { answers.append((waiter.request, outcome.reply(for: waiter.client))) }
            for waiter in completion.refetching {
                start(waiter.plan.alone, answering: .alone(waiter.request, key), proxy: waiter.proxy, request: waiter.request)
            }
        }
    }

    // MARK: The origin

    /// An answer of `kind` whose every form names fetch `tag` (`tag-<n>`).
    private static func answer(_ kind: AnswerKind, tag: Int, operationName: String?) -> UpstreamResult {
        let data =
            switch operationName {
            case "Viewer": #"{"data":{"me":{"__typename":"User","id":"u","email":"tag-\#(tag)"}}}"#
            case "Odd": #"{"data":{"launch":{"site":"tag-\#(tag)"}}}"#
            default: #"{"data":{"launch":{"__typename":"Launch","id":"1","site":"tag-\#(tag)"}}}"#
            }
        var headers: HTTPHeaders = ["Content-Type": "application/json"]
        switch kind {
        case .publicTTL: headers.add("Cache-Control", "public, max-age=20")
        case .zeroTTL: headers.add("Cache-Control", "max-age=0")
        case .privateCacheControl: headers.add("Cache-Control", "private, max-age=20")
        case .noStore: headers.add("Cache-Control", "no-store")
        case .setCookie:
            headers.add("Cache-Control", "max-age=20")
            headers.add("Set-Cookie", "session=tag-\(tag)")
        case .graphQLErrors:
            headers.add("Cache-Control", "max-age=20")
            return .response(HTTPResponse(status: 200, headers: headers, body: #"{"errors":[{"message":"tag-\#(tag)"}]}"#))
        case .varyStar:
            headers.add("Cache-Control", "max-age=20")
            headers.add("Vary", "*")
        case .serverError:
            return .response(HTTPResponse(status: 503, headers: headers, body: #"{"errors":[{"message":"tag-\#(tag)"}]}"#))
        case .unreachable:
            return .failure(.unreachable("connection refused"))
        }
        return .response(HTTPResponse(status: 200, headers: headers, body: data))
    }

    /// The fetch an answer's body names, if any (Breakwater's own 502 names none).
    static func fetchTag(in body: [UInt8]) -> Int? {
        let marker = Array("tag-".utf8)
        guard body.count > marker.count,
            let start = (0...(body.count - marker.count)).first(where: { body[$0..<($0 + marker.count)].elementsEqual(marker) })
        else { return nil }
        let digits = body[(start + marker.count)...].prefix { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
        return digits.isEmpty ? nil : Int(String(decoding: digits, as: UTF8.self))
    }
}
