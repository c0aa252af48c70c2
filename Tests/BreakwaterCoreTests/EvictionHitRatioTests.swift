// SIEVE against LRU on a skewed trace (README "The response cache": eviction at least as good as LRU on hit
// ratio): Zipf(0.9) over 10,000 keys, 200,000 requests, room for 10% of the keys, equal costs.

import BreakwaterCore
import BreakwaterFixtures
import Foundation
import Testing

struct EvictionHitRatioTests {
    private static let keyCount = 10_000
    private static let requestCount = 200_000

    /// Key ranks drawn from Zipf(`alpha`) by inverting the cumulative distribution.
    private static func zipfTrace(alpha: Double, seed: UInt64) -> [Int] {
        var cumulative: [Double] = []
        cumulative.reserveCapacity(keyCount)
        var total = 0.0
        for rank in 1...keyCount {
            total += 1 / pow(Double(rank), alpha)
            cumulative.append(total)
        }
        var random = SplitMix64(seed: seed)
        return (0..<requestCount).map { _ in
            let target = Double.random(in: 0..<total, using: &random)
            var low = 0
            var high = keyCount - 1
            while low < high {
                let middle = (low + high) / 2
                if cumulative[middle] <= target { low = middle + 1 } else { high = middle }
            }
            return low
        }
    }

    /// The hit ratio of a `ResponseStore` with room for `capacity` entries, storing on every miss
    /// (with several shards, each holds its whole share, so a little less in total).
    private static func storeHitRatio(_ trace: [Int], capacity: Int, shardCount: Int) -> Double {
        let keys = (0..<keyCount).map { StoreFixture.key($0) }
        let body = [UInt8](repeating: 0x20, count: 1_000)
        let cost = StoreFixture.entry(key: keys[0], body: body).cost
        let store = ResponseStore(maxBytes: capacity * cost, shardCount: shardCount)
        var hits = 0
        for rank in trace {
            if case .fresh = store.lookup(keys[rank], now: StoreFixture.start) {
                hits += 1
            } else {
                store.store(
                    StoreFixture.entry(key: keys[rank], ttl: .seconds(86_400), body: body), now: StoreFixture.start)
            }
        }
        return Double(hits) / Double(trace.count)
    }

    private static func lruHitRatio(_ trace: [Int], capacity: Int) -> Double {
        var lru = ReferenceLRU(capacity: capacity)
        let hits = trace.reduce(0) { $0 + (lru.access($1) ? 1 : 0) }
        return Double(hits) / Double(trace.count)
    }

    @Test func sieveHitRatioIsAtLeastLRUsOnAZipfTrace() {
        let trace = Self.zipfTrace(alpha: 0.9, seed: 2024)
        let capacity = Self.keyCount / 10
        let sieve = Self.storeHitRatio(trace, capacity: capacity, shardCount: 1)
        let sharded = Self.storeHitRatio(trace, capacity: capacity, shardCount: 16)
        let lru = Self.lruHitRatio(trace, capacity: capacity)
        print("Zipf(0.9) hit ratio: SIEVE \(sieve), SIEVE over 16 shards \(sharded), LRU \(lru)")
        #expect(sieve >= lru)
        #expect(sharded >= lru)
    }
}

/// A least-recently-used cache of `capacity` keys, as the baseline: a stamp per key and a queue
/// of uses; eviction skips uses that a later one superseded.
private struct ReferenceLRU {
    let capacity: Int
    private var latestUse: [Int: Int] = [:]
    private var uses: [(key: Int, stamp: Int)] = []
    private var oldestUse = 0

    init(capacity: Int) {
        self.capacity = capacity
    }

    /// Uses `key`; returns whether it was cached.
    mutating func access(_ key: Int) -> Bool {
        let isHit = latestUse[key] != nil
        if !isHit, latestUse.count == capacity { evict() }
        latestUse[key] = uses.count
        uses.append((key, uses.count))
        return isHit
    }

    private mutating func evict() {
        while true {
            let use = uses[oldestUse]
            oldestUse += 1
            if latestUse[use.key] == use.stamp {
                latestUse[use.key] = nil
                return
            }
        }
    }
}
