#ifndef AUTHDECK_CSHIMS_H
#define AUTHDECK_CSHIMS_H
// Fixed-argument wrappers for the variadic C functions authdeck calls, which Swift cannot call directly.
#include <stdint.h>
#include <stddef.h>
#include <sys/types.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <microhttpd.h>
#include <libsecret/secret.h>

// MARK: - libmicrohttpd

/// Called with the raw request URI (path and query, still escaped) before anything else; what it returns
/// becomes the request's per-connection context (`*con_cls` of the access handler).
typedef void *(*cshims_uri_logger)(void *context, const char *uri, struct MHD_Connection *connection);

/// Starts a daemon with its own polling thread, bound to `address` (IPv4, network byte order in the struct).
/// `connection_timeout` is in seconds; `memory_limit` caps the per-connection buffer (and so the request size).
struct MHD_Daemon *cshims_mhd_start(const struct sockaddr_in *address,
                                    cshims_uri_logger uri_logger, void *uri_logger_context,
                                    MHD_AccessHandlerCallback handler, void *handler_context,
                                    MHD_RequestCompletedCallback completed, void *completed_context,
                                    unsigned int connection_timeout, size_t memory_limit,
                                    unsigned int connection_limit);

/// The port the daemon is bound to (useful after asking for port 0), or 0 when unknown.
uint16_t cshims_mhd_bound_port(struct MHD_Daemon *daemon);

/// How many connections the daemon holds open right now.
unsigned int cshims_mhd_connection_count(struct MHD_Daemon *daemon);

/// The peer's IPv4 address in host byte order, or 0 when the peer is not IPv4.
uint32_t cshims_mhd_client_ipv4(struct MHD_Connection *connection);

// MARK: - libsecret

/// The schema authdeck's master keys are stored under: attributes application, kind and store.
const SecretSchema *cshims_secret_schema(void);

/// Stores `secret` (NUL-terminated) for the store with id `store_id`. Returns TRUE on success; on failure
/// `*error` is set and must be freed by the caller with g_error_free.
gboolean cshims_secret_store(const char *store_id, const char *label, const char *secret,
                             GCancellable *cancellable, GError **error);

/// Looks the secret up; NULL with `*error` unset means "no such item". Free the result with secret_password_free.
gchar *cshims_secret_lookup(const char *store_id, GCancellable *cancellable, GError **error);

/// Removes the secret; returns TRUE when something was removed.
gboolean cshims_secret_clear(const char *store_id, GCancellable *cancellable, GError **error);

#endif
