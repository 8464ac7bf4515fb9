#ifndef AUTHDECK_CPROCESS_H
#define AUTHDECK_CPROCESS_H
// Fixed-argument wrappers for process settings whose C functions are variadic (prctl), which Swift cannot call.

/// Sets the core-file limit to 0 and marks the process not dumpable (no core file, no ptrace by the same user,
/// /proc/PID owned by root). Returns 0 when both took, -1 with errno set.
int cprocess_disable_dumping(void);

/// 1 when the process is dumpable, 0 when not, -1 on error.
int cprocess_is_dumpable(void);

#endif
