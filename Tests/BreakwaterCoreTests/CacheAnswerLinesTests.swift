// A 200 from the cache carries its per-request lines as values (`CacheAnswerLines`) and texts
// that outlive it (`StableText`): the same fields, in the same order, as the listed form it replaces, which
// every other answer (a 304, a fresh answer with the TTL left) still uses.

import BreakwaterCore
import BreakwaterFixtures
import Testing

struct CacheAnswerLinesTests {
    /// A client as a request flow makes it: `Vary` with its stable copy, and a CORS field.
    static func client(isGET: Bool = true, wantsGraphQLResponseJSON: Bool = false) -> ClientView {
        ClientView(
            isGET: isGET, ifNoneMatch: [], wantsGraphQLResponseJSON: wantsGraphQLResponseJSON,
            extraHeaders: ["Access-Control-Allow-Origin": "*"], vary: "Accept, Accept-Encoding")
    }

    /// The same client without the stable copy of `Vary`: its answers list every field.
    static func listing(_ client: ClientView) -> ClientView {
        var client = client
        client.vary = client.vary.map { .listed($0.text) }
        return client
    }

    @Test(arguments: [(true, false), (false, false), (true, true)])
    func aHitOrStaleAnswerCarriesTheListedFormsFieldsInItsOrder(isFresh: Bool, wantsGraphQLResponseJSON: Bool) {
        let entry = StoreFixture.entry(key: StoreFixture.key(1), ttl: .seconds(60))
        let client = Self.client(wantsGraphQLResponseJSON: wantsGraphQLResponseJSON)
        let answer = ClientAnswer.fromEntry(entry, age: .seconds(5), isFresh: isFresh, client: client)
        let listed = ClientAnswer.fromEntry(entry, age: .seconds(5), isFresh: isFresh, client: Self.listing(client))
        #expect(answer.cacheLines != nil)
        #expect(listed.cacheLines == nil)
        #expect(answer.headers == listed.headers)
        #expect(
            answer.headers.fields.map(\.name)
                == ["X-Cache", "Age", "Cache-Control", "Vary", "Access-Control-Allow-Origin", "Content-Type"])
        #expect(answer.headers["X-Cache"] == (isFresh ? "HIT" : "STALE"))
        #expect(answer.headerValue("Age") == "5")
        #expect(answer.headerValue("Content-Type") == (wantsGraphQLResponseJSON ? "application/graphql-response+json" : "application/json"))
        #expect(answer.prebuilt?.storageAddress == entry.response.storageAddress)
    }

    @Test func aStoredAnswerAndAPOSTAnswerCarryTheirLinesToo() {
        let entry = StoreFixture.entry(key: StoreFixture.key(1), ttl: .seconds(60))
        let stored = ClientAnswer.stored(entry, client: Self.client())
        #expect(stored.cacheLines?.cache == .miss)
        #expect(stored.headers == ClientAnswer.stored(entry, client: Self.listing(Self.client())).headers)
        let post = ClientAnswer.fromEntry(entry, age: .zero, isFresh: true, client: Self.client(isGET: false))
        #expect(post.cacheLines?.cacheControl.string == "private, no-store")
        #expect(
            post.headers
                == ClientAnswer.fromEntry(entry, age: .zero, isFresh: true, client: Self.listing(Self.client(isGET: false)))
                .headers)
    }

    @Test func conditionalAndRemainingTTLAnswersListTheirFields() {
        let entry = StoreFixture.entry(key: StoreFixture.key(1), ttl: .seconds(60))
        var conditional = Self.client()
        conditional.ifNoneMatch = [StoreFixture.etag]
        #expect(ClientAnswer.fromEntry(entry, age: .zero, isFresh: true, client: conditional).cacheLines == nil)
        var remaining = Self.client()
        remaining.sendsRemainingTTL = true
        let fresh = ClientAnswer.fromEntry(entry, age: .seconds(20), isFresh: true, client: remaining)
        #expect(fresh.cacheLines == nil)
        #expect(fresh.headers["Cache-Control"]?.hasPrefix("public, max-age=40") == true)
        // A stale one says max-age=0 whatever is left: no Age, and its lines as values.
        let stale = ClientAnswer.fromEntry(entry, age: .seconds(70), isFresh: false, client: remaining)
        #expect(stale.cacheLines != nil)
        #expect(stale.headers["Age"] == nil)
        #expect(stale.headers["Cache-Control"]?.hasPrefix("public, max-age=0") == true)
    }

    @Test func changingTheHeadersTurnsTheLinesIntoListedFields() {
        let entry = StoreFixture.entry(key: StoreFixture.key(1))
        let answer = ClientAnswer.fromEntry(entry, age: .zero, isFresh: true, client: Self.client())
        var changed = answer
        changed.headers.add("Surrogate-Control", "no-store")
        #expect(changed.cacheLines == nil)
        #expect(changed.headers.fields.map(\.name) == answer.headers.fields.map(\.name) + ["Surrogate-Control"])
        // The original is untouched.
        #expect(answer.cacheLines != nil)
        #expect(answer.headers["Surrogate-Control"] == nil)
    }

    @Test func eachOutcomesLiteralSpellsItsHeaderValue() {
        for cache in XCache.allCases {
            let literal = cache.headerLiteral
            #expect(String(decoding: UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount), as: UTF8.self) == cache.headerValue)
        }
    }

    /// Any shorter body does: these tests read the lines, not the body.
    final class HalvingCompressor: BodyCompressing {
        func gzip(_ body: UnsafeRawBufferPointer) -> [UInt8]? { Array(body.prefix(body.count / 2)) }
    }

    @Test func aGzipAnswersLinesOutliveTheEntryTheyCameFrom() {
        // A gzip answer holds the compressed form, not the entry: its texts (the entry shape's
        // bytes) must stay alive through the answer itself.
        var client = Self.client()
        client.gzip = HalvingCompressor()
        var entry: CacheEntry? = StoreFixture.entry(key: StoreFixture.key(1), bodyBytes: 4096, ttl: .seconds(987_654_321))
        let answer = ClientAnswer.fromEntry(entry!, age: .zero, isFresh: true, client: client)
        let listed = ClientAnswer.fromEntry(entry!, age: .zero, isFresh: true, client: Self.listing(client)).headers
        entry = nil
        // Enough other shapes that the intern table lets go of this one, each with texts of its own
        // that would take the freed bytes.
        let others = (0..<5000).map { StoreFixture.entry(key: StoreFixture.key(2), ttl: .seconds(1 + $0)) }
        #expect(answer.cacheLines != nil)
        #expect(answer.headerValue("Content-Encoding") == "gzip")
        #expect(answer.headers == listed)
        withExtendedLifetime(others) {}
    }

    @Test func aTableMakesEachTextOnceAndNoMoreThanItsLimit() {
        let table = StableTextTable(limit: 2)
        let first = table.interned("public, max-age=60")
        #expect(first?.string == "public, max-age=60")
        #expect(table.interned("public, max-age=60")?.start == first?.start)
        #expect(table.interned("Accept") != nil)
        #expect(table.interned("public, max-age=61") == nil)
        #expect(table.interned("Accept")?.string == "Accept")
        #expect(table.interned(String(repeating: "a", count: StableTextTable.longestText + 1)) == nil)
        #expect(StableText("HIT") == StableText("HIT"))
        #expect(StableText("HIT") != StableText("MISS"))
    }
}
