// Thin shim over libmicrohttpd for Swift: fixed-arity wrappers for the variadic calls AttachKit
// uses (MHD_start_daemon's option list, MHD_get_*_info). No policy lives here; every value is
// chosen by the Swift caller (Bridges/MicroHTTPD).
#ifndef ATTACHKIT_CMICROHTTPD_SHIM_H
#define ATTACHKIT_CMICROHTTPD_SHIM_H

#include <stdint.h>
#include <sys/socket.h>
#include <microhttpd.h>

/// MHD_start_daemon(flags, 0, NULL, NULL, handler, context,
///   MHD_OPTION_SOCK_ADDR, address, MHD_OPTION_CONNECTION_LIMIT, connection_limit,
///   MHD_OPTION_PER_IP_CONNECTION_LIMIT, per_ip_limit, MHD_OPTION_CONNECTION_TIMEOUT, timeout_seconds, MHD_OPTION_LISTEN_BACKLOG_SIZE, backlog,
///   MHD_OPTION_URI_LOG_CALLBACK, uri_log, context, MHD_OPTION_NOTIFY_COMPLETED, completed, context,
///   MHD_OPTION_NOTIFY_CONNECTION, notify, context, MHD_OPTION_CONNECTION_MEMORY_LIMIT, memory_limit, MHD_OPTION_END).
static inline struct MHD_Daemon *ak_mhd_start(unsigned int flags, const struct sockaddr *address,
                                              MHD_AccessHandlerCallback handler,
                                              void *(*uri_log)(void *, const char *, struct MHD_Connection *),
                                              MHD_RequestCompletedCallback completed,
                                              MHD_NotifyConnectionCallback notify, void *context,
                                              unsigned int connection_limit, unsigned int per_ip_limit,
                                              unsigned int timeout_seconds, unsigned int backlog, size_t memory_limit) {
    return MHD_start_daemon(flags, 0, NULL, NULL, handler, context,
                            MHD_OPTION_SOCK_ADDR, address,
                            MHD_OPTION_CONNECTION_LIMIT, connection_limit,
                            MHD_OPTION_PER_IP_CONNECTION_LIMIT, per_ip_limit,
                            MHD_OPTION_CONNECTION_TIMEOUT, timeout_seconds,
                            MHD_OPTION_LISTEN_BACKLOG_SIZE, backlog,
                            MHD_OPTION_URI_LOG_CALLBACK, uri_log, context,
                            MHD_OPTION_NOTIFY_COMPLETED, completed, context,
                            MHD_OPTION_NOTIFY_CONNECTION, notify, context,
                            MHD_OPTION_CONNECTION_MEMORY_LIMIT, memory_limit,
                            MHD_OPTION_END);
}

/// MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT)->port; 0 when unknown.
static inline uint16_t ak_mhd_bound_port(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info == NULL ? 0 : info->port;
}

/// MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD)->connect_fd; -1 when unknown.
static inline int ak_mhd_connection_fd(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info == NULL ? -1 : info->connect_fd;
}

#endif
