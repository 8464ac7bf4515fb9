#ifndef AUTHDECK_CFIDO2_SHIM_H
#define AUTHDECK_CFIDO2_SHIM_H
// libfido2, opened with dlopen the first time authdeck looks for a security key: this module takes only types and
// constants from <fido.h> and links nothing, so authdeck starts (and signs in with a software passkey) on a machine
// without libfido2. As every dlopen'd library's shim does (ARCHITECTURE.md, "C libraries"): `fido_shim_api` loads it
// once and holds the table of pointers, and each wrapper calls through it. Everything is static inline, so the
// module stays headers only.
#include <dlfcn.h>
#include <fido.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/// The libfido2 functions authdeck calls, resolved from the opened library, in the order of `fido_shim_names`.
typedef struct {
    void (*init)(int flags);
    const char *(*strerr)(int code);
    fido_dev_info_t *(*dev_info_new)(size_t count);
    void (*dev_info_free)(fido_dev_info_t **list, size_t count);
    int (*dev_info_manifest)(fido_dev_info_t *list, size_t count, size_t *found);
    const fido_dev_info_t *(*dev_info_ptr)(const fido_dev_info_t *list, size_t index);
    const char *(*dev_info_path)(const fido_dev_info_t *info);
    const char *(*dev_info_product_string)(const fido_dev_info_t *info);
    fido_dev_t *(*dev_new)(void);
    int (*dev_open)(fido_dev_t *device, const char *path);
    int (*dev_close)(fido_dev_t *device);
    void (*dev_free)(fido_dev_t **device);
    fido_cred_t *(*cred_new)(void);
    void (*cred_free)(fido_cred_t **credential);
    int (*cred_set_type)(fido_cred_t *credential, int type);
    int (*cred_set_clientdata_hash)(fido_cred_t *credential, const unsigned char *hash, size_t length);
    int (*cred_set_rp)(fido_cred_t *credential, const char *id, const char *name);
    int (*cred_set_user)(fido_cred_t *credential, const unsigned char *id, size_t length, const char *name,
                         const char *display, const char *icon);
    int (*dev_make_cred)(fido_dev_t *device, fido_cred_t *credential, const char *pin);
    const char *(*cred_fmt)(const fido_cred_t *credential);
    const unsigned char *(*cred_authdata_raw_ptr)(const fido_cred_t *credential);
    size_t (*cred_authdata_raw_len)(const fido_cred_t *credential);
    const unsigned char *(*cred_id_ptr)(const fido_cred_t *credential);
    size_t (*cred_id_len)(const fido_cred_t *credential);
    const unsigned char *(*cred_sig_ptr)(const fido_cred_t *credential);
    size_t (*cred_sig_len)(const fido_cred_t *credential);
    const unsigned char *(*cred_x5c_ptr)(const fido_cred_t *credential);
    size_t (*cred_x5c_len)(const fido_cred_t *credential);
    fido_assert_t *(*assert_new)(void);
    void (*assert_free)(fido_assert_t **assertion);
    int (*assert_set_clientdata_hash)(fido_assert_t *assertion, const unsigned char *hash, size_t length);
    int (*assert_set_rp)(fido_assert_t *assertion, const char *id);
    int (*assert_allow_cred)(fido_assert_t *assertion, const unsigned char *id, size_t length);
    int (*dev_get_assert)(fido_dev_t *device, fido_assert_t *assertion, const char *pin);
    size_t (*assert_count)(const fido_assert_t *assertion);
    const unsigned char *(*assert_authdata_ptr)(const fido_assert_t *assertion, size_t index);
    size_t (*assert_authdata_len)(const fido_assert_t *assertion, size_t index);
    const unsigned char *(*assert_sig_ptr)(const fido_assert_t *assertion, size_t index);
    size_t (*assert_sig_len)(const fido_assert_t *assertion, size_t index);
} fido_shim_table;

#define FIDO_SHIM_COUNT 39
_Static_assert(sizeof(fido_shim_table) == FIDO_SHIM_COUNT * sizeof(void (*)(void)),
               "fido_shim_table is exactly its function pointers, in the order of the names");

/// Copies `text` into `error` (`size` bytes, always NUL-terminated).
static inline void fido_shim_copy_error(char *error, size_t size, const char *text) {
    if (size == 0) return;
    strncpy(error, text ? text : "unknown error", size - 1);
    error[size - 1] = '\0';
}

/// Opens libfido2.so.1 (the ABI of the headers authdeck is built against) and resolves every function of the table
/// into `table`, then runs fido_init; on failure `failure` has the loader's words.
static inline void fido_shim_load_once(fido_shim_table *table, char *failure, size_t size) {
    static const char *const names[FIDO_SHIM_COUNT] = {
        "fido_init", "fido_strerr", "fido_dev_info_new", "fido_dev_info_free", "fido_dev_info_manifest",
        "fido_dev_info_ptr", "fido_dev_info_path", "fido_dev_info_product_string", "fido_dev_new", "fido_dev_open",
        "fido_dev_close", "fido_dev_free", "fido_cred_new", "fido_cred_free", "fido_cred_set_type",
        "fido_cred_set_clientdata_hash", "fido_cred_set_rp", "fido_cred_set_user", "fido_dev_make_cred",
        "fido_cred_fmt", "fido_cred_authdata_raw_ptr", "fido_cred_authdata_raw_len", "fido_cred_id_ptr",
        "fido_cred_id_len", "fido_cred_sig_ptr", "fido_cred_sig_len", "fido_cred_x5c_ptr", "fido_cred_x5c_len",
        "fido_assert_new", "fido_assert_free", "fido_assert_set_clientdata_hash", "fido_assert_set_rp",
        "fido_assert_allow_cred", "fido_dev_get_assert", "fido_assert_count", "fido_assert_authdata_ptr",
        "fido_assert_authdata_len", "fido_assert_sig_ptr", "fido_assert_sig_len",
    };
    void *library = dlopen("libfido2.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        fido_shim_copy_error(failure, size, dlerror());
        return;
    }
    // The table is nothing but function pointers in the order of `names`; POSIX lets dlsym's object pointer be
    // converted to a function pointer, and each member's type is libfido2's own.
    void (**slots)(void) = (void (**)(void))table;
    for (int index = 0; index < FIDO_SHIM_COUNT; index++) {
        dlerror();
        void *address = dlsym(library, names[index]);
        if (!address) {
            fido_shim_copy_error(failure, size, dlerror());
            return;
        }
        slots[index] = (void (*)(void))address;
    }
    table->init(0);
}

/// The loaded functions, or NULL with `*failure` saying why. Loads once per process, under a lock; function-local
/// statics, as a header's file-level statics are not emitted for Swift. The table lives for the rest of the process.
static inline const fido_shim_table *fido_shim_api(const char **failure) {
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    static fido_shim_table shared;
    static char reason[512];
    static int loaded = 0;
    pthread_mutex_lock(&lock);
    if (!loaded) {
        fido_shim_load_once(&shared, reason, sizeof reason);
        loaded = 1;
    }
    pthread_mutex_unlock(&lock);
    if (reason[0] != '\0') {
        if (failure != NULL) *failure = reason;
        return NULL;
    }
    return &shared;
}

#endif
