// The system calls of the HTTP engine on non-blocking sockets, each turning a return code and
// errno into a typed result (swift-nio's System.swift is the model): listen, accept, read,
// writev, shutdown, close.

import BreakwaterCore
import CLibevent
import Foundation
import Glibc

/// What a non-blocking read or write did.
enum SocketIO: Equatable {
    /// This many bytes moved (more than 0).
    case done(Int)
    /// Nothing can move now: wait for the socket to become ready.
    case wouldBlock
    /// The peer closed its side (reads only).
    case closed
}

/// Non-blocking socket calls on file descriptors.
package enum Socket {
    /// A listening socket bound to `address`, sharing the port with the other loops
    /// (SO_REUSEPORT: the kernel spreads connections over them).
    static func listen(_ address: SocketAddress, backlog: Int32 = 1024) throws(SystemError) -> Int32 {
        let family = address.withSockaddr { pointer, _ in Int32(pointer.pointee.sa_family) }
        let fd = socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw SystemError("socket", errno: errno) }
        var on: Int32 = 1
        let size = socklen_t(MemoryLayout<Int32>.size)
        guard setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, size) == 0,
            setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &on, size) == 0
        else {
            let error = SystemError("setsockopt", errno: errno)
            close(fd)
            throw error
        }
        let bound = address.withSockaddr { pointer, length in bind(fd, pointer, socklen_t(length)) }
        guard bound == 0 else {
            let error = SystemError("bind", errno: errno)
            close(fd)
            throw error
        }
        guard Glibc.listen(fd, backlog) == 0 else {
            let error = SystemError("listen", errno: errno)
            close(fd)
            throw error
        }
        return fd
    }

    /// A connection taken from a listener: its socket and the peer's numeric address.
    struct Accepted {
        let fd: Int32
        /// "127.0.0.1", "::1"; "" when the kernel gave no address.
        let peer: String
    }

    /// Accepts one connection, non-blocking and close-on-exec; nil when none is waiting. The
    /// peer's address comes with it (no `getpeername` call afterwards).
    static func accept(_ listener: Int32) throws(SystemError) -> Accepted? {
        var storage = sockaddr_storage()
        while true {
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let fd = withUnsafeMutablePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { CLibevent_accept_nonblocking(listener, $0, &length) }
            }
            if fd >= 0 { return Accepted(fd: fd, peer: length > 0 ? numericAddress(storage) : "") }
            let code = errno
            switch code {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return nil
            // The peer gave up before we accepted it: not our error, try the next one.
            case ECONNABORTED, EPROTO: continue
            default: throw SystemError("accept4", errno: code)
            }
        }
    }

    /// Starts a non-blocking connection to `address`; the socket becomes writable when it is
    /// made (then `pendingError` tells whether it succeeded).
    static func connect(_ address: SocketAddress) throws(SystemError) -> Int32 {
        let family = address.withSockaddr { pointer, _ in Int32(pointer.pointee.sa_family) }
        let fd = socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw SystemError("socket", errno: errno) }
        while true {
            let result = address.withSockaddr { pointer, length in Glibc.connect(fd, pointer, socklen_t(length)) }
            if result == 0 || errno == EINPROGRESS { return fd }
            if errno == EINTR { continue }
            let error = SystemError("connect", errno: errno)
            Glibc.close(fd)
            throw error
        }
    }

    /// The error of a finished non-blocking connect, or nil when it succeeded.
    static func pendingError(_ fd: Int32) -> SystemError? {
        var code: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_ERROR, &code, &length) == 0 else { return SystemError("getsockopt", errno: errno) }
        return code == 0 ? nil : SystemError("connect", errno: code)
    }

    /// Turns off Nagle's algorithm: answers are written whole, and waiting for an ACK only delays them.
    static func setNoDelay(_ fd: Int32) {
        var on: Int32 = 1
        _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
    }

    /// Reads what the socket holds, up to `buffer.count` bytes. `recv`, not `read`: the kernel
    /// goes straight to the socket, without the file layer's position lock and checks (measured
    /// with `perf record` on a loaded loop, about 0.4 µs of kernel time a read on this machine).
    static func read(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) throws(SystemError) -> SocketIO {
        while true {
            let count = recv(fd, buffer.baseAddress, buffer.count, 0)
            if count > 0 { return .done(count) }
            if count == 0 { return .closed }
            let code = errno
            switch code {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return .wouldBlock
            default: throw SystemError("recv", errno: code)
            }
        }
    }

    /// Writes `vectors` in one call. `sendmsg`, not `writev`, for the same reason `read` uses `recv`.
    static func writev(_ fd: Int32, _ vectors: UnsafeBufferPointer<iovec>) throws(SystemError) -> SocketIO {
        var message = msghdr()
        message.msg_iov = UnsafeMutablePointer(mutating: vectors.baseAddress)
        message.msg_iovlen = vectors.count
        while true {
            let count = sendmsg(fd, &message, Int32(MSG_NOSIGNAL))
            if count >= 0 { return count == 0 ? .wouldBlock : .done(count) }
            let code = errno
            switch code {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return .wouldBlock
            default: throw SystemError("sendmsg", errno: code)
            }
        }
    }

    /// Ends our sending side (FIN) while reading on: the lingering close of an answer that ends
    /// a connection, so unread request bytes do not turn the close into a reset that destroys
    /// the answer before the client reads it.
    static func shutdownWrite(_ fd: Int32) {
        _ = shutdown(fd, Int32(SHUT_WR))
    }

    static func close(_ fd: Int32) {
        _ = Glibc.close(fd)
    }

    /// The numeric text of `storage` ("127.0.0.1", "::1"), or "" for another family. IPv4, the
    /// common case, is written digit by digit into a small string (no formatting functions).
    package static func numericAddress(_ storage: sockaddr_storage) -> String {
        var storage = storage
        switch Int32(storage.ss_family) {
        case AF_INET:
            let address = withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { UInt32(bigEndian: $0.pointee.sin_addr.s_addr) }
            }
            return dottedQuad(address)
        case AF_INET6:
            var address = withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee.sin6_addr }
            }
            return withUnsafeTemporaryAllocation(of: CChar.self, capacity: Int(INET6_ADDRSTRLEN)) { text in
                guard inet_ntop(AF_INET6, &address, text.baseAddress, socklen_t(text.count)) != nil else { return "" }
                return String(cString: text.baseAddress!)
            }
        default:
            return ""
        }
    }

    /// `address` (host order) as "a.b.c.d".
    package static func dottedQuad(_ address: UInt32) -> String {
        // At most 15 bytes ("255.255.255.255"): a small string, stored inline.
        String(unsafeUninitializedCapacity: 15) { text in
            var at = 0
            for shift in stride(from: 24, through: 0, by: -8) {
                let octet = UInt8(truncatingIfNeeded: address >> UInt32(shift))
                if octet >= 100 {
                    text[at] = UInt8(ascii: "0") + octet / 100
                    at += 1
                }
                if octet >= 10 {
                    text[at] = UInt8(ascii: "0") + octet / 10 % 10
                    at += 1
                }
                text[at] = UInt8(ascii: "0") + octet % 10
                at += 1
                if shift > 0 {
                    text[at] = UInt8(ascii: ".")
                    at += 1
                }
            }
            return at
        }
    }
}
