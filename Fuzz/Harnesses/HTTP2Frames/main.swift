// libFuzzer harness: an HTTP/2 server connection (nghttp2 with Breakwater's rules, `HTTP2Session`)
// on any frames after the preface never crashes, answers every request it makes and every
// refusal with HEADERS and DATA, and keeps its queued frames within the bound the connection
// sets, whether the bytes arrive at once or in two reads split where the input's first byte says
// (scripts/fuzz.sh builds it with -sanitize=fuzzer,address).

@testable import BreakwaterServer
import BreakwaterCore
import BreakwaterHTTP2
import FuzzSupport

#if canImport(Glibc)
import Glibc
#endif

private let settings = HTTP2Settings(
    maxStreams: 8, headLimits: HTTP2HeadLimits(maxTargetBytes: 256, maxHeadBytes: 1024, maxBodyBytes: 2048),
    deadlines: HTTP2StreamDeadlines.Configuration(idleTimeout: 1_000_000_000, headerTimeout: 1_000_000_000, bodyTimeout: 1_000_000_000))
/// Where the frames go: written, then forgotten.
nonisolated(unsafe) private let sink = Transport.plain(open("/dev/null", O_WRONLY))
private let answer = HTTPResponse(status: 200, headers: ["Content-Type": "application/json", "Connection": "close"], body: "{\"data\":{}}")

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHTTP2Frames(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = Array(fuzzInput(data, size))
    let wire = HTTP2Preface.bytes + input
    let split = HTTP2Preface.bytes.count + (input.isEmpty ? 0 : Int(input[0]) % (input.count + 1))
    guard let connection = try? HTTP2Session(settings: settings, remoteAddress: "127.0.0.1", isSecure: false, now: 0) else {
        fatalError("no HTTP/2 connection")
    }
    var output = OutputQueue()
    var now: Int64 = 0
    for piece in [wire[..<split], wire[split...]] {
        now += 400_000_000
        let events = Array(piece).withUnsafeBufferPointer { connection.receive($0, now: now) }
        guard let events else { break }
        for event in events {
            switch event {
            case .request(let stream, let request):
                precondition(!request.target.isEmpty, "a request without a target")
                connection.answer(stream, with: answer, date: "Thu, 01 Jan 2026 00:00:00 GMT")
            case .refusal(let stream, let response):
                precondition([408, 413, 414, 431].contains(response.status), "an unexpected refusal \(response.status)")
                connection.answer(stream, with: response, date: "Thu, 01 Jan 2026 00:00:00 GMT")
            case .abandoned:
                // The client reset a stream it was owed an answer for: nothing to answer.
                break
            }
        }
        guard connection.send(into: &output, bound: 64 << 10) else { break }
        precondition(output.unsentBytes < (64 << 10) + (32 << 10), "queued frames past the bound")
        _ = try? output.write(to: sink)
    }
    for event in connection.deadlinePassed(now: now + 2_000_000_000, timeout: { answer }) {
        if case .refusal(let stream, let response) = event { connection.answer(stream, with: response, date: "-") }
    }
    _ = connection.send(into: &output, bound: 64 << 10)
    return 0
}

runFuzzer(fuzzHTTP2Frames)
