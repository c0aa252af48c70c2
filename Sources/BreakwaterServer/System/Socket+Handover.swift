// The system calls of inherited listening sockets and of the takeover's Unix socket: checking a
// descriptor systemd passed (sd_listen_fds(3)), Unix stream sockets on a path, the peer's
// credentials (SO_PEERCRED) and descriptors passed with a message (unix(7) SCM_RIGHTS).
// Blocking calls: they run on the takeover's own thread or before the loops start, never on a loop.

import CLibevent
import Foundation
import Glibc

extension Socket {
    /// Checks that `fd` is a listening stream socket and makes it non-blocking and
    /// close-on-exec, as a listener made here would be.
    static func adoptListener(_ fd: Int32) throws(SystemError) {
        var type: Int32 = 0
        var listening: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &length) == 0 else {
            throw SystemError("getsockopt(SO_TYPE) on fd \(fd)", errno: errno)
        }
        guard type == Int32(SOCK_STREAM.rawValue) else {
            throw SystemError("getsockopt(SO_TYPE) on fd \(fd)", reason: "not a stream socket")
        }
        length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &length) == 0 else {
            throw SystemError("getsockopt(SO_ACCEPTCONN) on fd \(fd)", errno: errno)
        }
        guard listening != 0 else {
            throw SystemError("getsockopt(SO_ACCEPTCONN) on fd \(fd)", reason: "not a listening socket")
        }
        let status = fcntl(fd, F_GETFL)
        guard status >= 0, fcntl(fd, F_SETFL, status | O_NONBLOCK) == 0 else { throw SystemError("fcntl(O_NONBLOCK)", errno: errno) }
        try setCloseOnExec(fd)
    }

    static func setCloseOnExec(_ fd: Int32) throws(SystemError) {
        let flags = fcntl(fd, F_GETFD)
        guard flags >= 0, fcntl(fd, F_SETFD, flags | FD_CLOEXEC) == 0 else { throw SystemError("fcntl(FD_CLOEXEC)", errno: errno) }
    }

    /// The address `fd` is bound to as "host:port" ("[::1]:8080" for IPv6), "" when unknown.
    static func boundAddress(of fd: Int32) -> String {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let ok = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard ok == 0 else { return "" }
        let host = numericAddress(storage)
        let port = SocketAddress.boundPort(of: fd)
        return Int32(storage.ss_family) == AF_INET6 ? "[\(host)]:\(port)" : "\(host):\(port)"
    }

    // MARK: - Unix sockets on a path

    /// What is at a path the takeover uses.
    enum PathEntry: Equatable {
        case nothing
        case socket(owner: uid_t)
        case other
    }

    static func entry(at path: String) throws(SystemError) -> PathEntry {
        var status = stat()
        guard lstat(path, &status) == 0 else {
            if errno == ENOENT { return .nothing }
            throw SystemError("lstat \(path)", errno: errno)
        }
        return (status.st_mode & S_IFMT) == S_IFSOCK ? .socket(owner: status.st_uid) : .other
    }

    /// Which file `path` names (device and inode), to tell later whether it was replaced; nil
    /// when there is none. (`fstat` on a socket names the socket, not the file it is bound to.)
    static func fileIdentity(_ path: String) -> [UInt64]? {
        var status = stat()
        guard lstat(path, &status) == 0 else { return nil }
        return [UInt64(status.st_dev), UInt64(status.st_ino)]
    }

    /// Whether two paths name the same file (one may be relative, or reached through a link).
    static func sameFile(_ first: String, _ second: String) -> Bool {
        var one = stat()
        var other = stat()
        guard stat(first, &one) == 0, stat(second, &other) == 0 else { return false }
        return one.st_ino == other.st_ino && one.st_dev == other.st_dev
    }

    private static func unixAddress(_ path: String) throws(SystemError) -> sockaddr_un {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard !bytes.isEmpty, bytes.count < capacity else {
            throw SystemError("sockaddr_un", reason: "path longer than \(capacity - 1) bytes: \(path)")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        return address
    }

    private static func withUnixAddress<Result>(
        _ path: String, _ body: (UnsafePointer<sockaddr>, socklen_t) -> Result
    ) throws(SystemError) -> Result {
        var address = try unixAddress(path)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
    }

    /// A blocking Unix stream socket listening on `path` (which must not exist), mode 0600.
    static func listenUnix(_ path: String) throws(SystemError) -> Int32 {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw SystemError("socket(AF_UNIX)", errno: errno) }
        do throws(SystemError) {
            let bound = try withUnixAddress(path) { bind(fd, $0, $1) }
            guard bound == 0 else { throw SystemError("bind \(path)", errno: errno) }
            // Before listen: nobody can connect while the mode is still the umask's.
            guard chmod(path, 0o600) == 0 else { throw SystemError("chmod \(path)", errno: errno) }
            guard Glibc.listen(fd, 4) == 0 else { throw SystemError("listen \(path)", errno: errno) }
            return fd
        } catch {
            Glibc.close(fd)
            throw error
        }
    }

    /// A blocking connection to the Unix socket at `path`; reads and writes time out after `timeout`.
    static func connectUnix(_ path: String, timeout: Duration) throws(SystemError) -> Int32 {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw SystemError("socket(AF_UNIX)", errno: errno) }
        do throws(SystemError) {
            try setTimeout(fd, timeout)
            while true {
                let result = try withUnixAddress(path) { Glibc.connect(fd, $0, $1) }
                if result == 0 { return fd }
                if errno == EINTR { continue }
                throw SystemError("connect \(path)", errno: errno)
            }
        } catch {
            Glibc.close(fd)
            throw error
        }
    }

    /// Accepts one connection on a blocking Unix listener; nil when the listener was shut.
    static func acceptUnix(_ listener: Int32) throws(SystemError) -> Int32? {
        while true {
            let fd = accept4(listener, nil, nil, Int32(SOCK_CLOEXEC.rawValue))
            if fd >= 0 { return fd }
            switch errno {
            case EINTR, ECONNABORTED: continue
            case EINVAL, EBADF: return nil
            default: throw SystemError("accept4", errno: errno)
            }
        }
    }

    /// Wakes a thread blocked in `acceptUnix` on `listener` (it returns nil).
    static func shutdownListener(_ listener: Int32) {
        _ = shutdown(listener, Int32(SHUT_RDWR))
    }

    /// Bounds each blocking read and write on `fd`.
    static func setTimeout(_ fd: Int32, _ timeout: Duration) throws(SystemError) {
        let (seconds, attoseconds) = timeout.components
        var value = timeval(tv_sec: Int(seconds), tv_usec: Int(attoseconds / 1_000_000_000_000))
        let size = socklen_t(MemoryLayout<timeval>.size)
        guard setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &value, size) == 0,
            setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &value, size) == 0
        else { throw SystemError("setsockopt(SO_RCVTIMEO)", errno: errno) }
    }

    /// The process at the other end of a Unix socket (SO_PEERCRED).
    struct PeerCredentials {
        let pid: Int32
        let uid: uid_t
    }

    static func peerCredentials(_ fd: Int32) throws(SystemError) -> PeerCredentials {
        // struct ucred (pid, uid, gid: three 32-bit fields); Glibc imports it only with _GNU_SOURCE.
        var credentials: (pid: Int32, uid: UInt32, gid: UInt32) = (0, 0, 0)
        var length = socklen_t(MemoryLayout<(Int32, UInt32, UInt32)>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &length) == 0 else {
            throw SystemError("getsockopt(SO_PEERCRED)", errno: errno)
        }
        return PeerCredentials(pid: credentials.pid, uid: uid_t(credentials.uid))
    }

    // MARK: - Descriptors passed with a message

    /// The size of `cmsghdr` rounded up as CMSG_ALIGN does (the C macros are not imported).
    private static let controlHeaderSize = (MemoryLayout<cmsghdr>.size + MemoryLayout<Int>.size - 1) & ~(MemoryLayout<Int>.size - 1)

    private static func controlSpace(_ count: Int) -> Int {
        let data = count * MemoryLayout<Int32>.size
        return controlHeaderSize + ((data + MemoryLayout<Int>.size - 1) & ~(MemoryLayout<Int>.size - 1))
    }

    /// Sends `bytes` in one message with `descriptors` attached (SCM_RIGHTS).
    static func send(_ fd: Int32, _ bytes: [UInt8], descriptors: [Int32] = []) throws(SystemError) {
        let space = descriptors.isEmpty ? 0 : controlSpace(descriptors.count)
        let control = UnsafeMutableRawPointer.allocate(byteCount: max(space, 1), alignment: MemoryLayout<Int>.alignment)
        defer { control.deallocate() }
        control.initializeMemory(as: UInt8.self, repeating: 0, count: max(space, 1))
        if !descriptors.isEmpty {
            let header = control.assumingMemoryBound(to: cmsghdr.self)
            header.pointee.cmsg_len = controlHeaderSize + descriptors.count * MemoryLayout<Int32>.size
            header.pointee.cmsg_level = SOL_SOCKET
            header.pointee.cmsg_type = Int32(SCM_RIGHTS)
            let data = (control + controlHeaderSize).assumingMemoryBound(to: Int32.self)
            for (index, descriptor) in descriptors.enumerated() { data[index] = descriptor }
        }
        var sent = 0
        var first = true
        while sent < bytes.count {
            let count = bytes.withUnsafeBufferPointer { buffer -> Int in
                var vector = iovec(iov_base: UnsafeMutableRawPointer(mutating: buffer.baseAddress! + sent), iov_len: buffer.count - sent)
                return withUnsafeMutablePointer(to: &vector) { vectorPointer in
                    var message = msghdr()
                    message.msg_iov = vectorPointer
                    message.msg_iovlen = 1
                    if first && space > 0 {
                        message.msg_control = control
                        message.msg_controllen = space
                    }
                    return sendmsg(fd, &message, Int32(MSG_NOSIGNAL))
                }
            }
            if count < 0 {
                if errno == EINTR { continue }
                throw SystemError("sendmsg", errno: errno)
            }
            sent += count
            first = false
        }
    }

    /// Receives what is waiting (blocking, up to `capacity` bytes) and any descriptors attached,
    /// which arrive close-on-exec; empty bytes when the peer closed.
    static func receive(_ fd: Int32, capacity: Int = 1024) throws(SystemError) -> (bytes: [UInt8], descriptors: [Int32]) {
        let space = controlSpace(64)
        let control = UnsafeMutableRawPointer.allocate(byteCount: space, alignment: MemoryLayout<Int>.alignment)
        defer { control.deallocate() }
        control.initializeMemory(as: UInt8.self, repeating: 0, count: space)
        var bytes = [UInt8](repeating: 0, count: capacity)
        while true {
            var message = msghdr()
            let count = bytes.withUnsafeMutableBufferPointer { buffer -> Int in
                var vector = iovec(iov_base: buffer.baseAddress, iov_len: buffer.count)
                return withUnsafeMutablePointer(to: &vector) { vectorPointer in
                    message.msg_iov = vectorPointer
                    message.msg_iovlen = 1
                    message.msg_control = control
                    message.msg_controllen = space
                    return recvmsg(fd, &message, Int32(MSG_CMSG_CLOEXEC))
                }
            }
            if count < 0 {
                if errno == EINTR { continue }
                let code = errno
                if code == EAGAIN || code == EWOULDBLOCK { throw SystemError("recvmsg", reason: "timed out") }
                throw SystemError("recvmsg", errno: code)
            }
            var descriptors: [Int32] = []
            var offset = 0
            // Walks the control messages as CMSG_FIRSTHDR/CMSG_NXTHDR do.
            while offset + controlHeaderSize <= message.msg_controllen {
                let header = (control + offset).assumingMemoryBound(to: cmsghdr.self).pointee
                guard header.cmsg_len >= controlHeaderSize else { break }
                if header.cmsg_level == SOL_SOCKET && header.cmsg_type == Int32(SCM_RIGHTS) {
                    let count = (header.cmsg_len - controlHeaderSize) / MemoryLayout<Int32>.size
                    let data = (control + offset + controlHeaderSize).assumingMemoryBound(to: Int32.self)
                    for index in 0..<count { descriptors.append(data[index]) }
                }
                offset += (header.cmsg_len + MemoryLayout<Int>.size - 1) & ~(MemoryLayout<Int>.size - 1)
            }
            if message.msg_flags & Int32(MSG_CTRUNC) != 0 {
                for descriptor in descriptors { Glibc.close(descriptor) }
                throw SystemError("recvmsg", reason: "more descriptors than expected")
            }
            return (Array(bytes[..<count]), descriptors)
        }
    }
}
