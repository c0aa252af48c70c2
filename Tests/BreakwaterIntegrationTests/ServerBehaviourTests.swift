// Routing, methods, media types, the commands, and a graceful stop.

import BreakwaterTesting
import Foundation
import Testing

@Suite(.serialized) struct ServerBehaviourTests {
    @Test func otherPathsAreNotFound() throws {
        let origin = try DemoOriginProcess()
        let proxy = try ProxyProcess(origin: origin.url)
        let response = try proxy.client.get("/nope")
        #expect(response.status == 404)
        #expect(firstError(response).code == "NOT_FOUND")
    }

    @Test func otherMethodsGetMethodNotAllowedWithAllow() throws {
        let origin = try DemoOriginProcess()
        let proxy = try ProxyProcess(origin: origin.url)
        for method in ["PUT", "DELETE", "PATCH"] {
            let response = try proxy.client.send(method: method, target: "/graphql")
            #expect(response.status == 405, "\(method)")
            #expect(response.header("Allow") == "GET, POST")
        }
    }

    @Test(arguments: ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x"])
    func postWithoutJSONContentTypeIsUnsupported(contentType: String) throws {
        let origin = try DemoOriginProcess()
        let proxy = try ProxyProcess(origin: origin.url)
        let response = try proxy.client.send(
            method: "POST", target: "/graphql", headers: [("Content-Type", contentType)],
            body: Array(#"{"query":"{ me { id } }"}"#.utf8))
        #expect(response.status == 415)
        #expect(try origin.counters()["requests"] as? Int == 0)
    }

    @Test func sigtermFinishesInFlightRequestsThenExitsZero() throws {
        let origin = try DemoOriginProcess()
        let proxy = try ProxyProcess(origin: origin.url)
        let result = Collected<Int>()
        let done = DispatchSemaphore(value: 0)
        let client = proxy.client
        DispatchQueue.global().async {
            let status = try? client.post("/graphql", json: #"{"query":"{ slow(ms: 800) }"}"#).status
            result.append(status ?? -1)
            done.signal()
        }
        // Wait until the origin has the request, then ask the proxy to stop.
        let deadline = ContinuousClock.now + .seconds(5)
        while (try origin.counters()["requests"] as? Int ?? 0) == 0 && ContinuousClock.now < deadline {
            Thread.sleep(forTimeInterval: 0.02)
        }
        proxy.process.signal(SIGTERM)
        #expect(done.wait(timeout: .now() + 5) == .success)
        #expect(result.all == [200])
        #expect(proxy.process.waitForExit(timeout: .seconds(5)) == 0)
    }

    @Test func validateNamesAMisspelledKeyWithItsLine() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("bad-\(UUID().uuidString).yaml")
        try "server:\n  listen: \"127.0.0.1:8080\"\n  max_uri_byte: 100\n".write(
            to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let (status, output) = try runBreakwater(["validate", "--config", file.path])
        #expect(status == 2)
        #expect(output.contains("\(file.lastPathComponent):3:"))
        #expect(output.contains("max_uri_byte"))
    }

    @Test func validateAcceptsTheShippedConfigAndPrintsEffectiveSettings() throws {
        let (status, output) = try runBreakwater(["validate", "--config", "config.yaml"])
        #expect(status == 0, "\(output)")
        #expect(output.contains("graphql_path"))
        #expect(output.contains("GetLaunches"))
    }

    @Test func hashPrintsTheAPQHashWithoutTrailingNewline() throws {
        let (status, output) = try runBreakwater(["hash"], stdin: "{__typename}\n")
        #expect(status == 0)
        #expect(output.trimmingCharacters(in: .whitespacesAndNewlines)
            == "ecf4edb46db40b5132295c0291d62fb65d6759a9eedfa4d5d612dd5ec54a6b38")
        let exact = try runBreakwater(["hash", "--exact"], stdin: "{__typename}\n")
        #expect(!exact.output.contains("ecf4edb46db40b5132295c0291d62fb65d6759a9eedfa4d5d612dd5ec54a6b38"))
    }
}
