// Logs against the real binary (docs/OPERATING.md, "Logs"): the access-log fields, text and JSON
// formats (absent fields `null`, numbers as numbers), the bypass reason,
// the access log's destinations (stdout, stderr, a file reopened on SIGHUP, off), origin
// failures at warning, purges, and SIGHUP applying the log level.

import BreakwaterTesting
import Foundation
import Testing

@Suite(.serialized) struct LoggingTests {
    static let detail = #"{"query":"query GetLaunchDetail { launch(id: \"92\") { __typename id site } }"}"#

    /// The first output line holding `text`, parsed as a JSON object.
    static func jsonLine(_ process: ManagedProcess, containing text: String) throws -> [String: Any] {
        let line = try process.waitForLine(containing: text, timeout: .seconds(5))
        return try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(line)")
    }

    @Test func accessLogLineHoldsTheSpecFields() throws {
        let origin = try DemoOriginProcess()
        let proxy = try cachingProxy(origin: origin, extra: "logging:\n  format: json\n  access_log: stdout\n")
        _ = try proxy.client.post(
            "/graphql", json: Self.detail,
            headers: [
                ("X-Request-Id", "req-42"), ("User-Agent", "probe/1.0"), ("apollographql-client-name", "ios-app"),
                ("apollographql-client-version", "3.2.1"), ("Authorization", "Bearer do-not-log"),
            ])
        let line = try Self.jsonLine(proxy.process, containing: #""request_id":"req-42""#)
        #expect(line["type"] as? String == "access")
        #expect(line["client"] as? String == "127.0.0.1")
        #expect(line["method"] as? String == "POST")
        #expect(line["status"] as? Int == 200)
        #expect(line["cache"] as? String == "BYPASS")  // a request with Authorization is private
        #expect(line["operation"] as? String == "GetLaunchDetail")
        #expect((line["hash"] as? String)?.count == 64)
        #expect(line["origin_status"] as? Int == 200)
        #expect(line["origin_ms"] is Double || line["origin_ms"] is Int)
        #expect(line["duration_ms"] is Double || line["duration_ms"] is Int)
        #expect((line["bytes"] as? Int ?? 0) > 0)
        #expect(line["user_agent"] as? String == "probe/1.0")
        #expect(line["client_name"] as? String == "ios-app")
        #expect(line["client_version"] as? String == "3.2.1")
        #expect(line["time"] is String)
        let output = proxy.process.output.joined(separator: "\n")
        #expect(!output.contains("do-not-log"), "header values never reach the log")
        #expect(!output.contains("\"92\""), "nor do variables or the query")
    }

    @Test func errorCodeIsLoggedForAnswersBreakwaterGivesItself() throws {
        let origin = try DemoOriginProcess()
        let proxy = try cachingProxy(origin: origin, extra: "logging:\n  format: json\n")
        _ = try proxy.client.post("/graphql", json: APQ.hashOnlyPOST("{ unknown }", operationName: nil), headers: [("X-Request-Id", "nf-1")])
        let line = try Self.jsonLine(proxy.process, containing: #""request_id":"nf-1""#)
        #expect(line["error_code"] as? String == "PERSISTED_QUERY_NOT_FOUND")
        #expect(line["status"] as? Int == 200)
    }

    @Test func jsonFormatMakesEveryOutputLineOneJSONObject() throws {
        let origin = try DemoOriginProcess()
        try origin.setFaults(#"{"close": true}"#)
        let proxy = try ProxyProcess(
            origin: origin.url, yaml: "persisted_queries:\n  store: \"\"\nlogging:\n  format: json\n", logLevel: "info")
        _ = try proxy.client.post("/graphql", json: Self.detail)
        _ = try proxy.process.waitForLine(containing: "origin failed", timeout: .seconds(5))
        #expect(proxy.process.terminate() == 0)
        let lines = proxy.process.output.filter { !$0.isEmpty }
        #expect(lines.count >= 5, "\(lines)")
        for line in lines {
            let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            #expect(object != nil, "not one JSON object: \(line)")
        }
    }

    @Test func originFailureIsAWarningWithReasonAndOperation() throws {
        let origin = try DemoOriginProcess()
        let proxy = try cachingProxy(origin: origin, extra: "logging:\n  format: json\n  access_log: off\n")
        try origin.setFaults(#"{"status": 500, "statusBody": "html"}"#)
        _ = try proxy.client.post("/graphql", json: Self.detail)
        let line = try Self.jsonLine(proxy.process, containing: "origin failed")
        #expect(line["level"] as? String == "warning")
        #expect(line["operation"] as? String == "GetLaunchDetail")
        #expect(line["reason"] is String)
        #expect(line["request_id"] is String)
    }

    /// docs/OPERATING.md shows the text line of an origin that did not answer in time: it is the one
    /// the binary writes for a hanging origin, time and request id aside.
    @Test func originTimeoutLineIsTheOneOperatingShows() throws {
        let operating = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("docs/OPERATING.md")
        let guide = try String(contentsOf: operating, encoding: .utf8)
        let shown = try #require(
            guide.split(separator: "\n").first { $0.contains("**`format: text`**: `") && $0.contains("origin failed") },
            "OPERATING.md shows no text line of an origin failure")
        let example = try #require(shown.split(separator: "`").first { $0.contains("origin failed") })
        let origin = try RawOrigin(mode: "hang")
        let proxy = try ProxyProcess(
            origin: origin.url,
            yaml: "origin:\n  timeout: 300ms\n  schema: off\npersisted_queries:\n  store: \"\"\n"
                + "logging:\n  format: text\n  access_log: off\n")
        _ = try proxy.client.post("/graphql", json: #"{"query":"query GetLaunches { launches { cursor } }"}"#)
        let line = try proxy.process.waitForLine(containing: "origin failed", timeout: .seconds(5))
        #expect(try Self.shape(line) == Self.shape(String(example)), "the binary wrote: \(line)")
    }

    /// A text line with its time and request id replaced, the parts that differ from run to run.
    static func shape(_ line: String) throws -> String {
        try line.replacing(Regex(#"^\d{4}-\d\d-\d\dT[0-9:.]+Z"#), with: "<time>")
            .replacing(Regex(#"request_id=[0-9a-f]+"#), with: "request_id=<id>")
    }

    @Test func textFormatIsOneReadableLinePerRecord() throws {
        let origin = try DemoOriginProcess()
        let proxy = try cachingProxy(origin: origin, extra: "logging:\n  format: text\n")
        _ = try proxy.client.post("/graphql", json: Self.detail, headers: [("X-Request-Id", "txt-1")])
        let line = try proxy.process.waitForLine(containing: "request_id=txt-1", timeout: .seconds(5))
        #expect(line.contains(" access: "))
        #expect(line.contains("status=200"))
        #expect(line.contains("operation=GetLaunchDetail"))
    }

    /// A freshness sampling fetch's line (docs/FRESHNESS.md) says whether the answer had changed
    /// and how old the stored answer was: against a demo origin whose launch sites change every
    /// 20 ms on average, an answer with `site` is seen changed, one without it never is.
    @Test(arguments: ["text", "json"])
    func aSampleLineSaysWhetherTheAnswerChangedAndTheStoredAnswersAge(format: String) throws {
        let origin = try DemoOriginProcess(extraArguments: ["--churn", "Launch.site=20ms"])
        let yaml = FreshnessTests.samplingConfig(
            rules: [("GetSite", "1s"), ("GetId", "1s")], logging: ["format: \(format)", "access_log: stdout"])
        let proxy = try ProxyProcess(origin: origin.url, yaml: yaml)
        /// The SAMPLE lines of `operation` so far, each as its `changed` (nil: none compared) and `age`.
        func samples(_ operation: String) throws -> [(changed: Bool?, age: Double)] {
            try proxy.process.output.compactMap { line -> (changed: Bool?, age: Double)? in
                if format == "json" {
                    guard line.contains(#""method":"SAMPLE""#), line.contains(#""operation":"\#(operation)""#) else {
                        return nil
                    }
                    let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
                    let age = try #require(object["age"] as? Double, "\(line)")
                    #expect(object["changed"] is Bool, "\(line)")
                    return (object["changed"] as? Bool, age)
                }
                guard line.contains(" method=SAMPLE "), line.contains(" operation=\(operation) ") else { return nil }
                let fields = Dictionary(
                    line.split(separator: " ").compactMap { field -> (String, String)? in
                        let parts = field.split(separator: "=", maxSplits: 1)
                        return parts.count == 2 ? (String(parts[0]), String(parts[1])) : nil
                    }, uniquingKeysWith: { first, _ in first })
                let age = try #require(fields["age"].flatMap(Double.init), "\(line)")
                #expect(line.hasSuffix(" changed=\(fields["changed"] ?? "?") age=\(fields["age"] ?? "?")"), "\(line)")
                return (fields["changed"].flatMap { $0 == "true" ? true : $0 == "false" ? false : nil }, age)
            }
        }
        var id = 0
        let seen = try eventually(within: .seconds(20), every: .milliseconds(50)) {
            // New keys keep being stored: each is sampled once, at a random age within its 1 s.
            id += 1
            for operation in ["GetSite", "GetId"] {
                let selection = operation == "GetSite" ? "id site" : "id"
                let body = #"{"query":"query \#(operation)($id: ID!) { launch(id: $id) { \#(selection) } }","variables":{"id":"\#(id % 100 + 1)"}}"#
                #expect(try proxy.client.post("/graphql", json: body).status == 200)
            }
            return try samples("GetSite").contains { $0.changed == true } && samples("GetId").count >= 3
        }
        let (site, bare) = (try samples("GetSite"), try samples("GetId"))
        #expect(seen, "SAMPLE lines: \(site) \(bare)")
        for sample in try samples("GetSite") + samples("GetId") {
            // Within the 1 s TTL, give or take a sampling fetch's lateness on a loaded machine.
            #expect(sample.age >= 0 && sample.age < 3, "\(sample)")
        }
        #expect(try samples("GetId").allSatisfy { $0.changed == false }, "an answer without site never changes")
    }

    @Test func accessLogGoesToAFileReopenedOnSighup() throws {
        let origin = try DemoOriginProcess()
        // The log's folder must exist before the start (the proxy creates none).
        let logs = FileManager.default.temporaryDirectory.appendingPathComponent("bw-logs-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: logs, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: logs) }
        let file = logs.appendingPathComponent("access.log").path
        let rotated = file + ".1"
        let proxy = try ProxyProcess(
            origin: origin.url, yaml: "persisted_queries:\n  store: \"\"\nlogging:\n  access_log: \(file)\n",
            logLevel: "notice")
        _ = try proxy.client.post("/graphql", json: Self.detail, headers: [("X-Request-Id", "before-rotate")])
        #expect(try eventually { (try? String(contentsOfFile: file, encoding: .utf8))?.contains("before-rotate") == true })
        try FileManager.default.moveItem(atPath: file, toPath: rotated)
        proxy.process.signal(SIGHUP)
        _ = try proxy.process.waitForLine(containing: "configuration reloaded", timeout: .seconds(5))
        _ = try proxy.client.post("/graphql", json: Self.detail, headers: [("X-Request-Id", "after-rotate")])
        #expect(try eventually { (try? String(contentsOfFile: file, encoding: .utf8))?.contains("after-rotate") == true })
        let old = try String(contentsOfFile: rotated, encoding: .utf8)
        #expect(!old.contains("after-rotate"), "a rotated file is left behind")
        #expect(!proxy.process.output.contains { $0.contains("before-rotate") }, "nothing on stdout")
    }

    /// The log writer polls while lines come and parks when a take finds none, to be woken by
    /// the next line: a burst's lines and the lines after idle spells all arrive, each once (in
    /// order per loop; batches of different loops are written one loop after the other).
    @Test func everyAccessLineArrivesOnceAcrossBurstsAndIdleSpells() throws {
        let origin = try DemoOriginProcess()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("bw-access-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("access.log").path
        let proxy = try cachingProxy(origin: origin, extra: "logging:\n  access_log: \(file)\n")
        var sent: [String] = []
        for round in 0..<3 {
            for index in 0..<(round == 0 ? 150 : 2) {
                sent.append("line-\(round)-\(index)")
                _ = try proxy.client.post("/graphql", json: Self.detail, headers: [("X-Request-Id", sent.last!)])
            }
            #expect(try eventually { (try? String(contentsOfFile: file, encoding: .utf8))?.contains("=\(sent.last!) ") == true })
            Thread.sleep(forTimeInterval: 0.15)  // no line comes: the writer parks
        }
        let logged = try String(contentsOfFile: file, encoding: .utf8).split(separator: "\n").compactMap { line in
            line.split(separator: " ").first { $0.hasPrefix("request_id=") }?.dropFirst("request_id=".count)
        }
        #expect(logged.count == sent.count)
        #expect(logged.map(String.init).sorted() == sent.sorted())
    }

    @Test func accessLogOffWritesNoLinesAndStderrGoesToStderr() throws {
        let origin = try DemoOriginProcess()
        let off = try cachingProxy(origin: origin, extra: "logging:\n  access_log: off\n")
        _ = try off.client.post("/graphql", json: Self.detail, headers: [("X-Request-Id", "silent-1")])
        _ = try off.client.post("/graphql", json: Self.detail, headers: [("X-Request-Id", "silent-2")])
        // Stopped, its log writer flushes what it holds before the exit: once the whole output is
        // read (the process exited), no access line is in it.
        #expect(off.process.terminate() == 0)
        do {
            let line = try off.process.waitForLine(containing: "silent-", timeout: .seconds(10))
            Issue.record("an access line with access_log off: \(line)")
        } catch ManagedProcessError.exited {}
        let stderr = try cachingProxy(origin: origin, extra: "logging:\n  access_log: stderr\n")
        _ = try stderr.client.post("/graphql", json: Self.detail, headers: [("X-Request-Id", "to-stderr")])
        _ = try stderr.process.waitForLine(containing: "to-stderr", timeout: .seconds(5))
    }

    @Test func everyPurgeIsLoggedWithWhoWhatAndHowMany() throws {
        let origin = try DemoOriginProcess()
        let proxy = try ProxyProcess(
            origin: origin.url,
            yaml: "persisted_queries:\n  store: \"\"\ncache:\n  rules:\n    - operation: GetLaunchDetail\n      ttl: 30s\n"
                + "logging:\n  format: json\n  access_log: off\n",
            logLevel: "notice")
        _ = try proxy.client.post("/graphql", json: Self.detail)
        _ = try proxy.admin.post("/purge", json: #"{"operation":"GetLaunchDetail"}"#)
        let line = try Self.jsonLine(proxy.process, containing: #""message":"purge""#)
        #expect(line["client"] as? String == "127.0.0.1")
        #expect(line["what"] as? String == "operation:GetLaunchDetail")
        #expect(line["purged"] as? Int == 1, "a number, not a string")
        #expect(line["soft"] as? Bool == false)
        #expect(line["level"] as? String == "notice")
    }

    @Test func sighupAppliesTheLogLevel() throws {
        let origin = try DemoOriginProcess()
        let base = "persisted_queries:\n  store: \"\"\nlogging:\n  access_log: off\n"
        let proxy = try ProxyProcess(origin: origin.url, yaml: base + "  level: info\n", logLevel: nil)
        proxy.process.signal(SIGHUP)
        _ = try proxy.process.waitForLine(containing: "configuration reloaded", timeout: .seconds(5))
        // A reload to warning: its own notice line is no longer written.
        // Each reload is counted whether or not it logs: the count says when one has happened.
        func reloadsCounted() throws -> Int? { try proxy.stats()["config"].flatMap { $0 as? [String: Any] }?["reloads"] as? Int }
        try proxy.rewriteConfig(base + "  level: warning\n")
        proxy.process.signal(SIGHUP)
        #expect(try eventually { try reloadsCounted() == 2 })
        try proxy.rewriteConfig(base + "  level: notice\n")
        proxy.process.signal(SIGHUP)
        #expect(try eventually { try reloadsCounted() == 3 })
        #expect(eventually { proxy.process.output.filter { $0.contains("configuration reloaded") }.count >= 2 })
        let reloads = proxy.process.output.filter { $0.contains("configuration reloaded") }
        #expect(reloads.count == 2, "the reload to warning wrote no notice: \(reloads)")
    }

    /// An answer with top-level `errors` says `graphql-errors` whether or not its operation has
    /// a rule (without one its TTL is 0: the reason used to read `zero-ttl`); an answer without
    /// errors and TTL 0 says `zero-ttl`; a line without a reason still has the key, `null`.
    @Test func bypassReasonNamesErrorsBeforeAZeroTTL() throws {
        let origin = try DemoOriginProcess()
        let proxy = try cachingProxy(origin: origin, extra: "logging:\n  format: json\n  access_log: stdout\n")
        _ = try proxy.client.post("/graphql", json: #"{"query":"query Boom { boom }"}"#, headers: [("X-Request-Id", "boom-1")])
        let boom = try Self.jsonLine(proxy.process, containing: #""request_id":"boom-1""#)
        #expect(boom["cache"] as? String == "BYPASS")
        #expect(boom["bypass_reason"] as? String == "graphql-errors")
        _ = try proxy.client.post(
            "/graphql", json: #"{"query":"query NoRule { __typename }"}"#, headers: [("X-Request-Id", "zero-1")])
        let zero = try Self.jsonLine(proxy.process, containing: #""request_id":"zero-1""#)
        #expect(zero["bypass_reason"] as? String == "zero-ttl")
        _ = try proxy.client.post("/graphql", json: Self.detail, headers: [("X-Request-Id", "miss-1")])
        let miss = try Self.jsonLine(proxy.process, containing: #""request_id":"miss-1""#)
        #expect(miss["cache"] as? String == "MISS")
        #expect(miss.keys.contains("bypass_reason") && miss["bypass_reason"] is NSNull, "\(miss)")
        #expect(miss["error_code"] is NSNull && miss["client_name"] is NSNull)
        let metrics = try proxy.admin.get("/metrics").text
        #expect(metrics.contains("\n" + #"breakwater_bypass_total{reason="graphql-errors"} 1"# + "\n"))
        #expect(metrics.contains("\n" + #"breakwater_bypass_total{reason="zero-ttl"} 1"# + "\n"))
    }

    /// Process-log fields keep their types in JSON: a status is a number, an absent one `null`.
    @Test func processLogFieldsAreTypedInJSON() throws {
        let origin = try DemoOriginProcess()
        let proxy = try ProxyProcess(
            origin: origin.url,
            yaml: "origin:\n  timeout: 300ms\npersisted_queries:\n  store: \"\"\nlogging:\n  format: json\n  access_log: off\n")
        try origin.setFaults(#"{"status": 503, "statusBody": "html"}"#)
        _ = try proxy.client.post("/graphql", json: Self.detail, headers: [("X-Request-Id", "typed-5xx")])
        let status = try Self.jsonLine(proxy.process, containing: #""request_id":"typed-5xx""#)
        #expect(status["origin_status"] as? Int == 503, "\(status)")
        try origin.setFaults(#"{"reset": true, "delayMs": 3000}"#)
        _ = try proxy.client.post("/graphql", json: Self.detail, headers: [("X-Request-Id", "typed-timeout")])
        let timeout = try Self.jsonLine(proxy.process, containing: #""request_id":"typed-timeout""#)
        #expect(timeout["reason"] as? String == "timeout")
        #expect(timeout.keys.contains("origin_status") && timeout["origin_status"] is NSNull, "\(timeout)")
    }
}
