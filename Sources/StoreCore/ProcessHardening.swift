import CProcess

/// What both binaries do before anything else: no core dumps, no crash backtraces and no same-user ptrace or
/// /proc/PID/mem reads, so a crash or a debugger attached by another process of the user cannot carry the master
/// key or tokens away. The root user is out of reach of these settings (see the README's security model).
public enum ProcessHardening {
    /// Sets the core-file limit to 0 and the process non-dumpable; both survive in this process only (exec resets
    /// dumpability, which is why authdeck-full repeats this). Then takes the crash signals back from the Swift
    /// runtime's backtracer: its report prints each register with the 16 bytes it points at (key and token bytes
    /// among them), and being non-dumpable does not stop it, since the crashing process serves it its own memory.
    /// A crash then ends the process with its signal, after the runtime's one-line reason for a Swift trap.
    /// Failures are ignored: nothing here is required for authdeck to work, and no kernel authdeck supports
    /// refuses them.
    public static func apply() {
        _ = cprocess_disable_dumping()
        _ = cprocess_default_crash_signals()
    }

    /// Whether the process is still dumpable (for `doctor` and tests).
    public static var isDumpable: Bool { cprocess_is_dumpable() != 0 }
}
