// PerUserOperations shared by a fleet: what a proxy learns itself is announced once, what the
// others learned is adopted without being announced again, the shared form round-trips, and with
// `redis.signing_key` a member is believed only with its code.

import BreakwaterCore
import Synchronization
import Testing
import BreakwaterFixtures

struct PerUserOperationsSharingTests {
    private let digest = SoftwareSHA256().sha256("query Me { me { id } }")

    @Test func anOperationLearnedHereIsAnnouncedOnce() {
        let operations = PerUserOperations()
        let announced = Mutex<[String]>([])
        operations.onLearned { digest, name in
            announced.withLock { $0.append(PerUserOperations.encode(digest, operationName: name)) }
        }
        operations.remember(digest, operationName: "Me")
        operations.remember(digest, operationName: "Me")
        #expect(announced.withLock { $0 } == [digest.hex + " Me"])
        #expect(operations.contains(digest, operationName: "Me"))
    }

    @Test func anOperationAdoptedFromTheFleetIsKnownButNotAnnouncedAgain() {
        let operations = PerUserOperations()
        let announced = Mutex(0)
        operations.onLearned { _, _ in announced.withLock { $0 += 1 } }
        let shared = PerUserOperations.encode(digest, operationName: nil)
        guard let (adopted, name) = PerUserOperations.decode(shared) else { return #expect(Bool(false)) }
        operations.adopt(adopted, operationName: name)
        #expect(operations.contains(digest, operationName: nil))
        #expect(!operations.contains(digest, operationName: "Me"))
        #expect(announced.withLock { $0 } == 0)
    }

    @Test func theSharedFormRoundTripsAndRefusesOtherText() {
        let decoded = PerUserOperations.decode(PerUserOperations.encode(digest, operationName: "Get Me"))
        #expect(decoded?.0 == digest)
        #expect(decoded?.1 == "Get Me")
        #expect(PerUserOperations.decode("not-a-digest Me") == nil)
    }
}

/// The shared set's members signed with `redis.signing_key`: a member is believed only with its
/// code, for this set's key; without a key the plain text is read as before.
struct PerUserOperationMemberTests {
    private let digest = SoftwareSHA256().sha256("query Me { me { id } }")
    private let setKey = "bw:peruser"
    private let signer = RedisValueSigner(hmac: SoftwareHMACSHA256(key: Array("0123456789abcdef-fleet-key".utf8)))

    @Test func aSignedMemberRoundTripsAndCarriesItsCode() {
        let member = PerUserOperationMember.encode(digest, operationName: "Me", signer: signer, setKey: setKey)
        let plain = Array(PerUserOperations.encode(digest, operationName: "Me").utf8)
        #expect(member.count == plain.count + RedisValueSigner.codeBytes)
        #expect(Array(member.prefix(plain.count)) == plain)
        #expect(
            PerUserOperationMember.decode(member, signer: signer, setKey: setKey)
                == .operation(digest, operationName: "Me"))
    }

    @Test func aForgedAlteredMovedOrOtherKeysMemberIsRejected() {
        // Written straight into Redis without the key: the plain text.
        let forged = Array(PerUserOperations.encode(digest, operationName: "GetLaunches").utf8)
        #expect(PerUserOperationMember.decode(forged, signer: signer, setKey: setKey) == .rejected)
        // A signed member with one byte of its name changed.
        var altered = PerUserOperationMember.encode(digest, operationName: "Me", signer: signer, setKey: setKey)
        altered[digest.hex.utf8.count + 1] ^= 0x20
        #expect(PerUserOperationMember.decode(altered, signer: signer, setKey: setKey) == .rejected)
        // Copied from another fleet's set (another key prefix).
        let moved = PerUserOperationMember.encode(digest, operationName: "Me", signer: signer, setKey: "other:peruser")
        #expect(PerUserOperationMember.decode(moved, signer: signer, setKey: setKey) == .rejected)
        // Signed by a proxy with another signing key.
        let other = RedisValueSigner(hmac: SoftwareHMACSHA256(key: Array("0123456789abcdef-fleet-keY".utf8)))
        let foreign = PerUserOperationMember.encode(digest, operationName: "Me", signer: other, setKey: setKey)
        #expect(PerUserOperationMember.decode(foreign, signer: signer, setKey: setKey) == .rejected)
        // Too short to hold a code at all.
        #expect(PerUserOperationMember.decode(Array("x".utf8), signer: signer, setKey: setKey) == .rejected)
    }

    @Test func withoutAKeyTheTextIsReadAsBefore() {
        let member = PerUserOperationMember.encode(digest, operationName: nil, signer: nil, setKey: setKey)
        #expect(member == Array(digest.hex.utf8))
        #expect(
            PerUserOperationMember.decode(member, signer: nil, setKey: setKey) == .operation(digest, operationName: nil))
        #expect(PerUserOperationMember.decode(Array("not-a-digest".utf8), signer: nil, setKey: setKey) == .unreadable)
    }

    @Test func aSignedMemberThatIsNoOperationIsUnreadableNotRejected() {
        var member = Array("not-a-digest Me".utf8)
        signer.sign(&member, storedUnder: setKey)
        #expect(PerUserOperationMember.decode(member, signer: signer, setKey: setKey) == .unreadable)
    }
}
