// The known HTTP/2 attacks against the real binary (docs/reference/client-protocol.md, "HTTP/2":
// the attacks' bounds), each written frame by frame (Tests/fixtures/h2_attacks.py): rapid reset
// (CVE-2023-44487), CONTINUATION floods, SETTINGS / PING / PRIORITY / empty DATA floods, an HPACK
// bomb, a window held shut, more streams than the limit, an oversized body. Each ends with the
// answer RFC 9113 and the limits call for, bounded memory and CPU, and a process that still serves.

import BreakwaterTesting
import Foundation
import Testing

@Suite(.serialized, .enabled(if: HTTP2FrameClient.isAvailable, "needs Python's h2: run `make python-deps`"))
struct HTTP2AttackTests {
    /// Limits small enough that the attacks reach them quickly.
    static let limits = """
          max_uri_bytes: 8KiB
          max_header_bytes: 16KiB
          max_body_bytes: 64KiB
          body_timeout: 2s
        """
    /// Resident memory an attack may add, in bytes (each added at most 1.1 MiB in a debug build).
    static let residentBound = 16 << 20
    /// CPU an attack may cost, in seconds (each cost at most 0.06 s in a debug build).
    static let cpuBound = 2.0

    /// Runs `command` against `stack` and checks what every attack must leave behind: memory grown
    /// by less than `residentBound`, CPU under `cpuBound` and no more than one loop's worth while
    /// it ran, back to idle after, and the process answering new HTTP/1.1 and HTTP/2 requests.
    func underAttack(
        _ stack: HTTP2Stack, _ command: String, _ arguments: [String] = [], path: String = HTTP2Stack.launchPath
    ) throws -> HTTP2Observation {
        let warm = try stack.frames.get(HTTP2Stack.launchPath)
        try #require(warm.status == 200, "before the attack: \(warm)")
        let before = try stack.usage()
        let observed = try stack.frames.run(
            command, arguments, options: ["--path", path, "--probe-path", HTTP2Stack.launchPath])
        let after = try stack.usage()
        let growth = after.residentGrowth(since: before)
        #expect(
            growth < Self.residentBound,
            "\(command): resident memory grew \(growth >> 20) MiB (\(before) -> \(after)); \(observed)")
        let cpu = after.cpuSpent(since: before), wall = after.wallSeconds(since: before)
        print("HTTP/2 attack \(command) \(arguments.joined(separator: " ")): RSS \(growth >> 10) KiB more, "
            + String(format: "%.2f s CPU in %.2f s; ", cpu, wall) + "\(observed)")
        #expect(
            cpu < min(Self.cpuBound, wall + 0.5),
            "\(command): \(String(format: "%.2f", cpu)) s CPU in \(String(format: "%.2f", wall)) s; \(observed)")
        #expect(try returnsToIdle(stack), "\(command): the process stays busy after the attack")
        let again = try stack.frames.get(HTTP2Stack.launchPath)
        #expect(again.status == 200, "\(command): a new HTTP/2 connection after the attack: \(again)")
        let overHTTP1 = try stack.curl(["--http1.1", "-o", "/dev/null", "-w", "%{http_code}"])
        #expect(overHTTP1.output == "200", "\(command): HTTP/1.1 after the attack: \(overHTTP1)")
        #expect(stack.proxy.process.isRunning)
        return observed
    }

    /// Whether the proxy's CPU use falls under 20 % of one core over half a second, within 10 s.
    func returnsToIdle(_ stack: HTTP2Stack) throws -> Bool {
        var last = try stack.usage()
        return try eventually(within: .seconds(10), every: .milliseconds(500)) {
            let now = try stack.usage()
            let wall = now.wallSeconds(since: last)
            guard wall >= 0.4 else { return false }
            defer { last = now }
            return now.cpuSpent(since: last) / wall < 0.2
        }
    }

    @Test(arguments: [false, true])
    func rapidResetStaysBoundedAndTheConnectionAnswersOrGoesAway(tls: Bool) throws {
        let stack = try HTTP2Stack(tls: tls, server: Self.limits)
        let observed = try underAttack(stack, "rapid-reset", ["--streams", "5000"])
        if let error = observed.goawayError {
            // Resets count in the flood bucket, which runs out before nghttp2's own (looser)
            // CVE-2023-44487 bound would end the connection with INTERNAL_ERROR.
            #expect(error == "ENHANCE_YOUR_CALM", "\(observed)")
            #expect(observed.goawayLastStreamID ?? .max < 2 * 5000 - 1, "\(observed)")
        } else {
            #expect(observed.int("streams_sent") == 5000, "\(observed)")
            #expect(observed.string("probe_status") == "200", "the connection must still answer: \(observed)")
        }
    }

    @Test func continuationFloodEndsTheStreamOrTheConnection() throws {
        let stack = try HTTP2Stack(server: Self.limits)
        let observed = try underAttack(stack, "continuation", ["--frames", "20000", "--frame-bytes", "64"])
        // 20,000 headers of 70-odd bytes are far past max_header_bytes (16 KiB): the server stops
        // taking them (GOAWAY or close), or answers 431 / resets the stream and discards the rest.
        let streamRefused = observed.string("stream_status") == "431" || observed.resetCount > 0
        #expect(observed.connectionEnded || streamRefused, "\(observed)")
        if observed.goawayError != nil {
            #expect(observed.goawayError != "NO_ERROR", "\(observed)")
        }
    }

    @Test(arguments: [
        ("settings-flood", ["--frames", "200000"]), ("ping-flood", ["--frames", "200000"]),
        ("priority-flood", ["--frames", "20000"]), ("empty-data", ["--frames", "100000"]),
    ])
    func floodsOfControlAndEmptyFramesGetGoawayEnhanceYourCalm(command: String, arguments: [String]) throws {
        let stack = try HTTP2Stack(server: Self.limits)
        let path = command == "empty-data" ? "/graphql" : HTTP2Stack.launchPath
        let observed = try underAttack(stack, command, arguments, path: path)
        // The connection shuts its side after the GOAWAY and drops what still comes for a moment
        // (closing with the client's frames unread would reset it, and the GOAWAY with it).
        #expect(observed.goawayError == "ENHANCE_YOUR_CALM", "\(observed)")
    }

    @Test(arguments: [["--mode", "indexed", "--repeats", "400", "--value-bytes", "4000"],
                      ["--mode", "literals", "--repeats", "3000", "--value-bytes", "20"]])
    func hpackBombIsAnswered431OnTheStream(arguments: [String]) throws {
        let stack = try HTTP2Stack(server: Self.limits)
        let observed = try underAttack(stack, "hpack-bomb", arguments)
        #expect(observed.string("stream_status") == "431", "\(observed)")
        #expect(observed.goawayError == nil, "a stream's headers end that stream only: \(observed)")
        #expect(observed.string("probe_status") == "200", "the connection goes on: \(observed)")
    }

    @Test func windowHeldShutPastBodyTimeoutResetsTheStream() throws {
        let stack = try HTTP2Stack(server: Self.limits)
        let observed = try underAttack(stack, "zero-window", ["--wait", "12"])
        let reset = observed.json["stream_reset"] as? [String: Any]
        let after = reset?["after_ms"] as? Int ?? -1
        #expect(reset != nil, "the stream must be reset once body_timeout (2 s) passes: \(observed)")
        #expect((1_500...9_000).contains(after), "reset after \(after) ms, body_timeout is 2 s: \(observed)")
        #expect(observed.int("stream_body_bytes") == 0, "\(observed)")
    }

    @Test(arguments: [nil, 16] as [Int?])
    func noStreamBeyondTheLimitIsTaken(limit: Int?) throws {
        let configured = limit.map { "\n  http2_max_streams: \($0)" } ?? ""
        let stack = try HTTP2Stack(
            server: Self.limits.replacingOccurrences(of: "body_timeout: 2s", with: "body_timeout: 30s") + configured)
        let expected = limit ?? 128
        let observed = try underAttack(stack, "max-streams", ["--streams", "1000"], path: "/graphql")
        #expect(observed.int("advertised_max_concurrent_streams") == expected, "\(observed)")
        if let error = observed.goawayError {
            // nghttp2 takes a HEADERS past the acknowledged limit as a connection error (RFC 9113
            // 5.1.2 allows that or a stream error): GOAWAY naming the last stream within the limit.
            #expect(error == "PROTOCOL_ERROR", "\(observed)")
            #expect(observed.goawayLastStreamID == 2 * expected - 1, "\(observed)")
            #expect(observed.int("taken") == expected, "\(observed)")
        } else {
            // Or each stream past the limit is refused and the ones kept are served.
            let kept = observed.int("kept_open") ?? -1
            #expect((1...expected).contains(kept), "streams kept open: \(kept), limit \(expected): \(observed)")
            #expect(observed.int("reset") ?? 0 >= 1000 - expected, "\(observed)")
            #expect(Set(observed.resets.keys).isSubset(of: ["REFUSED_STREAM", "PROTOCOL_ERROR"]), "\(observed)")
            #expect(observed.int("kept_answered") == kept, "every stream kept is answered once its body ends: \(observed)")
        }
    }

    @Test(arguments: [false, true])
    func oversizedBodyIsAnswered413OnTheStream(announced: Bool) throws {
        let stack = try HTTP2Stack(server: Self.limits)
        let observed = try underAttack(
            stack, "big-body", ["--bytes", String(256 * 1024)] + (announced ? ["--content-length"] : []),
            path: "/graphql")
        #expect(observed.string("stream_status") == "413", "\(observed)")
        #expect(observed.goawayError == nil, "\(observed)")
        #expect(observed.string("probe_status") == "200", "the connection goes on: \(observed)")
    }
}
