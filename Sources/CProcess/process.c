#define _GNU_SOURCE
#include "CProcess.h"
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>

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
