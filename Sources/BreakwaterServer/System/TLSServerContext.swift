// OpenSSL server settings for TLS termination on a listener (server.tls).

import BreakwaterCore
import COpenSSL

/// A shared `SSL_CTX` holding the listener's certificate chain and key.
package final class TLSServerContext: @unchecked Sendable {
    private let context: OpaquePointer

    /// Loads PEM files; errors name the file that failed.
    package init(certificateFile: String, keyFile: String) throws(ServerError) {
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
        self.context = context
    }

    deinit { SSL_CTX_free(context) }

    /// A TLS session accepting the handshake on the accepted socket `fd`.
    func makeSession(fd: Int32) throws(SystemError) -> TLSSession {
        try TLSSession(context: context, fd: fd)
    }
}
