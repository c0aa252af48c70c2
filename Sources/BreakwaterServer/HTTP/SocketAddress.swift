// Turns a configured "host:port" into a sockaddr for libevent's listener.

import BreakwaterCore
import Foundation

/// A resolved IPv4 or IPv6 socket address.
struct SocketAddress {
    private(set) var storage = sockaddr_storage()
    private(set) var length: socklen_t = 0

    /// Resolves `address` (numeric or a name such as "localhost") for binding.
    init(_ address: HostPort) throws(ServerError) {
        var hints = addrinfo()
        hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var result: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(address.host, String(address.port), &hints, &result)
        guard status == 0, let info = result else {
            throw .cannotResolve(address.description, String(cString: gai_strerror(status)))
        }
        defer { freeaddrinfo(result) }
        length = info.pointee.ai_addrlen
        withUnsafeMutableBytes(of: &storage) { raw in
            raw.copyMemory(from: UnsafeRawBufferPointer(start: info.pointee.ai_addr, count: Int(length)))
        }
    }

    /// The port of the socket `fd` is bound to.
    static func boundPort(of fd: Int32) -> Int {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let ok = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard ok == 0 else { return 0 }
        let family = Int32(storage.ss_family)
        return withUnsafePointer(to: &storage) { pointer -> Int in
            if family == AF_INET6 {
                return pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) {
                    Int(UInt16(bigEndian: $0.pointee.sin6_port))
                }
            }
            return pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
                Int(UInt16(bigEndian: $0.pointee.sin_port))
            }
        }
    }

    /// The same address with another port.
    func withPort(_ port: Int) -> SocketAddress {
        var copy = self
        let family = Int32(storage.ss_family)
        withUnsafeMutablePointer(to: &copy.storage) { pointer in
            if family == AF_INET6 {
                pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) {
                    $0.pointee.sin6_port = UInt16(port).bigEndian
                }
            } else {
                pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
                    $0.pointee.sin_port = UInt16(port).bigEndian
                }
            }
        }
        return copy
    }

    func withSockaddr<R>(_ body: (UnsafePointer<sockaddr>, Int32) -> R) -> R {
        withUnsafePointer(to: storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, Int32(length)) }
        }
    }
}
