import AuthCore
import Foundation

/// Everything the TUI shows, in one value: the screens are pure functions of it and `update` is the only thing
/// that changes it. The event loop owns one and feeds it events.
public struct AppState: Equatable, Sendable {
    /// Which screen has the keyboard.
    public enum Mode: Equatable, Sendable {
        /// The store is locked: the passphrase prompt.
        case unlock(UnlockForm)
        /// The Sessions list (home).
        case sessions
        /// One session's details and actions (Enter on the list).
        case details(String)
        /// Provider buttons, backend chooser and session-key field.
        case newSignIn(NewSignInForm)
        /// The contact step of an email or SMS sign-in.
        case contact(ContactForm)
        /// A sign-in in flight or just ended: awaiting callback, code entry, TOTP, or the result.
        case signIn(SignInFlow)
        /// The running sandbox's fault profiles, switched on and off through its admin route (`S`).
        case sandbox(SandboxPanel)
    }

    /// A one-line message under the screen: what just happened, or why something was refused.
    public struct Message: Equatable, Sendable {
        public var text: String
        public var isError: Bool

        public init(_ text: String, isError: Bool = false) {
            self.text = text
            self.isError = isError
        }
    }

    public var rows: Int
    public var cols: Int
    public var now: Date
    /// Seconds east of UTC, for clock times on screen (the event loop reads the local zone once).
    public var utcOffsetSeconds: Int
    public var mode: Mode
    public var overlay: Overlay
    public var sessions: SessionList
    public var store: StoreStatus
    public var message: Message?
    /// The `/` field while the filter is being typed.
    public var filterField: TextField?
    /// The sign-ins of this run that ended, oldest first, at most `keptFlows`: the Trace screen's `[` and `]`.
    public var pastFlows: [SignInFlow]
    /// How many attempts back the Trace screen shows (0: the newest).
    public var traceBack: Int
    /// The first trace line shown, nil to follow the newest.
    public var traceScroll: Int?
    /// The step the Trace screen's selection bar is on, nil to follow the newest.
    public var traceSelected: Int?
    /// The steps of the traced attempt whose details are shown (Enter expands or folds the selected one).
    public var traceExpanded: Set<Int>
    /// A trace file the Trace screen shows instead of this run's attempts (`trace show FILE`, `o`); nil for none.
    public var traceFile: TraceFile?
    /// The Trace screen's path field while `o` asks which file to open.
    public var tracePathField: TextField?
    /// The Trace screen's search field while `/` asks, and the words last searched for (`n` finds them again).
    public var traceSearchField: TextField?
    public var traceSearch: String?
    /// The number the next sign-in flow gets.
    public var nextFlowID: Int
    public var providers: [Provider]
    public var backends: [String]
    public var defaultBackend: String
    /// Set when the user asked to quit; the event loop ends after running the effects.
    public var isQuitting: Bool
    /// What to carry on with once the unlock screen succeeds.
    public var afterUnlock: PendingAction?
    /// The last change of the default for scripts (`u`), for `z` to undo.
    public var defaultChange: DefaultChange?
    /// The session `.authdeck-session` names for the folder the TUI started in: it wins over the default there.
    public var directorySession: String?
    /// Rows marked with Space, by key: `r` and `d` act on all of them.
    public var marked: Set<String>
    /// A sign-out or refresh of the marked rows while its answers come in: its message names them all.
    public var bulk: BulkAction?
    /// The session whose token `c` copies once the refresh it started for it worked.
    public var copyAfterRefresh: String?
    /// The sandbox's outbox file, where its one-time codes go: the code screen of a sandbox backend names it.
    public var sandboxOutbox: String?
    /// The sandbox's base URL when a configured backend is the sandbox: `S` opens its fault panel.
    public var sandboxURL: String?
    /// Opened on one screen by `authdeck trace show FILE` or `authdeck sandbox panel`: the store is never opened,
    /// and leaving that screen leaves authdeck (there is nothing under it).
    public var singleScreen = false
    /// Providers a backend cannot sign in with, by backend then provider, with the reason: greyed on New sign-in.
    public var providerRefusals: [String: [Provider: String]] = [:]
    /// The locale is not UTF-8: the driver draws every cell in ASCII, and QR codes take two columns a module.
    public var drawsASCII = false
    /// The theme the driver paints with (config.json's `theme`, `--theme`, monochrome under `NO_COLOR`): monochrome
    /// marks focus and selection with `>` as well.
    public var theme = Theme.dark
    /// What `/` typed in the open help: its lines are filtered to those holding it.
    public var helpSearch = HelpOverlay.Search()
    /// config.json's path when no file is there: New sign-in says where it goes and how to try the sandbox.
    public var missingConfig: String?
    /// Seconds a copied token stays on the clipboard before the TUI clears it (config.json's
    /// `clipboardClearSeconds`); 0 never clears.
    public var clipboardClearSeconds = Configuration.defaultClipboardClearSeconds
    /// When the token copied last is cleared from the clipboard; nil when nothing waits to be cleared.
    public var clipboardClearsAt: Date?
    /// config.json's OIDC protocol choices by backend: New sign-in's OIDC options start from them.
    public var signInOptions: [String: SignInOptions] = [:]
    /// How the token of the session on the Details screen is bound and how its client authenticated, once the event
    /// loop read it from the session's sealed half (nil until then, and for another session's Details).
    public var binding: SessionBinding?
    /// The inspector open over a session's Details (`i`), nil when closed.
    public var inspector: Inspector?
    /// Every screen's keys: the standard ones with keys.json's changes (`KeyMapFile`).
    public var keys = KeyBindings.standard
    /// The `:` command line while it is open (Sessions and Details), nil when closed.
    public var commandPrompt: CommandPrompt?
    /// The command lines run in this run, oldest first: Up and Down on the `:` line walk them.
    public var commandHistory: [String] = []
    /// A command naming a session the list has not read yet: it runs once the key is looked up.
    public var commandPending: CommandPrompt.Pending?

    /// Why `provider` cannot sign in through `backend`, or nil.
    public func refusal(provider: Provider, backend: String) -> String? {
        providerRefusals[backend]?[provider]
    }

    public init(
        rows: Int, cols: Int, now: Date, utcOffsetSeconds: Int = 0,
        providers: [Provider] = Provider.standard,
        backends: [String] = ["direct"], defaultBackend: String = "direct", store: StoreStatus = .empty,
        sessions: [SessionItem] = []
    ) {
        self.rows = rows
        self.cols = cols
        self.now = now
        self.utcOffsetSeconds = utcOffsetSeconds
        self.providers = providers
        self.backends = backends
        self.defaultBackend = defaultBackend
        self.store = store
        self.sessions = SessionList(items: sessions)
        mode = .sessions
        switch store {
        case .locked(let reason): mode = .unlock(UnlockForm(reason: reason))
        case .needsPassphrase(let reason): mode = .unlock(UnlockForm(reason: reason, isNew: true))
        case .unlocked, .empty: break
        }
        overlay = .none
        message = nil
        filterField = nil
        pastFlows = []
        traceBack = 0
        traceScroll = nil
        traceSelected = nil
        traceExpanded = []
        nextFlowID = 1
        isQuitting = false
        afterUnlock = nil
        defaultChange = nil
        directorySession = nil
        marked = []
    }

    /// The flow on screen, if a sign-in screen is showing.
    public var flow: SignInFlow? {
        if case .signIn(let flow) = mode { return flow }
        return nil
    }

    /// How many ended sign-ins the Trace screen keeps.
    public static let keptFlows = 20

    /// The most recent sign-in, kept after it ended for the trace (`t`); setting it adds or updates it among
    /// `pastFlows`.
    public var lastFlow: SignInFlow? {
        get { pastFlows.last }
        set {
            guard let newValue else { return }
            if let index = pastFlows.lastIndex(where: { $0.id == newValue.id }) {
                pastFlows[index] = newValue
            } else {
                pastFlows.append(newValue)
                if pastFlows.count > Self.keptFlows { pastFlows.removeFirst(pastFlows.count - Self.keptFlows) }
            }
        }
    }

    /// The attempts the Trace screen can show, oldest first: those that ended, then the one on screen.
    public var traceableFlows: [SignInFlow] {
        guard let flow, !pastFlows.contains(where: { $0.id == flow.id }) else { return pastFlows }
        return pastFlows + [flow]
    }

    /// The flow the trace shows: `traceBack` attempts before the newest (the one on screen, else the last one).
    public var tracedFlow: SignInFlow? {
        let flows = traceableFlows
        guard !flows.isEmpty else { return nil }
        return flows[max(0, flows.count - 1 - min(traceBack, flows.count - 1))]
    }
}
