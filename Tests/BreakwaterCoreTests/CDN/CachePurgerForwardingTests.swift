// CachePurger hands the purges that start here to the CDN purger, never those from the fleet
// (docs/CDN.md, its opening: "In a fleet"), however many there are.

import BreakwaterCore
import Synchronization
import Testing

struct CachePurgerForwardingTests {
    final class Recorder: PurgeForwarding {
        let purges = Mutex<[CDNPurge]>([])
        let count = Atomic<Int>(0)
        func forward(_ purge: CDNPurge) {
            if count.add(1, ordering: .relaxed).newValue <= 10 { purges.withLock { $0.append(purge) } }
        }
    }

    static func purger() -> (CachePurger, Recorder) {
        let purger = CachePurger(store: ResponseStore(maxBytes: 1 << 20), clock: ManualClock())
        let recorder = Recorder()
        purger.forwardLocalPurges(to: recorder)
        return (purger, recorder)
    }

    @Test func localPurgesAreForwardedAndRemoteOnesAreNot() {
        let (purger, recorder) = Self.purger()
        let local = PurgeRequest(selector: .tag("Launch:7"), soft: true)
        purger.purge(local)
        purger.applyRemote(PurgeRequest(selector: .tag("Launch:8"), soft: false))
        #expect(recorder.purges.withLock { $0 } == [.tags(["Launch:7"], soft: true, origin: .admin)])
    }

    /// A mutation's entities reach the caches in front as one purge, marked as a mutation's.
    @Test func aMutationsEntitiesAreForwardedAsOnePurge() {
        let (purger, recorder) = Self.purger()
        purger.purgeEntities(["Launch:1", "Launch:2", "Rocket:a b"])
        #expect(recorder.purges.withLock { $0 } == [.tags(["Launch:1", "Launch:2"], soft: false, origin: .mutation)])
    }

    /// Only an operator's purge may ask for everything.
    @Test func onlyAnAdminPurgeBecomesPurgeEverything() {
        #expect(CDNPurge(PurgeRequest(selector: .all, soft: false), origin: .admin) == .everything(soft: false))
        #expect(CDNPurge(PurgeRequest(selector: .all, soft: false), origin: .mutation) == nil)
        #expect(CDNPurge(PurgeRequest(selector: .all, soft: false), origin: .fleet) == nil)
    }

    /// Each purge reaches the forwarding as it did the first time: nothing accumulates per purge.
    @Test func manyPurgesAreForwardedWithoutGrowingAnything() {
        let (purger, recorder) = Self.purger()
        for id in 0..<200_000 { purger.purge(PurgeRequest(selector: .tag("Launch:\(id)"), soft: false)) }
        #expect(recorder.count.load(ordering: .relaxed) == 200_000)
    }
}
