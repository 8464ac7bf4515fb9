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
    /// Keys the faults sign with, by purpose and algorithm, made on first use: `rotated` ones are never published,
    /// `rotation` ones are the JWKS of `signing-key-rotation`, `extra` ones stand beside the real key.
    private let faultKeys = Mutex<[String: JWK]>([:])
    /// `dpop-nonce`'s nonce: drawn on first use, the same for the sandbox's run.
    private let nonce = Mutex<String?>(nil)

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
        try key("rotated", algorithm: algorithm)
    }

    /// The one key for `purpose` and `algorithm`, its `kid` "PURPOSE-ALG-RANDOM".
    func key(_ purpose: String, algorithm: String) throws(CryptoError) -> JWK {
        let name = purpose + "-" + algorithm
        if let key = faultKeys.withLock({ $0[name] }) { return key }
        let label = "\(purpose)-\(algorithm.lowercased())-" + Hex.encode(try SecureRandom.bytes(4))
        let key = algorithm == "RS256" ? try JWK.generateRS256(keyID: label) : try JWK.generateES256(keyID: label)
        return faultKeys.withLock { keys in
            if let first = keys[name] { return first }
            keys[name] = key
            return key
        }
    }

    /// `{"keys":[…]}`: the public halves of `keys`, each with its algorithm and `"use":"sig"`.
    static func jwks(_ keys: [(JWK, String)]) throws(CryptoError) -> String {
        var published: [Any] = []
        for (key, algorithm) in keys {
            guard var object = JSONText.object(Array(try key.publicJSON().utf8)) else {
                throw .malformedInput("public JWK is not a JSON object")
            }
            object["alg"] = algorithm
            object["use"] = "sig"
            published.append(object)
        }
        return String(decoding: JSONText.encode(["keys": published]), as: UTF8.self)
    }

    /// The JWKS `signing-key-rotation` publishes: a new ES256 and a new RS256 key.
    func rotationJWKS() throws(CryptoError) -> String {
        try Self.jwks([
            (try key("rotation", algorithm: "ES256"), "ES256"), (try key("rotation", algorithm: "RS256"), "RS256"),
        ])
    }

    /// The claims of a token signed by `signing-key-rotation`'s keys while it is on: the sandbox's own relying party
    /// (the proxy taking an oidcToken) follows the rotation as every client must. Nil otherwise.
    func claimsSignedByRotatedKeys(_ token: String) -> [String: Any]? {
        guard isOn(.signingKeyRotation), token.utf8.count <= 8192, let jwks = try? rotationJWKS(),
            let verified = try? JWS.verify(token, jwks: jwks)
        else { return nil }
        return JSONText.object(verified.payload)
    }

    /// The same key without a `kid`, so what it signs names none and a JWKS entry made from it has none.
    static func withoutKeyID(_ key: JWK) throws(CryptoError) -> JWK {
        guard var object = JSONText.object(Array(try key.privateJSON().utf8)) else {
            throw .malformedInput("private JWK is not a JSON object")
        }
        object["kid"] = nil
        return try JWK(json: String(decoding: JSONText.encode(object), as: UTF8.self))
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
        let width = max(24, (SandboxFault.allCases.map(\.rawValue.count).max() ?? 0) + 2)
        return SandboxFault.allCases.map {
            $0.rawValue.padding(toLength: width, withPad: " ", startingAt: 0) + $0.summary
        }
        .joined(separator: "\n") + "\n"
    }
}
