// PersistedQueryStoreCompactionPolicy: when the registry's store file is due for a rewrite with
// the live set, as a table of file sizes and record counts, and after compactions that succeed
// or fail.

import BreakwaterCore
import Testing

struct PersistedQueryStoreCompactionPolicyTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var maxBytes: Int
        var maxEntries: Int
        var liveBytes: Int
        var fileBytes: Int
        var records: Int
        var isDue: Bool
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(
            name: "empty file", maxBytes: 1_000, maxEntries: 100, liveBytes: 35, fileBytes: 35, records: 0, isDue: false
        ),
        Case(
            name: "at twice max_bytes", maxBytes: 1_000, maxEntries: 100, liveBytes: 900, fileBytes: 2_000, records: 20,
            isDue: false),
        Case(
            name: "one byte past twice max_bytes", maxBytes: 1_000, maxEntries: 100, liveBytes: 900, fileBytes: 2_001,
            records: 20, isDue: true),
        Case(
            name: "a file of 20 GiB", maxBytes: 64 << 20, maxEntries: 100_000, liveBytes: 64 << 20,
            fileBytes: 20 << 30, records: 400_000, isDue: true),
        Case(
            name: "live set larger on disk than max_bytes, file within twice it", maxBytes: 1_000, maxEntries: 100,
            liveBytes: 1_500, fileBytes: 2_900, records: 40, isDue: false),
        Case(
            name: "live set larger on disk than max_bytes, file past twice it", maxBytes: 1_000, maxEntries: 100,
            liveBytes: 1_500, fileBytes: 3_001, records: 40, isDue: true),
        Case(
            name: "at twice max_entries records", maxBytes: .max, maxEntries: 100, liveBytes: 5_000, fileBytes: 10_000,
            records: 200, isDue: false),
        Case(
            name: "past twice max_entries records", maxBytes: .max, maxEntries: 100, liveBytes: 5_000,
            fileBytes: 10_050, records: 201, isDue: true),
        Case(
            name: "no byte bound never overflows", maxBytes: .max, maxEntries: 100, liveBytes: .max, fileBytes: .max,
            records: 10, isDue: false),
    ]

    @Test(arguments: cases)
    func compactionIsDueBeyondTwiceTheBound(_ example: Case) {
        let policy = PersistedQueryStoreCompactionPolicy(
            maxBytes: example.maxBytes, maxEntries: example.maxEntries, liveBytes: example.liveBytes)
        #expect(policy.isDue(fileBytes: example.fileBytes, records: example.records) == example.isDue)
    }

    /// A compaction leaves the file at the live set's size: not due again until the file has
    /// doubled, so the file never is rewritten at every append.
    @Test func afterACompactionTheNextWaitsForTheFileToDouble() {
        var policy = PersistedQueryStoreCompactionPolicy(maxBytes: 1_000, maxEntries: 100, liveBytes: 35)
        #expect(policy.isDue(fileBytes: 2_500, records: 30))
        policy.compacted(fileBytes: 1_200)
        #expect(policy.liveBytes == 1_200)
        #expect(policy.byteLimit == 2_400)
        #expect(!policy.isDue(fileBytes: 1_300, records: 15))
        #expect(!policy.isDue(fileBytes: 2_400, records: 30))
        #expect(policy.isDue(fileBytes: 2_401, records: 30))
        policy.compacted(fileBytes: 600)
        #expect(policy.byteLimit == 2_000, "max_bytes still bounds a small live set")
    }

    /// A failed compaction (a full disk) is tried again only after the file grew by half the
    /// limit; a success clears that wait.
    @Test func afterAFailureTheNextTryWaitsForGrowth() {
        var policy = PersistedQueryStoreCompactionPolicy(maxBytes: 1_000, maxEntries: 100, liveBytes: 35)
        #expect(policy.isDue(fileBytes: 2_100, records: 30))
        policy.failed(fileBytes: 2_100)
        #expect(!policy.isDue(fileBytes: 2_200, records: 31))
        #expect(!policy.isDue(fileBytes: 3_100, records: 40))
        #expect(policy.isDue(fileBytes: 3_101, records: 40))
        policy.compacted(fileBytes: 900)
        #expect(policy.isDue(fileBytes: 2_001, records: 30))
    }

    @Test func recordSizeIsTheBytesOneAppendWrites() throws {
        try PersistedQueryFixtures.withFolder { folder in
            let store = try PersistedQueryStore(path: folder + "/store.log")
            _ = try store.load()
            for document in ["", "{a}", String(repeating: "x", count: 9), String(repeating: "é", count: 5_000)] {
                let before = store.size
                try store.append(PersistedQueryFixtures.digest(document.utf8.count), document)
                #expect(store.size - before == PersistedQueryStore.recordSize(documentBytes: document.utf8.count))
                #expect(store.size == PersistedQueryFixtures.bytes(of: folder + "/store.log").count)
            }
            #expect(store.records == 4)
        }
    }
}
