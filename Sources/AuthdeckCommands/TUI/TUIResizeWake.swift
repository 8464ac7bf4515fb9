#if canImport(Glibc)
    import Glibc
#endif

/// SIGWINCH wakes the event loop: curses notes a resize in its own handler and reports it at the next key read,
/// but a loop asleep in `poll` would not read until something else woke it. This handler runs curses' handler
/// first, then writes a byte to the inbox's wake-up pipe (the self-pipe trick: `write` is async-signal-safe).
enum TUIResizeWake {
    /// Installs the handler over the one curses put in; call once the terminal is started.
    static func install(descriptor: Int32) {
        guard descriptor >= 0 else { return }
        resizeWakeDescriptor = descriptor
        var action = sigaction()
        action.__sigaction_handler.sa_handler = resizeWakeHandler
        sigemptyset(&action.sa_mask)
        action.sa_flags = SA_RESTART
        sigaction(SIGWINCH, &action, &cursesResizeAction)
    }
}

// The handler can reach only globals, and no lock is async-signal-safe: both are written before it goes in.
nonisolated(unsafe) private var resizeWakeDescriptor: Int32 = -1
nonisolated(unsafe) private var cursesResizeAction = sigaction()

private func resizeWakeHandler(_ signal: Int32) {
    let saved = errno
    // SIG_DFL is 0 and SIG_IGN 1: only a real handler is called.
    if let previous = cursesResizeAction.__sigaction_handler.sa_handler,
        unsafeBitCast(previous, to: Int.self) > 1
    {
        previous(signal)
    }
    var byte: UInt8 = 1
    _ = write(resizeWakeDescriptor, &byte, 1)
    errno = saved
}
