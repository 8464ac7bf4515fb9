import AuthClient
import AuthCore
import AuthCrypto
import Foundation
import Sandbox
import SandboxTestSupport
import Synchronization
import TestSupport
import Testing

/// The real sandbox in process for the turnkey and portal client tests (`FrozenSandbox`), and the config.json it
/// writes, so the backends are built exactly as `authdeck login` builds them.
final class TurnkeySandbox: Sendable {
    static let catalog = mustMake("the provider catalog from providers.json") {
        let resources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Resources").path
        return try ConfigurationFile.catalog(environment: ["AUTHDECK_RESOURCES": resources])
    }

    let running: FrozenSandbox
    var server: SandboxServer { running.server }
    var clock: SandboxClock { running.clock }
    let configuration: Configuration
    /// The contracts every request of the backends this sandbox builds, and every answer it gives them, are held
    /// to; what broke them is recorded as an issue of the test when the sandbox goes away.
    let contracts: [WireContract]
    private let watched = Mutex<[RecordingTransport]>([])

    init(_ adjust: (inout SandboxConfiguration) -> Void = { _ in }) throws {
        var totpExtension = false
        running = try FrozenSandbox { settings in
            adjust(&settings)
            totpExtension = settings.turnkeyTOTPExtension
        }
        contracts = [.turnkey(totpExtension: totpExtension), .portal]
        configuration = try Configuration(json: Data(running.server.configJSON))
    }

    deinit {
        for problem in contractViolations() { Issue.record(Comment(rawValue: problem)) }
    }

    /// What broke a contract so far, and forgets it (a test that drifts on purpose takes its own).
    func contractViolations() -> [String] {
        watched.withLock { $0.flatMap { $0.takeViolations() } }
    }

    var base: String { server.baseURL }

    /// The code the outbox got for `otpID`.
    func code(otpID: String) -> String? {
        running.deliveries.code(otpID: otpID)
    }

    /// How many codes went out.
    var codesSent: Int { running.deliveries.count }

    /// A code of the right shape that is not `code`: the same length and alphabet, one character changed.
    static func wrongCode(for code: String) -> String {
        var characters = Array(code)
        characters[0] = characters[0] == "1" ? "2" : "1"
        return String(characters)
    }

    /// The backend `authdeck login PROVIDER --backend NAME` would run against this sandbox.
    /// `configuration` replaces the config.json the sandbox wrote (a test that changes one setting).
    /// With `trace`, every request goes through a `TracingTransport` into it, as `login --trace` sends them.
    func backend(
        _ provider: Provider, backend name: String, contact: Contact? = nil, sessionKey: String? = nil,
        transport: RecordingTransport = RecordingTransport(),
        configuration: Configuration? = nil, trace: FlowTrace? = nil, useDevice: Bool = false,
        passkey: PasskeyCredential.Kind? = nil, passkeys: [PasskeyCredential] = []
    ) throws -> SignInBackend {
        transport.contracts = contracts
        watched.withLock { $0.append(transport) }
        var request = SignInRequest(
            provider: provider, backendName: name, sessionKey: sessionKey, contact: contact, useDevice: useDevice)
        request.passkey = passkey
        request.passkeys = passkeys
        let sending: HTTPTransport = trace.map { TracingTransport(transport, trace: $0) } ?? transport
        return try SignInBackendFactory.make(
            request: request, configuration: configuration ?? self.configuration,
            catalog: Self.catalog,
            transport: sending,
            metadata: ProviderMetadataCache(transport: sending, folder: nil))
    }

    /// The current TOTP code for a sandbox user's base32 secret, by the sandbox's clock.
    func totp(_ secret: String = "JBSWY3DPEHPK3PXP") -> String {
        TOTP.code(secret: Base32.decode(secret) ?? [], time: Int64(clock.now))
    }

    // MARK: - The browser's part

    /// Opens `url` as a scripted browser would (the sandbox's automatic decision added) and follows the sandbox's
    /// redirects until one leaves the sandbox: that is the final redirect a browser would hand to authdeck.
    func browse(_ url: String, user: String = "ada", decision: String = "approve") throws -> String {
        var next =
            url + (url.contains("?") ? "&" : "?")
            + FormEncoding.encode([("sandbox_user", user), ("sandbox_auto", decision)])
        let transport = CurlTransport(timeout: 5)
        var request = OutgoingRequest(url: next)
        for _ in 0..<5 {
            let response = try transport.send(request)
            if let location = response.headers["location"] {
                guard location.hasPrefix(base) else { return location }
                next = location
                request = OutgoingRequest(url: next)
                continue
            }
            // Apple's form_post: a page whose form posts the answer on; a browser submits it at once.
            let page = String(decoding: response.body, as: UTF8.self)
            guard let (action, fields) = Self.postedForm(page) else {
                throw BrowseFailure(description: "no redirect from \(next.prefix(80)): HTTP \(response.status)")
            }
            guard action.hasPrefix(base) else {
                // The form goes to authdeck itself: the answer is what a loopback receiver would be given.
                return action + (action.contains("?") ? "&" : "?") + FormEncoding.encode(fields)
            }
            request = .form(action, fields)
        }
        throw BrowseFailure(description: "too many redirects")
    }

    /// The action and hidden fields of an auto-submitting `form_post` page.
    static func postedForm(_ html: String) -> (String, [(String, String)])? {
        func between(_ text: Substring, _ start: String, _ end: String) -> Substring? {
            guard let from = text.range(of: start), let to = text[from.upperBound...].range(of: end) else {
                return nil
            }
            return text[from.upperBound..<to.lowerBound]
        }
        func unescaped(_ text: Substring) -> String {
            text.replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&#39;", with: "'")
                .replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
                .replacingOccurrences(of: "&amp;", with: "&")
        }
        guard let action = between(Substring(html), "<form method=\"post\" action=\"", "\"") else { return nil }
        var fields: [(String, String)] = []
        for piece in html.components(separatedBy: "<input type=\"hidden\" ").dropFirst() {
            guard let name = between(Substring(piece), "name=\"", "\""),
                let value = between(Substring(piece), "value=\"", "\"")
            else { continue }
            fields.append((unescaped(name), unescaped(value)))
        }
        return (unescaped(action), fields)
    }

    struct BrowseFailure: Error, CustomStringConvertible {
        let description: String
    }
}

/// The controller's clock in tests that move it (the resend cooldown).
final class ControllerClock: Sendable {
    private let offset = Mutex<TimeInterval>(0)

    var date: Date { Date().addingTimeInterval(offset.withLock { $0 }) }

    func advance(by seconds: TimeInterval) {
        offset.withLock { $0 += seconds }
    }
}

/// Sends through libcurl and remembers each request's path, so a test can prove a request was never sent.
/// With contracts attached, each request and each answer is checked against them.
final class RecordingTransport: HTTPTransport, @unchecked Sendable {
    private let inner = CurlTransport(timeout: 3)
    private let lock = NSLock()
    private var sentPaths: [String] = []
    private var sentBodies: [(String, [UInt8])] = []
    /// Every URL, header value and body sent, and every body answered, as text.
    private var wire: [String] = []
    private var violations: [String] = []
    private var attached: [WireContract] = []
    /// Off for a scripted proxy whose answers are faults on purpose: only the client's requests are held to the
    /// contract then.
    var checksAnswers = true

    var contracts: [WireContract] {
        get { lock.withLock { attached } }
        set { lock.withLock { attached = newValue } }
    }

    func send(_ request: OutgoingRequest) throws(SignInError) -> IncomingResponse {
        let path = URLComponents(string: request.url)?.path ?? request.url
        let contracts = lock.withLock {
            sentPaths.append(path)
            sentBodies.append((path, request.body))
            wire += [request.url, String(decoding: request.body, as: UTF8.self)] + request.headers.map(\.1)
            return attached
        }
        let before = contracts.flatMap { $0.check(request: request) }
        lock.withLock { violations += before }
        let response = try inner.send(request)
        lock.withLock { wire.append(String(decoding: response.body, as: UTF8.self)) }
        let after = checksAnswers ? contracts.flatMap { $0.check(response: response, to: request) } : []
        lock.withLock { violations += after }
        return response
    }

    func takeViolations() -> [String] {
        lock.withLock {
            defer { violations = [] }
            return violations
        }
    }

    var paths: [String] { lock.withLock { sentPaths } }

    /// The JSON bodies sent to paths ending in `suffix`, in order.
    func bodies(_ suffix: String) -> [JSONValue] {
        lock.withLock { sentBodies.filter { $0.0.hasSuffix(suffix) }.compactMap { try? JSONValue.parse($0.1) } }
    }

    func count(_ suffix: String) -> Int { paths.filter { $0.hasSuffix(suffix) }.count }

    /// Everything that crossed the wire, as text.
    var traffic: [String] { lock.withLock { wire } }
}

extension RecordingPresenter {
    /// Waits until `condition` holds (the controller reports on its own queue).
    func wait(_ seconds: Double = 10, until condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if condition() { return true }
            Thread.sleep(forTimeInterval: 0.01)
        }
        return condition()
    }
}
