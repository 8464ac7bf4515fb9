#ifndef AUTHDECK_CLIBSECRET_SHIM_H
#define AUTHDECK_CLIBSECRET_SHIM_H
// libsecret, loaded with dlopen the first time a store asks the Secret Service, so the many processes that never do
// (passphrase stores, the lean binary's hand-overs, the TUI on such a store) do not load it and GLib, GIO and GObject
// at start. Nothing here calls libsecret or GLib directly: every call goes through a pointer found by dlsym, so the
// linker (with --as-needed) records no dependency on them. The headers are included for the types only.
//
// The variadic calls get fixed-argument wrappers (attributes as NULL-terminated pairs), which Swift cannot make.
// They are static inline so this module stays headers only.
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <libsecret/secret.h>

/// The libsecret (and GLib) functions authdeck calls, found once per process.
struct secret_shim_api {
    gboolean (*password_store_sync)(const SecretSchema *, const gchar *, const gchar *, const gchar *, GCancellable *,
                                    GError **, ...);
    gchar *(*password_lookup_sync)(const SecretSchema *, GCancellable *, GError **, ...);
    gboolean (*password_clear_sync)(const SecretSchema *, GCancellable *, GError **, ...);
    void (*password_free)(gchar *);
    GCancellable *(*cancellable_new)(void);
    void (*cancellable_cancel)(GCancellable *);
    gpointer (*object_ref)(gpointer);
    void (*object_unref)(gpointer);
    void (*error_free)(GError *);
    GQuark (*dbus_error_quark)(void);
    GQuark (*io_error_quark)(void);
    /// Why loading failed (dlerror's words), empty when it did not.
    char failure[256];
};

static inline void secret_shim_load_once(struct secret_shim_api *api) {
    void *library = dlopen("libsecret-1.so.0", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        const char *why = dlerror();
        snprintf(api->failure, sizeof api->failure, "cannot load libsecret-1.so.0: %s", why ? why : "unknown");
        return;
    }
    // dlsym on the library's handle searches its dependencies too: GLib, GIO and GObject come with it.
#define AUTHDECK_SECRET_FIND(field, name)                                                                             \
    *(void **)(&api->field) = dlsym(library, name);                                                                   \
    if (api->field == NULL) {                                                                                         \
        snprintf(api->failure, sizeof api->failure, "libsecret-1.so.0 has no %s", name);                             \
        return;                                                                                                       \
    }
    AUTHDECK_SECRET_FIND(password_store_sync, "secret_password_store_sync")
    AUTHDECK_SECRET_FIND(password_lookup_sync, "secret_password_lookup_sync")
    AUTHDECK_SECRET_FIND(password_clear_sync, "secret_password_clear_sync")
    AUTHDECK_SECRET_FIND(password_free, "secret_password_free")
    AUTHDECK_SECRET_FIND(cancellable_new, "g_cancellable_new")
    AUTHDECK_SECRET_FIND(cancellable_cancel, "g_cancellable_cancel")
    AUTHDECK_SECRET_FIND(object_ref, "g_object_ref")
    AUTHDECK_SECRET_FIND(object_unref, "g_object_unref")
    AUTHDECK_SECRET_FIND(error_free, "g_error_free")
    AUTHDECK_SECRET_FIND(dbus_error_quark, "g_dbus_error_quark")
    AUTHDECK_SECRET_FIND(io_error_quark, "g_io_error_quark")
#undef AUTHDECK_SECRET_FIND
}

/// The loaded functions, or NULL with `*failure` pointing at why they could not be loaded. Loads once per process
/// (function-local statics: a header's file-level statics are not emitted for Swift).
static inline const struct secret_shim_api *secret_shim_api(const char **failure) {
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    static struct secret_shim_api shared;
    static int loaded = 0;
    pthread_mutex_lock(&lock);
    if (!loaded) {
        secret_shim_load_once(&shared);
        loaded = 1;
    }
    pthread_mutex_unlock(&lock);
    if (shared.failure[0] != '\0') {
        *failure = shared.failure;
        return NULL;
    }
    return &shared;
}

/// The schema authdeck's master keys are stored under: attributes application, kind and store.
static inline const SecretSchema *secret_shim_schema(void) {
    static const SecretSchema schema = {
        "org.authdeck.MasterKey", SECRET_SCHEMA_DONT_MATCH_NAME,
        {
            {"application", SECRET_SCHEMA_ATTRIBUTE_STRING},
            {"kind", SECRET_SCHEMA_ATTRIBUTE_STRING},
            {"store", SECRET_SCHEMA_ATTRIBUTE_STRING},
            {NULL, 0},
        },
        0, NULL, NULL, NULL, NULL, NULL, NULL, NULL
    };
    return &schema;
}

/// Stores `secret` (NUL-terminated) for the store with id `store_id`. Returns TRUE on success; on failure
/// `*error` is set and must be freed by the caller with the api's error_free.
static inline gboolean secret_shim_store(const struct secret_shim_api *api, const char *store_id, const char *label,
                                         const char *secret, GCancellable *cancellable, GError **error) {
    return api->password_store_sync(secret_shim_schema(), SECRET_COLLECTION_DEFAULT, label, secret, cancellable,
                                    error, "application", "authdeck", "kind", "master-key", "store", store_id,
                                    NULL);
}

/// Looks the secret up; NULL with `*error` unset means "no such item". Free the result with the api's
/// password_free.
static inline gchar *secret_shim_lookup(const struct secret_shim_api *api, const char *store_id,
                                        GCancellable *cancellable, GError **error) {
    return api->password_lookup_sync(secret_shim_schema(), cancellable, error, "application", "authdeck", "kind",
                                     "master-key", "store", store_id, NULL);
}

/// Removes the secret; returns TRUE when something was removed.
static inline gboolean secret_shim_clear(const struct secret_shim_api *api, const char *store_id,
                                         GCancellable *cancellable, GError **error) {
    return api->password_clear_sync(secret_shim_schema(), cancellable, error, "application", "authdeck", "kind",
                                    "master-key", "store", store_id, NULL);
}

#endif
