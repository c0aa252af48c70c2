// A slow link for the lease tests: a TCP relay on loopback in front of one port, which holds every
// chunk it passes, either way, for a delay the test sets while it runs. What one side sent before
// it closed still reaches the other, late, as on a real slow network. It can also be cut (the
// CDN tests): connections through it end, and new ones are closed as soon as they are taken.

import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Relays connections from `port` to `targetPort`, each chunk delayed by `delay`; call `stop()`.
final class SlowLinkRelay: @unchecked Sendable {
    let port: Int
    private let targetPort: Int
    private let listener: Int32
    private let lock = NSLock()
    private var delay = Duration.zero
    private var pairs: [PumpPair] = []
    private var isClosed = false
    private var isCut = false

    init(to targetPort: Int) throws {
        self.targetPort = targetPort
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.listener = listener
        var yes: Int32 = 1
        setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = Self.loopback(port: 0)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, listen(listener, 64) == 0 else { throw CocoaError(.fileWriteUnknown) }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { _ = getsockname(listener, $0, &length) }
        }
        port = Int(UInt16(bigEndian: address.sin_port))
        Thread { [self] in acceptLoop() }.start()
    }

    /// Every chunk from now on waits this long before it is passed on.
    func setDelay(_ delay: Duration) { lock.withLock { self.delay = delay } }

    private var currentDelay: Duration { lock.withLock { delay } }

    /// Cuts the link (every relayed connection ends, new ones are closed at once) or mends it.
    func setCut(_ cut: Bool) {
        let open = lock.withLock { () -> [PumpPair] in
            isCut = cut
            return cut ? pairs : []
        }
        for pair in open { pair.shutdownBoth() }
    }

    private static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
    }

    private func acceptLoop() {
        while true {
            let client = accept(listener, nil, nil)
            guard client >= 0 else { return }
            let upstream = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = Self.loopback(port: targetPort)
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(upstream, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            // The pair is closed when both directions are over.
            let pair = PumpPair(client, upstream)
            let kept = lock.withLock { () -> Bool in
                guard !isClosed, !isCut, connected == 0 else { return false }
                pairs.append(pair)
                return true
            }
            guard kept else {
                pair.finished()
                pair.finished()
                continue
            }
            Thread { [self] in
                pump(from: client, to: upstream)
                pair.finished()
            }.start()
            Thread { [self] in
                pump(from: upstream, to: client)
                pair.finished()
            }.start()
        }
    }

    /// Passes what `source` sends to `destination`, each chunk after the delay; at the end of
    /// `source`, ends `destination`'s writing side.
    private func pump(from source: Int32, to destination: Int32) {
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(source, $0.baseAddress, $0.count) }
            guard count > 0 else { break }
            let delay = currentDelay
            if delay > .zero { Thread.sleep(forTimeInterval: delay / .seconds(1)) }
            var sent = 0
            while sent < count {
                let written = buffer.withUnsafeBytes {
                    send(destination, $0.baseAddress! + sent, count - sent, Int32(MSG_NOSIGNAL))
                }
                guard written > 0 else { return }
                sent += written
            }
        }
        shutdown(destination, Int32(SHUT_WR))
    }

    /// Stops accepting and ends every relayed connection.
    func stop() {
        let open = lock.withLock { () -> [PumpPair] in
            isClosed = true
            return pairs
        }
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
        for pair in open { pair.shutdownBoth() }
    }
}

/// The two sockets of one relayed connection, closed once both directions finished.
private final class PumpPair: @unchecked Sendable {
    private let lock = NSLock()
    private let sockets: (Int32, Int32)
    private var running = 2

    init(_ first: Int32, _ second: Int32) { sockets = (first, second) }

    /// One direction is over; the second closes both sockets.
    func finished() {
        lock.withLock {
            running -= 1
            guard running == 0 else { return }
            close(sockets.0)
            close(sockets.1)
        }
    }

    /// Ends both directions at once (while the sockets are still open).
    func shutdownBoth() {
        lock.withLock {
            guard running > 0 else { return }
            shutdown(sockets.0, Int32(SHUT_RDWR))
            shutdown(sockets.1, Int32(SHUT_RDWR))
        }
    }
}
