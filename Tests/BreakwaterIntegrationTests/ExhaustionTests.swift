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
        let flood = try IdleConnections(port: proxy.port, count: 64)
        Thread.sleep(forTimeInterval: 2)
        let cpu = try #require(Self.cpuSeconds(pid)) - cpuBefore
        let warnings = proxy.process.output.filter { $0.contains("out of file descriptors") }.count
        #expect(warnings >= 1, "no warning when accept ran out of descriptors")
        // One line per 250 ms pause at most (about 8 in 2 s), where a busy loop writes thousands.
        #expect(warnings <= 16, "\(warnings) warnings in 2 s")
        #expect(cpu < 0.8, "the proxy spun: \(cpu) s of CPU in 2 s")

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
