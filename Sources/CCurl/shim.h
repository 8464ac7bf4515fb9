#ifndef AUTHDECK_CCURL_SHIM_H
#define AUTHDECK_CCURL_SHIM_H
// libcurl's easy interface, opened with dlopen the first time authdeck sends a request: this module takes only
// types and constants from <curl/curl.h> and links nothing, so a process that sends nothing never maps libcurl or
// its dependencies (OpenSSL's TLS half, Kerberos, LDAP, nghttp2, ...). The functions come from curl_shim_load as a
// table of pointers; the variadic curl_easy_setopt and curl_easy_getinfo get fixed-argument wrappers, which Swift
// cannot call otherwise. Everything is static inline and keeps no state, so the module stays headers only.
#define CURL_DISABLE_TYPECHECK 1
#define CURL_DISABLE_DEPRECATION 1
#include <curl/curl.h>
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

/// The libcurl functions authdeck calls, resolved from the opened library.
typedef struct {
    CURLcode (*global_init)(long flags);
    CURL *(*easy_init)(void);
    CURLcode (*easy_setopt)(CURL *handle, CURLoption option, ...);
    CURLcode (*easy_getinfo)(CURL *handle, CURLINFO info, ...);
    CURLcode (*easy_perform)(CURL *handle);
    void (*easy_cleanup)(CURL *handle);
    const char *(*easy_strerror)(CURLcode code);
    struct curl_slist *(*slist_append)(struct curl_slist *list, const char *text);
    void (*slist_free_all)(struct curl_slist *list);
} curl_shim_table;

/// Copies `text` into `error` (`size` bytes, always NUL-terminated).
static inline void curl_shim_copy_error(char *error, size_t size, const char *text) {
    if (size == 0) return;
    strncpy(error, text ? text : "unknown error", size - 1);
    error[size - 1] = '\0';
}

/// The address of `symbol` in `library`, or NULL with the loader's message in `error`.
static inline void *curl_shim_symbol(void *library, const char *symbol, char *error, size_t size) {
    dlerror();
    void *address = dlsym(library, symbol);
    if (!address) curl_shim_copy_error(error, size, dlerror());
    return address;
}

/// Opens the library `name` (libcurl.so.4), resolves every function of the table and runs curl_global_init.
/// Returns a table that lives for the rest of the process, or NULL with the loader's or libcurl's message in
/// `error`. Call once per process (curl_global_init is not thread-safe in every libcurl).
static inline const curl_shim_table *curl_shim_load(const char *name, char *error, size_t size) {
    void *library = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        curl_shim_copy_error(error, size, dlerror());
        return NULL;
    }
    curl_shim_table *table = calloc(1, sizeof *table);
    if (!table) {
        curl_shim_copy_error(error, size, "out of memory");
        return NULL;
    }
    // POSIX lets dlsym's object pointer be converted to a function pointer; the table's types are libcurl's own.
    void *found[9];
    static const char *const names[9] = {
        "curl_global_init", "curl_easy_init", "curl_easy_setopt", "curl_easy_getinfo", "curl_easy_perform",
        "curl_easy_cleanup", "curl_easy_strerror", "curl_slist_append", "curl_slist_free_all",
    };
    for (int index = 0; index < 9; index++) {
        found[index] = curl_shim_symbol(library, names[index], error, size);
        if (!found[index]) {
            free(table);
            return NULL;
        }
    }
    table->global_init = (CURLcode (*)(long))found[0];
    table->easy_init = (CURL *(*)(void))found[1];
    table->easy_setopt = (CURLcode (*)(CURL *, CURLoption, ...))found[2];
    table->easy_getinfo = (CURLcode (*)(CURL *, CURLINFO, ...))found[3];
    table->easy_perform = (CURLcode (*)(CURL *))found[4];
    table->easy_cleanup = (void (*)(CURL *))found[5];
    table->easy_strerror = (const char *(*)(CURLcode))found[6];
    table->slist_append = (struct curl_slist *(*)(struct curl_slist *, const char *))found[7];
    table->slist_free_all = (void (*)(struct curl_slist *))found[8];
    CURLcode code = table->global_init(CURL_GLOBAL_DEFAULT);
    if (code != CURLE_OK) {
        curl_shim_copy_error(error, size, table->easy_strerror(code));
        free(table);
        return NULL;
    }
    return table;
}

static inline CURL *curl_shim_easy_init(const curl_shim_table *table) { return table->easy_init(); }

static inline void curl_shim_easy_cleanup(const curl_shim_table *table, CURL *handle) {
    table->easy_cleanup(handle);
}

static inline CURLcode curl_shim_easy_perform(const curl_shim_table *table, CURL *handle) {
    return table->easy_perform(handle);
}

static inline const char *curl_shim_easy_strerror(const curl_shim_table *table, CURLcode code) {
    return table->easy_strerror(code);
}

static inline struct curl_slist *curl_shim_slist_append(const curl_shim_table *table, struct curl_slist *list,
                                                        const char *text) {
    return table->slist_append(list, text);
}

static inline void curl_shim_slist_free_all(const curl_shim_table *table, struct curl_slist *list) {
    table->slist_free_all(list);
}

/// curl_easy_setopt for an option that takes a long.
static inline CURLcode curl_shim_setopt_long(const curl_shim_table *table, CURL *handle, CURLoption option,
                                             long value) {
    return table->easy_setopt(handle, option, value);
}

/// curl_easy_setopt for an option that takes a curl_off_t (the *_LARGE sizes).
static inline CURLcode curl_shim_setopt_offset(const curl_shim_table *table, CURL *handle, CURLoption option,
                                               curl_off_t value) {
    return table->easy_setopt(handle, option, value);
}

/// curl_easy_setopt for an option that takes a string or a data pointer (libcurl copies strings it keeps).
static inline CURLcode curl_shim_setopt_pointer(const curl_shim_table *table, CURL *handle, CURLoption option,
                                                const void *value) {
    return table->easy_setopt(handle, option, value);
}

/// curl_easy_setopt for CURLOPT_WRITEFUNCTION and CURLOPT_HEADERFUNCTION.
static inline CURLcode curl_shim_setopt_callback(const curl_shim_table *table, CURL *handle, CURLoption option,
                                                 curl_write_callback value) {
    return table->easy_setopt(handle, option, value);
}

/// curl_easy_getinfo for a long (CURLINFO_RESPONSE_CODE).
static inline CURLcode curl_shim_getinfo_long(const curl_shim_table *table, CURL *handle, CURLINFO info,
                                              long *value) {
    return table->easy_getinfo(handle, info, value);
}

#endif
