// Thin shim over Linux system calls Swift cannot make directly (glibc reaches them only through
// the variadic syscall(2) or prctl(2)): openat2, Landlock, PR_SET_NO_NEW_PRIVS, PR_SET_PDEATHSIG. The constants and
// structures are spelled out here, so the module builds against older kernel headers and the
// running kernel decides what is available. No policy lives here: which rights, which folders and
// what to do when a call is missing are chosen by the Swift callers.
#ifndef ATTACHKIT_CSYSTEM_SHIM_H
#define ATTACHKIT_CSYSTEM_SHIM_H

#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <stdint.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

// O_PATH (open a location without reading it) is hidden behind _GNU_SOURCE in glibc's headers;
// its value is the same on every Linux architecture.
#define AK_O_PATH 0x200000
#ifndef O_PATH
#define O_PATH AK_O_PATH
#endif

// System call numbers: openat2 and Landlock came after the architectures' tables were unified,
// so they are the same on x86_64, arm64 and the rest.
#ifndef SYS_openat2
#define SYS_openat2 437
#endif
#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset 444
#endif
#ifndef SYS_landlock_add_rule
#define SYS_landlock_add_rule 445
#endif
#ifndef SYS_landlock_restrict_self
#define SYS_landlock_restrict_self 446
#endif

// ---- openat2(2) ----

/// struct open_how (linux/openat2.h).
struct ak_open_how {
    uint64_t flags;
    uint64_t mode;
    uint64_t resolve;
};

/// RESOLVE_* flags of openat2(2).
#define AK_RESOLVE_NO_XDEV 0x01
#define AK_RESOLVE_NO_MAGICLINKS 0x02
#define AK_RESOLVE_NO_SYMLINKS 0x04
#define AK_RESOLVE_BENEATH 0x08

/// openat2(dirfd, path, {flags, mode, resolve}): -1 with errno on failure (ENOSYS before Linux 5.6).
static inline int ak_openat2(int dirfd, const char *path, int flags, unsigned int mode, uint64_t resolve) {
    struct ak_open_how how;
    memset(&how, 0, sizeof how);
    how.flags = (uint64_t)(unsigned int)flags;
    how.mode = (flags & O_CREAT) ? mode : 0;
    how.resolve = resolve;
    return (int)syscall(SYS_openat2, dirfd, path, &how, sizeof how);
}

/// What openat2 with RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS does, done one component at a time with
/// O_NOFOLLOW for kernels without openat2: every component must be a real folder (a symbolic link
/// anywhere fails with ELOOP), `..` is refused with EXDEV, `.` and empty components are skipped.
/// The last component is opened with `flags`. -1 with errno on failure.
static inline int ak_open_beneath_walk(int dirfd, const char *path, int flags, unsigned int mode) {
    size_t length = strlen(path);
    if (length >= 4096) { errno = ENAMETOOLONG; return -1; }
    if (path[0] == '/') { errno = EXDEV; return -1; }
    char copy[4096];
    memcpy(copy, path, length + 1);
    int current = fcntl(dirfd, F_DUPFD_CLOEXEC, 0);
    if (current < 0) return -1;
    char *state = NULL;
    char *part = strtok_r(copy, "/", &state);
    while (part != NULL && strcmp(part, ".") == 0) part = strtok_r(NULL, "/", &state);
    if (part == NULL) {
        // The folder itself: reopen it with the caller's flags.
        int reopened = openat(current, ".", flags | O_CLOEXEC, mode);
        int saved = errno;
        close(current);
        errno = saved;
        return reopened;
    }
    while (part != NULL) {
        if (strcmp(part, "..") == 0) { close(current); errno = EXDEV; return -1; }
        char *next_part = strtok_r(NULL, "/", &state);
        while (next_part != NULL && strcmp(next_part, ".") == 0) next_part = strtok_r(NULL, "/", &state);
        int last = next_part == NULL;
        // O_PATH | O_NOFOLLOW opens a link itself rather than failing: the type check below
        // refuses it. A last component opened without O_PATH fails on a link (ELOOP or ENOTDIR).
        int next = openat(current, part, last ? (flags | O_NOFOLLOW | O_CLOEXEC) : (O_PATH | O_NOFOLLOW | O_CLOEXEC), mode);
        int saved = errno;
        close(current);
        if (next < 0) { errno = saved; return -1; }
        struct stat status;
        if (fstat(next, &status) != 0) { saved = errno; close(next); errno = saved; return -1; }
        if (S_ISLNK(status.st_mode)) { close(next); errno = ELOOP; return -1; }
        if (!last && !S_ISDIR(status.st_mode)) { close(next); errno = ENOTDIR; return -1; }
        current = next;
        part = next_part;
    }
    return current;
}

/// Opens `path` (relative) beneath the folder `dirfd`, following no symbolic link and no /proc
/// magic link and never leaving the folder: openat2 with RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS |
/// RESOLVE_NO_MAGICLINKS, or the O_NOFOLLOW walk above where openat2 is missing (ENOSYS) or
/// filtered (EPERM from a seccomp profile). O_CLOEXEC is always added. -1 with errno on failure:
/// ELOOP (a symbolic link), EXDEV (the path would leave the folder), ENOENT, ENOTDIR...
static inline int ak_open_beneath(int dirfd, const char *path, int flags, unsigned int mode) {
    const char *relative = path[0] == '\0' ? "." : path;
    int fd, attempts = 0;
    // EAGAIN: a rename or mount anywhere in the system raced with the kernel's check of a `..`
    // (openat2(2) asks the caller to retry); after 64 races in a row the walk decides instead.
    do {
        fd = ak_openat2(dirfd, relative, flags | O_CLOEXEC, mode,
                        AK_RESOLVE_BENEATH | AK_RESOLVE_NO_SYMLINKS | AK_RESOLVE_NO_MAGICLINKS);
    } while (fd < 0 && errno == EAGAIN && ++attempts < 64);
    if (fd >= 0 || (errno != ENOSYS && errno != EPERM && errno != EAGAIN)) return fd;
    return ak_open_beneath_walk(dirfd, relative, flags, mode);
}

// ---- Landlock (linux/landlock.h) ----

/// struct landlock_ruleset_attr, as of ABI 6 (the kernel reads only `size` bytes of it).
struct ak_landlock_ruleset_attr {
    uint64_t handled_access_fs;
    uint64_t handled_access_net;
    uint64_t scoped;
};

/// struct landlock_path_beneath_attr (packed, 12 bytes).
struct ak_landlock_path_beneath_attr {
    uint64_t allowed_access;
    int32_t parent_fd;
} __attribute__((packed));

#define AK_LANDLOCK_CREATE_RULESET_VERSION (1U << 0)
#define AK_LANDLOCK_RULE_PATH_BENEATH 1

#define AK_LANDLOCK_ACCESS_FS_EXECUTE (1ULL << 0)
#define AK_LANDLOCK_ACCESS_FS_WRITE_FILE (1ULL << 1)
#define AK_LANDLOCK_ACCESS_FS_READ_FILE (1ULL << 2)
#define AK_LANDLOCK_ACCESS_FS_READ_DIR (1ULL << 3)
#define AK_LANDLOCK_ACCESS_FS_REMOVE_DIR (1ULL << 4)
#define AK_LANDLOCK_ACCESS_FS_REMOVE_FILE (1ULL << 5)
#define AK_LANDLOCK_ACCESS_FS_MAKE_CHAR (1ULL << 6)
#define AK_LANDLOCK_ACCESS_FS_MAKE_DIR (1ULL << 7)
#define AK_LANDLOCK_ACCESS_FS_MAKE_REG (1ULL << 8)
#define AK_LANDLOCK_ACCESS_FS_MAKE_SOCK (1ULL << 9)
#define AK_LANDLOCK_ACCESS_FS_MAKE_FIFO (1ULL << 10)
#define AK_LANDLOCK_ACCESS_FS_MAKE_BLOCK (1ULL << 11)
#define AK_LANDLOCK_ACCESS_FS_MAKE_SYM (1ULL << 12)
/// ABI 2.
#define AK_LANDLOCK_ACCESS_FS_REFER (1ULL << 13)
/// ABI 3.
#define AK_LANDLOCK_ACCESS_FS_TRUNCATE (1ULL << 14)
/// ABI 5.
#define AK_LANDLOCK_ACCESS_FS_IOCTL_DEV (1ULL << 15)
/// ABI 4.
#define AK_LANDLOCK_ACCESS_NET_BIND_TCP (1ULL << 0)
#define AK_LANDLOCK_ACCESS_NET_CONNECT_TCP (1ULL << 1)

/// The Landlock ABI version the running kernel offers (1, 2, ...), or -1 with errno: ENOSYS (not
/// built in), EOPNOTSUPP (built in but disabled at boot).
static inline int ak_landlock_abi_version(void) {
    return (int)syscall(SYS_landlock_create_ruleset, NULL, 0, AK_LANDLOCK_CREATE_RULESET_VERSION);
}

/// landlock_create_ruleset handling `fs` (and, when `net` is not 0, `net`: ABI 4 and later).
/// Returns the ruleset descriptor (close-on-exec) or -1 with errno.
static inline int ak_landlock_create_ruleset(uint64_t fs, uint64_t net) {
    struct ak_landlock_ruleset_attr attr;
    memset(&attr, 0, sizeof attr);
    attr.handled_access_fs = fs;
    attr.handled_access_net = net;
    size_t size = net != 0 ? 2 * sizeof(uint64_t) : sizeof(uint64_t);
    return (int)syscall(SYS_landlock_create_ruleset, &attr, size, 0);
}

/// landlock_add_rule(ruleset, LANDLOCK_RULE_PATH_BENEATH, {allowed, parent}): 0 or -1 with errno.
static inline int ak_landlock_allow_beneath(int ruleset, int parent, uint64_t allowed) {
    struct ak_landlock_path_beneath_attr attr;
    attr.allowed_access = allowed;
    attr.parent_fd = parent;
    return (int)syscall(SYS_landlock_add_rule, ruleset, AK_LANDLOCK_RULE_PATH_BENEATH, &attr, 0);
}

/// landlock_restrict_self(ruleset, 0): the calling thread, and every thread and process it
/// creates afterwards, are confined. 0 or -1 with errno.
static inline int ak_landlock_restrict_self(int ruleset) {
    return (int)syscall(SYS_landlock_restrict_self, ruleset, 0);
}

/// prctl(PR_SET_NO_NEW_PRIVS, 1): no exec can gain privileges again (Landlock requires it of
/// unprivileged callers). 0 or -1 with errno.
static inline int ak_set_no_new_privs(void) {
    return prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
}

/// prctl(PR_SET_PDEATHSIG, signal): the kernel sends `signal` to this process when the thread that
/// created it ends.
static inline int ak_set_parent_death_signal(int signal) {
    return prctl(PR_SET_PDEATHSIG, (unsigned long)signal, 0, 0, 0);
}

// ---- renameat2(2) ----

#ifndef SYS_renameat2
#if defined(__x86_64__)
#define SYS_renameat2 316
#elif defined(__aarch64__)
#define SYS_renameat2 276
#endif
#endif

/// renameat2(olddir, old, newdir, new, RENAME_NOREPLACE): the rename fails with EEXIST when `new`
/// exists, atomically. Where the file system or kernel lacks it (EINVAL, ENOSYS), a hard link
/// (which fails with EEXIST the same way) and the unlink of `old`. 0 or -1 with errno.
static inline int ak_rename_noreplace(int olddir, const char *old, int newdir, const char *new_name) {
    int done = (int)syscall(SYS_renameat2, olddir, old, newdir, new_name, 1U /* RENAME_NOREPLACE */);
    if (done == 0 || (errno != EINVAL && errno != ENOSYS)) return done;
    if (linkat(olddir, old, newdir, new_name, 0) != 0) return -1;
    unlinkat(olddir, old, 0);
    return 0;
}

// ---- sockets ----

/// socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds): 0 or -1 with errno. glibc declares
/// SOCK_STREAM as an enumerator and the flags as macros, which Swift's Glibc module does not show
/// the same way in every build mode (a whole-module release build did not see them).
static inline int ak_stream_socket_pair(int fds[2]) {
    return socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds);
}

/// MSG_NOSIGNAL: a send to a closed peer fails with EPIPE instead of raising SIGPIPE.
static inline int ak_msg_nosignal(void) { return MSG_NOSIGNAL; }

/* SOCK_STREAM as an int: glibc declares it in an enum that Swift's Glibc module does not always
 * show (a release build with the static Swift runtime did not). */
static inline int ak_sock_stream(void) { return SOCK_STREAM; }

/* glibc's malloc_trim: returns freed heap memory to the kernel (a long-lived worker calls it
 * between jobs). */
static inline int ak_malloc_trim(void) { return malloc_trim(0); }

#endif
