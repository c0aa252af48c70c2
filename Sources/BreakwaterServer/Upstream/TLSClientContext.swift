// OpenSSL client settings for https origins: system CA store, SNI, host-name verification.

import BreakwaterCore
import CLibevent
import COpenSSL

/// A shared `SSL_CTX` for connections to one https origin.
final class TLSClientContext: @unchecked Sendable {
    private let context: OpaquePointer
    private let host: String
    private let verify: Bool

    init(host: String, verify: Bool) throws(ServerError) {
        guard let context = SSL_CTX_new(TLS_client_method()) else { throw .tls("cannot create a client context") }
        if verify {
            guard SSL_CTX_set_default_verify_paths(context) == 1 else {
                SSL_CTX_free(context)
                throw .tls("cannot load the system CA store")
            }
            SSL_CTX_set_verify(context, SSL_VERIFY_PEER, nil)
        } else {
            SSL_CTX_set_verify(context, SSL_VERIFY_NONE, nil)
        }
        self.context = context
        self.host = host
        self.verify = verify
    }

    deinit { SSL_CTX_free(context) }

    /// A new TLS bufferevent for one connection, ready to connect (libevent owns the SSL).
    func makeBufferEvent(base: OpaquePointer) -> OpaquePointer? {
        guard let ssl = SSL_new(context) else { return nil }
        // SNI is for names only; RFC 6066 forbids literal addresses.
        let isAddress = host.contains(":") || host.allSatisfy { $0.isNumber || $0 == "." }
        if !isAddress { _ = COpenSSL_set_tlsext_host_name(ssl, host) }
        if verify {
            if isAddress {
                X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), host)
            } else {
                SSL_set1_host(ssl, host)
            }
        }
        let options = Int32(BEV_OPT_CLOSE_ON_FREE.rawValue | BEV_OPT_DEFER_CALLBACKS.rawValue)
        guard
            let bev = bufferevent_openssl_socket_new(
                base, -1, ssl, BUFFEREVENT_SSL_CONNECTING, options)
        else {
            SSL_free(ssl)
            return nil
        }
        // Many origins close without close_notify; that is not an error for HTTP with lengths.
        bufferevent_openssl_set_allow_dirty_shutdown(bev, 1)
        return bev
    }
}
