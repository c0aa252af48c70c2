// How long writing and loading a large snapshot take: 100,000 entries of 1 KiB. A measurement,
// not a check (timed unit tests only flake), so it runs only when asked for:
//   BREAKWATER_MEASURE_SNAPSHOT=1 swift test -c release --filter CacheSnapshotMeasurement

import BreakwaterCore
import Foundation
import Testing

struct CacheSnapshotMeasurement {
    @Test(.enabled(if: ProcessInfo.processInfo.environment["BREAKWATER_MEASURE_SNAPSHOT"] == "1"))
    func writeAndLoadOneHundredThousandEntriesOfOneKiB() throws {
        try CacheSnapshotTests.withFolder { folder in
            let path = folder + "/cache.snapshot"
            let clock = ManualClock()
            let store = ResponseStore(maxBytes: 256 << 20)
            for number in 0..<100_000 {
                let entry = CacheSnapshotTests.entry(number, clock: clock, ttl: .seconds(600), size: 1_024)
                store.store(entry, now: clock.now)
            }
            let entries = store.statistics.entries
            let writeStart = ContinuousClock.now
            let written = try CacheSnapshotTests.write(store, path, clock)
            let writeTime = ContinuousClock.now - writeStart
            let restarted = ResponseStore(maxBytes: 256 << 20)
            let loadStart = ContinuousClock.now
            let loaded = try CacheSnapshotTests.load(path, into: restarted, clock)
            let loadTime = ContinuousClock.now - loadStart
            print(
                "snapshot of \(entries) entries, \(written.bytes) bytes: write \(writeTime), load \(loadTime) "
                    + "(\(loaded.loaded) loaded)")
            #expect(loaded.loaded == entries)
            // Apart: decoding alone, and storing alone.
            let payloads = store.entriesByRecency().map { CacheEntryCodec.encode($0.entry) }
            let decodeStart = ContinuousClock.now
            let decoded = try payloads.map { try CacheEntryCodec.decode($0, now: clock.now, wallNow: clock.wallNow) }
            let decodeTime = ContinuousClock.now - decodeStart
            let restoreStart = ContinuousClock.now
            ResponseStore(maxBytes: 256 << 20).restore(decoded)
            print("decode \(decodeTime), restore \(ContinuousClock.now - restoreStart)")
        }
    }
}
