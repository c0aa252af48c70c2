// COpenSSL: SHA-256 and TLS from OpenSSL 3, plus static inline wrappers for macros
// that Swift cannot import.
#ifndef BREAKWATER_COPENSSL_SHIM_H
#define BREAKWATER_COPENSSL_SHIM_H

#include <openssl/evp.h>
#include <openssl/sha.h>
#include <openssl/ssl.h>
#include <openssl/err.h>
#include <openssl/x509v3.h>

// SSL_set_tlsext_host_name is a macro over SSL_ctrl.
static inline int COpenSSL_set_tlsext_host_name(SSL *ssl, const char *name) {
    return (int)SSL_set_tlsext_host_name(ssl, name);
}

// SSL_CTX_set_mode is a macro over SSL_CTX_ctrl.
static inline long COpenSSL_CTX_set_mode(SSL_CTX *ctx, long mode) {
    return SSL_CTX_set_mode(ctx, mode);
}

// SHA-256 through the digest's own functions. EVP_Digest fetches the algorithm from the provider
// and allocates a context on every call: about 4,400 instructions for a cache key's ~100 bytes,
// where the hashing itself is a few hundred. Deprecated in OpenSSL 3, not removed.
static inline void COpenSSL_sha256(const void *data, size_t count, unsigned char *out) {
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wdeprecated-declarations"
    SHA256_CTX context;
    SHA256_Init(&context);
    SHA256_Update(&context, data, count);
    SHA256_Final(out, &context);
#pragma clang diagnostic pop
}

#endif
