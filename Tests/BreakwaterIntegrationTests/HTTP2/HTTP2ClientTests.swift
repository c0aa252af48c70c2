// Real HTTP/2 clients against the real binary (docs/reference/client-protocol.md, "HTTP/2"): curl negotiating h2 by ALPN over
// TLS and speaking prior knowledge (h2c) on a plain listener, Python's httpx on both, HTTP/1.1
// still offered beside h2, and `server.http2: false` turning both off.

import BreakwaterTesting
import Foundation
import Testing

@Suite(.serialized) struct HTTP2ClientTests {
    /// `curl ARGS` against the launch query: (HTTP version as curl reports it, status, body).
    func fetch(_ stack: HTTP2Stack, _ arguments: [String]) throws -> (version: String, status: String, body: String) {
        let run = try stack.curl(arguments + ["-w", "\n%{http_version} %{http_code}"])
        var lines = run.output.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let trailer = (lines.popLast() ?? "").split(separator: " ").map(String.init)
        return (trailer.first ?? "", trailer.count > 1 ? trailer[1] : "", lines.joined(separator: "\n"))
    }

    @Test func curlNegotiatesH2ByALPNOverTLSAndHTTP1IsStillOffered() throws {
        let stack = try HTTP2Stack(tls: true)
        let h2 = try fetch(stack, ["--http2"])
        #expect(h2.version == "2", "\(h2)")
        #expect(h2.status == "200", "\(h2)")
        #expect(h2.body.contains(#""site""#), "\(h2)")
        let h1 = try fetch(stack, ["--http1.1"])
        #expect(h1.version == "1.1", "\(h1)")
        #expect(h1.status == "200")
        #expect(h1.body == h2.body)
    }

    @Test func curlSpeaksPriorKnowledgeH2cOnAPlainListenerBesideHTTP1() throws {
        let stack = try HTTP2Stack()
        let h2 = try fetch(stack, ["--http2-prior-knowledge"])
        #expect(h2.version == "2", "\(h2)")
        #expect(h2.status == "200", "\(h2)")
        let h1 = try stack.proxy.client.get(HTTP2Stack.launchPath)
        #expect(h1.status == 200)
        #expect(h1.text == h2.body)
    }

    @Test(arguments: [false, true])
    func httpxReachesTheProxyOverH2(tls: Bool) throws {
        guard pythonImports("httpx, h2") else {
            Issue.record("httpx[http2] is missing: run `make python-deps`")
            return
        }
        let stack = try HTTP2Stack(tls: tls)
        let base = tls ? "https://localhost:\(stack.port)" : "http://127.0.0.1:\(stack.port)"
        let script = """
            import httpx, json, sys
            base, verify = sys.argv[1], sys.argv[2]
            options = {"http2": True} if base.startswith("https") else {"http1": False, "http2": True}
            with httpx.Client(verify=verify if verify != "-" else False, timeout=20, **options) as client:
                get = client.get(base + sys.argv[3])
                post = client.post(base + "/graphql", json={"query": sys.argv[4]})
            print(json.dumps({"get": [get.http_version, get.status_code, get.text],
                              "post": [post.http_version, post.status_code, post.text]}))
            """
        let run = try runTool(
            "/usr/bin/env",
            ["python3", "-c", script, base, stack.certificate?.certificate ?? "-", HTTP2Stack.launchPath, HTTP2Stack.launchQuery])
        let json = try #require(
            try? JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: [Any]], "\(run.output)")
        for name in ["get", "post"] {
            let answer = try #require(json[name])
            #expect(answer[0] as? String == "HTTP/2", "\(name): \(answer)")
            #expect(answer[1] as? Int == 200, "\(name): \(answer)")
        }
        #expect(json["get"]?[2] as? String == json["post"]?[2] as? String, "the same query, GET or POST: \(json)")
    }

    /// A body over `max_body_bytes` gets its 413 on the stream, and the rest of the body is read
    /// and dropped rather than refused with RST_STREAM: curl, which is still sending, reads the
    /// 413 and exits 0 (curl 7.88 exits 92 on the reset), over h2c and over TLS.
    @Test(arguments: [false, true])
    func curlStillSendingAnOversizedBodyReadsIts413(tls: Bool) throws {
        let stack = try HTTP2Stack(tls: tls)
        let body = FileManager.default.temporaryDirectory.appendingPathComponent("bw-413-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: body) }
        let padding = String(repeating: "x", count: 3 << 20)
        try Data(#"{"query":"query GetLaunch { launch(id: \"7\") { id } }","pad":"\#(padding)"}"#.utf8).write(to: body)
        let run = try stack.curl(
            [tls ? "--http2" : "--http2-prior-knowledge", "-H", "Content-Type: application/json", "--data-binary",
             "@\(body.path)", "-w", "\n%{http_version} %{http_code}"],
            target: "/graphql")
        #expect(run.status == 0, "curl exits 0: \(run)")
        #expect(run.output.hasSuffix("\n2 413"), "\(run.output.suffix(200))")
        #expect(run.output.contains("1048576"), "the answer names the limit: \(run.output.suffix(300))")
        let after = try fetch(stack, [tls ? "--http2" : "--http2-prior-knowledge"])
        #expect(after.status == "200", "\(after)")
    }

    @Test func http2FalseLeavesOnlyHTTP1OnBothListeners() throws {
        let overTLS = try HTTP2Stack(tls: true, server: "  http2: false")
        let negotiated = try fetch(overTLS, ["--http2"])
        #expect(negotiated.version == "1.1", "ALPN must not offer h2: \(negotiated)")
        #expect(negotiated.status == "200")
        let plain = try HTTP2Stack(server: "  http2: false")
        let priorKnowledge = try fetch(plain, ["--http2-prior-knowledge"])
        #expect(priorKnowledge.version != "2", "the preface must not start HTTP/2: \(priorKnowledge)")
        #expect(try plain.proxy.client.get(HTTP2Stack.launchPath).status == 200)
    }

    @Test func requestsAreCountedAndLoggedByProtocol() throws {
        let stack = try HTTP2Stack(rest: HTTP2Stack.cacheRules + "\nlogging:\n  format: json\n  access_log: stdout")
        for index in 0..<2 {
            #expect(try stack.proxy.client.get(HTTP2Stack.launchPath, headers: [("X-Request-Id", "h1-\(index)")]).status == 200)
        }
        for index in 0..<3 {
            let h2 = try fetch(stack, ["--http2-prior-knowledge", "-H", "X-Request-Id: h2-\(index)"])
            #expect(h2.status == "200", "\(h2)")
        }
        let protocols = try #require(try stack.proxy.stats()["protocols"] as? [String: Int])
        #expect(protocols["http1"] == 2, "\(protocols)")
        #expect(protocols["http2"] == 3, "\(protocols)")
        let metrics = try stack.proxy.admin.get("/metrics").text
        #expect(metrics.contains(#"breakwater_requests_by_protocol_total{protocol="http2"} 3"#), "\(metrics)")
        for (id, name) in [("h1-1", "HTTP/1.1"), ("h2-2", "HTTP/2")] {
            let line = try stack.proxy.process.waitForLine(containing: #""request_id":"\#(id)""#, timeout: .seconds(5))
            let record = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            #expect(record?["protocol"] as? String == name, "\(line)")
        }
    }

    @Test(.enabled(if: HTTP2FrameClient.isAvailable, "needs Python's h2: run `make python-deps`"))
    func answersOverH2CarryNoConnectionSpecificFields() throws {
        let stack = try HTTP2Stack()
        // The h2 package refuses upper-case names and connection-specific fields (RFC 9113 8.2.2).
        let answer = try HTTP2FrameClient(port: stack.port).post(
            "/graphql", json: #"{"query":"{ launch(id: \"7\") { id } }"}"#, headers: [("Accept-Encoding", "gzip")])
        #expect(answer.status == 200)
        for (name, _) in answer.headers {
            #expect(name == name.lowercased(), "\(name)")
            #expect(!["connection", "keep-alive", "transfer-encoding", "upgrade", "proxy-connection"].contains(name))
        }
        #expect(answer.header("x-request-id") != nil)
    }
}
