// The engines write an answer whose lines are values (`CacheAnswerLines`) byte for byte as they
// write the same answer with every field listed: HTTP/1.1's head, and HTTP/2's name/value pairs.

@testable import BreakwaterServer
import BreakwaterCore
import BreakwaterFixtures
import Foundation
import Testing

struct CacheAnswerLinesWritingTests {
    static let date = "Fri, 27 Nov 2026 10:00:00 GMT"

    /// Answers from one entry: a hit with a CORS field, a stale one, a POST's and a stored one.
    static func answers() -> [HTTPResponse] {
        let entry = StoreFixture.entry(key: StoreFixture.key(1), ttl: .seconds(60), body: Array(#"{"data":{"a":1}}"#.utf8))
        let client = ClientView(
            isGET: true, ifNoneMatch: [], wantsGraphQLResponseJSON: false,
            extraHeaders: ["Access-Control-Allow-Origin": "https://app.example"], vary: "Accept")
        var post = client
        post.isGET = false
        post.extraHeaders = [:]
        var answers = [
            ClientAnswer.fromEntry(entry, age: .seconds(12), isFresh: true, client: client),
            ClientAnswer.fromEntry(entry, age: .seconds(75), isFresh: false, client: client),
            ClientAnswer.fromEntry(entry, age: .zero, isFresh: true, client: post),
            ClientAnswer.stored(entry, client: post),
        ]
        for index in answers.indices { answers[index].stamp(RequestID("req-\(index)")) }
        return answers
    }

    /// `answer` with its lines turned into listed fields.
    static func listed(_ answer: HTTPResponse) -> HTTPResponse {
        var listed = answer
        listed.headers = answer.headers
        return listed
    }

    @Test func http1WritesTheLinesAsItWritesListedFields() throws {
        for answer in Self.answers() {
            let listed = Self.listed(answer)
            #expect(answer.cacheLines != nil && listed.cacheLines == nil)
            let written = try Self.http1Bytes(answer)
            #expect(written == (try Self.http1Bytes(listed)))
            let text = String(decoding: written, as: UTF8.self)
            #expect(text.hasPrefix("HTTP/1.1 200 OK\r\nX-Cache: "))
            #expect(text.hasSuffix("\r\n\r\n{\"data\":{\"a\":1}}"))
        }
    }

    @Test func http2WritesTheLinesAsItWritesListedFields() {
        for answer in Self.answers() {
            #expect(Self.http2Pairs(answer) == Self.http2Pairs(Self.listed(answer)))
        }
        let hit = Self.http2Pairs(Self.answers()[0])
        #expect(
            hit.map { String($0.prefix { $0 != " " }) }
                == [
                    ":status:", "x-cache:", "age:", "cache-control:", "vary:", "access-control-allow-origin:",
                    "content-type:", "x-request-id:", "date:", "etag:", "content-length:",
                ])
    }

    /// The bytes `ResponseHeadWriter` queues for `answer`, read back through a socket pair.
    static func http1Bytes(_ answer: HTTPResponse) throws -> [UInt8] {
        var output = OutputQueue()
        ResponseHeadWriter.append(answer, to: &output, date: date, keepAlive: true, http10KeepAlive: false, omitBody: false)
        var fds: [Int32] = [0, 0]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0)
        defer {
            close(fds[0])
            close(fds[1])
        }
        while !output.isEmpty { _ = try output.write(to: .plain(fds[0])) }
        shutdown(fds[0], Int32(SHUT_WR))
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(fds[1], $0.baseAddress, $0.count) }
            guard count > 0 else { break }
            bytes += chunk[0..<count]
        }
        return bytes
    }

    /// The pairs `HTTP2ResponseFields` hands nghttp2 for `answer`, as `name: value`, names
    /// lower-cased as nghttp2 sends them.
    static func http2Pairs(_ answer: HTTPResponse) -> [String] {
        HTTP2ResponseFields.withNameValues(of: answer, date: date, bodiless: false) { pairs in
            pairs.map { pair in
                String(decoding: UnsafeBufferPointer(start: pair.name, count: pair.namelen), as: UTF8.self).lowercased()
                    + ": " + String(decoding: UnsafeBufferPointer(start: pair.value, count: pair.valuelen), as: UTF8.self)
            }
        }
    }
}
