// Live tests of the origin side of the engine: origin.timeout bounds the whole exchange, so an
// origin that trickles its answer is cut off, and requests queued for a pooled connection
// wait no longer than the timeout either (SPEC section 4).

import BreakwaterTesting
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

@Suite(.serialized) struct FramingOriginTests {
    static let query = #"{"query":"query GetLaunchDetail { launch(id: \"1\") { id } }"}"#

    @Test func tricklingOriginIsCutOffAtTheTimeout() throws {
        let origin = try TricklingOrigin()
        defer { origin.stop() }
        let proxy = try ProxyProcess(
            origin: "http://127.0.0.1:\(origin.port)/graphql", yaml: "origin:\n  timeout: 1s\npersisted_queries:\n  store: \"\"\n")
        let started = ContinuousClock.now
        let response = try proxy.client.post("/graphql", json: Self.query)
        let elapsed = ContinuousClock.now - started
        #expect(response.status == 504)
        #expect(firstError(response).code == "ORIGIN_TIMEOUT")
        #expect(elapsed < .milliseconds(2500), "a byte every 100 ms held the request \(elapsed)")
    }

    @Test func requestsQueuedForAConnectionWaitNoLongerThanTheTimeout() throws {
        let origin = try DemoOriginProcess()
        try origin.setFaults(#"{"delayMs": 3000}"#)
        let proxy = try ProxyProcess(
            origin: origin.url, yaml: "origin:\n  timeout: 500ms\n  max_connections: 1\npersisted_queries:\n  store: \"\"\n",
            threads: 1)
        let started = ContinuousClock.now
        let statuses = Collected<Int>()
        DispatchQueue.concurrentPerform(iterations: 4) { index in
            let body = #"{"query":"query Q\#(index) { launch(id: \"\#(index)\") { id } }"}"#
            statuses.append((try? proxy.client.post("/graphql", json: body).status) ?? -1)
        }
        let elapsed = ContinuousClock.now - started
        #expect(statuses.all == [504, 504, 504, 504])
        #expect(elapsed < .milliseconds(1800), "queued requests waited \(elapsed)")
    }
}

/// A TCP server that answers every connection with a head promising 100 bytes and then one
/// byte every 100 ms: each byte would reset an inactivity timer.
final class TricklingOrigin: @unchecked Sendable {
    let port: Int
    private let listener: Int32
    private let stopped = NSLock()
    private var isStopped = false

    init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        try #require(bound == 0)
        try #require(listen(fd, 16) == 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        port = Int(UInt16(bigEndian: address.sin_port))
        listener = fd
        let thread = Thread { [self] in serve() }
        thread.start()
    }

    private var isRunning: Bool { stopped.withLock { !isStopped } }

    private func serve() {
        while isRunning {
            let fd = accept(listener, nil, nil)
            guard fd >= 0 else { return }
            Thread {
                var request = [UInt8](repeating: 0, count: 65536)
                _ = read(fd, &request, request.count)
                let head = Array("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n".utf8)
                _ = head.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                for _ in 0..<100 {
                    var byte: UInt8 = 32
                    if send(fd, &byte, 1, Int32(MSG_NOSIGNAL)) != 1 { break }
                    Thread.sleep(forTimeInterval: 0.1)
                }
                close(fd)
            }.start()
        }
    }

    func stop() {
        stopped.withLock { isStopped = true }
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }
}
