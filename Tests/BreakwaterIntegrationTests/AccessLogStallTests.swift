// Live: an access-log destination that stops taking lines (a pipe nobody reads, a
// stalled disk) never stalls the event loops. Answers keep coming at full speed; past the
// per-loop bound lines are dropped, counted and reported, and every line is either written or
// counted as dropped.

import BreakwaterTesting
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

@Suite(.serialized) struct AccessLogStallTests {
    @Test func aBlockedAccessLogPipeNeverStallsServingAndDropsAreCounted() throws {
        let origin = try DemoOriginProcess()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("bw-fifo-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let fifo = directory.appendingPathComponent("access.pipe").path
        #expect(mkfifo(fifo, 0o600) == 0)
        // Opened for reading (so the proxy's open for writing succeeds) and then not read: the
        // pipe's 64 KiB fill up and the log writer blocks in write().
        let reader = open(fifo, O_RDONLY | O_NONBLOCK)
        #expect(reader >= 0)
        defer { close(reader) }
        let proxy = try ProxyProcess(
            origin: origin.url,
            yaml: """
                persisted_queries:
                  store: ""
                cache:
                  rules:
                    - operation: GetLaunchDetail
                      ttl: 5m
                logging:
                  format: text
                  access_log: \(fifo)
                """, threads: 1)
        let detail = #"{"query":"query GetLaunchDetail { launch(id: \"92\") { __typename id site } }"}"#
        let connection = try KeepAliveClient(port: proxy.port)
        defer { connection.close() }
        // Long client texts (each kept whole at 256 bytes) make lines of about 1 KB: about 1.6 × the
        // 9,800 or so that fit in the loop's 8 MiB, the pipe's 64 KiB and the writer's batch.
        let long = String(repeating: "x", count: 256)
        let headers = [("User-Agent", long), ("apollographql-client-name", long), ("apollographql-client-version", long)]
        let total = 16_000
        let started = ContinuousClock.now
        var slowest = Duration.zero
        for _ in 0..<total {
            let before = ContinuousClock.now
            let response = try connection.post("/graphql", json: detail, headers: headers)
            slowest = max(slowest, ContinuousClock.now - before)
            #expect(response.status == 200)
            if response.status != 200 { return }
        }
        let elapsed = ContinuousClock.now - started
        print("\(total) answers with the access log blocked: \(elapsed), slowest \(slowest)")
        #expect(slowest < .seconds(3), "no answer waited for the blocked log (a stall would be forever)")

        // Now read the pipe: the writer goes on, reports what it dropped, and writes the rest.
        var lines = 0
        var dropped = 0
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        let deadline = ContinuousClock.now + .seconds(20)
        while ContinuousClock.now < deadline {
            let count = read(reader, &buffer, buffer.count)
            if count > 0 {
                lines += buffer[..<count].reduce(0) { $0 + ($1 == UInt8(ascii: "\n") ? 1 : 0) }
                continue
            }
            dropped = proxy.process.output.filter { $0.contains("access-log lines dropped") }.reduce(0) { sum, line in
                sum + (Int(line.split(separator: "=").last.map { String($0) } ?? "") ?? 0)
            }
            if lines + dropped == total { break }
            Thread.sleep(forTimeInterval: 0.02)
        }
        print("access log: \(lines) lines written, \(dropped) dropped")
        #expect(dropped > 0, "the bound was reached")
        #expect(lines > 0)
        #expect(lines + dropped == total, "each answer's line is either written or counted as dropped")
        // And serving never stopped: the proxy still answers at once.
        #expect(try proxy.client.post("/graphql", json: detail).status == 200)
    }
}
