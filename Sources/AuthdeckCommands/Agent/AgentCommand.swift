import AuthCore
import CProcess
import Foundation
import SessionStorage

#if canImport(Glibc)
    import Glibc
#endif

/// Set by SIGINT, SIGTERM or SIGHUP: the agent stops accepting, finishes the requests in hand (waiting no longer
/// than a request may take), removes its socket and exits.
nonisolated(unsafe) private var agentStopRequested: sig_atomic_t = 0

/// `authdeck agent --allow KEY[,KEY…]|'*' [--socket PATH] [--confirm] [--log FILE]`: serves tokens from this
/// machine's store on a 0600 Unix socket to processes of the same user (checked with SO_PEERCRED), so that a shell
/// on another machine reached with `ssh -R` gets tokens while the store stays here (oidc-agent's habit).
enum AgentCommand {
    static func run(_ arguments: Arguments, _ global: GlobalOptions) throws(CommandFailure) -> ExitCode {
        _ = try arguments.positionals(atMost: 0)
        guard let allowText = arguments.value("allow") else {
            throw .usage("agent needs --allow KEY[,KEY…] (or '*' for every session)")
        }
        let allowed = allowText.split(separator: ",").map { String($0) }.filter { !$0.isEmpty }
        guard !allowed.isEmpty else { throw .usage("--allow names no session") }
        global.environment.requireProcess("agent")
        let path = try socketPath(arguments.value("socket"), global)
        let log = try RequestLog(path: arguments.value("log"))
        let store = try StoreCommands.requireStore(global)
        // Unlocked now, so a locked store fails here and not at the first request.
        try StoreCommands.attempt { () throws(StoreError) in try store.unlock() }
        let listener = try listen(at: path)
        defer {
            listener.close()
            unlink(path)
        }
        // Unblocked first: a blocked mask is inherited, and a blocked SIGTERM would leave the agent unstoppable.
        var stopSignals = sigset_t()
        sigemptyset(&stopSignals)
        for signal in [SIGINT, SIGTERM, SIGHUP] { sigaddset(&stopSignals, signal) }
        pthread_sigmask(SIG_UNBLOCK, &stopSignals, nil)
        for signal in [SIGINT, SIGTERM, SIGHUP] {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { _ in agentStopRequested = 1 }
            sigemptyset(&action.sa_mask)
            sigaction(signal, &action, nil)
        }
        global.out(path + "\n")
        if !global.quiet {
            let served = allowed == ["*"] ? "every session" : allowed.joined(separator: ", ")
            global.err(
                "authdeck agent: serving \(served)"
                    + " on \(path); set AUTHDECK_AGENT_SOCK to it\n")
        }
        let server = AgentServer(
            store: store, allowed: Set(allowed), confirm: arguments.has("confirm"), log: log, config: global.config)
        var poller = pollfd(fd: listener.descriptor, events: Int16(POLLIN), revents: 0)
        while agentStopRequested == 0 {
            poller.revents = 0
            guard poll(&poller, 1, 250) > 0 else { continue }
            // Close-on-exec from the start (one call, where `accept` and `fcntl` made two per connection).
            let descriptor = cprocess_accept_cloexec(listener.descriptor)
            guard descriptor >= 0 else { continue }
            server.accept(UnixSocket(descriptor: descriptor))
        }
        if !server.drain(seconds: AgentServer.requestTimeoutSeconds) {
            log.record("stopped with a request still unanswered")
        }
        return .done
    }

    /// The socket path: given, else in `$XDG_RUNTIME_DIR/authdeck` (made 0700).
    static func socketPath(_ given: String?, _ global: GlobalOptions) throws(CommandFailure) -> String {
        if let given, !given.isEmpty { return given }
        guard let runtime = global.environment.variables["XDG_RUNTIME_DIR"], !runtime.isEmpty else {
            throw .usage("XDG_RUNTIME_DIR is not set; give --socket PATH")
        }
        let folder = runtime + "/authdeck"
        if mkdir(folder, 0o700) != 0 && errno != EEXIST {
            throw CommandFailure(.failed, "cannot create \(folder): \(String(cString: strerror(errno)))")
        }
        return folder + "/agent.sock"
    }

    /// Listens at `path`, taking over a socket left by an agent that died, never one that still answers.
    private static func listen(at path: String) throws(CommandFailure) -> UnixSocket {
        var status = stat()
        if lstat(path, &status) == 0 {
            guard status.st_mode & S_IFMT == S_IFSOCK else {
                throw CommandFailure(.failed, "\(path) exists and is not a socket; choose another --socket")
            }
            if let running = try? UnixSocket.connect(path, timeoutSeconds: 1) {
                running.close()
                throw CommandFailure(.failed, "an agent already listens at \(path)")
            }
            unlink(path)
        }
        do throws(UnixSocket.Failure) {
            return try UnixSocket.listen(path)
        } catch {
            throw CommandFailure(.failed, "cannot listen at \(path): \(error.message)")
        }
    }
}
