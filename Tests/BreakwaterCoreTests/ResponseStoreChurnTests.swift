// ResponseStore under churn: random stores, lookups, removes and purges, from one thread and from
// four, never exceed the byte bound nor leave the queue, key map and indexes disagreeing.

import BreakwaterCore
import BreakwaterFixtures
import Foundation
import Synchronization
import Testing

struct ResponseStoreChurnTests {
    /// One random operation on `store` at `now`, drawn from `random`: mostly stores of random
    /// sizes (a few too large for a shard), then lookups, removes and purges. Returns true for a store.
    @discardableResult
    private static func step(_ store: ResponseStore, now: ContinuousClock.Instant, random: inout SplitMix64)
        -> Bool
    {
        let key = StoreFixture.key(Int.random(in: 0..<3_000, using: &random))
        let dice = Int.random(in: 0..<1_000, using: &random)
        switch dice {
        case 0..<500:
            let size =
                dice < 5 ? Int.random(in: 60_000..<80_000, using: &random) : Int.random(in: 0..<6_000, using: &random)
            let launch = Int.random(in: 0..<50, using: &random)
            store.store(
                StoreFixture.entry(
                    key: key, bodyBytes: size, storedAt: now,
                    ttl: .milliseconds(Int.random(in: 1..<60_000, using: &random)),
                    staleWhileRevalidate: .milliseconds(Int.random(in: 0..<10_000, using: &random)),
                    staleIfError: .milliseconds(Int.random(in: 0..<30_000, using: &random)),
                    operationName: ["GetLaunches", "GetLaunchDetail", "Me", nil][launch % 4],
                    tags: launch % 3 == 0 ? [] : ["Launch:\(launch)", "Launch"]
                ),
                now: now
            )
            return true
        case 500..<950:
            _ = store.lookup(key, now: now)
        case 950..<990:
            store.remove(key)
        case 990..<998:
            store.purge(.tag("Launch:\(Int.random(in: 0..<50, using: &random))"), soft: dice % 2 == 0, now: now)
        default:
            store.purge(.operation("GetLaunchDetail"), soft: dice % 2 == 0, now: now)
        }
        return false
    }

    @Test func byteBoundHoldsUnderChurn() throws {
        // Sixteen shards of 64 KiB, so that the largest answers exceed one shard and are rejected.
        let store = ResponseStore(maxBytes: 1 << 20, shardCount: 16)
        var random = SplitMix64(seed: 7)
        var stores = 0
        var operation = 0
        while stores < 100_000 {
            if Self.step(store, now: StoreFixture.start + .milliseconds(operation * 5), random: &random) { stores += 1 }
            let statistics = store.statistics
            try #require(statistics.bytes <= statistics.maxBytes, "after operation \(operation)")
            operation += 1
            if operation % 5_000 == 0 { try #require(store.consistencyProblems() == []) }
        }
        let statistics = store.statistics
        print("churn: \(operation) operations, \(statistics)")
        #expect(store.consistencyProblems().isEmpty)
        #expect(statistics.evictions > 0)
        #expect(statistics.expired > 0)
        #expect(statistics.rejected > 0)
    }

    @Test func concurrentLookupsAndStoresKeepTheInvariants() {
        let store = ResponseStore(maxBytes: 256 * 1024)
        let threads = 4
        let violations = ViolationCount()
        let group = DispatchGroup()
        for thread in 0..<threads {
            group.enter()
            Thread {
                var random = SplitMix64(seed: UInt64(thread + 1))
                for operation in 0..<25_000 {
                    Self.step(store, now: StoreFixture.start + .milliseconds(operation * 5), random: &random)
                    if operation % 100 == 0, store.statistics.bytes > store.maxBytes {
                        violations.count.withLock { $0 += 1 }
                    }
                }
                group.leave()
            }.start()
        }
        group.wait()
        #expect(violations.count.withLock { $0 } == 0)
        let problems = store.consistencyProblems()
        #expect(problems.isEmpty, "\(problems)")
        #expect(store.statistics.bytes <= store.maxBytes)
        #expect(store.statistics.evictions > 0)
    }
}

/// Bound violations seen by the worker threads (a class: a `Mutex` cannot be captured by a closure).
private final class ViolationCount: Sendable {
    let count = Mutex(0)
}
