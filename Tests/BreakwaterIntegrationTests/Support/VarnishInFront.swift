// A real Varnish (Debian's varnish 7 with varnish-modules' xkey) in front of one Breakwater,
// running the VCL the docs ship (deploy/varnish/breakwater.vcl) on an ephemeral port with a
// working folder of its own; stopped with the test.

import BreakwaterTesting
import Foundation
import Testing

final class VarnishInFront: @unchecked Sendable {
    static let shippedVCL = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("deploy/varnish/breakwater.vcl")

    static var binary: String? {
        ["/usr/sbin/varnishd", "/usr/bin/varnishd"].first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    let port: Int
    let directory: URL
    private(set) var process: ManagedProcess?
    var client: HTTPClient { HTTPClient(port: port) }
    /// The `urls` entry of a `kind: varnish` target for this Varnish.
    var purgeURL: String { "http://127.0.0.1:\(port)/" }

    /// Takes a free port; `start(backendPort:)` starts it once Breakwater listens.
    init() throws {
        port = FreePort.allocate()
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("bw-varnish-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    /// Starts varnishd with the shipped VCL, its backend pointed at `backendPort`.
    func start(backendPort: Int) throws {
        let shipped = try String(contentsOf: Self.shippedVCL, encoding: .utf8)
        let vcl = shipped.replacingOccurrences(of: #".port = "8080";"#, with: ".port = \"\(backendPort)\";")
        try #require(vcl != shipped, "the shipped VCL's backend port line changed")
        let path = directory.appendingPathComponent("breakwater.vcl").path
        try vcl.write(toFile: path, atomically: true, encoding: .utf8)
        let process = ManagedProcess(
            executable: try #require(Self.binary, "varnishd is not installed (scripts/install-deps.sh installs it)"),
            arguments: [
                "-F", "-n", directory.appendingPathComponent("work").path, "-a", "127.0.0.1:\(port)", "-f", path,
                "-s", "malloc,32m", "-T", "none", "-j", "none",
            ])
        try process.start()
        self.process = process
        let deadline = ContinuousClock.now + .seconds(20)
        while (try? client.send(method: "BAN", target: "/", headers: [], body: [], timeout: .seconds(2))) == nil {
            try #require(ContinuousClock.now < deadline, "varnishd did not start: \(process.output.joined(separator: "\n"))")
            Thread.sleep(forTimeInterval: 0.05)
        }
    }

    /// Requests Varnish logged with `method` so far (`varnishlog -d`: the whole shared-memory
    /// log, read at once; counters in `varnishstat` are summed from the workers with a lag).
    func loggedRequests(method: String) throws -> Int {
        try log(["-i", "ReqMethod"]).filter {
            $0.split(whereSeparator: \.isWhitespace).last.map(String.init) == method
        }.count
    }

    /// Fetches from the backend that Varnish has finished (each logs its byte counts last),
    /// background fetches included.
    func finishedFetches() throws -> Int {
        try log(["-b", "-i", "BereqAcct"]).filter { $0.contains("BereqAcct") }.count
    }

    /// The lines of `varnishlog -d` with `filter` (read at once, from the start of the log).
    private func log(_ filter: [String]) throws -> [Substring] {
        let log = Process()
        log.executableURL = URL(fileURLWithPath: "/usr/bin/varnishlog")
        log.arguments = ["-n", directory.appendingPathComponent("work").path, "-d"] + filter
        let output = Pipe()
        log.standardOutput = output
        log.standardError = FileHandle.nullDevice
        try log.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        log.waitUntilExit()
        return String(decoding: data, as: UTF8.self).split(separator: "\n")
    }

    deinit {
        _ = process?.terminate()
        try? FileManager.default.removeItem(at: directory)
    }
}
