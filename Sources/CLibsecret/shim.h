#ifndef AUTHDECK_CLIBSECRET_SHIM_H
#define AUTHDECK_CLIBSECRET_SHIM_H
// libsecret, plus fixed-argument wrappers for its variadic calls (attributes as NULL-terminated pairs), which
// Swift cannot make directly. They are static inline so this module stays headers only.
#include <libsecret/secret.h>

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
/// `*error` is set and must be freed by the caller with g_error_free.
static inline gboolean secret_shim_store(const char *store_id, const char *label, const char *secret,
                                         GCancellable *cancellable, GError **error) {
    return secret_password_store_sync(secret_shim_schema(), SECRET_COLLECTION_DEFAULT, label, secret,
                                      cancellable, error,
                                      "application", "authdeck", "kind", "master-key", "store", store_id, NULL);
}

/// Looks the secret up; NULL with `*error` unset means "no such item". Free the result with secret_password_free.
static inline gchar *secret_shim_lookup(const char *store_id, GCancellable *cancellable, GError **error) {
    return secret_password_lookup_sync(secret_shim_schema(), cancellable, error,
                                       "application", "authdeck", "kind", "master-key", "store", store_id, NULL);
}

/// Removes the secret; returns TRUE when something was removed.
static inline gboolean secret_shim_clear(const char *store_id, GCancellable *cancellable, GError **error) {
    return secret_password_clear_sync(secret_shim_schema(), cancellable, error,
                                      "application", "authdeck", "kind", "master-key", "store", store_id, NULL);
}

#endif
