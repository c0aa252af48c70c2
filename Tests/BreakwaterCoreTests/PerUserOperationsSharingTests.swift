// PerUserOperations shared by a fleet: what a proxy learns itself is announced once, what the
// others learned is adopted without being announced again, and the shared form round-trips.

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
