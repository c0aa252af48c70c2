// File-descriptor exhaustion against the real binary (README "GraphQL over HTTP rules", "Backpressure and
// exhaustion"): with its RLIMIT_NOFILE lowered by prlimit(1), a flood of connections makes accept
// fail with EMFILE; the proxy pauses accepting (no busy loop: little CPU), logs one warning per
// pause (no flood), and serves again once descriptors are free.

import BreakwaterTesting
import Foundation
import Testing

@Suite(.serialized) struct ExhaustionTests {
    @Test func outOfDescriptorsPausesAcceptingLogsOncePerPauseAndRecovers() throws {
        let origin = try DemoOriginProcess()
        let proxy = try ProxyProcess(origin: origin.url, threads: 1)
        #expect(try proxy.client.get("/graphql?query=%7B__typename%7D").status == 200)
        let pid = try #require(proxy.process.processIdentifier)
        let open = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count
        // Room for a few more descriptors than the process holds now, then none.
        let limit = open + 8
        let prlimit = Process()
        prlimit.executableURL = URL(fileURLWithPath: "/usr/bin/prlimit")
        prlimit.arguments = ["--pid", String(pid), "--nofile=\(limit):\(limit)"]
        try prlimit.run()
        prlimit.waitUntilExit()
        try #require(prlimit.terminationStatus == 0, "prlimit could not lower the proxy's RLIMIT_NOFILE")

        let cpuBefore = try #require(Self.cpuSeconds(pid))
        let floodStarted = ContinuousClock.now
        let flood = try IdleConnections(port: proxy.port, count: 64)
        func warnings() -> Int { proxy.process.output.filter { $0.contains("out of file descriptors") }.count }
        #expect(eventually(within: .seconds(10)) { warnings() >= 1 }, "no warning when accept ran out of descriptors")
        // Eight more pauses (about 2 s of them): the proxy had that long to spin.
        let firstWarning = ContinuousClock.now
        #expect(eventually(within: .seconds(20)) { warnings() >= 9 }, "accepting was not tried again after its pause")
        let pauses = ContinuousClock.now - firstWarning
        let elapsed = ContinuousClock.now - floodStarted
        let cpu = try #require(Self.cpuSeconds(pid)) - cpuBefore
        let count = warnings()
        // One line per 250 ms pause at most, where a busy loop writes thousands.
        #expect(count <= 16, "\(count) warnings in \(elapsed)")
        #expect(pauses >= .seconds(1), "9 warnings within \(pauses): more than one per pause")
        #expect(cpu < 0.4 * (elapsed / .seconds(1)), "the proxy spun: \(cpu) s of CPU in \(elapsed)")

        flood.close()
        // Once descriptors are free again, the proxy accepts and answers.
        var recovered = false
        for _ in 0..<30 where !recovered {
            recovered = (try? proxy.client.get("/graphql?query=%7B__typename%7D").status) == 200
            if !recovered { Thread.sleep(forTimeInterval: 0.2) }
        }
        #expect(recovered, "the proxy did not serve again after the descriptors were freed")
    }

    /// User plus system CPU time of `pid`, in seconds.
    static func cpuSeconds(_ pid: Int32) -> Double? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let end = stat.lastIndex(of: ")")
        else { return nil }
        let fields = stat[stat.index(after: end)...].split(separator: " ")
        // After the command: state is field 3, utime field 14, stime field 15.
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }
}
