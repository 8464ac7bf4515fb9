#ifndef AUTHDECK_CPROCESS_H
#define AUTHDECK_CPROCESS_H
// Fixed-argument wrappers for process settings whose C functions are variadic (prctl), which Swift cannot call,
// and for socket credentials and accept4, which need _GNU_SOURCE.
#include <sys/types.h>

/// Sets the core-file limit to 0 and marks the process not dumpable (no core file, no ptrace by the same user,
/// /proc/PID owned by root). Returns 0 when both took, -1 with errno set.
int cprocess_disable_dumping(void);

/// Puts back the default action (end the process; no core, with the limit at 0) for the signals a crash raises,
/// taking them from the Swift runtime's crash handler, whose backtrace prints the registers and the memory they
/// point at. Returns 0 when every signal took, -1 otherwise.
int cprocess_default_crash_signals(void);

/// 1 when the process is dumpable, 0 when not, -1 on error.
int cprocess_is_dumpable(void);

/// The uid of the process at the other end of a connected Unix socket (SO_PEERCRED). Returns 0 and sets `*uid`
/// on success, -1 otherwise.
int cprocess_peer_uid(int descriptor, uid_t *uid);

/// Writes a name for the file at `path` as it is now into `name` (`size` bytes): its device, inode, birth time and
/// status-change time (statx), or with `written` non-zero its modification time and size in place of the ctime.
/// A file made again, even on a reused inode, or changed by any means (its ctime moves) gets another name; with
/// `written`, a file whose content was written does. Returns 0 on success, -1 when the file cannot be examined or
/// the name does not fit.
int cprocess_file_state_name(const char *path, int written, char *name, size_t size);

/// accept(2) of a connection on `listener`, close-on-exec from the start (accept4, which needs _GNU_SOURCE): one
/// system call where accept and fcntl make two. The descriptor, or -1 with errno set.
int cprocess_accept_cloexec(int listener);

#endif
