// The byte stream under one HTTP connection: a plain socket, or TLS on it.

import Foundation

/// Reads and writes of one connection, plain or TLS, with typed results.
enum Transport {
    case plain(Int32)
    case tls(Int32, TLSSession)

    var fileDescriptor: Int32 {
        switch self {
        case .plain(let fd), .tls(let fd, _): fd
        }
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws(SystemError) -> SocketIO {
        switch self {
        case .plain(let fd): try Socket.read(fd, into: buffer)
        case .tls(_, let session): try session.read(into: buffer)
        }
    }

    func writev(_ vectors: UnsafeBufferPointer<iovec>) throws(SystemError) -> SocketIO {
        switch self {
        case .plain(let fd): try Socket.writev(fd, vectors)
        case .tls(_, let session): try session.writev(vectors)
        }
    }

    /// The last read left bytes that no readiness event will announce (TLS only): read again.
    var holdsUnreadBytes: Bool {
        if case .tls(_, let tls) = self { return tls.holdsUnreadBytes }
        return false
    }

    /// A read is waiting for the socket to become writable (TLS only).
    var readWantsWrite: Bool {
        if case .tls(_, let session) = self { return session.readWantsWrite }
        return false
    }
}
