#ifndef AUTHDECK_CCURL_SHIM_H
#define AUTHDECK_CCURL_SHIM_H
// libcurl's easy interface, opened with dlopen the first time authdeck sends a request: this module takes only
// types and constants from <curl/curl.h> and links nothing, so a process that sends nothing never maps libcurl or
// its dependencies (OpenSSL's TLS half, Kerberos, LDAP, nghttp2, ...). As every dlopen'd library's shim does
// (ARCHITECTURE.md, "C libraries"): `curl_shim_api` loads it once and holds the table of pointers; each wrapper calls
// through it, and the variadic curl_easy_setopt and curl_easy_getinfo get fixed-argument wrappers, which Swift
// cannot call otherwise. Everything is static inline, so the module stays headers only.
#define CURL_DISABLE_TYPECHECK 1
#define CURL_DISABLE_DEPRECATION 1
#include <curl/curl.h>
#include <dlfcn.h>
#include <pthread.h>
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

/// Opens libcurl.so.4 (the ABI of the headers authdeck is built against), resolves every function of the table and
/// runs curl_global_init, into `table`; on failure `failure` says why (the loader's or libcurl's words).
static inline void curl_shim_load_once(curl_shim_table *table, char *failure, size_t size) {
    void *library = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        curl_shim_copy_error(failure, size, dlerror());
        return;
    }
    // POSIX lets dlsym's object pointer be converted to a function pointer; the table's types are libcurl's own.
    void *found[9];
    static const char *const names[9] = {
        "curl_global_init", "curl_easy_init", "curl_easy_setopt", "curl_easy_getinfo", "curl_easy_perform",
        "curl_easy_cleanup", "curl_easy_strerror", "curl_slist_append", "curl_slist_free_all",
    };
    for (int index = 0; index < 9; index++) {
        found[index] = curl_shim_symbol(library, names[index], failure, size);
        if (!found[index]) return;
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
    if (code != CURLE_OK) curl_shim_copy_error(failure, size, table->easy_strerror(code));
}

/// The loaded functions, or NULL with `*failure` saying why (pass NULL once loading is known to have worked).
/// Loads once per process, under a lock (curl_global_init is not thread-safe in every libcurl); function-local
/// statics, as a header's file-level statics are not emitted for Swift. The table lives for the rest of the process.
static inline const curl_shim_table *curl_shim_api(const char **failure) {
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    static curl_shim_table shared;
    static char reason[512];
    static int loaded = 0;
    pthread_mutex_lock(&lock);
    if (!loaded) {
        curl_shim_load_once(&shared, reason, sizeof reason);
        loaded = 1;
    }
    pthread_mutex_unlock(&lock);
    if (reason[0] != '\0') {
        if (failure != NULL) *failure = reason;
        return NULL;
    }
    return &shared;
}

static inline CURL *curl_shim_easy_init(void) { return curl_shim_api(NULL)->easy_init(); }

static inline void curl_shim_easy_cleanup(CURL *handle) {
    curl_shim_api(NULL)->easy_cleanup(handle);
}

static inline CURLcode curl_shim_easy_perform(CURL *handle) {
    return curl_shim_api(NULL)->easy_perform(handle);
}

static inline const char *curl_shim_easy_strerror(CURLcode code) {
    return curl_shim_api(NULL)->easy_strerror(code);
}

static inline struct curl_slist *curl_shim_slist_append(struct curl_slist *list,
                                                        const char *text) {
    return curl_shim_api(NULL)->slist_append(list, text);
}

static inline void curl_shim_slist_free_all(struct curl_slist *list) {
    curl_shim_api(NULL)->slist_free_all(list);
}

/// curl_easy_setopt for an option that takes a long.
static inline CURLcode curl_shim_setopt_long(CURL *handle, CURLoption option,
                                             long value) {
    return curl_shim_api(NULL)->easy_setopt(handle, option, value);
}

/// curl_easy_setopt for an option that takes a curl_off_t (the *_LARGE sizes).
static inline CURLcode curl_shim_setopt_offset(CURL *handle, CURLoption option,
                                               curl_off_t value) {
    return curl_shim_api(NULL)->easy_setopt(handle, option, value);
}

/// curl_easy_setopt for an option that takes a string or a data pointer (libcurl copies strings it keeps).
static inline CURLcode curl_shim_setopt_pointer(CURL *handle, CURLoption option,
                                                const void *value) {
    return curl_shim_api(NULL)->easy_setopt(handle, option, value);
}

/// curl_easy_setopt for CURLOPT_WRITEFUNCTION and CURLOPT_HEADERFUNCTION.
static inline CURLcode curl_shim_setopt_callback(CURL *handle, CURLoption option,
                                                 curl_write_callback value) {
    return curl_shim_api(NULL)->easy_setopt(handle, option, value);
}

/// curl_easy_getinfo for a long (CURLINFO_RESPONSE_CODE).
static inline CURLcode curl_shim_getinfo_long(CURL *handle, CURLINFO info,
                                              long *value) {
    return curl_shim_api(NULL)->easy_getinfo(handle, info, value);
}

#endif
