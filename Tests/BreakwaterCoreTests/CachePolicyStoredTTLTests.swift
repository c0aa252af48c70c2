// The TTL a reload's settings give entries stored earlier (docs/OPERATING.md, "Signals"): a lowered
// rule, `default_ttl` or `cache.types` TTL cuts them, a raised one lengthens none, and an entry
// whose TTL the origin decided keeps it unless the new settings take the decision away.

import BreakwaterCore
import BreakwaterFixtures
import Testing

struct CachePolicyStoredTTLTests {
    static let launch = #"{"data":{"launch":{"__typename":"Launch","id":"92","site":"KSC"}}}"#

    static func settings(
        rule: Duration? = .seconds(300), defaultTTL: Duration = .zero, honorOrigin: Bool = true,
        launchTTL: Duration? = nil
    ) -> Configuration.Cache {
        var settings = Configuration.Cache()
        settings.defaultTTL = defaultTTL
        settings.honorOriginCacheControl = honorOrigin
        if let rule { settings.rules = [Configuration.CacheRule(operation: "GetLaunch", ttl: rule)] }
        if let launchTTL { settings.types = ["Launch": Configuration.TypePolicy(ttl: launchTTL)] }
        return settings
    }

    /// The entry `settings` store for an answer of `operation` carrying `cacheControl`.
    static func stored(
        under settings: Configuration.Cache, operation: String = "GetLaunch", cacheControl: String? = nil
    ) throws -> CacheEntry {
        var headers = HTTPHeaders()
        headers.add("Content-Type", "application/json")
        if let cacheControl { headers.add("Cache-Control", cacheControl) }
        let decision = CachePolicy(settings).storage(
            of: HTTPResponse(status: 200, headers: headers, body: launch), operationName: operation)
        guard case .store(let ttl, let tags, let basis) = decision else {
            throw StoredTTLTestError.notStored("\(decision)")
        }
        return StoreFixture.entry(
            key: StoreFixture.key(1), ttl: ttl, operationName: operation, tags: tags, ttlBasis: basis)
    }

    struct Change: Sendable, CustomTestStringConvertible {
        var label: String
        var before: Configuration.Cache
        var after: Configuration.Cache
        var operation = "GetLaunch"
        var cacheControl: String?
        /// The TTL stored under `before`.
        var stored: Duration
        /// The TTL cut to under `after`; nil: kept.
        var lowered: Duration?
        var testDescription: String { label }
    }

    static let changes: [Change] = [
        Change(
            label: "a lowered rule cuts", before: settings(rule: .seconds(300)), after: settings(rule: .seconds(1)),
            stored: .seconds(300), lowered: .seconds(1)),
        Change(
            label: "a raised rule lengthens nothing", before: settings(rule: .seconds(300)),
            after: settings(rule: .seconds(900)), stored: .seconds(300), lowered: nil),
        Change(
            label: "a rule of 0s ends freshness", before: settings(rule: .seconds(300)), after: settings(rule: .zero),
            stored: .seconds(300), lowered: .zero),
        Change(
            label: "a new rule beats the origin's lifetime", before: settings(rule: nil),
            after: settings(rule: .seconds(5)), cacheControl: "max-age=600", stored: .seconds(600),
            lowered: .seconds(5)),
        Change(
            label: "a lowered default_ttl cuts what it decided", before: settings(rule: nil, defaultTTL: .seconds(60)),
            after: settings(rule: nil, defaultTTL: .seconds(2)), stored: .seconds(60), lowered: .seconds(2)),
        Change(
            label: "a lowered default_ttl leaves what the origin decided",
            before: settings(rule: nil, defaultTTL: .seconds(60)), after: settings(rule: nil, defaultTTL: .seconds(2)),
            cacheControl: "max-age=600", stored: .seconds(600), lowered: nil),
        Change(
            label: "the origin no longer honoured: default_ttl decides",
            before: settings(rule: nil, defaultTTL: .seconds(2)),
            after: settings(rule: nil, defaultTTL: .seconds(2), honorOrigin: false), cacheControl: "s-maxage=600",
            stored: .seconds(600), lowered: .seconds(2)),
        Change(
            label: "the origin honoured again, its lifetime shorter",
            before: settings(rule: nil, defaultTTL: .seconds(60), honorOrigin: false),
            after: settings(rule: nil, defaultTTL: .seconds(60)), cacheControl: "max-age=3", stored: .seconds(60),
            lowered: .seconds(3)),
        Change(
            label: "a new cache.types TTL of a type the answer holds", before: settings(rule: .seconds(300)),
            after: settings(rule: .seconds(300), launchTTL: .seconds(10)), stored: .seconds(300),
            lowered: .seconds(10)),
        Change(
            label: "a lowered cache.types TTL", before: settings(rule: .seconds(300), launchTTL: .seconds(60)),
            after: settings(rule: .seconds(300), launchTTL: .seconds(20)), stored: .seconds(60),
            lowered: .seconds(20)),
        Change(
            label: "a rule of another operation", before: settings(rule: .seconds(300)),
            after: settings(rule: .seconds(1)), operation: "GetLaunchDetail", cacheControl: "max-age=100",
            stored: .seconds(100), lowered: nil),
    ]

    @Test(arguments: changes)
    func aReloadCutsWhatItLowersAndNothingElse(_ change: Change) throws {
        let entry = try Self.stored(under: change.before, operation: change.operation, cacheControl: change.cacheControl)
        #expect(entry.ttl == change.stored)
        #expect(CachePolicy(change.after).loweredTTL(of: entry) == change.lowered)
        // Unchanged settings cut nothing.
        #expect(CachePolicy(change.before).loweredTTL(of: entry) == nil)
    }

    /// An entry from the fleet tier or a snapshot keeps no basis: what is known bounds it (the
    /// rule, `default_ttl` when the origin is not honoured, the types its tags name), never less.
    @Test func anEntryWithoutABasisIsBoundedByWhatIsKnown() {
        let entry = StoreFixture.entry(
            key: StoreFixture.key(1), ttl: .seconds(600), operationName: "GetLaunch", tags: ["Launch", "Launch:92"])
        #expect(CachePolicy(Self.settings(rule: .seconds(5))).loweredTTL(of: entry) == .seconds(5))
        #expect(CachePolicy(Self.settings(rule: nil, defaultTTL: .seconds(2))).loweredTTL(of: entry) == nil)
        #expect(
            CachePolicy(Self.settings(rule: nil, defaultTTL: .seconds(2), honorOrigin: false)).loweredTTL(of: entry)
                == .seconds(2))
        #expect(CachePolicy(Self.settings(rule: nil, launchTTL: .seconds(30))).loweredTTL(of: entry) == .seconds(30))
        #expect(CachePolicy(Self.settings(rule: .seconds(900))).loweredTTL(of: entry) == nil)
    }

    /// The cut copy is the same answer stored at the same instants, announcing its new TTL.
    @Test func theCutEntryKeepsItsAnswerAndAnnouncesTheNewTTL() throws {
        let entry = try Self.stored(under: Self.settings(rule: .seconds(300)))
        let cut = entry.withTTL(.seconds(1))
        #expect(cut.ttl == .seconds(1))
        #expect(cut.body == entry.body && cut.etag == entry.etag && cut.tags == entry.tags)
        #expect(cut.storedAt == entry.storedAt && cut.storedAtWallClock == entry.storedAtWallClock)
        #expect(cut.cost == entry.cost)
        #expect(cut.ttlBasis == entry.ttlBasis)
        #expect(entry.publicCacheControl.contains("max-age=300"))
        #expect(cut.publicCacheControl.contains("max-age=1,") || cut.publicCacheControl.hasSuffix("max-age=1"))
    }
}

enum StoredTTLTestError: Error {
    case notStored(String)
}
