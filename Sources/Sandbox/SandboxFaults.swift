import AuthCrypto
import Foundation
import Synchronization

/// The faults a running sandbox has switched on, shared by every route and changed by the admin route while it
/// runs. Chosen at start from `--fault NAME[,NAME…]` or a JSON file `{"faults": [NAME, …], "delayMs": N}`.
public final class SandboxFaults: Sendable {
    /// Which faults are on, and how long `slow-provider` waits.
    public struct Selection: Sendable, Equatable {
        public var faults: Set<SandboxFault>
        /// The delay of `slow-provider`, in milliseconds.
        public var delayMs: Int

        public static let defaultDelayMs = 8000
        public static let delayRange = 0...60_000

        public init(faults: Set<SandboxFault> = [], delayMs: Int = defaultDelayMs) {
            self.faults = faults
            self.delayMs = delayMs
        }

        /// Names in the order `--fault list` shows them.
        public var names: [String] { faults.sorted().map(\.rawValue) }

        /// `{"faults": [...], "delayMs": N}`, what the admin route answers and a `--fault` file holds.
        public var jsonObject: [String: Any] { ["faults": names, "delayMs": delayMs] }
    }

    /// Why a fault selection was refused: one line naming the bad part.
    public struct Failure: Error, Sendable, CustomStringConvertible {
        public let description: String
    }

    private let state: Mutex<Selection>
    /// `dpop-nonce`'s nonce: drawn on first use, the same for the sandbox's run.
    private let nonce = Mutex<String?>(nil)
    /// `rotated-signing-key`'s keys, by algorithm: made on first use, never published in the JWKS.
    private let rotatedKeys = Mutex<[String: JWK]>([:])

    public init(_ selection: Selection = Selection()) {
        state = Mutex(selection)
    }

    public var current: Selection { state.withLock { $0 } }

    public func set(_ selection: Selection) {
        state.withLock { $0 = selection }
    }

    public func isOn(_ fault: SandboxFault) -> Bool {
        state.withLock { $0.faults.contains(fault) }
    }

    /// The nonce `dpop-nonce` asks DPoP proofs to carry.
    func dpopNonce() throws(CryptoError) -> String {
        let drawn = Base64URL.encode(try SecureRandom.bytes(16))
        return nonce.withLock { current in
            if let current { return current }
            current = drawn
            return drawn
        }
    }

    /// A signing key for `algorithm` whose `kid` no JWKS of this sandbox lists.
    func rotatedKey(algorithm: String) throws(CryptoError) -> JWK? {
        if let key = rotatedKeys.withLock({ $0[algorithm] }) { return key }
        let tag = Hex.encode(try SecureRandom.bytes(4))
        let key =
            algorithm == "RS256"
            ? try JWK.generateRS256(keyID: "rotated-rs256-\(tag)")
            : try JWK.generateES256(keyID: "rotated-es256-\(tag)")
        return rotatedKeys.withLock { keys in
            if let first = keys[algorithm] { return first }
            keys[algorithm] = key
            return key
        }
    }

    // MARK: - Parsing

    /// `NAME[,NAME…]`; `none` (or an empty list) means no fault.
    public static func parse(names text: String) throws(Failure) -> Set<SandboxFault> {
        var faults: Set<SandboxFault> = []
        for word in text.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) where !word.isEmpty {
            if word == "none" { continue }
            guard let fault = SandboxFault(rawValue: word) else {
                let shown = String(word.prefix(60).unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7F })
                throw Failure(description: "unknown fault '\(shown)' (authdeck sandbox --fault list names them)")
            }
            faults.insert(fault)
        }
        return faults
    }

    /// `{"faults": [NAME, …] or "NAME,NAME", "delayMs": N}`; nothing else is accepted, so a typo is not ignored.
    public static func parse(json bytes: [UInt8]) throws(Failure) -> Selection {
        guard let object = JSONText.object(bytes) else {
            throw Failure(description: "a fault selection is a JSON object: {\"faults\": [NAME, …], \"delayMs\": N}")
        }
        if let unknown = object.keys.sorted().first(where: { $0 != "faults" && $0 != "delayMs" }) {
            throw Failure(
                description: "unknown field '\(unknown.prefix(60))' in the fault selection "
                    + "(fields: faults, delayMs)")
        }
        var selection = Selection()
        switch object["faults"] {
        case let list as [Any]:
            guard let names = list as? [String] else { throw Failure(description: "faults must be a list of names") }
            selection.faults = try parse(names: names.joined(separator: ","))
        case let text as String:
            selection.faults = try parse(names: text)
        case nil:
            break
        default:
            throw Failure(description: "faults must be a list of names")
        }
        if let delay = object["delayMs"] {
            guard let number = delay as? Double, number == number.rounded(), number >= 0, number <= 60_000 else {
                throw Failure(description: "delayMs must be a whole number of milliseconds from 0 to 60000")
            }
            selection.delayMs = Int(number)
        }
        return selection
    }

    /// What `--fault VALUE` means: a JSON file when VALUE names a readable file, else a list of names.
    public static func selection(argument: String) throws(Failure) -> Selection {
        let looksLikeFile = argument.hasSuffix(".json") || argument.contains("/")
        if looksLikeFile {
            guard let data = FileManager.default.contents(atPath: argument) else {
                throw Failure(description: "cannot read the fault file \(argument)")
            }
            guard data.count <= 64 * 1024 else { throw Failure(description: "the fault file \(argument) is too large") }
            do {
                return try parse(json: Array(data))
            } catch {
                throw Failure(description: "\(argument): \(error.description)")
            }
        }
        return Selection(faults: try parse(names: argument))
    }

    /// `--fault list`: every fault, one a line, name and what it does.
    public static var listing: String {
        SandboxFault.allCases.map { $0.rawValue.padding(toLength: 24, withPad: " ", startingAt: 0) + $0.summary }
            .joined(separator: "\n") + "\n"
    }
}
