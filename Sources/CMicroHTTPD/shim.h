#ifndef AUTHDECK_CMICROHTTPD_SHIM_H
#define AUTHDECK_CMICROHTTPD_SHIM_H
// libmicrohttpd, plus fixed-argument wrappers for its variadic and union-returning calls, which Swift cannot
// make directly. They are static inline so this module stays headers only.
#include <sys/types.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <stdint.h>
#include <stdarg.h>
#include <stddef.h>
#include <microhttpd.h>

/// Called with the raw request URI (path and query, still escaped) before anything else; what it returns
/// becomes the request's per-connection context (`*con_cls` of the access handler).
typedef void *(*mhd_shim_uri_logger)(void *context, const char *uri, struct MHD_Connection *connection);

/// Starts a daemon with its own polling thread, bound to `address` (IPv4, network byte order in the struct).
/// `connection_timeout` is in seconds; `memory_limit` caps the per-connection buffer (and so the request size).
static inline struct MHD_Daemon *mhd_shim_start(const struct sockaddr_in *address,
                                                mhd_shim_uri_logger uri_logger, void *uri_logger_context,
                                                MHD_AccessHandlerCallback handler, void *handler_context,
                                                MHD_RequestCompletedCallback completed, void *completed_context,
                                                unsigned int connection_timeout, size_t memory_limit,
                                                unsigned int connection_limit) {
    unsigned int flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_AUTO;
    return MHD_start_daemon(flags, ntohs(address->sin_port), NULL, NULL, handler, handler_context,
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
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info == NULL ? 0 : info->port;
}

/// How many connections the daemon holds open right now.
static inline unsigned int mhd_shim_connection_count(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_CURRENT_CONNECTIONS);
    return info == NULL ? 0 : info->num_connections;
}

/// The TCP port of a socket address in host byte order, 0 for anything but IPv4 and IPv6.
static inline uint16_t mhd_shim_port_of(const struct sockaddr *address) {
    if (address == NULL) return 0;
    if (address->sa_family == AF_INET) return ntohs(((const struct sockaddr_in *)address)->sin_port);
    if (address->sa_family == AF_INET6) return ntohs(((const struct sockaddr_in6 *)address)->sin6_port);
    return 0;
}

/// The TCP ports of a connection in host byte order: the peer's and this end's; 0 when unknown.
static inline void mhd_shim_connection_ports(struct MHD_Connection *connection,
                                             uint16_t *peer_port, uint16_t *local_port) {
    *peer_port = 0;
    *local_port = 0;
    const union MHD_ConnectionInfo *client =
        MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    if (client != NULL) *peer_port = mhd_shim_port_of(client->client_addr);
    const union MHD_ConnectionInfo *socket_info =
        MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    if (socket_info != NULL) {
        struct sockaddr_storage local;
        socklen_t length = sizeof(local);
        if (getsockname(socket_info->connect_fd, (struct sockaddr *)&local, &length) == 0) {
            *local_port = mhd_shim_port_of((const struct sockaddr *)&local);
        }
    }
}

#endif
