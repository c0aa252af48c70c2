// OpenSSL client settings for https origins: system CA store, SNI, host-name verification.

import BreakwaterCore
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
        _ = COpenSSL_CTX_set_mode(context, Int(SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER))
        self.context = context
        self.host = host
        self.verify = verify
    }

    deinit { SSL_CTX_free(context) }

    /// A client session on the connected socket `fd`: SNI for names, and the origin's name or
    /// address checked against its certificate when verifying.
    func makeSession(fd: Int32) throws(SystemError) -> TLSSession {
        try TLSSession(context: context, fd: fd, isClient: true) { [host, verify] ssl in
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
        }
    }
}
