// Malformed bytes on the wire never crash the proxy or poison its cache (README "GraphQL over HTTP rules").

import BreakwaterTesting
import Foundation
import Testing

@Suite(.serialized) struct MalformedInputTests {
    static let junk: [[UInt8]] = [
        Array("GARBAGE\r\n\r\n".utf8),
        Array("GET\r\n\r\n".utf8),
        Array("GET /graphql HTTP/9.9\r\nHost: x\r\n\r\n".utf8),
        Array("GET /graphql?query=%7B HTTP/1.1\r\nHost: x\r\n\r\n".utf8),
        Array("GET /graphql?query=%ZZ%&&&=&variables=%7B%7D%7D HTTP/1.1\r\nHost: x\r\n\r\n".utf8),
        Array("POST /graphql HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"query\":".utf8),
        Array("POST /graphql HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: -5\r\n\r\n".utf8),
        Array("POST /graphql HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nZZZ\r\n".utf8),
        Array("POST /graphql HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\nContent-Type: application/json\r\n\r\n0\r\n\r\n".utf8),
        Array("GET /graphql HTTP/1.1\r\nHost: x\r\nBad Header Line\r\n\r\n".utf8),
        [0, 1, 2, 3, 255, 254, 13, 10, 13, 10],
        Array("GET /graphql?query=\u{0}\u{1} HTTP/1.1\r\nHost: x\r\n\r\n".utf8),
        Array("POST /graphql HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 8\r\n\r\n\u{FF}\u{FE}{}[]\"\\".utf8),
        Array("GET /graphql HTTP/1.1\r\nHost: x\r\nX-Long: ".utf8) + [UInt8](repeating: 65, count: 200_000) + Array("\r\n\r\n".utf8),
    ]

    @Test func junkNeverCrashesTheProxyNorChangesWhatItServes() throws {
        let origin = try DemoOriginProcess()
        let proxy = try cachingProxy(origin: origin)
        let query = #"{"query":"query GetLaunchDetail { launch(id: \"21\") { id } }"}"#
        let reference = try proxy.client.post("/graphql", json: query)
        #expect(reference.header("X-Cache") == "MISS")
        for (index, bytes) in Self.junk.enumerated() {
            let answer = try? proxy.client.sendRaw(bytes, closeWrite: true, timeout: .seconds(3))
            if let answer { #expect(answer.status >= 400, "junk \(index) got \(answer.status)") }
            #expect(proxy.process.isRunning, "junk \(index) stopped the proxy")
        }
        // Still serving, from the same entry.
        let after = try proxy.client.post("/graphql", json: query)
        #expect(after.header("X-Cache") == "HIT")
        #expect(after.body == reference.body)
        // Random bytes too (seeded, so a failure replays).
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        for _ in 0..<50 {
            var bytes = Array("POST /graphql HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 64\r\n\r\n".utf8)
            for _ in 0..<64 {
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                bytes.append(UInt8(truncatingIfNeeded: state >> 33))
            }
            _ = try? proxy.client.sendRaw(bytes, closeWrite: true, timeout: .seconds(3))
        }
        #expect(proxy.process.isRunning)
        #expect(try proxy.client.post("/graphql", json: query).header("X-Cache") == "HIT")
        #expect(((try proxy.stats()["cache"] as? [String: Any])?["entries"] as? Int) == 1)
    }
}
