#ifndef AUTHDECK_COPENSSL_SHIM_H
#define AUTHDECK_COPENSSL_SHIM_H
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <openssl/hmac.h>
#include <openssl/ec.h>
#include <openssl/ecdsa.h>
#include <openssl/bn.h>
#include <openssl/err.h>
#include <openssl/kdf.h>
#include <openssl/core_names.h>
#include <openssl/params.h>
#include <openssl/param_build.h>
#include <openssl/crypto.h>
#include <openssl/bio.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

// OPENSSL_free is a macro (it records file and line); Swift needs a function.
static inline void copenssl_free(void *pointer) {
    OPENSSL_free(pointer);
}

// EVP_PKEY_KEYPAIR combines macros that Swift does not import as one constant.
static inline int copenssl_selection_keypair(void) {
    return EVP_PKEY_KEYPAIR;
}

static inline int copenssl_selection_public_key(void) {
    return EVP_PKEY_PUBLIC_KEY;
}

// XN_FLAG_ONELINE combines macros too; without ESC_MSB, so UTF-8 in a certificate's subject prints as it is.
static inline unsigned long copenssl_name_flags_oneline(void) {
    return XN_FLAG_ONELINE & ~ASN1_STRFLGS_ESC_MSB;
}
#endif
