// OpenSSL server settings for TLS termination on a listener (server.tls).

import BreakwaterCore
import COpenSSL

/// A shared `SSL_CTX` holding the listener's certificate chain and key.
package final class TLSServerContext: @unchecked Sendable {
    private let context: OpaquePointer

    /// Loads PEM files; errors name the file that failed. `offersHTTP2`: ALPN offers `h2` before
    /// `http/1.1` (RFC 7301); without it, no protocol is negotiated and clients speak HTTP/1.1.
    package init(certificateFile: String, keyFile: String, offersHTTP2: Bool = false) throws(ServerError) {
        guard let context = SSL_CTX_new(TLS_server_method()) else { throw .tls("cannot create a server context") }
        guard SSL_CTX_use_certificate_chain_file(context, certificateFile) == 1 else {
            SSL_CTX_free(context)
            throw .tls("cannot load the certificate chain \(certificateFile): \(TLSSession.lastError())")
        }
        guard SSL_CTX_use_PrivateKey_file(context, keyFile, SSL_FILETYPE_PEM) == 1,
            SSL_CTX_check_private_key(context) == 1
        else {
            SSL_CTX_free(context)
            throw .tls("cannot load the private key \(keyFile) for that certificate: \(TLSSession.lastError())")
        }
        // Writes resume from the unsent part of an answer, possibly in a partial record.
        _ = COpenSSL_CTX_set_mode(context, Int(SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER))
        // One read takes a record's header and body, and any records after it, from the socket
        // (without it, OpenSSL reads the 5-byte header and then the body: two reads a request).
        _ = COpenSSL_CTX_set_read_ahead(context, 1)
        if offersHTTP2 { SSL_CTX_set_alpn_select_cb(context, Self.selectProtocol, nil) }
        self.context = context
    }

    /// `h2` then `http/1.1`, as ALPN writes a list (each name after its length).
    private nonisolated(unsafe) static let offered: UnsafeMutableBufferPointer<UInt8> = {
        let wire: [UInt8] = [2] + Array("h2".utf8) + [8] + Array("http/1.1".utf8)
        let buffer = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: wire.count)
        _ = buffer.initialize(from: wire)
        return buffer
    }()

    /// The server's choice among the client's protocols: the first of ours the client lists.
    private static let selectProtocol: @convention(c) (
        OpaquePointer?, UnsafeMutablePointer<UnsafePointer<UInt8>?>?, UnsafeMutablePointer<UInt8>?,
        UnsafePointer<UInt8>?, UInt32, UnsafeMutableRawPointer?
    ) -> Int32 = { _, out, outCount, client, clientCount, _ in
        var chosen: UnsafeMutablePointer<UInt8>?
        let result = SSL_select_next_proto(
            &chosen, outCount, offered.baseAddress, UInt32(offered.count), client, clientCount)
        guard result == OPENSSL_NPN_NEGOTIATED, let chosen else { return SSL_TLSEXT_ERR_NOACK }
        out?.pointee = UnsafePointer(chosen)
        return SSL_TLSEXT_ERR_OK
    }

    deinit { SSL_CTX_free(context) }

    /// A TLS session accepting the handshake on the accepted socket `fd`.
    func makeSession(fd: Int32) throws(SystemError) -> TLSSession {
        try TLSSession(context: context, fd: fd)
    }
}
