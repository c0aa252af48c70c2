// Asks the kernel for an unused loopback port, for tests that need a port number before any server runs.
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Finds TCP ports on 127.0.0.1 that nothing listens on.
public enum FreePort {
    /// Binds port 0 on 127.0.0.1, reads the port the kernel chose, and closes the socket.
    ///
    /// Another process may take the port afterwards, so prefer servers that bind port 0 and report it;
    /// this is for addresses where nothing should listen, such as an unreachable origin.
    public static func allocate() -> Int {
        #if canImport(Glibc)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue | SOCK_CLOEXEC.rawValue), 0)
        #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        precondition(fd >= 0, "FreePort: socket failed: \(Posix.describe(errno: errno))")
        defer { _ = close(fd) }

        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        precondition(bound, "FreePort: bind to 127.0.0.1:0 failed: \(Posix.describe(errno: errno))")
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
