import AuthClient
import AuthCore
import AuthCrypto
import Foundation
import SecretService
import SessionStorage

#if canImport(Glibc)
    import Glibc
#endif

/// `authdeck doctor`: one line per check, each with a fix when it fails. Exit 0 when every check passes.
enum DoctorCommand {
    /// One check's outcome.
    struct Check {
        enum Level: String { case ok, warn, fail }
        let level: Level
        let area: String
        let message: String
        let fix: String?
    }

    static func run(_ arguments: Arguments, _ global: GlobalOptions) throws(CommandFailure) -> ExitCode {
        _ = try arguments.positionals(atMost: 0)
        let environment = global.environment.variables
        var checks: [Check] = []
        let configuration = checkConfiguration(global, environment, into: &checks)
        checkStore(global, environment, into: &checks)
        checkBrowser(environment, into: &checks)
        if let configuration {
            checkCertificateAuthorities(configuration, environment, into: &checks)
            checkProviders(
                configuration, environment,
                configPath: ConfigurationFile.path(explicit: global.config, environment: environment), into: &checks)
        }
        checkGitHelper(global, environment, into: &checks)
        checkKeyMap(environment, into: &checks)
        if arguments.has("json") {
            let objects = checks.map { check in
                "{\"level\":\(SessionJSON.quoted(check.level.rawValue)),\"area\":\(SessionJSON.quoted(check.area)),"
                    + "\"message\":\(SessionJSON.quoted(check.message)),\"fix\":\(SessionJSON.quoted(check.fix))}"
            }
            global.out("[" + objects.joined(separator: ",") + "]\n")
        } else {
            for check in checks {
                var line =
                    "\(check.level.rawValue.uppercased().padded(to: 5)) \(check.area.padded(to: 16)) \(check.message)"
                if let fix = check.fix, check.level != .ok { line += "\n      fix: \(fix)" }
                global.out(line + "\n")
            }
        }
        return checks.contains { $0.level == .fail } ? .failed : .done
    }

    // MARK: - Checks

    static func checkConfiguration(
        _ global: GlobalOptions, _ environment: [String: String],
        into checks: inout [Check]
    ) -> Configuration? {
        let path = ConfigurationFile.path(explicit: global.config, environment: environment)
        do throws(SignInError) {
            let configuration = try ConfigurationFile.load(explicit: global.config, environment: environment)
            let exists = FileManager.default.fileExists(atPath: path)
            let summary =
                exists
                ? "\(path) parsed: \(configuration.backends?.count ?? 0) backends, \(configuration.providers?.count ?? 0) providers, default backend \(configuration.defaultBackendName)"
                : "no \(path): direct sign-in with the built-in presets"
            checks.append(Check(level: .ok, area: "config", message: summary, fix: nil))
            return configuration
        } catch {
            checks.append(
                Check(
                    level: .fail, area: "config", message: error.message,
                    fix: "correct the JSON in \(path) (see README, Configuration)"))
            return nil
        }
    }

    /// keys.json, read as the TUI reads it: a file it would refuse fails here with the same line.
    static func checkKeyMap(_ environment: [String: String], into checks: inout [Check]) {
        let path = TUIKeyMap.path(environment: environment)
        guard FileManager.default.fileExists(atPath: path) else {
            checks.append(Check(level: .ok, area: "keys", message: "no \(path): the standard keys", fix: nil))
            return
        }
        do throws(CommandFailure) {
            _ = try TUIKeyMap.load(environment: environment)
            checks.append(
                Check(level: .ok, area: "keys", message: "\(path) read: its keys replace the standard ones", fix: nil))
        } catch {
            checks.append(
                Check(
                    level: .fail, area: "keys", message: error.message,
                    fix: "correct the entry in \(path) (see README, Keys), or remove the file"))
        }
    }

    /// The configuration line git accepts: a helper that starts with `!` runs as a shell command.
    static let gitHelperLine = "git config --global credential.helper '!authdeck git-credential'"

    /// Whether git asks authdeck for the hosts config.json maps. git runs a helper named `authdeck git-credential`
    /// (no `!`, not a path) as `git credential-authdeck`, a command that does not exist, and then prompts or fails.
    static func checkGitHelper(_ global: GlobalOptions, _ environment: [String: String], into checks: inout [Check]) {
        let mapped = (try? GitCredentialCommand.configuredMap(global).count) ?? 0
        guard let helpers = gitCredentialHelpers(environment) else {
            if mapped > 0 {
                checks.append(
                    Check(
                        level: .warn, area: "git", message: "config.json maps \(mapped) git hosts but git is not found",
                        fix: "install git, then: \(gitHelperLine)"))
            }
            return
        }
        let ours = helpers.filter { $0.contains("authdeck") && $0.contains("git-credential") }
        if let broken = ours.first(where: { !$0.hasPrefix("!") && !$0.hasPrefix("/") }) {
            checks.append(
                Check(
                    level: .warn, area: "git",
                    message:
                        "credential.helper '\(broken)' makes git run 'git credential-authdeck', which does not exist",
                    fix: "git config --global --unset-all credential.helper; \(gitHelperLine)"))
        } else if let helper = ours.first {
            checks.append(
                Check(level: .ok, area: "git", message: "git asks authdeck (credential.helper '\(helper)')", fix: nil))
        } else if mapped > 0 {
            checks.append(
                Check(
                    level: .warn, area: "git",
                    message: "config.json maps \(mapped) git hosts but git's credential.helper does not name authdeck",
                    fix: gitHelperLine))
        }
    }

    /// `git config --get-all credential.helper` as git itself reads it for this user; nil when git cannot run.
    static func gitCredentialHelpers(_ environment: [String: String]) -> [String]? {
        // git exits 1 when no helper is set: that is an empty list, not a git that cannot run.
        let found = (environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
            .contains { FileManager.default.isExecutableFile(atPath: "\($0)/git") }
        guard found else { return nil }
        let output = ProgramOutput.run("git", ["config", "--get-all", "credential.helper"], environment: environment)
        return String(decoding: output ?? [], as: UTF8.self).split(separator: "\n").map(String.init)
    }

    static func checkStore(_ global: GlobalOptions, _ environment: [String: String], into checks: inout [Check]) {
        let location = StoreCommands.location(global)
        let options = StoreCommands.storeOptions(global)
        let store: SessionStore?
        do throws(StoreError) {
            store = try SessionStore.open(location, options: options, create: false)
        } catch {
            checks.append(
                Check(
                    level: .fail, area: "store", message: error.description,
                    fix: "move the damaged file aside and sign in again, or restore it from a store export"))
            return
        }
        guard let store else {
            checks.append(
                Check(
                    level: .ok, area: "store",
                    message: "no store yet at \(location.databasePath) (created at the first sign-in)", fix: nil))
            checkKeyring(global, environment, storeID: nil, into: &checks)
            return
        }
        let count = (try? store.entries().count) ?? 0
        checks.append(
            Check(
                level: .ok, area: "store",
                message: "\(location.databasePath): \(count) session\(count == 1 ? "" : "s")", fix: nil))
        let source = try? store.keySource()
        var sourceName = source?.rawValue ?? "none yet"
        if source == .pass, let entry = try? store.passEntryName() { sourceName += " (entry \(entry))" }
        if store.isUnlockedInCache {
            checks.append(
                Check(
                    level: .ok, area: "master key",
                    message: "unlocked (kernel keyring cache), wrapped by \(sourceName)", fix: nil))
        } else {
            checks.append(Check(level: .ok, area: "master key", message: "locked, wrapped by \(sourceName)", fix: nil))
        }
        checkKeyring(global, environment, storeID: store.storeID, into: &checks)
    }

    static func checkKeyring(
        _ global: GlobalOptions, _ environment: [String: String], storeID: String?,
        into checks: inout [Check]
    ) {
        guard SecretServiceKeyring.busConfigured(environment: environment) else {
            checks.append(
                Check(
                    level: .warn, area: "keyring", message: "no D-Bus session bus: the Secret Service is not used",
                    fix: "run inside a desktop session, or unlock with a passphrase (AUTHDECK_PASSPHRASE_FILE)"))
            return
        }
        let keyring = SecretServiceKeyring(timeoutSeconds: global.keyringTimeoutSeconds)
        let started = Date()
        do throws(SecretServiceFailure) {
            let found = try keyring.lookup(storeID: storeID ?? "authdeck-doctor-probe")
            let milliseconds = Int(Date().timeIntervalSince(started) * 1000)
            let what =
                storeID == nil
                ? "reachable"
                : (found == nil ? "reachable, holds no key for this store" : "reachable, holds this store's key")
            checks.append(
                Check(
                    level: .ok, area: "keyring",
                    message: "Secret Service \(what) (\(milliseconds) ms, timeout \(global.keyringTimeoutSeconds) s)",
                    fix: nil))
        } catch {
            checks.append(
                Check(
                    level: .fail, area: "keyring", message: "Secret Service: \(error.message)",
                    fix: error.timedOut
                        ? "start or unlock gnome-keyring, or raise --keyring-timeout"
                        : "unlock the login keyring, or use a passphrase (store migrate --to passphrase)"))
        }
    }

    static func checkBrowser(_ environment: [String: String], into checks: inout [Check]) {
        let launcher = BrowserLauncher(environment: environment)
        guard let command = launcher.command else {
            checks.append(
                Check(
                    level: .warn, area: "browser", message: "no $BROWSER and no xdg-open",
                    fix: "set BROWSER, or sign in with --no-browser and paste the redirect URL"))
            return
        }
        let program = command[0]
        let found =
            program.contains("/")
            ? access(program, X_OK) == 0
            : (environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":").contains {
                access("\($0)/\(program)", X_OK) == 0
            }
        checks.append(
            found
                ? Check(level: .ok, area: "browser", message: "opens URLs with \(launcher.summary)", fix: nil)
                : Check(
                    level: .fail, area: "browser", message: "\(program) is not an executable program",
                    fix: "point BROWSER at a program that takes the URL as its last argument"))
    }

    static func checkProviders(
        _ configuration: Configuration, _ environment: [String: String], configPath: String,
        into checks: inout [Check]
    ) {
        guard let catalog = try? ConfigurationFile.catalog(environment: environment) else {
            checks.append(
                Check(
                    level: .fail, area: "providers", message: "providers.json not found",
                    fix: "reinstall authdeck, or set AUTHDECK_RESOURCES to its Resources folder"))
            return
        }
        let trust = CATrust.from(configuration: configuration, environment: environment)
        let transport = CurlTransport(timeout: 5, trust: trust)
        let metadata = ProviderMetadataCache(transport: transport, folder: nil)
        let resolver = ProviderResolver(catalog: catalog, configuration: configuration, metadata: metadata)
        let backendName = configuration.defaultBackendName
        var names = Set(configuration.providers?.keys.map { $0 } ?? [])
        for backend in configuration.backends?.values.map({ $0 }) ?? [] {
            names.formUnion(backend.providers?.keys.map { $0 } ?? [])
        }
        if configuration.backend(named: backendName)?.type == .sandbox {
            names.formUnion(catalog.providers.map(\.name))
        }
        guard !names.isEmpty else {
            // Nothing can sign in yet but an issuer typed in full: a warning, with the ways forward.
            checks.append(
                Check(
                    level: .warn, area: "providers",
                    message: "no provider has a client id, so only login --issuer X --client-id Y can sign in",
                    fix: "add providers.NAME.clientID to \(configPath) (see README, Configuration), "
                        + "or try the local sandbox: make run, or authdeck sandbox --config-out FILE"))
            return
        }
        for name in names.sorted() where catalog[name] != nil {
            let area = "provider \(name)"
            let provider: ResolvedProvider
            do throws(SignInError) {
                provider = try resolver.resolve(provider: name, backend: backendName)
            } catch {
                checks.append(
                    Check(
                        level: .fail, area: area, message: error.message,
                        fix: "check providers.\(name) in config.json (issuer, clientID, endpoints)"))
                continue
            }
            if let jwks = provider.endpoints.jwks {
                do throws(SignInError) {
                    _ = try metadata.jwks(jwks, refresh: true)
                    checks.append(
                        Check(
                            level: .ok, area: area,
                            message: "discovery and JWKS reachable at \(provider.endpoints.issuer)", fix: nil))
                } catch {
                    checks.append(
                        Check(
                            level: .fail, area: area, message: "JWKS: \(error.message)",
                            fix: "check the network and the issuer URL"))
                }
            } else {
                checks.append(
                    Check(
                        level: .ok, area: area,
                        message:
                            "endpoints configured (\(CurlTransport.redactedForDisplay(provider.endpoints.authorization)))",
                        fix: nil))
            }
            checks.append(checkClientAuthentication(provider, area: area))
            checks.append(contentsOf: checkProtocols(provider, transport: transport, area: area))
            checks.append(checkRedirect(provider, listen: configuration.listen, transport: transport, area: area))
            if let exact = checkFixedPort(provider, listen: configuration.listen, area: area) { checks.append(exact) }
        }
    }

    /// A provider that compares the redirect URI exactly (X, Discord: its preset's note says so) without a fixed
    /// port: every sign-in sends another URI, which the provider refuses unless that very one is registered.
    static func checkFixedPort(_ provider: ResolvedProvider, listen: String?, area: String) -> Check? {
        guard provider.preset.note != nil, provider.registeredRedirectURI == nil, listen == nil else { return nil }
        let title = provider.preset.title
        return Check(
            level: .warn, area: area,
            message: "\(title) compares the redirect URI exactly, but sign-ins listen on a random port, so each one "
                + "sends another URI",
            fix: "set \"listen\": \"127.0.0.1:PORT\" in config.json and register http://127.0.0.1:PORT/callback "
                + "with \(title)")
    }

    /// How the client authenticates (a configured key was read, owner-only, and its algorithm is one the issuer's
    /// discovery lists; a client certificate was read, its key owner-only and its own, the certificate valid now; or
    /// `resolve` failed already), and which methods the issuer offers that the config does not use. A certificate
    /// whose method discovery does not list fails here; one that expires within two weeks is a warning.
    static func checkClientAuthentication(_ provider: ResolvedProvider, area: String, now: Date = Date()) -> Check {
        var used = provider.authentication.method.rawValue
        if case .assertion(let assertion) = provider.authentication {
            used += " (\(assertion.algorithm)" + (assertion.keyFile.map { ", key \($0)" } ?? "") + ")"
        }
        if let certificate = provider.authentication.certificate {
            let expires = ClientCertificate.day(certificate.certificate.notAfter)
            used +=
                " (certificate \(certificate.certificateFile), x5t#S256 \(certificate.thumbprint), expires \(expires), "
                + "key \(certificate.keyFile))"
            let listed = provider.endpoints.tokenAuthMethods
            if let listed, !listed.isEmpty, !listed.contains(certificate.method.rawValue) {
                return Check(
                    level: .fail, area: area,
                    message: "client authentication \(used): the issuer's discovery does not list "
                        + certificate.method.rawValue,
                    fix: "ask the provider to enable it, or choose a method it lists")
            }
            if certificate.certificate.notAfter - Int64(now.timeIntervalSince1970) < 14 * 86_400 {
                return Check(
                    level: .warn, area: area, message: "client authentication \(used): the certificate expires soon",
                    fix: "have the client certificate renewed before \(expires)")
            }
        }
        let offered = (provider.endpoints.tokenAuthMethods ?? []).filter {
            $0 != provider.authentication.method.rawValue
        }
        let others =
            offered.isEmpty
            ? ""
            : "; the issuer also offers " + offered.prefix(8).map { SignInError.printable($0) }.joined(separator: ", ")
        return Check(level: .ok, area: area, message: "client authentication \(used)\(others)", fix: nil)
    }

    /// Which certificate authorities HTTPS trusts: `SSL_CERT_FILE` / `SSL_CERT_DIR` or the system's bundle, and each
    /// `caFile` config.json names, which must be readable.
    static func checkCertificateAuthorities(
        _ configuration: Configuration, _ environment: [String: String], into checks: inout [Check]
    ) {
        let trust = CATrust.from(configuration: configuration, environment: environment)
        let general = [
            trust.file.map { "CA file \($0) (SSL_CERT_FILE)" },
            trust.directory.map { "CA folder \($0) (SSL_CERT_DIR)" },
        ]
        .compactMap { $0 }
        checks.append(
            Check(
                level: .ok, area: "tls",
                message: general.isEmpty
                    ? "HTTPS trusts the system's CA bundle" : "HTTPS trusts " + general.joined(separator: ", "),
                fix: nil))
        for path in [trust.file, trust.directory].compactMap({ $0 }) where access(path, R_OK) != 0 {
            checks.append(
                Check(
                    level: .fail, area: "tls", message: "\(path) cannot be read",
                    fix: "fix SSL_CERT_FILE / SSL_CERT_DIR"))
        }
        let byFile = Dictionary(grouping: trust.byOrigin, by: \.value)
        for (file, origins) in byFile.sorted(by: { $0.key < $1.key }) {
            let hosts = origins.map(\.key).sorted().joined(separator: ", ")
            checks.append(
                access(file, R_OK) == 0
                    ? Check(level: .ok, area: "tls", message: "CA file \(file) (caFile) for \(hosts)", fix: nil)
                    : Check(
                        level: .fail, area: "tls", message: "caFile \(file) for \(hosts) cannot be read",
                        fix: "give caFile a readable PEM file of the provider's certificate authority"))
        }
    }

    /// Asks the provider's authorize endpoint whether it accepts the redirect URI the login would send, on the port
    /// the login would listen on (which must be free now): a provider refuses an unregistered one before showing any
    /// login page. Without a fixed port the login takes a free one each time, so the probe does the same.
    static func checkRedirect(
        _ provider: ResolvedProvider, listen: String?, transport: HTTPTransport,
        area: String
    ) -> Check {
        let name = provider.preset.name
        let binding: LoopbackBinding
        do throws(SignInError) {
            let listenPort =
                try listen.map { text throws(SignInError) -> UInt16 in
                    guard let port = LoopbackBinding.listenPort(text) else {
                        throw .unavailable(reason: "config.json: listen takes 127.0.0.1:PORT, not '\(text)'")
                    }
                    return port
                } ?? 0
            binding = try LoopbackBinding.resolve(registered: provider.registeredRedirectURI, listenPort: listenPort)
        } catch {
            return Check(
                level: .fail, area: area, message: error.message,
                fix: "make providers.\(name).redirectURI and listen name the same 127.0.0.1 port")
        }
        let redirect: String
        do throws(SignInError) {
            // The same receiver the login starts: a port another program holds fails here as it would there.
            let receiver = try binding.open(pages: CallbackPages()) { _, _ in .refused("authdeck doctor probe") }
            redirect = provider.registeredRedirectURI ?? receiver.redirectURI
            receiver.stop()
        } catch {
            return Check(
                level: .fail, area: area, message: "the login cannot listen: \(error.message)",
                fix: "stop the program holding the port, or register another port")
        }
        let request = AuthorizationRequest(
            endpoint: provider.endpoints.authorization, clientID: provider.clientID, redirectURI: redirect,
            scopes: provider.scopes, state: "authdeck-doctor",
            codeChallenge: PKCE(verifier: "authdeck-doctor-probe-verifier-0000000000000").challenge,
            nonce: provider.preset.idToken ? "authdeck-doctor" : nil, responseMode: provider.preset.responseMode)
        guard let url = try? request.url() else {
            return Check(
                level: .fail, area: area, message: "the authorize endpoint is not a valid URL",
                fix: "check authorizationEndpoint")
        }
        let fix =
            binding.port == 0
            ? "set \"listen\": \"127.0.0.1:PORT\" in config.json and register http://127.0.0.1:PORT/callback with "
                + "the provider (or set providers.\(name).redirectURI to the URI it has registered)"
            : "register \(redirect) with the provider, or set providers.\(name).redirectURI to the registered one"
        do throws(SignInError) {
            let response = try transport.send(OutgoingRequest(url: url, headers: [("Accept", "text/html")]))
            let location = response.headers["location"] ?? ""
            if (300..<400).contains(response.status), location.hasPrefix(redirect),
                let error = (try? CallbackParser.parse(url: location))?.error
            {
                // The provider sent its refusal to the redirect URI itself: it knows the URI, not the request.
                return Check(
                    level: .fail, area: area,
                    message: "the authorize endpoint answered \(SignInError.printable(error)) "
                        + "for redirect URI \(redirect)",
                    fix: "check the client id and scopes of providers.\(name)")
            }
            if (200..<400).contains(response.status) {
                // Some providers (django-oauth-toolkit) send the browser to their login page before they look at
                // the redirect URI: say so rather than promise more than the probe saw.
                let loginFirst =
                    (300..<400).contains(response.status) && !location.hasPrefix(redirect)
                    ? " (it asked for a login first; some providers check the redirect URI only after it)" : ""
                return Check(
                    level: .ok, area: area,
                    message: "redirect URI \(redirect) accepted by the authorize endpoint\(loginFirst)",
                    fix: nil)
            }
            let body = String(decoding: response.body.prefix(2000), as: UTF8.self)
            let hint =
                body.range(of: "redirect", options: .caseInsensitive) != nil ? " (it names the redirect URI)" : ""
            return Check(
                level: .fail, area: area,
                message: "the authorize endpoint refused redirect URI \(redirect): HTTP \(response.status)\(hint)",
                fix: fix)
        } catch {
            return Check(
                level: .warn, area: area, message: "authorize endpoint unreachable: \(error.message)",
                fix: "check the network and the provider's authorizationEndpoint")
        }
    }
}
