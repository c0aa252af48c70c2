// Self-signed certificates made with the openssl command for TLS tests.

import Foundation

/// A self-signed certificate and its key in a temporary folder, removed on deinit.
final class TestCertificate: @unchecked Sendable {
    let directory: URL
    var certificate: String { directory.appendingPathComponent("cert.pem").path }
    var key: String { directory.appendingPathComponent("key.pem").path }

    /// A certificate for `name` (DNS) and 127.0.0.1 (IP).
    init(name: String) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("bw-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let openssl = Process()
        openssl.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        openssl.arguments = [
            "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=\(name)",
            "-addext", "subjectAltName=DNS:\(name)", "-keyout", key, "-out", certificate,
        ]
        openssl.standardOutput = FileHandle.nullDevice
        openssl.standardError = FileHandle.nullDevice
        try openssl.run()
        openssl.waitUntilExit()
        guard openssl.terminationStatus == 0 else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: "openssl req failed"])
        }
    }

    deinit { try? FileManager.default.removeItem(at: directory) }
}

extension TestCertificate {
    /// The configuration of a proxy that terminates TLS with this certificate on its own listener
    /// (no persisted-query file).
    var terminatingYAML: String {
        """
        server:
          tls:
            cert: \(certificate)
            key: \(key)
        persisted_queries:
          store: ""
        """
    }
}
