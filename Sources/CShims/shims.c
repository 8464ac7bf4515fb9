#include "CShims.h"

struct MHD_Daemon *cshims_mhd_start(const struct sockaddr_in *address,
                                    cshims_uri_logger uri_logger, void *uri_logger_context,
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

uint16_t cshims_mhd_bound_port(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info == NULL ? 0 : info->port;
}

unsigned int cshims_mhd_connection_count(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_CURRENT_CONNECTIONS);
    return info == NULL ? 0 : info->num_connections;
}

uint32_t cshims_mhd_client_ipv4(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info =
        MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    if (info == NULL || info->client_addr == NULL || info->client_addr->sa_family != AF_INET) {
        return 0;
    }
    return ntohl(((const struct sockaddr_in *)info->client_addr)->sin_addr.s_addr);
}

const SecretSchema *cshims_secret_schema(void) {
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

gboolean cshims_secret_store(const char *store_id, const char *label, const char *secret,
                             GCancellable *cancellable, GError **error) {
    return secret_password_store_sync(cshims_secret_schema(), SECRET_COLLECTION_DEFAULT, label, secret,
                                      cancellable, error,
                                      "application", "authdeck", "kind", "master-key", "store", store_id, NULL);
}

gchar *cshims_secret_lookup(const char *store_id, GCancellable *cancellable, GError **error) {
    return secret_password_lookup_sync(cshims_secret_schema(), cancellable, error,
                                       "application", "authdeck", "kind", "master-key", "store", store_id, NULL);
}

gboolean cshims_secret_clear(const char *store_id, GCancellable *cancellable, GError **error) {
    return secret_password_clear_sync(cshims_secret_schema(), cancellable, error,
                                      "application", "authdeck", "kind", "master-key", "store", store_id, NULL);
}
