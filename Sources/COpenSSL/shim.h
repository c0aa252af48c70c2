// COpenSSL: SHA-256, HMAC-SHA256 and TLS from OpenSSL 3, plus static inline wrappers for macros
// that Swift cannot import.
#ifndef BREAKWATER_COPENSSL_SHIM_H
#define BREAKWATER_COPENSSL_SHIM_H

#include <openssl/evp.h>
#include <openssl/sha.h>
#include <openssl/ssl.h>
#include <openssl/err.h>
#include <openssl/crypto.h>
#include <openssl/hmac.h>
#include <string.h>
#include <openssl/x509v3.h>

// SSL_set_tlsext_host_name is a macro over SSL_ctrl.
static inline int COpenSSL_set_tlsext_host_name(SSL *ssl, const char *name) {
    return (int)SSL_set_tlsext_host_name(ssl, name);
}

// SSL_CTX_set_mode is a macro over SSL_CTX_ctrl.
static inline long COpenSSL_CTX_set_mode(SSL_CTX *ctx, long mode) {
    return SSL_CTX_set_mode(ctx, mode);
}

// SSL_CTX_set_read_ahead is a macro over SSL_CTX_ctrl.
static inline long COpenSSL_CTX_set_read_ahead(SSL_CTX *ctx, int on) {
    return SSL_CTX_set_read_ahead(ctx, on);
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

// HMAC-SHA256 (RFC 2104) over the same digest functions, with the key's inner and outer pads
// hashed once: a code then costs the message's blocks plus two, where OpenSSL's HMAC() fetches
// the digest, allocates a context and hashes both pads again on every call.
typedef struct {
    SHA256_CTX inner;
    SHA256_CTX outer;
} COpenSSL_hmac_sha256_key;

static inline void COpenSSL_hmac_sha256_prepare(COpenSSL_hmac_sha256_key *prepared, const void *key, size_t count) {
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wdeprecated-declarations"
    unsigned char block[SHA256_CBLOCK] = {0};
    if (count > SHA256_CBLOCK) {
        SHA256_CTX context;
        SHA256_Init(&context);
        SHA256_Update(&context, key, count);
        SHA256_Final(block, &context);
    } else if (count > 0) {
        memcpy(block, key, count);
    }
    unsigned char pad[SHA256_CBLOCK];
    for (size_t i = 0; i < SHA256_CBLOCK; i++) pad[i] = block[i] ^ 0x36;
    SHA256_Init(&prepared->inner);
    SHA256_Update(&prepared->inner, pad, SHA256_CBLOCK);
    for (size_t i = 0; i < SHA256_CBLOCK; i++) pad[i] = block[i] ^ 0x5c;
    SHA256_Init(&prepared->outer);
    SHA256_Update(&prepared->outer, pad, SHA256_CBLOCK);
    OPENSSL_cleanse(block, sizeof block);
    OPENSSL_cleanse(pad, sizeof pad);
#pragma clang diagnostic pop
}

static inline void COpenSSL_hmac_sha256(
    const COpenSSL_hmac_sha256_key *prepared, const void *first, size_t firstCount, const void *second,
    size_t secondCount, unsigned char *out) {
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wdeprecated-declarations"
    unsigned char inner[SHA256_DIGEST_LENGTH];
    SHA256_CTX context = prepared->inner;
    SHA256_Update(&context, first, firstCount);
    SHA256_Update(&context, second, secondCount);
    SHA256_Final(inner, &context);
    context = prepared->outer;
    SHA256_Update(&context, inner, sizeof inner);
    SHA256_Final(out, &context);
#pragma clang diagnostic pop
}

#endif
