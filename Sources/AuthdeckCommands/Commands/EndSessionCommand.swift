import AuthClient
import AuthCore
import Foundation
import SessionStorage

/// `authdeck logout KEY --end-session [--revoke]`: the session ended at its provider (RP-Initiated Logout), then
/// revoked when asked, then removed here; `SignOutUseCase` does the steps, this prints what happened at each place.
enum EndSessionCommand {
    static func run(_ named: String?, _ arguments: Arguments, _ global: GlobalOptions) throws(CommandFailure)
        -> ExitCode
    {
        global.environment.requireProcess("logout --end-session")
        let timeout = try arguments.integer("timeout", in: 5...3600) ?? Int(SignOutUseCase.defaultTimeout)
        let environment = global.environment.variables
        let setup = try SignInSetup.load(global: global)
        let store = try StoreCommands.requireStore(global)
        let chosen = try global.session(or: named)
        let key = try StoreCommands.attempt { () throws(StoreError) in try store.resolveKey(chosen) }
        let refresher = SessionRefresher(
            transport: CurlTransport(trust: setup.trust), currentProvider: CurrentEndpoints.lookup(global))
        let useCase = SignOutUseCase(
            configuration: setup.configuration, dataFolder: setup.dataFolder, store: store, refresher: refresher,
            transport: CurlTransport(timeout: 10, trust: setup.trust))
        let target = try useCase.prepare(key)
        let browser = BrowserLauncher(environment: environment)
        let showsURL = arguments.has("no-browser") || browser.command == nil
        let report = useCase.run(target, revoke: arguments.has("revoke"), timeout: TimeInterval(timeout)) {
            url throws(SignInError) in
            if showsURL {
                // The URL holds the ID token as the specification asks; it goes to the terminal only.
                global.err("Open this address in the browser to sign out of '\(key)' at the provider:\n\(url)\n")
            } else {
                try browser.open(url)
                if !global.quiet { global.err("Signing out of '\(key)' at the provider in the browser…\n") }
            }
        }
        if let code = report.failureCode {
            throw CommandFailure(code, "'\(key)': \(report.summary)")
        }
        if !global.quiet { global.err("'\(key)': \(report.summary)\n") }
        return .done
    }
}
