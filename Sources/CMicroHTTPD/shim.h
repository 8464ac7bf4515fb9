#ifndef AUTHDECK_CMICROHTTPD_SHIM_H
#define AUTHDECK_CMICROHTTPD_SHIM_H
// libmicrohttpd, loaded with dlopen when the first server starts, so the processes that never listen (list, token,
// the TUI until a sign-in) do not load it and the TLS libraries it brings (GnuTLS, p11-kit, GMP...) at start.
// Nothing here calls it directly: every call goes through a pointer found by dlsym, so nothing links it. The
// header is included for the types only. Fixed-argument wrappers stand in for its variadic and union-returning
// calls, which Swift cannot make. They are static inline so this module stays headers only.
#include <sys/types.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <microhttpd.h>

/// The libmicrohttpd functions authdeck calls, found once per process.
struct mhd_shim_api {
    struct MHD_Daemon *(*start_daemon)(unsigned int, uint16_t, MHD_AcceptPolicyCallback, void *,
                                       MHD_AccessHandlerCallback, void *, ...);
    void (*stop_daemon)(struct MHD_Daemon *);
    const union MHD_DaemonInfo *(*get_daemon_info)(struct MHD_Daemon *, enum MHD_DaemonInfoType, ...);
    const union MHD_ConnectionInfo *(*get_connection_info)(struct MHD_Connection *, enum MHD_ConnectionInfoType,
                                                           ...);
    const char *(*lookup_connection_value)(struct MHD_Connection *, enum MHD_ValueKind, const char *);
    int (*get_connection_values)(struct MHD_Connection *, enum MHD_ValueKind, MHD_KeyValueIterator, void *);
    struct MHD_Response *(*create_response_from_buffer)(size_t, void *, enum MHD_ResponseMemoryMode);
    void (*destroy_response)(struct MHD_Response *);
    enum MHD_Result (*add_response_header)(struct MHD_Response *, const char *, const char *);
    enum MHD_Result (*queue_response)(struct MHD_Connection *, unsigned int, struct MHD_Response *);
    /// Why loading failed (dlerror's words), empty when it did not.
    char failure[256];
};

static inline void mhd_shim_load_once(struct mhd_shim_api *api) {
    void *library = dlopen("libmicrohttpd.so.12", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        const char *why = dlerror();
        snprintf(api->failure, sizeof api->failure, "cannot load libmicrohttpd.so.12: %s", why ? why : "unknown");
        return;
    }
#define AUTHDECK_MHD_FIND(field, name)                                                                                \
    *(void **)(&api->field) = dlsym(library, name);                                                                   \
    if (api->field == NULL) {                                                                                         \
        snprintf(api->failure, sizeof api->failure, "libmicrohttpd.so.12 has no %s", name);                          \
        return;                                                                                                       \
    }
    AUTHDECK_MHD_FIND(start_daemon, "MHD_start_daemon")
    AUTHDECK_MHD_FIND(stop_daemon, "MHD_stop_daemon")
    AUTHDECK_MHD_FIND(get_daemon_info, "MHD_get_daemon_info")
    AUTHDECK_MHD_FIND(get_connection_info, "MHD_get_connection_info")
    AUTHDECK_MHD_FIND(lookup_connection_value, "MHD_lookup_connection_value")
    AUTHDECK_MHD_FIND(get_connection_values, "MHD_get_connection_values")
    AUTHDECK_MHD_FIND(create_response_from_buffer, "MHD_create_response_from_buffer")
    AUTHDECK_MHD_FIND(destroy_response, "MHD_destroy_response")
    AUTHDECK_MHD_FIND(add_response_header, "MHD_add_response_header")
    AUTHDECK_MHD_FIND(queue_response, "MHD_queue_response")
#undef AUTHDECK_MHD_FIND
}

/// The loaded functions, or NULL with `*failure` saying why (pass NULL when a server is known to run already).
/// Loads once per process (function-local statics: a header's file-level statics are not emitted for Swift).
static inline const struct mhd_shim_api *mhd_shim_api(const char **failure) {
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    static struct mhd_shim_api shared;
    static int loaded = 0;
    pthread_mutex_lock(&lock);
    if (!loaded) {
        mhd_shim_load_once(&shared);
        loaded = 1;
    }
    pthread_mutex_unlock(&lock);
    if (shared.failure[0] != '\0') {
        if (failure != NULL) *failure = shared.failure;
        return NULL;
    }
    return &shared;
}

/// The calls a running server makes; each is reached only after `mhd_shim_start` loaded the library.
static inline void mhd_shim_stop_daemon(struct MHD_Daemon *daemon) { mhd_shim_api(NULL)->stop_daemon(daemon); }

static inline const char *mhd_shim_lookup_connection_value(struct MHD_Connection *connection, enum MHD_ValueKind kind,
                                                           const char *key) {
    return mhd_shim_api(NULL)->lookup_connection_value(connection, kind, key);
}

static inline int mhd_shim_get_connection_values(struct MHD_Connection *connection, enum MHD_ValueKind kind,
                                                 MHD_KeyValueIterator iterator, void *context) {
    return mhd_shim_api(NULL)->get_connection_values(connection, kind, iterator, context);
}

static inline struct MHD_Response *mhd_shim_create_response_from_buffer(size_t size, void *buffer,
                                                                       enum MHD_ResponseMemoryMode mode) {
    return mhd_shim_api(NULL)->create_response_from_buffer(size, buffer, mode);
}

static inline void mhd_shim_destroy_response(struct MHD_Response *response) {
    mhd_shim_api(NULL)->destroy_response(response);
}

static inline enum MHD_Result mhd_shim_add_response_header(struct MHD_Response *response, const char *name,
                                                           const char *value) {
    return mhd_shim_api(NULL)->add_response_header(response, name, value);
}

static inline enum MHD_Result mhd_shim_queue_response(struct MHD_Connection *connection, unsigned int status,
                                                      struct MHD_Response *response) {
    return mhd_shim_api(NULL)->queue_response(connection, status, response);
}

/// Called with the raw request URI (path and query, still escaped) before anything else; what it returns
/// becomes the request's per-connection context (`*con_cls` of the access handler).
typedef void *(*mhd_shim_uri_logger)(void *context, const char *uri, struct MHD_Connection *connection);

/// Starts a daemon with its own polling thread (loading libmicrohttpd the first time; NULL with `*failure` set
/// when it cannot be loaded, NULL with errno when it cannot listen), bound to `address` (IPv4, network byte order in the struct).
/// `connection_timeout` is in seconds; `memory_limit` caps the per-connection buffer (and so the request size).
/// With `thread_per_connection` non-zero each connection is served on a thread of its own (at most
/// `connection_limit` of them), so a handler that waits holds up only its own connection.
static inline struct MHD_Daemon *mhd_shim_start(const struct sockaddr_in *address,
                                                mhd_shim_uri_logger uri_logger, void *uri_logger_context,
                                                MHD_AccessHandlerCallback handler, void *handler_context,
                                                MHD_RequestCompletedCallback completed, void *completed_context,
                                                unsigned int connection_timeout, size_t memory_limit,
                                                unsigned int connection_limit, int thread_per_connection,
                                                const char **failure) {
    const struct mhd_shim_api *api = mhd_shim_api(failure);
    if (api == NULL) return NULL;
    unsigned int flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_AUTO;
    if (thread_per_connection) flags |= MHD_USE_THREAD_PER_CONNECTION;
    return api->start_daemon(flags, ntohs(address->sin_port), NULL, NULL, handler, handler_context,
                            MHD_OPTION_SOCK_ADDR, (const struct sockaddr *)address,
                            MHD_OPTION_URI_LOG_CALLBACK, uri_logger, uri_logger_context,
                            MHD_OPTION_NOTIFY_COMPLETED, completed, completed_context,
                            MHD_OPTION_CONNECTION_TIMEOUT, connection_timeout,
                            MHD_OPTION_CONNECTION_MEMORY_LIMIT, memory_limit,
                            MHD_OPTION_CONNECTION_LIMIT, connection_limit,
                            MHD_OPTION_END);
}

/// The port the daemon is bound to (useful after asking for port 0), or 0 when unknown.
static inline uint16_t mhd_shim_bound_port(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = mhd_shim_api(NULL)->get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info == NULL ? 0 : info->port;
}

/// How many connections the daemon holds open right now.
static inline unsigned int mhd_shim_connection_count(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = mhd_shim_api(NULL)->get_daemon_info(daemon, MHD_DAEMON_INFO_CURRENT_CONNECTIONS);
    return info == NULL ? 0 : info->num_connections;
}

/// One end of a TCP connection: its address bytes as on the wire (4 for IPv4, 16 for IPv6; `length` 0 when
/// unknown) and its port in host byte order.
struct mhd_shim_endpoint {
    uint8_t address[16];
    uint8_t length;
    uint16_t port;
};

static inline struct mhd_shim_endpoint mhd_shim_endpoint_of(const struct sockaddr *address) {
    struct mhd_shim_endpoint endpoint = {{0}, 0, 0};
    if (address == NULL) return endpoint;
    if (address->sa_family == AF_INET) {
        const struct sockaddr_in *inet = (const struct sockaddr_in *)address;
        memcpy(endpoint.address, &inet->sin_addr, 4);
        endpoint.length = 4;
        endpoint.port = ntohs(inet->sin_port);
    } else if (address->sa_family == AF_INET6) {
        const struct sockaddr_in6 *inet6 = (const struct sockaddr_in6 *)address;
        memcpy(endpoint.address, &inet6->sin6_addr, 16);
        endpoint.length = 16;
        endpoint.port = ntohs(inet6->sin6_port);
    }
    return endpoint;
}

/// Both ends of a connection: the peer's (MHD_CONNECTION_INFO_CLIENT_ADDRESS) and the local one it reached
/// (getsockname on its socket); each has length 0 when unknown.
static inline void mhd_shim_connection_endpoints(struct MHD_Connection *connection, struct mhd_shim_endpoint *peer,
                                                 struct mhd_shim_endpoint *local) {
    *peer = mhd_shim_endpoint_of(NULL);
    *local = mhd_shim_endpoint_of(NULL);
    const union MHD_ConnectionInfo *client =
        mhd_shim_api(NULL)->get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    if (client != NULL) *peer = mhd_shim_endpoint_of(client->client_addr);
    const union MHD_ConnectionInfo *socket_info =
        mhd_shim_api(NULL)->get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    if (socket_info != NULL) {
        struct sockaddr_storage bound;
        socklen_t length = sizeof(bound);
        if (getsockname(socket_info->connect_fd, (struct sockaddr *)&bound, &length) == 0) {
            *local = mhd_shim_endpoint_of((const struct sockaddr *)&bound);
        }
    }
}

#endif
