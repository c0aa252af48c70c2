// CacheKey: equal inputs give equal keys, every field (and nil versus empty) tells keys apart,
// and no two inputs collide by shifting bytes from one field to the next.

import BreakwaterCore
import Testing
import BreakwaterFixtures

struct CacheKeyTests {
    struct Parts {
        var document = SoftwareSHA256().sha256("{ launches { id } }")
        var operationName: String? = "GetLaunches"
        var variables: [UInt8] = Array(#"{"a":1}"#.utf8)
        var scope: [UInt8]? = nil

        var key: CacheKey {
            CacheKey.make(
                document: document, operationName: operationName, canonicalVariables: variables, scope: scope,
                hasher: SoftwareSHA256()
            )
        }
    }

    /// The layout is fixed: proxies of two versions share keys in the shared tier. A version
    /// byte, the document digest, the operation name (presence byte, 8-byte little-endian length,
    /// bytes), the variables (length, bytes), the scope (presence byte).
    @Test func theKeyIsTheSHA256OfItsDocumentedLayout() {
        let parts = Parts()
        var material: [UInt8] = [1]
        material += parts.document.bytes
        material += [1, 11, 0, 0, 0, 0, 0, 0, 0] + Array("GetLaunches".utf8)
        material += [7, 0, 0, 0, 0, 0, 0, 0] + Array(#"{"a":1}"#.utf8)
        material += [0]
        #expect(parts.key.digest == SoftwareSHA256().sha256(material))
        var unnamed = Parts()
        unnamed.operationName = nil
        material.replaceSubrange(33..<(33 + 9 + 11), with: [0])
        #expect(unnamed.key.digest == SoftwareSHA256().sha256(material))
    }

    @Test func equalInputsGiveEqualKeysAndHashes() {
        #expect(Parts().key == Parts().key)
        #expect(Parts().key.hashValue == Parts().key.hashValue)
    }

    /// One field changed between two otherwise equal sets of parts.
    enum Variation: String, CaseIterable, Sendable {
        case document, operationName, nilVersusEmptyOperationName, variables, emptyVariables
        case perUserVersusPublicScope, emptyVersusPublicScope, differentUsers

        var parts: (Parts, Parts) {
            var first = Parts()
            var second = Parts()
            switch self {
            case .document: second.document = SoftwareSHA256().sha256("{ me { id } }")
            case .operationName: second.operationName = "GetLaunch"
            case .nilVersusEmptyOperationName: (first.operationName, second.operationName) = (nil, "")
            case .variables: second.variables = Array(#"{"a":2}"#.utf8)
            case .emptyVariables: second.variables = []
            case .perUserVersusPublicScope: second.scope = Array("user-1".utf8)
            case .emptyVersusPublicScope: second.scope = []
            case .differentUsers: (first.scope, second.scope) = (Array("user-1".utf8), Array("user-2".utf8))
            }
            return (first, second)
        }
    }

    @Test(arguments: Variation.allCases)
    func changingOneFieldChangesTheKey(_ variation: Variation) {
        let (first, second) = variation.parts
        #expect(first.key != second.key)
    }

    @Test func bytesShiftedBetweenFieldsDoNotCollide() {
        var first = Parts()
        first.operationName = "ab"
        first.variables = Array("c".utf8)
        var second = Parts()
        second.operationName = "a"
        second.variables = Array("bc".utf8)
        #expect(first.key != second.key)

        var third = Parts()
        third.variables = Array("ab".utf8)
        third.scope = Array("c".utf8)
        var fourth = Parts()
        fourth.variables = Array("a".utf8)
        fourth.scope = Array("bc".utf8)
        #expect(third.key != fourth.key)
    }

    @Test func hashUsesTheDigestPrefixAndEqualityTheWholeDigest() {
        var bytes = [UInt8](repeating: 7, count: 32)
        let first = CacheKey(digest: SHA256Digest(bytes: bytes))
        bytes[31] = 8
        let second = CacheKey(digest: SHA256Digest(bytes: bytes))
        #expect(first.hashValue == second.hashValue)
        #expect(first != second)
        let keys: Set = [first, second]
        #expect(keys.count == 2)
    }

    /// A table's bucket is its hash's low bits: keys whose digests differ in none of the first
    /// word's low bits still spread over the buckets, and each table's seed orders them anew.
    @Test func tableHashSpreadsKeysOverBucketsAndFollowsTheSeed() {
        let keys = (0..<1024).map { index in
            var bytes = [UInt8](repeating: 0, count: 32)
            bytes[2] = UInt8(index & 0xff)
            bytes[3] = UInt8(index >> 8)
            return CacheKey(digest: SHA256Digest(bytes: bytes))
        }
        // 1024 keys thrown at random into 1024 buckets fill about 647 of them.
        #expect(Set(keys.map { $0._rawHashValue(seed: 0) & 1023 }).count > 550)
        #expect(keys.allSatisfy { $0._rawHashValue(seed: 1) != $0._rawHashValue(seed: 2) })
        #expect(keys.allSatisfy { $0._rawHashValue(seed: 5) == $0._rawHashValue(seed: 5) })
    }
}
