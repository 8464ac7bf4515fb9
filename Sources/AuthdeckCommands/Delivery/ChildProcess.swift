#if canImport(Glibc)
    import Glibc
#endif

/// The child `exec` started, for the signal handlers: a C handler can reach only globals.
nonisolated(unsafe) private var forwardingTarget: pid_t = 0
/// A signal that came between the handlers going in and the child's pid being known; sent once it is.
nonisolated(unsafe) private var heldSignal: Int32 = 0

/// A command run by `authdeck exec`: started from PATH with an environment of the caller's choosing, sent the
/// signals authdeck receives (Ctrl-C, SIGTERM from a supervisor, a terminal resize), and waited for.
struct ChildProcess {
    /// The signals passed on to the child instead of ending authdeck first. Job control (TSTP, CONT) keeps its
    /// defaults, so Ctrl-Z and `fg` stop and resume authdeck and the command together.
    static let forwarded: [Int32] = [SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGWINCH]

    /// Why a command did not start: the exit codes a shell uses for these.
    enum StartFailure: Error {
        /// Exit 127: no such command on PATH.
        case notFound
        /// Exit 126: found but not executable.
        case notExecutable(String)
    }

    let pid: pid_t

    /// Starts `command` (looked up on PATH unless it holds a slash) with `environment` as its whole environment.
    /// `output`, when given, becomes the child's stdout and stderr (`exec --step-up-watch`'s pipes).
    static func start(
        _ command: [String], environment: [String: String], output: (Int32, Int32)? = nil
    ) throws(StartFailure) -> ChildProcess {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if let output {
            posix_spawn_file_actions_adddup2(&actions, output.0, STDOUT_FILENO)
            posix_spawn_file_actions_adddup2(&actions, output.1, STDERR_FILENO)
        }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in forwarded { sigaddset(&defaults, signal) }
        var mask = sigset_t()
        sigemptyset(&mask)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setsigmask(&attributes, &mask)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))
        let argv = command.map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        // Handlers go in before the child exists, so no signal in between can end authdeck and orphan it.
        installForwarding()
        var pid: pid_t = 0
        let status = posix_spawnp(&pid, command[0], &actions, &attributes, argv, envp)
        switch status {
        case 0:
            // A signal that came while the child was starting (a busy machine can stall this process for longer
            // than the child takes to start) was held by the handler: it goes to the child now.
            forwardingTarget = pid
            if heldSignal != 0 {
                kill(pid, heldSignal)
                heldSignal = 0
            }
            return ChildProcess(pid: pid)
        case ENOENT, ENOTDIR:
            throw .notFound
        default:
            throw .notExecutable(String(cString: strerror(status)))
        }
    }

    /// Waits for the child; its exit status, or 128 + the signal that ended it (as shells report it).
    func wait() -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            if errno != EINTR { return 1 }
        }
        forwardingTarget = 0
        let signal = status & 0x7f
        return signal == 0 ? (status >> 8) & 0xff : 128 + signal
    }

    private static func installForwarding() {
        // A caller may have started authdeck with some of these blocked (a blocked mask is inherited): unblock them,
        // or they would reach neither authdeck nor the command.
        var unblock = sigset_t()
        sigemptyset(&unblock)
        for signal in forwarded { sigaddset(&unblock, signal) }
        pthread_sigmask(SIG_UNBLOCK, &unblock, nil)
        for signal in forwarded {
            var action = sigaction()
            action.__sigaction_handler.sa_sigaction = { received, information, _ in
                // What the terminal sends (Ctrl-C, a resize) goes to the whole foreground group, the command
                // included: passing it on again would deliver it twice (a second Ctrl-C means "force" to many tools).
                if let information, information.pointee.si_code == SI_KERNEL { return }
                let target = forwardingTarget
                if target > 0 { kill(target, received) } else { heldSignal = received }
            }
            action.sa_flags = SA_RESTART | SA_SIGINFO
            sigemptyset(&action.sa_mask)
            sigaction(signal, &action, nil)
        }
    }
}
