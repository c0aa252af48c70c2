// Live: the registry store against damage and mistakes, its bound on disk (about twice
// `persisted_queries.max_bytes`, compacted while running and at start), and the bound on a
// document's size, with the real binary on loopback.

import BreakwaterCore
import BreakwaterServer
import BreakwaterTesting
import Foundation
import Testing

@Suite(.serialized)
struct RegistryReliabilityTests {
    static let documents = (0..<6).map { "query Stored\($0) { launch(id: \"\($0 + 1)\") { id } }" }

    /// A store file of the current format holding `documents`, where each record starts.
    static func storeBytes() -> (bytes: [UInt8], starts: [Int]) {
        var bytes = PersistedQueryStore.header
        var starts: [Int] = []
        for document in documents {
            starts.append(bytes.count)
            bytes += Array("\(APQ.hash(document)) \(document.utf8.count)\n\(document)\n".utf8)
        }
        return (bytes, starts)
    }

    static func hashedGET(_ proxy: ProxyProcess, _ document: String) throws -> HTTPClientResponse {
        try proxy.client.get(APQ.hashedGET(document, operationName: nil))
    }

    /// The probe's case: one non-hex byte in the middle used to lose every registration after it.
    @Test func damagedRecordIsSkippedAndTheRegistrationsAfterItServe() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("bw-store-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("registry.log").path
        var (bytes, starts) = Self.storeBytes()
        bytes[starts[2] + 5] = UInt8(ascii: "#")
        try Data(bytes).write(to: URL(fileURLWithPath: path))

        let origin = try DemoOriginProcess()
        let proxy = try ProxyProcess(origin: origin.url, yaml: "persisted_queries:\n  store: \(path)\n")
        for (number, document) in Self.documents.enumerated() {
            let answer = try Self.hashedGET(proxy, document)
            if number == 2 {
                #expect(firstError(answer).code == "PERSISTED_QUERY_NOT_FOUND")
            } else {
                #expect(answer.status == 200, "registration \(number)")
                #expect(firstError(answer).code == nil, "registration \(number): \(answer.text)")
            }
        }
        // The damaged record was compacted away, the good ones kept.
        let reloaded = try PersistedQueryStore(path: path).load()
        #expect(reloaded.count == 5)
    }

    /// A `store` path pointing at some other file: the proxy refuses to start, says why, and the
    /// file is not touched.
    @Test func foreignFileIsRefusedAtStartAndLeftUntouched() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("bw-store-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("notes.txt").path
        let contents = "meeting notes\n- do not delete\n"
        try contents.write(toFile: path, atomically: true, encoding: .utf8)
        let config = folder.appendingPathComponent("config.yaml").path
        try "persisted_queries:\n  store: \(path)\n".write(toFile: config, atomically: true, encoding: .utf8)

        let (status, output) = try runBreakwater([
            "run", "--config", config, "--listen", "127.0.0.1:0", "--admin-listen", "127.0.0.1:0",
            "--origin", "http://127.0.0.1:9/graphql", "--log-level", "warning",
        ])
        #expect(status != 0)
        #expect(output.contains("is not a Breakwater persisted-query store"), "\(output)")
        #expect(try String(contentsOfFile: path, encoding: .utf8) == contents)
    }

    /// A store of the first format (no header) still serves its registrations, and is migrated.
    @Test func firstFormatStoreServesAndIsMigrated() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("bw-store-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("registry.log").path
        let bytes = Self.storeBytes().bytes.dropFirst(PersistedQueryStore.header.count)
        try Data(bytes).write(to: URL(fileURLWithPath: path))

        let origin = try DemoOriginProcess()
        let proxy = try ProxyProcess(origin: origin.url, yaml: "persisted_queries:\n  store: \(path)\n")
        for document in Self.documents {
            #expect(firstError(try Self.hashedGET(proxy, document)).code == nil)
        }
        let migrated = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(Array(migrated.prefix(PersistedQueryStore.header.count)) == PersistedQueryStore.header)
    }

    // MARK: - The store's bound on disk

    /// A document of 4,000 bytes that the demo origin answers, distinct by `number`.
    static func largeDocument(_ number: Int) -> String {
        let head = "query Large\(number) { launch(id: \"1\") { id } }\n#"
        return head + String(repeating: "x", count: 4_000 - head.utf8.count)
    }

    /// About twice max_bytes: twice the larger of max_bytes and the live set's size on disk (each
    /// record carries its hash and length too), plus the one record whose append crossed the limit.
    static func fileBound(maxBytes: Int) -> Int {
        let record = PersistedQueryStore.recordSize(documentBytes: 4_000)
        return 2 * max(maxBytes, PersistedQueryStore.header.count + maxBytes / 4_000 * record) + record
    }

    static func fileSize(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int) ?? -1
    }

    /// The attacker's case at a small scale: 300 registrations of 4 KB (1.2 MB) against
    /// `max_bytes: 64KiB`. The file stays within about twice max_bytes while they arrive, and after
    /// a restart, which still serves the most recent hashes.
    @Test func storeStaysWithinTwiceMaxBytesWhileRunningAndAfterRestart() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("bw-store-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("registry.log").path
        let yaml = "persisted_queries:\n  store: \(path)\n  max_bytes: 64KiB\n"
        let bound = Self.fileBound(maxBytes: 64 * 1024)
        let count = 300

        let origin = try DemoOriginProcess()
        var largest = 0
        do {
            let proxy = try ProxyProcess(origin: origin.url, yaml: yaml)
            for number in 0..<count {
                let document = Self.largeDocument(number)
                let answer = try proxy.client.post(
                    "/graphql", json: APQ.registeringPOST(document, operationName: "Large\(number)"))
                #expect(answer.status == 200, "registration \(number): \(answer.text)")
                largest = max(largest, Self.fileSize(path))
            }
            _ = proxy.process.terminate()
        }
        let stopped = Self.fileSize(path)
        #expect(largest <= bound, "largest file \(largest) bytes, bound \(bound)")
        #expect(stopped <= bound, "file \(stopped) bytes at stop, bound \(bound)")

        let proxy = try ProxyProcess(origin: origin.url, yaml: yaml)
        let restarted = Self.fileSize(path)
        #expect(restarted <= bound, "file \(restarted) bytes after restart, bound \(bound)")
        for number in (count - 10)..<count {
            let answer = try Self.hashedGET(proxy, Self.largeDocument(number))
            #expect(answer.status == 200, "document \(number): \(answer.text)")
            #expect(firstError(answer).code == nil, "document \(number): \(answer.text)")
        }
        #expect(firstError(try Self.hashedGET(proxy, Self.largeDocument(0))).code == "PERSISTED_QUERY_NOT_FOUND")
        print(
            "RegistryReliability: \(count) x 4,000-byte registrations, max_bytes 64KiB: largest file \(largest) bytes, \(stopped) at stop, \(restarted) after restart (bound \(bound))"
        )
    }

    /// A store many times max_bytes (written before the bound, or with a larger max_bytes) is read
    /// at start and rewritten with the documents the registry keeps; the most recent serve.
    @Test func storeAlreadyPastTheBoundIsCompactedAtStart() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("bw-store-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("registry.log").path
        var bytes = PersistedQueryStore.header
        for number in 0..<500 {
            let document = Self.largeDocument(number)
            bytes += Array("\(APQ.hash(document)) \(document.utf8.count)\n\(document)\n".utf8)
        }
        try Data(bytes).write(to: URL(fileURLWithPath: path))

        let origin = try DemoOriginProcess()
        let proxy = try ProxyProcess(
            origin: origin.url, yaml: "persisted_queries:\n  store: \(path)\n  max_bytes: 64KiB\n")
        let after = Self.fileSize(path)
        #expect(after <= Self.fileBound(maxBytes: 64 * 1024), "\(bytes.count) -> \(after) bytes")
        for number in 490..<500 {
            #expect(firstError(try Self.hashedGET(proxy, Self.largeDocument(number))).code == nil, "document \(number)")
        }
        #expect(firstError(try Self.hashedGET(proxy, Self.largeDocument(0))).code == "PERSISTED_QUERY_NOT_FOUND")
    }

    /// The probe's 800 KB document held the event loop for 1.65 s; now it is refused with 413
    /// before it is parsed, and a cached answer on the same loop is not held up.
    @Test func documentLongerThanTheLimitIs413AndCostsOthersNothing() throws {
        let origin = try DemoOriginProcess()
        let proxy = try ProxyProcess(origin: origin.url, threads: 1)
        let huge = "{ launches { " + String(repeating: "cursor ", count: 110_000) + "} }"
        let clock = ContinuousClock()
        var answer: HTTPClientResponse?
        let elapsed = try clock.measure {
            answer = try proxy.client.post("/graphql", json: #"{"query":\#(APQ.jsonString(huge))}"#)
        }
        #expect(answer?.status == 413)
        #expect(answer.map { firstError($0).code } == "DOCUMENT_TOO_LARGE")
        #expect(elapsed < .seconds(1), "refused in \(elapsed)")
        // Just under the limit still works.
        let fits = "{ launches { cursor } }\n#" + String(repeating: "x", count: 100_000)
        let small = try proxy.client.post("/graphql", json: #"{"query":\#(APQ.jsonString(fits))}"#)
        #expect(small.status == 200)
    }
}
