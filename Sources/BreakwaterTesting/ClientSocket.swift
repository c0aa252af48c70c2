// A blocking TCP client socket with per-call deadlines, turning errno into HTTPClientError.
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One connected TCP socket; not thread-safe, owned by a single KeepAliveClient.
final class ClientSocket {
    private var descriptor: Int32
    private let peer: String

    /// Connects to `host:port`, waiting at most `timeout` (Linux honours SO_SNDTIMEO in connect).
    init(host: String, port: Int, timeout: Duration) throws(HTTPClientError) {
        peer = "\(host):\(port)"
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_flags = AI_NUMERICSERV
        #if canImport(Glibc)
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #else
        hints.ai_socktype = SOCK_STREAM
        #endif
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let first = list else {
            throw .connectFailed(address: peer, reason: String(cString: gai_strerror(status)))
        }
        defer { freeaddrinfo(list) }

        var lastError: HTTPClientError = .connectFailed(address: peer, reason: "no address")
        var candidate: UnsafeMutablePointer<addrinfo>? = first
        while let info = candidate {
            candidate = info.pointee.ai_next
            let fd = Self.makeSocket(family: info.pointee.ai_family)
            guard fd >= 0 else {
                lastError = .connectFailed(address: peer, reason: Posix.describe(errno: errno))
                continue
            }
            Self.setTimeout(fd, option: SO_SNDTIMEO, timeout)
            let (result, code) = Posix.retrying { connect(fd, info.pointee.ai_addr, info.pointee.ai_addrlen) }
            if result == 0 {
                descriptor = fd
                Self.disableSigpipe(fd)
                return
            }
            Self.closeDescriptor(fd)
            if code == EINPROGRESS || code == EAGAIN || code == ETIMEDOUT {
                lastError = .timedOut(during: "connecting to \(peer)")
            } else {
                lastError = .connectFailed(address: peer, reason: Posix.describe(errno: code))
            }
        }
        throw lastError
    }

    deinit { close() }

    var isOpen: Bool { descriptor >= 0 }

    /// Writes all bytes before the deadline.
    func write(_ bytes: [UInt8], deadline: Deadline) throws(HTTPClientError) {
        var offset = 0
        while offset < bytes.count {
            guard isOpen else { throw .closed(during: "writing to \(peer)") }
            Self.setTimeout(descriptor, option: SO_SNDTIMEO, deadline.remaining)
            let (written, code) = bytes.withUnsafeBytes { buffer in
                Posix.retrying {
                    send(descriptor, buffer.baseAddress! + offset, buffer.count - offset, Self.sendFlags)
                }
            }
            if written >= 0 {
                offset += written
            } else if code == EAGAIN || code == EWOULDBLOCK {
                throw .timedOut(during: "writing to \(peer)")
            } else if code == EPIPE || code == ECONNRESET {
                throw .closed(during: "writing to \(peer)")
            } else {
                throw .connectFailed(address: peer, reason: Posix.describe(errno: code))
            }
        }
    }

    /// Reads what is available, waiting until the deadline; an empty array means the peer closed.
    func read(deadline: Deadline) throws(HTTPClientError) -> [UInt8] {
        guard isOpen else { throw .closed(during: "reading from \(peer)") }
        guard !deadline.hasPassed else { throw .timedOut(during: "reading from \(peer)") }
        Self.setTimeout(descriptor, option: SO_RCVTIMEO, deadline.remaining)
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        let (count, code) = buffer.withUnsafeMutableBytes { raw in
            Posix.retrying { recv(descriptor, raw.baseAddress, raw.count, 0) }
        }
        if count >= 0 { return Array(buffer[0..<count]) }
        if code == EAGAIN || code == EWOULDBLOCK { throw .timedOut(during: "reading from \(peer)") }
        if code == ECONNRESET { return [] }
        throw .closed(during: "reading from \(peer): \(Posix.describe(errno: code))")
    }

    /// Half-closes the connection so the peer reads end-of-file.
    func shutdownWrite() {
        if isOpen { _ = shutdown(descriptor, Int32(SHUT_WR)) }
    }

    func close() {
        if isOpen {
            Self.closeDescriptor(descriptor)
            descriptor = -1
        }
    }

    // MARK: Platform details

    private static func closeDescriptor(_ fd: Int32) {
        #if canImport(Glibc)
        _ = Glibc.close(fd)
        #else
        _ = Darwin.close(fd)
        #endif
    }

    private static func makeSocket(family: Int32) -> Int32 {
        #if canImport(Glibc)
        return socket(family, Int32(SOCK_STREAM.rawValue | SOCK_CLOEXEC.rawValue), 0)
        #else
        let fd = socket(family, SOCK_STREAM, 0)
        if fd >= 0 { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        return fd
        #endif
    }

    #if canImport(Glibc)
    private static let sendFlags = Int32(MSG_NOSIGNAL)
    private static func disableSigpipe(_ fd: Int32) {}
    #else
    private static let sendFlags: Int32 = 0
    private static func disableSigpipe(_ fd: Int32) {
        var on: Int32 = 1
        _ = setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &on, socklen_t(MemoryLayout<Int32>.size))
    }
    #endif

    private static func setTimeout(_ fd: Int32, option: Int32, _ duration: Duration) {
        var value = Posix.timeval(duration)
        _ = setsockopt(fd, SOL_SOCKET, option, &value, socklen_t(MemoryLayout<timeval>.size))
    }
}
