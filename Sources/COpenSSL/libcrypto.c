/* SPDX-License-Identifier: Apache-2.0 */
/* libcrypto (OpenSSL 3), loaded the first time a signature needs it, not by the loader at every
 * start: it is the largest library the kiosk links (4.7 MB, two thirds of the relocations the
 * loader applies at start-up), and a kiosk without [signature] sign_with never calls it.
 *
 * Each function of OpenSSL's that the kiosk calls is forwarded here (CLoadOnUse says how).
 * `ik_crypto_load` loads the library and says why it could not; the Swift side
 * (InkDocumentSigning's `OpenSSL.load`) calls it before anything else of libcrypto's. A function
 * of OpenSSL's that the kiosk newly calls needs its line here: without it, linking fails. */
#include <stdarg.h>
#include <string.h>
#include "load_on_use.h"

#pragma GCC visibility push(hidden)
#include "shim.h"

/* The soname of OpenSSL 3's libcrypto (Debian 12's libssl3, 13's libssl3t64). */
static struct ik_library ik_libcrypto = IK_LIBRARY("libcrypto.so.3", "OpenSSL's");

int ik_crypto_load(const char **error) { return ik_library_load(&ik_libcrypto, error); }

#define IK_CRYPTO(name) IK_LOADED_FUNCTION(ik_libcrypto, name)

int ASN1_STRING_set(ASN1_STRING *str, const void *data, int len) { IK_CRYPTO(ASN1_STRING_set); return ASN1_STRING_set_f(str, data, len); }
long BIO_ctrl(BIO *bp, int cmd, long larg, void *parg) { IK_CRYPTO(BIO_ctrl); return BIO_ctrl_f(bp, cmd, larg, parg); }
int BIO_free(BIO *a) { IK_CRYPTO(BIO_free); return BIO_free_f(a); }
BIO *BIO_new(const BIO_METHOD *type) { IK_CRYPTO(BIO_new); return BIO_new_f(type); }
BIO *BIO_new_mem_buf(const void *buf, int len) { IK_CRYPTO(BIO_new_mem_buf); return BIO_new_mem_buf_f(buf, len); }
const BIO_METHOD *BIO_s_mem(void) { IK_CRYPTO(BIO_s_mem); return BIO_s_mem_f(); }
void BN_free(BIGNUM *a) { IK_CRYPTO(BN_free); BN_free_f(a); }
BIGNUM *BN_new(void) { IK_CRYPTO(BN_new); return BN_new_f(); }
int BN_rand(BIGNUM *rnd, int bits, int top, int bottom) { IK_CRYPTO(BN_rand); return BN_rand_f(rnd, bits, top, bottom); }
ASN1_INTEGER *BN_to_ASN1_INTEGER(const BIGNUM *bn, ASN1_INTEGER *ai) { IK_CRYPTO(BN_to_ASN1_INTEGER); return BN_to_ASN1_INTEGER_f(bn, ai); }
void CMS_ContentInfo_free(CMS_ContentInfo *a) { IK_CRYPTO(CMS_ContentInfo_free); CMS_ContentInfo_free_f(a); }
ASN1_OCTET_STRING *CMS_SignerInfo_get0_signature(CMS_SignerInfo *si) { IK_CRYPTO(CMS_SignerInfo_get0_signature); return CMS_SignerInfo_get0_signature_f(si); }
CMS_SignerInfo *CMS_add1_signer(CMS_ContentInfo *cms, X509 *signer, EVP_PKEY *pk, const EVP_MD *md, unsigned int flags) { IK_CRYPTO(CMS_add1_signer); return CMS_add1_signer_f(cms, signer, pk, md, flags); }
int CMS_set_detached(CMS_ContentInfo *cms, int detached) { IK_CRYPTO(CMS_set_detached); return CMS_set_detached_f(cms, detached); }
CMS_ContentInfo *CMS_sign(X509 *signcert, EVP_PKEY *pkey, struct stack_st_X509 *certs, BIO *data, unsigned int flags) { IK_CRYPTO(CMS_sign); return CMS_sign_f(signcert, pkey, certs, data, flags); }
int CMS_signed_add1_attr_by_NID(CMS_SignerInfo *si, int nid, int type, const void *bytes, int len) { IK_CRYPTO(CMS_signed_add1_attr_by_NID); return CMS_signed_add1_attr_by_NID_f(si, nid, type, bytes, len); }
X509_ATTRIBUTE *CMS_signed_get_attr(const CMS_SignerInfo *si, int loc) { IK_CRYPTO(CMS_signed_get_attr); return CMS_signed_get_attr_f(si, loc); }
int CMS_signed_get_attr_by_NID(const CMS_SignerInfo *si, int nid, int lastpos) { IK_CRYPTO(CMS_signed_get_attr_by_NID); return CMS_signed_get_attr_by_NID_f(si, nid, lastpos); }
int CMS_signed_get_attr_count(const CMS_SignerInfo *si) { IK_CRYPTO(CMS_signed_get_attr_count); return CMS_signed_get_attr_count_f(si); }
void CRYPTO_free(void *ptr, const char *file, int line) { IK_CRYPTO(CRYPTO_free); CRYPTO_free_f(ptr, file, line); }
void ERR_clear_error(void) { IK_CRYPTO(ERR_clear_error); ERR_clear_error_f(); }
void ERR_error_string_n(unsigned long e, char *buf, size_t len) { IK_CRYPTO(ERR_error_string_n); ERR_error_string_n_f(e, buf, len); }
unsigned long ERR_get_error(void) { IK_CRYPTO(ERR_get_error); return ERR_get_error_f(); }
int EVP_DigestFinal_ex(EVP_MD_CTX *ctx, unsigned char *md, unsigned int *s) { IK_CRYPTO(EVP_DigestFinal_ex); return EVP_DigestFinal_ex_f(ctx, md, s); }
int EVP_DigestInit_ex(EVP_MD_CTX *ctx, const EVP_MD *type, ENGINE *impl) { IK_CRYPTO(EVP_DigestInit_ex); return EVP_DigestInit_ex_f(ctx, type, impl); }
int EVP_DigestSign(EVP_MD_CTX *ctx, unsigned char *sigret, size_t *siglen, const unsigned char *tbs, size_t tbslen) { IK_CRYPTO(EVP_DigestSign); return EVP_DigestSign_f(ctx, sigret, siglen, tbs, tbslen); }
int EVP_DigestSignInit(EVP_MD_CTX *ctx, EVP_PKEY_CTX **pctx, const EVP_MD *type, ENGINE *e, EVP_PKEY *pkey) { IK_CRYPTO(EVP_DigestSignInit); return EVP_DigestSignInit_f(ctx, pctx, type, e, pkey); }
int EVP_DigestUpdate(EVP_MD_CTX *ctx, const void *d, size_t cnt) { IK_CRYPTO(EVP_DigestUpdate); return EVP_DigestUpdate_f(ctx, d, cnt); }
void EVP_MD_CTX_free(EVP_MD_CTX *ctx) { IK_CRYPTO(EVP_MD_CTX_free); EVP_MD_CTX_free_f(ctx); }
EVP_MD_CTX *EVP_MD_CTX_new(void) { IK_CRYPTO(EVP_MD_CTX_new); return EVP_MD_CTX_new_f(); }
void EVP_PKEY_free(EVP_PKEY *pkey) { IK_CRYPTO(EVP_PKEY_free); EVP_PKEY_free_f(pkey); }
int EVP_PKEY_get_base_id(const EVP_PKEY *pkey) { IK_CRYPTO(EVP_PKEY_get_base_id); return EVP_PKEY_get_base_id_f(pkey); }
int EVP_PKEY_get_bits(const EVP_PKEY *pkey) { IK_CRYPTO(EVP_PKEY_get_bits); return EVP_PKEY_get_bits_f(pkey); }
const EVP_MD *EVP_sha256(void) { IK_CRYPTO(EVP_sha256); return EVP_sha256_f(); }
ASN1_OBJECT *OBJ_nid2obj(int n) { IK_CRYPTO(OBJ_nid2obj); return OBJ_nid2obj_f(n); }
EVP_PKEY *PEM_read_bio_PrivateKey(BIO *out, EVP_PKEY **x, pem_password_cb *cb, void *u) { IK_CRYPTO(PEM_read_bio_PrivateKey); return PEM_read_bio_PrivateKey_f(out, x, cb, u); }
X509 *PEM_read_bio_X509(BIO *out, X509 **x, pem_password_cb *cb, void *u) { IK_CRYPTO(PEM_read_bio_X509); return PEM_read_bio_X509_f(out, x, cb, u); }
int PEM_write_bio_PrivateKey(BIO *out, const EVP_PKEY *x, const EVP_CIPHER *enc, const unsigned char *kstr, int klen, pem_password_cb *cb, void *u) { IK_CRYPTO(PEM_write_bio_PrivateKey); return PEM_write_bio_PrivateKey_f(out, x, enc, kstr, klen, cb, u); }
int PEM_write_bio_X509(BIO *out, const X509 *x) { IK_CRYPTO(PEM_write_bio_X509); return PEM_write_bio_X509_f(out, x); }
X509_EXTENSION *X509V3_EXT_conf_nid(struct lhash_st_CONF_VALUE *conf, X509V3_CTX *ctx, int ext_nid, const char *value) { IK_CRYPTO(X509V3_EXT_conf_nid); return X509V3_EXT_conf_nid_f(conf, ctx, ext_nid, value); }
void X509V3_set_ctx(X509V3_CTX *ctx, X509 *issuer, X509 *subject, X509_REQ *req, X509_CRL *crl, int flags) { IK_CRYPTO(X509V3_set_ctx); X509V3_set_ctx_f(ctx, issuer, subject, req, crl, flags); }
void X509_EXTENSION_free(X509_EXTENSION *a) { IK_CRYPTO(X509_EXTENSION_free); X509_EXTENSION_free_f(a); }
int X509_NAME_add_entry_by_txt(X509_NAME *name, const char *field, int type, const unsigned char *bytes, int len, int loc, int set) { IK_CRYPTO(X509_NAME_add_entry_by_txt); return X509_NAME_add_entry_by_txt_f(name, field, type, bytes, len, loc, set); }
void X509_NAME_free(X509_NAME *a) { IK_CRYPTO(X509_NAME_free); X509_NAME_free_f(a); }
X509_NAME *X509_NAME_new(void) { IK_CRYPTO(X509_NAME_new); return X509_NAME_new_f(); }
char *X509_NAME_oneline(const X509_NAME *a, char *buf, int size) { IK_CRYPTO(X509_NAME_oneline); return X509_NAME_oneline_f(a, buf, size); }
int X509_add_ext(X509 *x, X509_EXTENSION *ex, int loc) { IK_CRYPTO(X509_add_ext); return X509_add_ext_f(x, ex, loc); }
int X509_check_private_key(const X509 *x509, const EVP_PKEY *pkey) { IK_CRYPTO(X509_check_private_key); return X509_check_private_key_f(x509, pkey); }
int X509_cmp_current_time(const ASN1_TIME *s) { IK_CRYPTO(X509_cmp_current_time); return X509_cmp_current_time_f(s); }
void X509_free(X509 *a) { IK_CRYPTO(X509_free); X509_free_f(a); }
const ASN1_TIME *X509_get0_notAfter(const X509 *x) { IK_CRYPTO(X509_get0_notAfter); return X509_get0_notAfter_f(x); }
const ASN1_TIME *X509_get0_notBefore(const X509 *x) { IK_CRYPTO(X509_get0_notBefore); return X509_get0_notBefore_f(x); }
ASN1_INTEGER *X509_get_serialNumber(X509 *x) { IK_CRYPTO(X509_get_serialNumber); return X509_get_serialNumber_f(x); }
X509_NAME *X509_get_subject_name(const X509 *a) { IK_CRYPTO(X509_get_subject_name); return X509_get_subject_name_f(a); }
ASN1_TIME *X509_getm_notAfter(const X509 *x) { IK_CRYPTO(X509_getm_notAfter); return X509_getm_notAfter_f(x); }
ASN1_TIME *X509_getm_notBefore(const X509 *x) { IK_CRYPTO(X509_getm_notBefore); return X509_getm_notBefore_f(x); }
X509 *X509_new(void) { IK_CRYPTO(X509_new); return X509_new_f(); }
int X509_set_issuer_name(X509 *x, const X509_NAME *name) { IK_CRYPTO(X509_set_issuer_name); return X509_set_issuer_name_f(x, name); }
int X509_set_pubkey(X509 *x, EVP_PKEY *pkey) { IK_CRYPTO(X509_set_pubkey); return X509_set_pubkey_f(x, pkey); }
int X509_set_subject_name(X509 *x, const X509_NAME *name) { IK_CRYPTO(X509_set_subject_name); return X509_set_subject_name_f(x, name); }
int X509_set_version(X509 *x, long version) { IK_CRYPTO(X509_set_version); return X509_set_version_f(x, version); }
int X509_sign(X509 *x, EVP_PKEY *pkey, const EVP_MD *md) { IK_CRYPTO(X509_sign); return X509_sign_f(x, pkey, md); }
ASN1_TIME *X509_time_adj_ex(ASN1_TIME *s, int offset_day, long offset_sec, time_t *t) { IK_CRYPTO(X509_time_adj_ex); return X509_time_adj_ex_f(s, offset_day, offset_sec, t); }
int i2d_CMS_ContentInfo(const CMS_ContentInfo *a, unsigned char **out) { IK_CRYPTO(i2d_CMS_ContentInfo); return i2d_CMS_ContentInfo_f(a, out); }
int i2d_X509(const X509 *a, unsigned char **out) { IK_CRYPTO(i2d_X509); return i2d_X509_f(a, out); }
int i2d_X509_ATTRIBUTE(const X509_ATTRIBUTE *a, unsigned char **out) { IK_CRYPTO(i2d_X509_ATTRIBUTE); return i2d_X509_ATTRIBUTE_f(a, out); }

/* Variadic: what follows `type` is a curve's name for "EC" and "SM2", a size in bits for "RSA",
 * nothing for the others (OpenSSL's EVP_PKEY_Q_keygen). */
EVP_PKEY *EVP_PKEY_Q_keygen(OSSL_LIB_CTX *libctx, const char *propq, const char *type, ...) {
    IK_CRYPTO(EVP_PKEY_Q_keygen);
    va_list ap;
    va_start(ap, type);
    EVP_PKEY *key;
    if (strcmp(type, "EC") == 0 || strcmp(type, "SM2") == 0) {
        const char *curve = va_arg(ap, const char *);
        key = EVP_PKEY_Q_keygen_f(libctx, propq, type, curve);
    } else if (strcmp(type, "RSA") == 0) {
        size_t bits = va_arg(ap, size_t);
        key = EVP_PKEY_Q_keygen_f(libctx, propq, type, bits);
    } else {
        key = EVP_PKEY_Q_keygen_f(libctx, propq, type);
    }
    va_end(ap);
    return key;
}

#pragma GCC visibility pop
