// Case-insensitive matching of validated header names and list elements against lower-case
// literals, eight bytes at a time: every length class (under 8, exactly 8, 9-16, past 16) and a
// difference in every position, including the bytes only the overlapping last word covers.

import BreakwaterHTTP1
import Testing

struct HTTP1BytesTests {
    /// Whether `text`, placed inside a larger buffer (so the range does not start at 0), matches.
    private func matches(_ text: String, _ literal: StaticString) -> Bool {
        let wire = Array("x: \(text)\r\n".utf8)
        return wire.withUnsafeBufferPointer { bytes in
            HTTP1Bytes.equalsLowercase(bytes, 3..<(3 + text.utf8.count), literal)
        }
    }

    @Test func shortLiteralsMatchInAnyCaseOnly() {
        let cases: [(String, StaticString, Bool)] = [
            ("close", "close", true), ("CLOSE", "close", true), ("Close", "close", true), ("clos", "close", false),
            ("closes", "close", false), ("clase", "close", false), ("chunked", "chunked", true),
            ("Chunked", "chunked", true), ("chunkee", "chunked", false), ("date", "date", true), ("DATE", "date", true),
            ("dat3", "date", false), ("host", "host", true), ("HoSt", "host", true), ("hosT_", "host", false),
        ]
        for (text, literal, expected) in cases {
            #expect(matches(text, literal) == expected, "\(text) against \(literal)")
        }
    }

    @Test func longLiteralsMatchInAnyCaseAndFailOnAnyOneByte() {
        let literals: [StaticString] = ["keep-alive", "connection", "content-length", "transfer-encoding", "application/json", "100-continue"]
        for literal in literals {
            let lower = literal.description
            #expect(matches(lower, literal))
            #expect(matches(lower.uppercased(), literal))
            #expect(matches(String(lower.enumerated().map { $0.offset % 2 == 0 ? Character($0.element.uppercased()) : $0.element }), literal))
            // A different byte at each position (letters changed, punctuation and digits too).
            for index in lower.utf8.indices {
                var bytes = Array(lower.utf8)
                let position = lower.utf8.distance(from: lower.utf8.startIndex, to: index)
                bytes[position] = bytes[position] == UInt8(ascii: "x") ? UInt8(ascii: "y") : UInt8(ascii: "x")
                #expect(!matches(String(decoding: bytes, as: UTF8.self), literal), "\(literal) at \(position)")
            }
            #expect(!matches(String(lower.dropLast()), literal))
            #expect(!matches(lower + "s", literal))
        }
    }

    @Test func onlyTheCaseBitOfLettersIsIgnored() {
        // `_` (0x5F) with the case bit is DEL, not `-`; `^` is `~`: neither matches a literal's byte.
        #expect(!matches("content_length", "content-length"))
        #expect(!matches("keep_alive", "keep-alive"))
        #expect(!matches("transfer_encoding", "transfer-encoding"))
        #expect(!matches("application_json", "application/json"))
        #expect(!matches("100_continue", "100-continue"))
    }
}
