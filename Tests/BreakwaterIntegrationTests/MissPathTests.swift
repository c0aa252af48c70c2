// The miss path through the real binary: what the origin receives (the client's body bytes as
// they came when nothing in them must change), and a TTL-0 operation answered BYPASS with its
// headers while every request reaches the origin over one pooled connection.

import BreakwaterTesting
import Foundation
import Testing

@Suite(.serialized) struct MissPathTests {
    /// An origin that records each request's body and answers a small JSON object, keep-alive.
    /// The proxy's own schema introspection is answered and not recorded; `connections` gets the
    /// number of the connection (counted from 1 as accepted) of each recorded request.
    private static func recordingOrigin(_ bodies: Collected<[UInt8]>, connections: Collected<Int>? = nil) throws
        -> ScriptedOrigin
    {
        let accepted = Collected<Int>()
        return try ScriptedOrigin { fd, request in
            accepted.append(0)
            let connection = accepted.all.count
            var pending = request
            while true {
                guard let split = Self.headEnd(pending) else { return }
                let head = String(decoding: pending[..<split], as: UTF8.self).lowercased()
                let length = head.split(separator: "\r\n").first { $0.hasPrefix("content-length:") }
                    .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
                while pending.count < split + 4 + length {
                    var chunk = [UInt8](repeating: 0, count: 65536)
                    let count = read(fd, &chunk, chunk.count)
                    guard count > 0 else { return }
                    pending += chunk.prefix(count)
                }
                let body = Array(pending[(split + 4)..<(split + 4 + length)])
                if !String(decoding: body, as: UTF8.self).contains("__schema") {
                    bodies.append(body)
                    connections?.append(connection)
                }
                pending.removeFirst(split + 4 + length)
                let answer = Array(#"{"data":{"launch":{"id":"1"}}}"#.utf8)
                guard
                    ScriptedOrigin.write(
                        fd,
                        Array("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: \(answer.count)\r\n\r\n".utf8)
                            + answer)
                else { return }
                if pending.isEmpty {
                    var chunk = [UInt8](repeating: 0, count: 65536)
                    let count = read(fd, &chunk, chunk.count)
                    guard count > 0 else { return }
                    pending += chunk.prefix(count)
                }
            }
        }
    }

    private static func headEnd(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for index in 0...(bytes.count - 4)
        where bytes[index] == 13 && bytes[index + 1] == 10 && bytes[index + 2] == 13 && bytes[index + 3] == 10 {
            return index
        }
        return nil
    }

    private static let yaml =
        "persisted_queries:\n  store: \"\"\ncache:\n  rules:\n    - operation: GetLive\n      ttl: 0s\n    - operation: GetKept\n      ttl: 1m\n"

    @Test func theOriginGetsTheClientsBodyBytesAsTheyCame() throws {
        let bodies = Collected<[UInt8]>()
        let origin = try Self.recordingOrigin(bodies)
        defer { origin.stop() }
        let proxy = try ProxyProcess(origin: origin.url, yaml: Self.yaml)
        // Members out of order, spaces, an escape: writing it again would change every one.
        let body = "{ \"variables\" : {\"b\": 2, \"a\": \"\\u0041\"},\n \"operationName\":\"GetLive\", \"query\": \"query GetLive($a: String, $b: Int) { launch(id: $a) { id } }\" }"
        let response = try proxy.client.post("/graphql", json: body)
        #expect(response.status == 200)
        #expect(response.header("X-Cache") == "BYPASS")
        #expect(bodies.all.count == 1)
        #expect(bodies.all.first == Array(body.utf8))
    }

    @Test func aBodyWithExtensionsIsWrittenAgainWithoutThem() throws {
        let bodies = Collected<[UInt8]>()
        let origin = try Self.recordingOrigin(bodies)
        defer { origin.stop() }
        let proxy = try ProxyProcess(origin: origin.url, yaml: Self.yaml)
        let body = #"{"query":"query GetLive { launch(id: \"1\") { id } }","extensions":{"client":"x"}}"#
        let response = try proxy.client.post("/graphql", json: body)
        #expect(response.status == 200)
        let sent = String(decoding: try #require(bodies.all.first), as: UTF8.self)
        #expect(!sent.contains("extensions"))
        #expect(sent.hasPrefix(#"{"query":"query GetLive"#))
    }

    @Test func aTTLZeroMissIsBypassedOnOnePooledConnection() throws {
        let bodies = Collected<[UInt8]>()
        let connections = Collected<Int>()
        let recording = try Self.recordingOrigin(bodies, connections: connections)
        defer { recording.stop() }
        let proxy = try ProxyProcess(origin: recording.url, yaml: Self.yaml, threads: 1)
        for index in 0..<5 {
            let body = #"{"query":"query GetLive($id: ID) { launch(id: $id) { id } }","variables":{"id":"\#(index)"}}"#
            let response = try proxy.client.post("/graphql", json: body)
            #expect(response.status == 200)
            #expect(response.header("X-Cache") == "BYPASS")
            #expect(response.header("Cache-Control") == "private, no-store")
            #expect(response.header("Content-Type")?.hasPrefix("application/json") == true)
            #expect(response.header("X-Request-Id") != nil)
            #expect(response.header("Age") == nil)
        }
        // All five reached the origin, none answered from a cache or coalesced away.
        #expect(bodies.all.count == 5)
        // One keep-alive connection carried them all (the proxy runs one loop here).
        #expect(Set(connections.all).count == 1)
        let stats = try proxy.stats()
        #expect(stats["bypass"] as? Int == 5)
        #expect(stats["misses"] as? Int == 0)
    }
}
