#ifndef AUTHDECK_CCJOSE_SHIM_H
#define AUTHDECK_CCJOSE_SHIM_H
#include <cjose/cjose.h>
// cjose keeps JOSE headers and JWK sets as jansson values; AuthCrypto walks a JWKS with them.
#include <jansson.h>

// cjose allocates returned strings with its own allocator; they must go back to it.
static inline void ccjose_dealloc(void *pointer) {
    cjose_get_dealloc()(pointer);
}

// json_decref is inline with an atomic refcount; a plain wrapper keeps Swift away from the macro internals.
static inline void ccjose_json_decref(json_t *value) {
    json_decref(value);
}
#endif
