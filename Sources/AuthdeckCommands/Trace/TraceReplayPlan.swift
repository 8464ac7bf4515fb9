import AuthClient
import AuthCore
import Foundation
import Sandbox

/// What `trace replay` makes of a trace: the provider, backend and grant the customer used, the sandbox faults
/// that give the same statuses, error codes and claim problems, and what it cannot reproduce and why. Pure: it
/// reads the steps and decides; `TraceReplay` runs it.
struct TraceReplayPlan {
    /// `login`'s PROVIDER: google, apple, discord, x, oidc, email or sms.
    var provider = "oidc"
    /// The sandbox config's backend: sandbox (direct), sandbox-turnkey or sandbox-portal.
    var backend = "sandbox"
    var device = false
    var contact: String?
    /// The sandbox user who signs in (whose email the trace shows, else ada; dora when a TOTP step ran).
    var user = "ada"
    var faults = SandboxFaults.Selection()
    /// The seconds `login --timeout` gets.
    var timeout = 10
    /// The sign-in asked for a TOTP code: replay types the sandbox user's current one.
    var typesTOTP = false
    /// Steps that cannot be reproduced, and why.
    var notes: [String] = []
    /// What the customer got.
    var expectedError: String?
    /// Its code; nil for a trace written before codes, whose error is then recognised by its words.
    var expectedCode: String?
    var expectedExit: Int?

    /// The longest a replay waits for a timed-out sign-in, so a customer's 300 s wait does not become the support
    /// engineer's; `--timeout` changes it.
    static let defaultTimeoutCap = 10

    /// What a refusal from a redirect without `state` ends with (SignInStateMachine's note).
    static let statelessNote = "(the redirect came without state)"

    /// The backends `authdeck sandbox --config-out` configures: a trace that names one replays through it.
    static let sandboxBackends: Set<String> = ["sandbox", "sandbox-turnkey", "sandbox-portal"]

    static let turnkeyCalls: Set<String> = [
        "wallet_kit_config", "account", "oauth2_authenticate", "oauth_login",
        "otp_init", "otp_verify", "otp_login", "signup", "totp_verify",
        "otp_init_v2", "otp_verify_v2", "otp_login_v2", "signup_v2",
    ]
    /// The calls that send a one-time code: v1's and the v2 the Turnkey SDK speaks.
    static let codeSends: Set<String> = ["otp_init", "otp_init_v2"]

    init(_ document: TraceDocument, timeoutCap: Int = defaultTimeoutCap) {
        let steps = document.steps
        expectedError = document.finalError
        expectedCode = document.finalCode
        expectedExit = document.exitCode
        let requests = steps.filter { $0.kind == .request }
        let endpoints = requests.compactMap(TraceDocument.endpoint)
        let urls = requests.compactMap { $0.details["url"]?.string }

        // Backend: the one the trace names when a sandbox backend wrote it (a sandbox trace replays through the
        // sandbox, not through the proxy whose calls it made), else the kind of calls it shows.
        if let written = document.backend, Self.sandboxBackends.contains(written) {
            backend = written
        } else if urls.contains(where: { $0.contains("/api/v3/auth") }) {
            backend = "sandbox-portal"
        } else if endpoints.contains(where: Self.turnkeyCalls.contains) {
            // The sandbox backend sends email and SMS codes through the proxy, as a turnkey backend does.
            backend = endpoints.contains(where: Self.codeSends.contains) ? "sandbox" : "sandbox-turnkey"
        }

        // Provider and grant.
        if let otpInit = requests.first(where: { TraceDocument.endpoint($0).map(Self.codeSends.contains) == true }) {
            let type = otpInit.details["body"]?["otpType"]?.string ?? ""
            provider = type.contains("SMS") ? "sms" : "email"
            contact = provider == "sms" ? "+15550100001" : "ada@example.com"
            notes.append("the customer's contact is not used: the code goes to the sandbox's \(contact!) instead")
        } else if let authorize = steps.first(where: { $0.kind == .authorize }) {
            device = authorize.summary.hasPrefix("device code")
            let url =
                device
                ? (requests.first { TraceDocument.endpoint($0) == "code" }?.details["url"]?.string ?? "")
                : (authorize.details["url"]?.string ?? "")
            provider = Self.provider(url: url)
        } else {
            notes.append("the trace shows no authorization step: replayed as a browser sign-in with the oidc profile")
        }

        // The user: the one whose address the ID token shows, else one that fits the flow.
        let claims = steps.last { $0.kind == .idToken }?.details["claims"]
        let sawTOTP = steps.contains { TraceDocument.target($0)?.hasPrefix("totpRequired") == true }
        if sawTOTP {
            user = "dora"
            typesTOTP = true
            if provider == "email" { contact = "dora@example.com" }
            notes.append(
                "a TOTP step ran: the sandbox's dora (who has a TOTP seed) signs in and types her "
                    + "current code")
        } else if let email = claims?["email"]?.string, SandboxUsers.builtIn.contains(where: { $0.email == email }) {
            user = SandboxUsers.builtIn.first { $0.email == email }!.name
        }

        inferFaults(steps, claims: claims)

        // Timing: a sign-in that timed out is given the customer's wait, up to the cap.
        let timedOut = ended(in: .timedOut, orSaying: { $0.contains("timed out") })
        if timedOut, let last = steps.last(where: { $0.kind == .result }) {
            let waited = Int((last.elapsedMs / 1000).rounded(.up))
            timeout = min(max(5, waited), timeoutCap)
            if waited > timeoutCap {
                notes.append("the customer waited \(waited) s; the replay waits \(timeout) s (--timeout changes it)")
            }
        } else {
            timeout = max(timeoutCap, 10)
        }
        if faults.faults.contains(.slowProvider) {
            faults.delayMs = min(SandboxFaults.Selection.delayRange.upperBound, (timeout + 3) * 1000)
        }
    }

    /// The sandbox profile for an authorize or device URL: the sandbox's own path, else the provider's host. Only a
    /// social provider `login` knows comes out: the path segment is the trace's text, and it becomes an argument.
    static func provider(url: String) -> String {
        if let range = url.range(of: "/oidc/") {
            let name = url[range.upperBound...].prefix { $0 != "/" }
            let known = Provider(String(name))
            return known.isStandard && known.kind == .social ? known.name : "oidc"
        }
        let host = URLComponents(string: url)?.host?.lowercased() ?? ""
        if host.hasSuffix("google.com") { return "google" }
        if host.hasSuffix("apple.com") { return "apple" }
        if host.hasSuffix("discord.com") { return "discord" }
        if host == "x.com" || host.hasSuffix(".x.com") || host.hasSuffix("twitter.com") { return "x" }
        return "oidc"
    }

    // MARK: - Faults

    private mutating func inferFaults(_ steps: [TraceStep], claims: JSONValue?) {
        func on(_ fault: SandboxFault) { faults.faults.insert(fault) }
        let responses = steps.filter { $0.kind == .response }
        let error = expectedError ?? ""
        var explained = expectedError == nil

        for response in responses {
            let endpoint = TraceDocument.endpoint(response) ?? ""
            let status = TraceDocument.status(response)
            let code = TraceDocument.responseError(response) ?? ""
            let description = response.details["body"]?["error_description"]?.string ?? code
            switch (endpoint, status) {
            case ("token", let status?) where status >= 500:
                on(.token5xxHTML)
                explained = true
                if response.details["body"]?.string == nil {
                    notes.append(
                        "the customer's token endpoint answered \(status) with JSON; the sandbox answers 502 "
                            + "with an HTML page")
                }
            case ("token", 400?) where code == "invalid_grant":
                on(description.contains("expired") ? .codeExpired : .codeReused)
                explained = true
            case ("token", 400?) where code == "slow_down":
                on(.deviceSlowDown)
                explained = true
            case ("token", 400?) where code == "expired_token":
                on(.deviceExpired)
                explained = true
            case ("otp_init", 429?), ("otp_init_v2", 429?):
                on(.otpRateLimit)
                explained = true
            case ("otp_verify", let status?) where status >= 400 && description.lowercased().contains("expired"),
                ("otp_verify_v2", let status?) where status >= 400 && description.lowercased().contains("expired"):
                on(.otpExpired)
                explained = true
            case ("totp_verify", 429?), ("validations", 429?):
                on(.totpLockout)
                explained = true
            default:
                break
            }
        }

        // Which check refused the ID token is told by the verifier's reason, which has no code of its own.
        if ended(in: .invalidIdToken(reason: ""), orSaying: { $0.hasPrefix("Refused the ID token") }) {
            let checks: [(String, SandboxFault)] = [
                ("future", .futureIAT), ("audience", .wrongAudience),
                ("issuer", .wrongIssuer), ("nonce", .wrongNonce),
                ("kid", .rotatedKey),
            ]
            if let fault = checks.first(where: { error.contains($0.0) })?.1 {
                on(fault)
                explained = true
            } else {
                notes.append("the ID token was refused for a reason no fault imitates (\(error)): not reproduced")
            }
        }
        if let claims, claims["email"] == nil, ["google", "apple", "oidc"].contains(provider) {
            on(.noEmailClaim)
        }
        // The receiver step carries the provider's `error`, and `state` (null when the redirect came
        // without one); a stateless error redirect from the user's own processes ends the attempt with a message
        // that says so. Either tells access-denied-no-state from access-denied.
        let denial = steps.last { $0.kind == .receiver && $0.details["error"]?.string == "access_denied" }
        let stateless =
            (expectedCode == nil && error.contains(Self.statelessNote)) || denial?.details["state"] == .null
        let denied = ended(
            in: .providerAnswered("access_denied", description: nil), orSaying: { $0.contains("denied") })
        if denied && stateless {
            on(.accessDeniedNoState)
            explained = true
        } else if denied {
            on(.accessDenied)
            explained = true
        } else if ended(in: .closed, orSaying: { $0 == SignInError.closed.message }) {
            notes.append(
                "the customer cancelled (Esc or Ctrl-C, or an older authdeck's access_denied): replayed as "
                    + "the provider's access_denied")
            on(.accessDenied)
            explained = true
        }
        // A redirect refused for its state: an older authdeck's "state does not match", or a stateless error redirect
        // that did not end the attempt (it came from another local user) and is refused by its `state: null`.
        let refusedState = steps.contains { step in
            TraceDocument.errorCode(step) == SignInError.stateMismatch.code
                || step.kind == .receiver && step.details["accepted"] != .bool(true)
                    && (expectedCode == nil && step.summary.contains("state does not match")
                        || step.details["error"] != nil && step.details["state"] == .null)
        }
        let accepted = steps.contains { $0.kind == .receiver && $0.summary.hasSuffix("accepted") }
        if ended(in: .timedOut, orSaying: { $0.contains("timed out") }) && !explained {
            let tokenRequests = steps.filter { $0.kind == .request && TraceDocument.endpoint($0) == "token" }
            let tokenAnswers = responses.filter { TraceDocument.endpoint($0) == "token" }
            if refusedState && !accepted {
                on(.accessDeniedNoState)
                notes.append(
                    "a redirect was refused for its state: replayed as access_denied without state (a stale "
                        + "or forged redirect looks the same in a trace), which from the user's own browser now ends "
                        + "the attempt as refused (exit 4) instead of timing out")
            } else if tokenRequests.count > tokenAnswers.count
                || responses.contains(where: { TraceDocument.status($0) == nil })
            {
                on(.slowProvider)
            } else if !device, steps.contains(where: { $0.kind == .authorize }),
                !steps.contains(where: { $0.kind == .receiver })
            {
                on(.redirectUnreachable)
                notes.append(
                    "the browser never came back: replayed as a redirect to a port nobody listens on (a "
                        + "closed browser tab looks the same in a trace)")
            }
            explained = !faults.faults.isEmpty
        }
        if !explained, let expectedError {
            notes.append("no fault imitates '\(expectedError)': the replay runs without one")
        }
    }

    /// Whether the customer's attempt ended in `error`'s kind: by the code the trace recorded, or for a trace
    /// written before codes, by what `saying` finds in the message's words.
    func ended(in error: SignInError, orSaying saying: (String) -> Bool) -> Bool {
        guard let expectedError else { return false }
        if let expectedCode { return expectedCode == error.code }
        return saying(expectedError)
    }

    /// `login`'s arguments for this plan.
    func loginArguments(trace: String) -> [String] {
        var arguments = [
            "login", provider, "--backend", backend, "--timeout", String(timeout), "--trace", trace,
            "--unlock-for", "0",
            // A throw-away store and the replay's own sandbox: a stateless (Portal) session is kept without asking.
            "--yes",
        ]
        if device { arguments.append("--device") }
        if let contact { arguments += ["--contact", contact] }
        return arguments
    }

    /// One line for a person.
    var summary: String {
        let grant = device ? "device grant" : (Provider(provider).sendsCode ? "one-time code" : "browser")
        let names = faults.names.isEmpty ? "none" : faults.names.joined(separator: ",")
        return "\(provider) through \(backend), \(grant), as the sandbox's \(user); faults: \(names)"
    }
}
