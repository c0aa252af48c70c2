// Whether a listen address is free, so `breakwater demo` can move off a taken usual port
// (8080, 4000, 9090) and say so, instead of failing on a developer's busy machine.

import BreakwaterCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

enum PortProbe {
    /// True when a listening socket could bind `address` now (IPv4 or IPv6 literal, or localhost).
    static func isFree(_ address: HostPort) -> Bool {
        var hints = addrinfo()
        hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var found: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(address.host, String(address.port), &hints, &found) == 0, let info = found else {
            return false
        }
        defer { freeaddrinfo(found) }
        let descriptor = socket(info.pointee.ai_family, info.pointee.ai_socktype, info.pointee.ai_protocol)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var on: Int32 = 1
        setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
        return bind(descriptor, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0
    }

    /// `address` when free or chosen by the user; else the same host on a port the system picks,
    /// with a line saying so.
    static func usable(_ address: HostPort, explicit: Bool, role: String) -> HostPort {
        guard !explicit, address.port != 0, !isFree(address) else { return address }
        Console.line("breakwater: port \(address.port) (\(role)) is taken; using a free port instead")
        return HostPort(host: address.host, port: 0)
    }
}
