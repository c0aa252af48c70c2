// https origins: certificate and host-name verification through OpenSSL (origin.tls_verify),
// and TLS termination on the proxy's own listener (server.tls).

import BreakwaterTesting
import Foundation
import Testing

@Suite(.serialized) struct TLSOriginTests {
    let query = #"{"query":"{ launch(id: \"7\") { id site } }"}"#

    /// The proxy trusts exactly `certificate` as its CA store (OpenSSL reads SSL_CERT_FILE).
    func proxy(to origin: String, trusting certificate: TestCertificate?, verify: Bool = true) throws -> ProxyProcess {
        try ProxyProcess(
            origin: origin, yaml: "origin:\n  tls_verify: \(verify)\npersisted_queries:\n  store: \"\"\n",
            environment: certificate.map { ["SSL_CERT_FILE": $0.certificate, "SSL_CERT_DIR": "/nonexistent"] }
                ?? ["SSL_CERT_DIR": "/nonexistent"])
    }

    @Test func verifiedOriginServesOverKeptAliveTLS() throws {
        let certificate = try TestCertificate(name: "localhost")
        let origin = try DemoOriginProcess(tls: certificate)
        let proxy = try proxy(to: "https://localhost:\(origin.port)/graphql", trusting: certificate)
        for _ in 0..<3 {
            let response = try proxy.client.post("/graphql", json: query)
            #expect(response.status == 200, "\(response.text)")
            let launch = (response.jsonObject?["data"] as? [String: Any])?["launch"] as? [String: Any]
            #expect(launch?["id"] as? String == "7")
        }
    }

    @Test func untrustedCertificateIsRefused() throws {
        let certificate = try TestCertificate(name: "localhost")
        let origin = try DemoOriginProcess(tls: certificate)
        let proxy = try proxy(to: "https://localhost:\(origin.port)/graphql", trusting: nil)
        let response = try proxy.client.post("/graphql", json: query)
        #expect(response.status == 502)
        let message = firstError(response).message ?? ""
        #expect(message.contains("certificate verify failed"), "\(message)")
        // The verification's own reason, not only OpenSSL's summary (README "Configuration" and "The origin side").
        #expect(message.contains("self-signed certificate"), "\(message)")
    }

    @Test func certificateForAnotherHostIsRefused() throws {
        let certificate = try TestCertificate(name: "origin.example.org")
        let origin = try DemoOriginProcess(tls: certificate)
        let proxy = try proxy(to: "https://localhost:\(origin.port)/graphql", trusting: certificate)
        let response = try proxy.client.post("/graphql", json: query)
        #expect(response.status == 502)
        // OpenSSL reports a host-name mismatch as a failed verification; the reason names it.
        let message = firstError(response).message ?? ""
        #expect(message.contains("certificate verify failed"), "\(message)")
        #expect(message.contains("hostname mismatch"), "\(message)")
    }

    @Test func verificationOffAcceptsAnyCertificate() throws {
        let certificate = try TestCertificate(name: "origin.example.org")
        let origin = try DemoOriginProcess(tls: certificate)
        let proxy = try proxy(to: "https://127.0.0.1:\(origin.port)/graphql", trusting: nil, verify: false)
        #expect(try proxy.client.post("/graphql", json: query).status == 200)
    }

    @Test func proxyTerminatesTLSOnItsOwnListener() throws {
        let certificate = try TestCertificate(name: "localhost")
        let origin = try DemoOriginProcess()
        let front = try ProxyProcess(origin: origin.url, yaml: certificate.terminatingYAML)
        // A second proxy reaches the first over verified TLS, and sees it as https. It sends
        // documents as written (docs/SCHEMA.md, "Breakwater in front of Breakwater"): rewritten,
        // they would use names the first reserves.
        let chained = try ProxyProcess(
            origin: "https://localhost:\(front.port)/graphql",
            yaml: "origin:\n  schema: \"off\"\npersisted_queries:\n  store: \"\"\n",
            environment: ["SSL_CERT_FILE": certificate.certificate, "SSL_CERT_DIR": "/nonexistent"])
        let response = try chained.client.post("/graphql", json: query)
        #expect(response.status == 200, "\(response.text)")
        let seen = try #require(try origin.counters()["lastHeaders"] as? [String: Any])
        #expect(seen["x-forwarded-proto"] as? String == "https")
        #expect(seen["via"] as? String == "1.1 breakwater, 1.1 breakwater")
    }
}
