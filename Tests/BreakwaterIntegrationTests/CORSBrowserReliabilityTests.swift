// Live, in a real headless Chromium: a page served from another origin fetches
// through Breakwater with `server.cors` set: a JSON POST (which needs a preflight) registers a
// persisted query, two hashed GETs read it back, and the page reads `X-Cache` from JavaScript.

import BreakwaterTesting
import Foundation
import Testing

/// The Chromium executable, when installed (`make test` installs it for the dashboard check).
private let chromium: String? = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].first {
    FileManager.default.isExecutableFile(atPath: $0)
}

@Suite(.serialized, .enabled(if: chromium != nil, "needs chromium"))
struct CORSBrowserReliabilityTests {

    static let document = "query CorsLaunch { launch(id: \"5\") { id site } }"

    /// The page: every step's outcome is written into `<pre id="result">` as one line of JSON,
    /// which `--dump-dom` hands back once the page has settled.
    static func page(proxy: Int) -> String {
        let hash = APQ.hash(document)
        let extensions = APQ.extensions(hash)
        let get = "http://127.0.0.1:\(proxy)/graphql?" + URLEncoding.queryString([("extensions", extensions)])
        let post = APQ.registeringPOST(document, operationName: nil)
        return """
            <!doctype html><meta charset="utf-8"><title>cors</title><pre id="result">pending</pre>
            <script>
            const out = {};
            async function step(name, run) {
              try { const r = await run(); out[name] = {status: r.status, xcache: r.headers.get("X-Cache"),
                age: r.headers.get("Age"), requestId: r.headers.get("X-Request-Id"), body: await r.text()}; }
              catch (e) { out[name] = {error: String(e)}; }
            }
            (async () => {
              await step("post", () => fetch(\(APQ.jsonString("http://127.0.0.1:\(proxy)/graphql")), {method: "POST",
                headers: {"Content-Type": "application/json"}, body: \(APQ.jsonString(post))}));
              await step("get1", () => fetch(\(APQ.jsonString(get))));
              await step("get2", () => fetch(\(APQ.jsonString(get))));
              document.getElementById("result").textContent = "RESULT" + JSON.stringify(out) + "END";
            })();
            </script>
            """
    }

    @Test func pageOnAnotherOriginPostsWithPreflightAndReadsXCache() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("bw-cors-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        // The page's own origin: a static server on another loopback port.
        let pageServer = ManagedProcess(
            executable: "/usr/bin/python3",
            arguments: ["-u", "-m", "http.server", "0", "--bind", "127.0.0.1", "--directory", folder.path])
        try pageServer.start()
        defer { _ = pageServer.terminate() }
        let line = try pageServer.waitForLine(containing: "Serving HTTP", timeout: .seconds(10))
        let pagePort = try #require(line.split(separator: " ").compactMap { Int($0) }.first { $0 > 0 })
        let pageOrigin = "http://127.0.0.1:\(pagePort)"

        let origin = try DemoOriginProcess()
        let proxy = try ProxyProcess(
            origin: origin.url,
            yaml: """
                server:
                  cors:
                    allow_origins: ["\(pageOrigin)"]
                persisted_queries:
                  store: ""
                cache:
                  rules:
                    - operation: CorsLaunch
                      ttl: 60s
                """)
        try Self.page(proxy: proxy.port).write(
            to: folder.appendingPathComponent("index.html"), atomically: true, encoding: .utf8)

        let dom = try Self.dumpDOM("\(pageOrigin)/index.html", profile: folder.appendingPathComponent("profile").path)
        let json = try #require(Self.between(dom, "RESULT", "END"), "no result in the page: \(dom.suffix(2_000))")
        let result = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: [String: Any]])
        print("chromium CORS result: \(json)")
        #expect(result["post"]?["status"] as? Int == 200, "POST: \(result["post"] ?? [:])")
        #expect((result["post"]?["body"] as? String)?.contains(#""site""#) == true)
        #expect(result["get1"]?["status"] as? Int == 200, "GET: \(result["get1"] ?? [:])")
        #expect(result["get2"]?["xcache"] as? String == "HIT", "X-Cache read by the page: \(result["get2"] ?? [:])")
        #expect(result["get2"]?["age"] is String)
        #expect(result["get2"]?["requestId"] is String)
    }

    static func dumpDOM(_ url: String, profile: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: chromium!)
        var arguments = [
            "--headless=new", "--disable-gpu", "--no-first-run", "--no-default-browser-check",
            "--disable-background-networking", "--disable-component-update", "--disable-sync",
            "--disable-extensions", "--user-data-dir=\(profile)", "--virtual-time-budget=10000", "--dump-dom", url,
        ]
        if getuid() == 0 { arguments.insert("--no-sandbox", at: 0) }
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }

    static func between(_ text: String, _ start: String, _ end: String) -> String? {
        guard let from = text.range(of: start), let to = text.range(of: end, range: from.upperBound..<text.endIndex)
        else { return nil }
        return String(text[from.upperBound..<to.lowerBound])
            .replacingOccurrences(of: "&amp;", with: "&").replacingOccurrences(of: "&lt;", with: "<")
            .replacingOccurrences(of: "&gt;", with: ">").replacingOccurrences(of: "&quot;", with: "\"")
    }
}
