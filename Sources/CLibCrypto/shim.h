#include <openssl/evp.h>

/* SHA-256 of a buffer into out[32]; 1 on success. */
static inline int ik_sha256(const void *data, size_t length, unsigned char *out) {
    unsigned int n = 0;
    return EVP_Digest(data, length, out, &n, EVP_sha256(), NULL) == 1 && n == 32;
}
