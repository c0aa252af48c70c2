// The digests of documents remembered by exact text: always the digest hashing gives, for
// canonically equivalent spellings too, and bounded by the text they hold.

@testable import BreakwaterCore
import Testing
import BreakwaterFixtures

@Suite struct DocumentDigestsTests {
    let hasher = SoftwareSHA256()

    @Test func aRememberedDigestIsTheOneHashingGives() {
        let digests = DocumentDigests()
        let text = "query A { launch(id: \"1\") { id } }"
        #expect(digests.digest(of: text, hasher: hasher) == hasher.sha256(text))
        #expect(digests.count == 1)
        #expect(digests.digest(of: text, hasher: hasher) == hasher.sha256(text))
        #expect(digests.count == 1)
    }

    @Test func canonicallyEquivalentSpellingsKeepTheirOwnDigests() {
        let digests = DocumentDigests()
        let composed = "query A { launch(id: \"caf\u{E9}\") { id } }"
        let decomposed = "query A { launch(id: \"cafe\u{301}\") { id } }"
        #expect(composed == decomposed)  // Swift's own equality would mix them up
        #expect(digests.digest(of: composed, hasher: hasher) == hasher.sha256(composed))
        #expect(digests.digest(of: decomposed, hasher: hasher) == hasher.sha256(decomposed))
        #expect(hasher.sha256(composed) != hasher.sha256(decomposed))
        #expect(digests.count == 2)
    }

    @Test func theTextHeldStaysWithinItsBound() {
        let digests = DocumentDigests(maxTextBytes: 1000)
        for index in 0..<100 {
            let text = "query Q\(index) { launch(id: \"\(index)\") { id site } }"  // about 45 bytes
            #expect(digests.digest(of: text, hasher: hasher) == hasher.sha256(text))
            #expect(digests.count * 45 <= 1100)
        }
        // A document over a quarter of the bound is hashed, never remembered.
        let big = String(repeating: "a", count: 300)
        let before = digests.count
        #expect(digests.digest(of: big, hasher: hasher) == hasher.sha256(big))
        #expect(digests.count == before)
    }
}
