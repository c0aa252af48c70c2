// Live TLS cases beyond TLSOriginTests: an expired origin certificate is refused with a
// clear 502, a renewed listener certificate is served after SIGHUP, a TLS listener survives
// clients that do not speak TLS, and pipelined requests that arrive in one flight of records are
// all answered (Tests/fixtures/tls_pipeline.py).

import BreakwaterTesting
import Foundation
import Testing

@Suite(.serialized) struct TLSReliabilityTests {
    let query = #"{"query":"{ launch(id: \"7\") { id site } }"}"#

    @Test func expiredOriginCertificateIsRefusedWithA502() throws {
        let certificate = try ExpiredCertificate(name: "localhost")
        let origin = try DemoOriginProcess(tls: certificate.asTestCertificate)
        let proxy = try ProxyProcess(
            origin: "https://localhost:\(origin.port)/graphql",
            yaml: "persisted_queries:\n  store: \"\"\n",
            environment: ["SSL_CERT_FILE": certificate.certificate, "SSL_CERT_DIR": "/nonexistent"])
        let response = try proxy.client.post("/graphql", json: query)
        #expect(response.status == 502)
        let message = firstError(response).message ?? ""
        #expect(message.contains("certificate verify failed"), "\(message)")
        #expect(message.contains("certificate has expired"), "\(message)")
        #expect(firstError(response).code == "ORIGIN_UNAVAILABLE")
    }

    @Test func expiredOriginCertificateIsAcceptedWithVerificationOff() throws {
        let certificate = try ExpiredCertificate(name: "localhost")
        let origin = try DemoOriginProcess(tls: certificate.asTestCertificate)
        let proxy = try ProxyProcess(
            origin: "https://localhost:\(origin.port)/graphql",
            yaml: "origin:\n  tls_verify: false\npersisted_queries:\n  store: \"\"\n",
            environment: ["SSL_CERT_DIR": "/nonexistent"])
        #expect(try proxy.client.post("/graphql", json: query).status == 200)
    }

    /// SIGHUP loads the certificate and key again from the running paths: a renewed pair written
    /// over the old files is what new connections get; a pair that does not load fails the reload
    /// and the running certificate stays (docs/reference/configuration.md, `server.tls`).
    @Test func sighupServesARenewedCertificateAndKeepsTheRunningOneWhenTheNewOneFails() throws {
        let certificate = try TestCertificate(name: "first.test")
        let renewed = try TestCertificate(name: "renewed.test")
        let origin = try DemoOriginProcess()
        let front = try ProxyProcess(origin: origin.url, yaml: certificate.terminatingYAML, logLevel: "info")
        #expect(try Self.servedSubject(port: front.port).contains("first.test"))

        for (from, to) in [(renewed.certificate, certificate.certificate), (renewed.key, certificate.key)] {
            try Data(contentsOf: URL(fileURLWithPath: from)).write(to: URL(fileURLWithPath: to))
        }
        front.process.signal(SIGHUP)
        _ = try front.process.waitForLine(containing: "configuration reloaded", timeout: .seconds(5))
        #expect(try Self.servedSubject(port: front.port).contains("renewed.test"))

        try Data("not a certificate\n".utf8).write(to: URL(fileURLWithPath: certificate.certificate))
        front.process.signal(SIGHUP)
        let refused = try front.process.waitForLine(containing: "reload failed", timeout: .seconds(5))
        #expect(refused.contains("certificate"), "\(refused)")
        #expect(try Self.servedSubject(port: front.port).contains("renewed.test"))
    }

    /// The subject of the certificate a TLS listener presents, as `openssl s_client` prints it.
    static func servedSubject(port: Int) throws -> String {
        let client = Process()
        client.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        client.arguments = ["s_client", "-connect", "127.0.0.1:\(port)", "-servername", "localhost"]
        let input = Pipe()
        let output = Pipe()
        client.standardInput = input
        client.standardOutput = output
        client.standardError = FileHandle.nullDevice
        try client.run()
        try input.fileHandleForWriting.close()
        let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        client.waitUntilExit()
        return printed.split(separator: "\n").first { $0.hasPrefix("subject=") }.map(String.init) ?? ""
    }

    /// Plain HTTP and garbage sent to a TLS listener are dropped; the listener still serves TLS.
    @Test func tlsListenerSurvivesClientsThatDoNotSpeakTLS() throws {
        let certificate = try TestCertificate(name: "localhost")
        let origin = try DemoOriginProcess()
        let front = try ProxyProcess(origin: origin.url, yaml: certificate.terminatingYAML)
        for payload in ["GET /graphql HTTP/1.1\r\nHost: x\r\n\r\n", String(repeating: "\u{16}\u{03}\u{01}\u{ff}", count: 300)] {
            let connection = try KeepAliveClient(port: front.port, timeout: .seconds(5))
            try connection.write(Array(payload.utf8))
            _ = try? connection.readResponse()
            connection.close()
        }
        let curl = Process()
        curl.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        curl.arguments = [
            "-s", "-o", "/dev/null", "-w", "%{http_code}", "--cacert", certificate.certificate,
            "-H", "Content-Type: application/json", "--data", query, "https://localhost:\(front.port)/graphql",
        ]
        let output = Pipe()
        curl.standardOutput = output
        try curl.run()
        curl.waitUntilExit()
        #expect(String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self) == "200")
        #expect(try front.admin.get("/healthz").status == 200)
    }

    /// Sixty pipelined misses in one flight: OpenSSL reads them ahead of the connection, which
    /// pauses after sixteen outstanding requests. Bytes held inside OpenSSL are never announced by
    /// the socket again, so each resumption must read them, or the rest wait forever.
    @Test func pipelinedRequestsInOneFlightOfRecordsAreAllAnswered() throws {
        let certificate = try TestCertificate(name: "localhost")
        let origin = try DemoOriginProcess()
        let front = try ProxyProcess(origin: origin.url, yaml: certificate.terminatingYAML)
        let targets = (1...60).map { id in
            "/graphql?query=" + "{ launch(id: \"\(id)\") { id site } }"
                .addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        }
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("fixtures/tls_pipeline.py").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script, "--port", String(front.port), "--timeout", "20"] + targets
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any], "\(data)")
        #expect(json["answers"] as? Int == 60, "\(json)")
        #expect((json["statuses"] as? [Int] ?? []).allSatisfy { $0 == 200 }, "\(json)")
    }
}

/// A self-signed certificate for `name` whose validity ended in 2020, made with `openssl ca`
/// (OpenSSL 3.0's `req -x509` cannot back-date).
final class ExpiredCertificate: @unchecked Sendable {
    let directory: URL
    var certificate: String { directory.appendingPathComponent("cert.pem").path }
    var key: String { directory.appendingPathComponent("key.pem").path }
    /// The same files seen as a `TestCertificate` (for `DemoOriginProcess(tls:)`).
    let asTestCertificate: TestCertificate

    init(name: String) throws {
        asTestCertificate = try TestCertificate(name: name)
        directory = asTestCertificate.directory
        let configuration = """
            [ ca ]
            default_ca = CA_default
            [ CA_default ]
            database = \(directory.path)/index.txt
            new_certs_dir = \(directory.path)
            serial = \(directory.path)/serial
            default_md = sha256
            policy = policy_any
            copy_extensions = copy
            unique_subject = no
            [ policy_any ]
            commonName = supplied
            """
        try configuration.write(to: directory.appendingPathComponent("ca.cnf"), atomically: true, encoding: .utf8)
        try "".write(to: directory.appendingPathComponent("index.txt"), atomically: true, encoding: .utf8)
        try "01\n".write(to: directory.appendingPathComponent("serial"), atomically: true, encoding: .utf8)
        let request = directory.appendingPathComponent("request.csr").path
        try Self.openssl([
            "req", "-new", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-subj", "/CN=\(name)",
            "-addext", "subjectAltName=DNS:\(name)", "-addext", "basicConstraints=critical,CA:TRUE", "-out", request,
        ])
        try Self.openssl([
            "ca", "-batch", "-config", directory.appendingPathComponent("ca.cnf").path, "-selfsign", "-keyfile", key,
            "-in", request, "-out", certificate, "-startdate", "20200101000000Z", "-enddate", "20200102000000Z",
        ])
    }

    private static func openssl(_ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: "openssl \(arguments[0]) failed"])
        }
    }
}
