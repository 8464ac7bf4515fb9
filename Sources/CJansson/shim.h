#ifndef AUTHDECK_CJANSSON_SHIM_H
#define AUTHDECK_CJANSSON_SHIM_H
// jansson on its own, for the store's import reader (SessionStorage); CCjose carries it for cjose's JOSE values.
#include <jansson.h>

// json_decref is inline with an atomic reference count; a plain wrapper keeps Swift away from its internals.
static inline void cjansson_decref(json_t *value) {
    json_decref(value);
}

#endif
