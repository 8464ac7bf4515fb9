#define _GNU_SOURCE
#include "CProcess.h"
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <stdio.h>

int cprocess_disable_dumping(void) {
    struct rlimit none = {0, 0};
    int limited = setrlimit(RLIMIT_CORE, &none);
    int undumpable = prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
    return limited == 0 && undumpable == 0 ? 0 : -1;
}

int cprocess_default_crash_signals(void) {
    // The signals the Swift runtime's crash handler takes (its CrashHandlerLinux.cpp).
    static const int crash_signals[] = {SIGQUIT, SIGABRT, SIGBUS, SIGFPE, SIGILL, SIGSEGV, SIGTRAP};
    int result = 0;
    for (size_t index = 0; index < sizeof(crash_signals) / sizeof(crash_signals[0]); index++) {
        struct sigaction current;
        if (sigaction(crash_signals[index], NULL, &current) != 0) {
            result = -1;
            continue;
        }
        // Only a handler is taken away: a SIGQUIT the parent ignores stays ignored.
        if (current.sa_handler == SIG_DFL || current.sa_handler == SIG_IGN) continue;
        struct sigaction plain;
        memset(&plain, 0, sizeof(plain));
        plain.sa_handler = SIG_DFL;
        sigemptyset(&plain.sa_mask);
        if (sigaction(crash_signals[index], &plain, NULL) != 0) result = -1;
    }
    return result;
}

int cprocess_is_dumpable(void) {
    return prctl(PR_GET_DUMPABLE, 0, 0, 0, 0);
}

int cprocess_peer_uid(int descriptor, uid_t *uid) {
    struct ucred credentials;
    socklen_t length = sizeof(credentials);
    if (getsockopt(descriptor, SOL_SOCKET, SO_PEERCRED, &credentials, &length) != 0) return -1;
    *uid = credentials.uid;
    return 0;
}

int cprocess_file_state_name(const char *path, int written, char *name, size_t size) {
    struct statx status;
    if (statx(AT_FDCWD, path, AT_STATX_SYNC_AS_STAT, STATX_BASIC_STATS | STATX_BTIME, &status) != 0) return -1;
    // A file system that records no birth time leaves it zero: the inode and the times still tell files apart.
    int has_birth = (status.stx_mask & STATX_BTIME) != 0;
    unsigned long long born = has_birth ? (unsigned long long)status.stx_btime.tv_sec : 0;
    unsigned born_ns = has_birth ? status.stx_btime.tv_nsec : 0;
    struct statx_timestamp changed = written ? status.stx_mtime : status.stx_ctime;
    int count = snprintf(name, size, "%x.%x:%llx:%llx.%x:%llx.%x:%llx", status.stx_dev_major, status.stx_dev_minor,
                         (unsigned long long)status.stx_ino, born, born_ns, (unsigned long long)changed.tv_sec,
                         changed.tv_nsec, written ? (unsigned long long)status.stx_size : 0ULL);
    return count > 0 && (size_t)count < size ? 0 : -1;
}

int cprocess_accept_cloexec(int listener) {
    return accept4(listener, NULL, NULL, SOCK_CLOEXEC);
}
