// Thin shim over libmicrohttpd for Swift: fixed-arity wrappers for the variadic calls AttachKit
// uses (MHD_start_daemon's option list, MHD_get_*_info), and accept4(2) for the sockets AttachKit
// accepts itself before handing them to MHD_add_connection (glibc declares it only under
// _GNU_SOURCE). No policy lives here; every value is chosen by the Swift caller (Bridges/MicroHTTPD).
#ifndef ATTACHKIT_CMICROHTTPD_SHIM_H
#define ATTACHKIT_CMICROHTTPD_SHIM_H

#include <stdint.h>
#include <sys/socket.h>
#include <microhttpd.h>

/// MHD_start_daemon(flags, 0, NULL, NULL, handler, context,
///   MHD_OPTION_CONNECTION_LIMIT, connection_limit, MHD_OPTION_CONNECTION_TIMEOUT, timeout_seconds,
///   MHD_OPTION_NOTIFY_COMPLETED, completed, context, MHD_OPTION_NOTIFY_CONNECTION, notify, context,
///   MHD_OPTION_CONNECTION_MEMORY_LIMIT, memory_limit, MHD_OPTION_END), for a daemon without a
/// listening socket (MHD_USE_NO_LISTEN_SOCKET: connections come from MHD_add_connection).
static inline struct MHD_Daemon *ak_mhd_start(unsigned int flags, MHD_AccessHandlerCallback handler,
                                              MHD_RequestCompletedCallback completed,
                                              MHD_NotifyConnectionCallback notify, void *context,
                                              unsigned int connection_limit, unsigned int timeout_seconds, size_t memory_limit) {
    return MHD_start_daemon(flags, 0, NULL, NULL, handler, context,
                            MHD_OPTION_CONNECTION_LIMIT, connection_limit,
                            MHD_OPTION_CONNECTION_TIMEOUT, timeout_seconds,
                            MHD_OPTION_NOTIFY_COMPLETED, completed, context,
                            MHD_OPTION_NOTIFY_CONNECTION, notify, context,
                            MHD_OPTION_CONNECTION_MEMORY_LIMIT, memory_limit,
                            MHD_OPTION_END);
}

#ifndef __USE_GNU
extern int accept4(int fd, struct sockaddr *address, socklen_t *length, int flags);
#endif

/// accept4(fd, address, length, SOCK_CLOEXEC): the socket is not inherited by worker processes.
static inline int ak_accept_cloexec(int fd, struct sockaddr *address, socklen_t *length) {
    return accept4(fd, address, length, SOCK_CLOEXEC);
}

/// MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD)->connect_fd; -1 when unknown.
static inline int ak_mhd_connection_fd(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info == NULL ? -1 : info->connect_fd;
}

#endif
