// OpenSSL server settings for TLS termination on a listener (server.tls).

import BreakwaterCore
import CLibevent
import COpenSSL

/// A shared `SSL_CTX` holding the listener's certificate chain and key.
package final class TLSServerContext: @unchecked Sendable {
    private let context: OpaquePointer

    /// Loads PEM files; errors name the file that failed.
    package init(certificateFile: String, keyFile: String) throws(ServerError) {
        guard let context = SSL_CTX_new(TLS_server_method()) else { throw .tls("cannot create a server context") }
        guard SSL_CTX_use_certificate_chain_file(context, certificateFile) == 1 else {
            SSL_CTX_free(context)
            throw .tls("cannot load the certificate chain \(certificateFile): \(TLSServerContext.lastError())")
        }
        guard SSL_CTX_use_PrivateKey_file(context, keyFile, SSL_FILETYPE_PEM) == 1,
            SSL_CTX_check_private_key(context) == 1
        else {
            SSL_CTX_free(context)
            throw .tls("cannot load the private key \(keyFile) for that certificate: \(TLSServerContext.lastError())")
        }
        self.context = context
    }

    deinit { SSL_CTX_free(context) }

    /// A bufferevent that accepts TLS on a new connection; nil would make evhttp fall back to
    /// plain TCP silently, so the caller must refuse the connection instead.
    func makeBufferEvent(base: OpaquePointer) -> OpaquePointer? {
        guard let ssl = SSL_new(context) else { return nil }
        let options = Int32(BEV_OPT_CLOSE_ON_FREE.rawValue)
        guard let bev = bufferevent_openssl_socket_new(base, -1, ssl, BUFFEREVENT_SSL_ACCEPTING, options) else {
            SSL_free(ssl)
            return nil
        }
        return bev
    }

    private static func lastError() -> String {
        let code = ERR_get_error()
        guard code != 0 else { return "unknown error" }
        var buffer = [CChar](repeating: 0, count: 256)
        ERR_error_string_n(code, &buffer, buffer.count)
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
