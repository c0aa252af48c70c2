// A loopback TCP server whose answers a test writes byte by byte: the origins the demo origin
// cannot play (one that trickles its answer, one that gzips it).

import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Accepts connections on an ephemeral port; each one's first read goes to `answer`, which
/// writes whatever it likes on the socket (closed afterwards).
final class ScriptedOrigin: @unchecked Sendable {
    let port: Int
    private let listener: Int32
    private let answer: @Sendable (_ fd: Int32, _ request: [UInt8]) -> Void
    private let stopped = NSLock()
    private var isStopped = false

    init(answer: @escaping @Sendable (_ fd: Int32, _ request: [UInt8]) -> Void) throws {
        self.answer = answer
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

    var url: String { "http://127.0.0.1:\(port)/graphql" }

    private var isRunning: Bool { stopped.withLock { !isStopped } }

    private func serve() {
        while isRunning {
            let fd = accept(listener, nil, nil)
            guard fd >= 0 else { return }
            let answer = self.answer
            Thread {
                var request = [UInt8](repeating: 0, count: 65536)
                let count = read(fd, &request, request.count)
                answer(fd, Array(request.prefix(max(0, count))))
                close(fd)
            }.start()
        }
    }

    /// Writes all of `bytes`; false once the peer is gone.
    @discardableResult
    static func write(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) } == bytes.count
    }

    func stop() {
        stopped.withLock { isStopped = true }
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }
}
