// Feeds a parser the same bytes every way they can arrive (all at once, one byte at a time,
// in random slices) and requires the same outcome each time, as swift-nio's
// ByteToMessageDecoderVerifier does; the buffer is compacted between reads like a connection's.

import BreakwaterHTTP1
import Testing

/// One request as the parser delivered it, copied out of the buffer.
struct ParsedRequest: Equatable, CustomStringConvertible {
    var method = ""
    var target = ""
    var minorVersion = 1
    var headers: [String] = []
    var body: [UInt8] = []
    var keepAlive = true
    var expectsContinue = false

    var description: String {
        "\(method) \(target) 1.\(minorVersion) \(headers) body=\(String(decoding: body, as: UTF8.self)) keepAlive=\(keepAlive)"
    }
}

/// Everything a parser made of a byte stream: the requests, then the verdict if it refused one.
struct RequestOutcome: Equatable {
    var requests: [ParsedRequest] = []
    var error: HTTP1ParseError.Reason?
    var status: Int?
}

enum Feeding {
    /// Splits of `count` bytes: all at once, byte by byte, fixed slices and seeded random ones.
    static func splits(of count: Int) -> [[Int]] {
        var result: [[Int]] = [[count], Array(repeating: 1, count: count)]
        for size in [2, 3, 7, 64] { result.append(fixed(count, size)) }
        var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
        for _ in 0..<4 {
            var pieces: [Int] = []
            var left = count
            while left > 0 {
                seed = seed &* 6364136223846793005 &+ 1442695040888963407
                let size = min(left, Int(seed >> 33) % 23 + 1)
                pieces.append(size)
                left -= size
            }
            result.append(pieces)
        }
        return result
    }

    private static func fixed(_ count: Int, _ size: Int) -> [Int] {
        stride(from: 0, to: count, by: size).map { min(size, count - $0) }
    }

    static func text(_ buffer: [UInt8], _ range: Range<Int>) -> String {
        String(decoding: buffer[range], as: UTF8.self)
    }

    /// Parses `wire` arriving in pieces of the given sizes.
    static func requests(_ wire: [UInt8], limits: HTTP1RequestLimits, pieces: [Int]) -> RequestOutcome {
        let parser = HTTP1RequestParser(limits: limits)
        var buffer: [UInt8] = []
        var outcome = RequestOutcome()
        var current = ParsedRequest()
        var offset = 0
        for size in pieces {
            buffer += wire[offset..<(offset + size)]
            offset += size
            reading: while true {
                let event = buffer.withUnsafeBufferPointer { parser.next(in: $0) }
                switch event {
                case .needMore:
                    break reading
                case .head:
                    let head = parser.head
                    current = ParsedRequest(
                        method: text(buffer, head.method), target: text(buffer, head.target),
                        minorVersion: head.minorVersion,
                        headers: head.fields.map { text(buffer, $0.name) + ": " + text(buffer, $0.value) },
                        keepAlive: head.keepAlive, expectsContinue: head.expectsContinue)
                case .body(let range):
                    current.body += buffer[range]
                case .end:
                    outcome.requests.append(current)
                case .error(let error):
                    outcome.error = error.reason
                    outcome.status = error.status
                    return outcome
                }
            }
            // Compact like a connection does: drop what the parser no longer needs.
            let unneeded = parser.retainedFrom
            buffer.removeFirst(unneeded)
            parser.discard(unneeded)
        }
        return outcome
    }

    /// The outcome of `wire`, required to be the same however the bytes arrive.
    static func requests(
        _ wire: String, limits: HTTP1RequestLimits = HTTP1RequestLimits(),
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> RequestOutcome {
        let bytes = Array(wire.utf8)
        let reference = requests(bytes, limits: limits, pieces: [bytes.count])
        for pieces in splits(of: bytes.count) {
            let outcome = requests(bytes, limits: limits, pieces: pieces)
            #expect(outcome == reference, "pieces \(pieces.prefix(8))...", sourceLocation: sourceLocation)
            if outcome != reference { break }
        }
        return reference
    }
}
