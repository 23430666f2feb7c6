/* SPDX-License-Identifier: Apache-2.0 */
/* OpenSSL's libcrypto for the PAdES signature (InkDocumentSigning): keys and certificates in
 * PEM, the CMS SignedData, a self-signed device certificate. Thin wrappers for what Swift
 * cannot call: macros (BIO_get_mem_data, OPENSSL_free, EVP_EC_gen, which is variadic beneath)
 * and a password callback that never prompts. Byte buffers are uint8_t and lengths long or
 * size_t as OpenSSL has them, so that char's signedness never matters (aarch64's is unsigned). */
#include <stdint.h>
#include <stddef.h>
#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/cms.h>
#include <openssl/crypto.h>
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/objects.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

/* Loads libcrypto (libcrypto.c: the kiosk does not link it, so that the loader does not map and
 * relocate it at every start): 0, or -1 with *error saying why (the text stays valid). Called
 * before any other function of OpenSSL's. */
int ik_crypto_load(const char **error);

/* A memory BIO's bytes (still owned by the BIO) and their count. */
static inline long ik_bio_mem_data(BIO *bio, const uint8_t **data) {
    char *p = NULL;
    long n = BIO_get_mem_data(bio, &p);
    *data = (const uint8_t *)p;
    return n;
}

static inline void ik_openssl_free(void *p) { OPENSSL_free(p); }

/* A new EC key on P-256 (prime256v1). */
static inline EVP_PKEY *ik_ec_p256_generate(void) { return EVP_EC_gen("P-256"); }

/* A password callback that gives none: an encrypted key fails to load instead of asking on a terminal. */
static inline int ik_no_password(char *buf, int size, int rwflag, void *u) {
    (void)buf; (void)size; (void)rwflag; (void)u;
    return -1;
}

static inline EVP_PKEY *ik_pem_read_private_key(BIO *bio) {
    return PEM_read_bio_PrivateKey(bio, NULL, ik_no_password, NULL);
}

static inline X509 *ik_pem_read_x509(BIO *bio) { return PEM_read_bio_X509(bio, NULL, ik_no_password, NULL); }

/* An X.509 v3 extension from its config text ("critical,digitalSignature"), for `cert` issued by itself. */
static inline X509_EXTENSION *ik_self_signed_extension(X509 *cert, int nid, const char *value) {
    X509V3_CTX ctx;
    X509V3_set_ctx_nodb(&ctx);
    X509V3_set_ctx(&ctx, cert, cert, NULL, NULL, 0);
    return X509V3_EXT_conf_nid(NULL, &ctx, nid, value);
}
