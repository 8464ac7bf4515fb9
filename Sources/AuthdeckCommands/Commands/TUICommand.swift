import AuthClient
import AuthCore
import Foundation
import SessionStorage
import TerminalUI

#if canImport(Glibc)
    import Glibc
#endif

/// `authdeck tui` (and `authdeck` alone on a terminal): opens the store, starts the terminal and runs the event
/// loop until the user quits.
enum TUICommand {
    static func run(_ arguments: Arguments, _ global: GlobalOptions) throws(CommandFailure) -> ExitCode {
        _ = try arguments.positionals(atMost: 0)
        let started = ContinuousClock.now
        let environment = global.environment.variables
        let setup = try SignInSetup.load(global: global)
        let keys = try TUIKeyMap.load(environment: environment)
        let theme = try theme(arguments.value("theme"), setup.configuration, environment)
        let store = TUIStore(global: global, environment: environment)

        // The store is read before the terminal is taken over, so a damaged database is an ordinary error message.
        // Only the selection is read here: the table reads its rows from the store a page at a time.
        let status: StoreStatus
        let selected: String?
        do throws(StoreError) {
            selected = try store.store(create: false)?.selectedKey()
            do throws(StoreError) {
                status = try store.unlock(passphrase: nil)
            } catch {
                switch error {
                case .locked, .wrongPassphrase, .keyringTimeout, .secretService: status = .locked(error.description)
                default: throw error
                }
            }
        } catch {
            throw StoreCommands.failure(error)
        }

        let terminal = try startTerminal(global, theme: theme)
        let lastBackend = store.lastBackend.flatMap { setup.backendNames.contains($0) ? $0 : nil }
        var state = AppState(
            rows: terminal.rows, cols: terminal.cols, now: Date(),
            utcOffsetSeconds: localOffset(), backends: setup.backendNames,
            defaultBackend: lastBackend ?? setup.configuration.defaultBackendName,
            store: status)
        state.theme = terminal.theme
        let pages = TUIPageSource(store: store)
        state.keys = keys
        if !terminal.showsUnicode {
            state.drawsASCII = true
            state.message = AppState.Message(ASCIIDrawing.localeNotice(environment))
        }
        state.sessions = SessionList(selected: selected)
        state.directorySession = DirectorySessionFile.find()?.key
        state.sandboxOutbox = sandboxOutbox(
            setup.configuration, backends: setup.backendNames, environment: environment)
        state.sandboxURL = SandboxFaultsCommand.configuredURL(setup.configuration).map { url in
            url.hasSuffix("/") ? String(url.dropLast()) : url
        }.flatMap { SandboxFaultsCommand.isLoopback($0) ? $0 : nil }
        let configPath = ConfigurationFile.path(explicit: global.config, environment: environment)
        if !FileManager.default.fileExists(atPath: configPath) { state.missingConfig = configPath }
        state.signInOptions = TUISignInWords.configuredOptions(setup.configuration, backends: setup.backendNames)
        state.clipboardClearSeconds =
            setup.configuration.clipboardClearSeconds ?? Configuration.defaultClipboardClearSeconds
        for backend in setup.backendNames {
            for provider in state.providers {
                if let reason = ProviderSupport.refusal(
                    provider: provider, backend: backend,
                    in: setup.configuration)
                {
                    state.providerRefusals[backend, default: [:]][provider] = reason
                }
            }
        }
        let loop = TUIEventLoop(state: state, terminal: terminal, store: store, pages: pages, setup: setup)
        let bench = environment["AUTHDECK_BENCH_EXIT_AFTER_FIRST_FRAME"] == "1"
        loop.present()
        if bench {
            let firstFrame = started.duration(to: .now)
            let rss = residentKilobytes()
            let keyFrame = loop.timeKeyPresses(200)
            let filterFrame = loop.timeFilterKeystrokes()
            terminal.restore()
            global.err(
                "bench: sessions=\(loop.state.sessions.totalCount) first-frame-ms=\(milliseconds(firstFrame)) "
                    + "key-to-frame-ms=\(milliseconds(keyFrame)) filter-key-ms=\(milliseconds(filterFrame)) "
                    + "rss-kb=\(rss)\n")
            return .done
        }
        loop.run()
        terminal.restore()
        return .done
    }

    /// The theme to draw with: `--theme`, else `$AUTHDECK_THEME`, else config.json's `theme`, else dark; monochrome
    /// under `NO_COLOR` whatever they say. A name that is no theme is a usage error naming where it was given.
    static func theme(
        _ option: String?, _ configuration: Configuration, _ environment: [String: String]
    ) throws(CommandFailure) -> Theme {
        do throws(Theme.UnknownTheme) {
            return try Theme.resolve(
                [
                    ("--theme", option), ("AUTHDECK_THEME", environment["AUTHDECK_THEME"]),
                    ("config.json", configuration.theme),
                ], environment: environment)
        } catch {
            throw .badInput(error.description)
        }
    }

    /// The terminal taken over, or the reason it cannot be.
    static func startTerminal(_ global: GlobalOptions, theme: Theme = .dark) throws(CommandFailure) -> Terminal {
        global.environment.requireProcess("tui")
        // A parent may hand down a signal mask that blocks SIGTERM; the terminal must still be restored on one.
        var endings = sigset_t()
        sigemptyset(&endings)
        for number in [SIGINT, SIGTERM, SIGHUP, SIGQUIT] { sigaddset(&endings, number) }
        pthread_sigmask(SIG_UNBLOCK, &endings, nil)
        do {
            return try Terminal(theme: theme)
        } catch Terminal.StartError.notATerminal {
            throw CommandFailure(.usage, "the TUI needs a terminal (use list, login and the other commands in scripts)")
        } catch Terminal.StartError.cannotAddressCursor(let name) {
            throw CommandFailure(
                .usage,
                "TERM=\(name) cannot move the cursor, so the TUI cannot draw: set TERM to "
                    + "your terminal's type (xterm-256color), or use list, login and the other commands")
        } catch {
            throw CommandFailure(.failed, "cannot start the terminal: \(error)")
        }
    }

    // MARK: - Opened on one screen

    /// `trace show FILE` on a terminal: the TUI opened on its Trace screen with the file. The store is not opened
    /// (a file needs none); Esc or q leaves. False when this terminal cannot be drawn on (TERM=dumb): the caller
    /// prints the file instead.
    static func showTraceFile(_ file: TraceFile, _ global: GlobalOptions) throws(CommandFailure) -> Bool {
        let setup = try noSignIns(global)
        let keys = try TUIKeyMap.load(environment: setup.environment)
        let theme = try theme(nil, Configuration(), setup.environment)
        let terminal: Terminal
        do throws(CommandFailure) {
            terminal = try startTerminal(global, theme: theme)
        } catch {
            return false
        }
        runOneScreen(global, setup: setup, terminal: terminal) { state in
            state.keys = keys
            state.showTraceFile(file)
        }
        return true
    }

    /// `sandbox panel`: the TUI opened on its Sandbox panel for the sandbox at `url`, as `report` first read it.
    static func openSandboxPanel(
        url: String, report: SandboxPanel.Report,
        _ global: GlobalOptions
    ) throws(CommandFailure) -> ExitCode {
        let setup = try noSignIns(global)
        let keys = try TUIKeyMap.load(environment: setup.environment)
        let terminal = try startTerminal(global, theme: try theme(nil, Configuration(), setup.environment))
        runOneScreen(global, setup: setup, terminal: terminal) { state in
            state.keys = keys
            var panel = SandboxPanel(url: url)
            panel.take(report)
            state.mode = .sandbox(panel)
        }
        return .done
    }

    /// What the event loop holds for sign-ins on a screen that never starts one: no config.json is read, so a
    /// broken one does not stop a trace file from being shown.
    private static func noSignIns(_ global: GlobalOptions) throws(CommandFailure) -> SignInSetup {
        let environment = global.environment.variables
        do throws(SignInError) {
            return SignInSetup(
                environment: environment, configuration: Configuration(),
                catalog: try ConfigurationFile.catalog(environment: environment),
                dataFolder: ConfigurationFile.dataFolder(environment: environment))
        } catch {
            throw error.commandFailure
        }
    }

    /// The event loop on one screen (`AppState.singleScreen`): leaving it quits, and the store stays closed.
    private static func runOneScreen(
        _ global: GlobalOptions, setup: SignInSetup, terminal: Terminal,
        open: (inout AppState) -> Void
    ) {
        var state = AppState(
            rows: terminal.rows, cols: terminal.cols, now: Date(), utcOffsetSeconds: localOffset(),
            providers: [], backends: [], store: .empty)
        state.singleScreen = true
        state.drawsASCII = !terminal.showsUnicode
        state.theme = terminal.theme
        open(&state)
        let loop = TUIEventLoop(
            state: state, terminal: terminal,
            store: TUIStore(global: global, environment: setup.environment), setup: setup)
        loop.present()
        loop.run()
        terminal.restore()
    }

    /// Where the sandbox appends the one-time codes it "sends", for the code screen: the outbox its config names
    /// (`sandbox --config-out` writes it), else its default outbox in this data folder when a sandbox backend is
    /// configured and that file is there already or the sandbox's config lives in the same folder.
    static func sandboxOutbox(_ configuration: Configuration, backends: [String], environment: [String: String])
        -> String?
    {
        let configured = configuration.backends ?? [:]
        if let named = configured.keys.sorted().lazy.compactMap({ configured[$0]?.outbox }).first { return named }
        guard backends.contains(where: { $0.hasPrefix("sandbox") }) else { return nil }
        let folder = StoreLocation.resolve(environment: environment).directory
        let path = folder + "/sandbox-outbox.jsonl"
        let config = environment["AUTHDECK_CONFIG"].map { ($0 as NSString).deletingLastPathComponent }
        return FileManager.default.fileExists(atPath: path) || config == folder ? path : nil
    }

    /// Seconds east of UTC of the local zone, for clock times on screen.
    static func localOffset() -> Int {
        TimeZone.current.secondsFromGMT()
    }

    static func milliseconds(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        return String(format: "%.2f", Double(seconds) * 1000 + Double(attoseconds) / 1e15)
    }

    /// VmRSS of this process from /proc, in kB.
    static func residentKilobytes() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return -1 }
        for line in text.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") ?? -1
        }
        return -1
    }
}
