// TLS on an accepted socket with OpenSSL directly (no bufferevent): the handshake runs inside
// the first reads and writes, and OpenSSL's "want read/write" become typed results.

import COpenSSL
import Foundation

/// The OpenSSL state of one TLS connection on a non-blocking socket.
final class TLSSession {
    private let ssl: OpaquePointer
    /// OpenSSL needs the socket writable before a read can go on (a handshake step or a key
    /// update): the connection arms its write event and reads again when it fires.
    private(set) var readWantsWrite = false
    /// The last read left bytes inside OpenSSL that the socket will not announce again: the
    /// connection reads on without waiting for a readiness event.
    private(set) var holdsUnreadBytes = false

    /// A session on `fd`: accepting the handshake (server) or starting it (client, after
    /// `configure` set SNI and the name to verify).
    init(context: OpaquePointer, fd: Int32, isClient: Bool = false, configure: (OpaquePointer) -> Void = { _ in })
        throws(SystemError)
    {
        guard let ssl = SSL_new(context) else { throw SystemError("SSL_new", reason: Self.lastError()) }
        guard SSL_set_fd(ssl, fd) == 1 else {
            SSL_free(ssl)
            throw SystemError("SSL_set_fd", reason: Self.lastError())
        }
        configure(ssl)
        if isClient { SSL_set_connect_state(ssl) } else { SSL_set_accept_state(ssl) }
        self.ssl = ssl
    }

    deinit { SSL_free(ssl) }

    /// Whether the handshake chose HTTP/2 by ALPN (RFC 7301).
    var negotiatedHTTP2: Bool {
        var data: UnsafePointer<UInt8>?
        var count: UInt32 = 0
        SSL_get0_alpn_selected(ssl, &data, &count)
        guard count == 2, let data else { return false }
        return data[0] == UInt8(ascii: "h") && data[1] == UInt8(ascii: "2")
    }

    /// Decrypted bytes into `buffer`: every record OpenSSL holds, up to the buffer's end.
    ///
    /// A server-side connection reads ahead (`TLSServerContext`): one `read` takes the socket's bytes
    /// whole, a record's header and body together, and what it took is no longer the socket's
    /// to signal. So a read takes every record held, and `holdsUnreadBytes` tells the caller
    /// when some are left that no readiness event will announce.
    func read(into buffer: UnsafeMutableRawBufferPointer) throws(SystemError) -> SocketIO {
        readWantsWrite = false
        holdsUnreadBytes = false
        var count = 0
        guard SSL_read_ex(ssl, buffer.baseAddress, buffer.count, &count) == 1 else {
            return try outcome(of: "SSL_read", forRead: true)
        }
        var total = count
        while SSL_has_pending(ssl) == 1 {
            guard total < buffer.count else {
                holdsUnreadBytes = true
                break
            }
            guard SSL_read_ex(ssl, buffer.baseAddress! + total, buffer.count - total, &count) == 1 else {
                // A record not whole yet waits for the socket; anything else (the peer's
                // close_notify, an error, a key update) is the next read's to report.
                holdsUnreadBytes = SSL_get_error(ssl, 0) != SSL_ERROR_WANT_READ
                ERR_clear_error()
                break
            }
            total += count
        }
        return .done(total)
    }

    /// Writes the vectors in order, one TLS record (at most) each, until one would block.
    func writev(_ vectors: UnsafeBufferPointer<iovec>) throws(SystemError) -> SocketIO {
        var total = 0
        for vector in vectors where vector.iov_len > 0 {
            var written = 0
            if SSL_write_ex(ssl, vector.iov_base, vector.iov_len, &written) == 1 {
                total += written
                if written < vector.iov_len { break }
                continue
            }
            let result = try outcome(of: "SSL_write", forRead: false)
            if result == .closed { throw SystemError("SSL_write", reason: "the peer closed the TLS connection") }
            break
        }
        return total > 0 ? .done(total) : .wouldBlock
    }

    private func outcome(of call: String, forRead: Bool) throws(SystemError) -> SocketIO {
        let code = SSL_get_error(ssl, 0)
        let savedErrno = errno
        switch code {
        case SSL_ERROR_WANT_READ:
            return .wouldBlock
        case SSL_ERROR_WANT_WRITE:
            if forRead { readWantsWrite = true }
            return .wouldBlock
        case SSL_ERROR_ZERO_RETURN:
            return .closed
        case SSL_ERROR_SYSCALL where savedErrno == 0:
            // The peer closed without close_notify: the end of the stream for HTTP with lengths.
            ERR_clear_error()
            return .closed
        case SSL_ERROR_SYSCALL:
            throw SystemError(call, errno: savedErrno)
        default:
            throw SystemError(call, reason: Self.lastError() + verifyFailure)
        }
    }

    /// Why the peer's certificate was refused (": certificate has expired", ": hostname mismatch",
    /// ": self-signed certificate"), or "" when verification did not fail (README "The origin side"'s 502 names it).
    private var verifyFailure: String {
        let result = SSL_get_verify_result(ssl)
        guard result != X509_V_OK, let text = X509_verify_cert_error_string(result) else { return "" }
        return ": " + String(cString: text)
    }

    /// OpenSSL's queued error as text (and the queue cleared).
    static func lastError() -> String {
        let code = ERR_get_error()
        ERR_clear_error()
        guard code != 0 else { return "unknown error" }
        var buffer = [CChar](repeating: 0, count: 256)
        ERR_error_string_n(code, &buffer, buffer.count)
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
