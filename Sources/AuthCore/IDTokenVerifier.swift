import AuthCrypto
import Foundation

/// The claims of a verified ID token that authdeck keeps.
public struct IDTokenClaims: Equatable, Sendable {
    public let issuer: String
    public let subject: String
    public let audiences: [String]
    public let expiresAt: Date
    public let issuedAt: Date
    public let nonce: String?
    public let email: String?
    public let name: String?
    /// Every claim, for the details pane and traces (ID tokens carry no secrets beyond their signature).
    public let all: [String: JSONValue]
}

/// Verifies an ID token exactly as SPEC section 3.1 says, before anything is stored: signature against the
/// issuer's JWKS (RS256 and ES256, key by `kid`), `iss`, `aud` (and `azp` with several audiences), `exp`,
/// `iat` and `nbf` with 60 s of skew, and `nonce`. Pure: the JWKS and the time come in as values.
public struct IDTokenVerifier: Sendable {
    public let issuer: String
    public let clientID: String
    public let nonce: String?
    /// `max_age` was requested: `auth_time` must be there and no older than this many seconds (OIDC Core 3.1.3.7).
    public var maxAge: Int?
    /// `acr_values` was requested: the token's `acr` must be one of them.
    public var acrValues: [String]?
    public static let allowedSkew: TimeInterval = 60
    public static let algorithms: Set<String> = ["RS256", "ES256"]

    public init(issuer: String, clientID: String, nonce: String?) {
        self.issuer = issuer
        self.clientID = clientID
        self.nonce = nonce
    }

    /// - Throws: `invalidIdToken(reason)`; `unknownKeyID` is reported through `isUnknownKeyID` on the error so
    ///   the caller can refetch the JWKS once and try again.
    public func verify(_ idToken: String, jwks: String, now: Date) throws(IDTokenFailure) -> IDTokenClaims {
        let claims = try Self.signedClaims(idToken, jwks: jwks)
        // Each refusal says what was found and what was expected, so the user can tell a misconfigured client id or
        // issuer from a clock that is off.
        if let problem = Self.issuerProblem(claims, issuer: issuer) {
            throw .invalid("\(problem): iss is \(Self.shown(claims["iss"])), this client expects \(issuer)")
        }
        guard case .string(let sub)? = claims["sub"], !sub.isEmpty else { throw .invalid("no subject") }
        if let problem = Self.audienceProblem(claims, clientID: clientID) {
            let audiences = Self.audiences(claims).map { SignInError.printable(String($0.prefix(80))) }
            let azp = claims["azp"].map { ", azp is \(Self.shown($0))" } ?? ""
            throw .invalid(
                "\(problem): aud is \(audiences.isEmpty ? "none" : audiences.joined(separator: " "))\(azp), "
                    + "this client is \(clientID)")
        }
        let timed: [(String, ([String: JSONValue], Date) -> String?)] = [
            ("exp", Self.expiryProblem), ("iat", Self.issueTimeProblem), ("nbf", Self.notBeforeProblem),
        ]
        for (claim, check) in timed {
            guard let problem = check(claims, now) else { continue }
            // What was expected, in words that stay the same from run to run (trace replay compares them).
            let expected =
                claims[claim] == nil
                ? ""
                : " (\(claim) is off this machine's clock by more than the "
                    + "\(Int(Self.allowedSkew)) s allowed)"
            throw .invalid(problem + expected)
        }
        // Both are numbers: the checks above passed.
        let expiresAt = Date(timeIntervalSince1970: claims["exp"]?.number ?? 0)
        let issuedAt = Date(timeIntervalSince1970: claims["iat"]?.number ?? 0)
        let tokenNonce = claims["nonce"]?.string
        if let nonce {
            guard let tokenNonce, ConstantTime.equals(tokenNonce, nonce) else {
                throw .invalid(
                    tokenNonce == nil
                        ? "wrong nonce: it has none, this sign-in sent one"
                        : "wrong nonce: not the one this sign-in sent")
            }
        }
        try checkAuthentication(claims, now: now)
        return IDTokenClaims(
            issuer: issuer, subject: sub, audiences: Self.audiences(claims), expiresAt: expiresAt, issuedAt: issuedAt,
            nonce: tokenNonce, email: claims["email"]?.string, name: claims["name"]?.string,
            all: claims)
    }
}

extension IDTokenVerifier {
    // MARK: - One check each: nil when it passes, else why not (what `verify` throws and `inspect` shows)

    /// `iss` is exactly the issuer the session signed in with (OIDC Core 3.1.3.7 step 2).
    public static func issuerProblem(_ claims: [String: JSONValue], issuer: String) -> String? {
        guard case .string(let iss)? = claims["iss"], iss == issuer else { return "wrong issuer" }
        return nil
    }

    /// `aud` holds the client id; with several audiences `azp` names this client, and an `azp` is always this client
    /// (OIDC Core 3.1.3.7 steps 3 to 5).
    public static func audienceProblem(_ claims: [String: JSONValue], clientID: String) -> String? {
        let audiences = audiences(claims)
        guard audiences.contains(clientID) else { return "wrong audience" }
        if audiences.count > 1 {
            guard case .string(let azp)? = claims["azp"], azp == clientID else {
                return "several audiences and azp is not this client"
            }
        } else if case .string(let azp)? = claims["azp"], azp != clientID {
            return "azp is not this client"
        }
        return nil
    }

    /// `exp` is there and not more than the allowed skew past.
    public static func expiryProblem(_ claims: [String: JSONValue], now: Date) -> String? {
        guard let exp = claims["exp"]?.number else { return "no expiry" }
        guard now.timeIntervalSince1970 - exp < allowedSkew else { return "expired" }
        return nil
    }

    /// `iat` is there and not more than the allowed skew ahead.
    public static func issueTimeProblem(_ claims: [String: JSONValue], now: Date) -> String? {
        guard let iat = claims["iat"]?.number else { return "no issue time" }
        guard iat - now.timeIntervalSince1970 <= allowedSkew else { return "issued in the future" }
        return nil
    }

    /// `nbf`, when present, is a number not more than the allowed skew ahead.
    public static func notBeforeProblem(_ claims: [String: JSONValue], now: Date) -> String? {
        guard let nbf = claims["nbf"] else { return nil }
        guard let notBefore = nbf.number else { return "nbf is not a number" }
        guard notBefore - now.timeIntervalSince1970 <= allowedSkew else { return "not valid yet" }
        return nil
    }

    /// A claim's value for a one-line message: a string as printable text, anything else as JSON, `none` if absent.
    static func shown(_ value: JSONValue?) -> String {
        guard let value else { return "none" }
        return SignInError.printable(String((value.string ?? value.jsonText).prefix(80)))
    }

    /// `aud` as a list: one string or an array of them.
    public static func audiences(_ claims: [String: JSONValue]) -> [String] {
        switch claims["aud"] {
        case .string(let single)?: return [single]
        case .array(let many)?: return many.compactMap(\.string)
        default: return []
        }
    }

    /// How and when the user authenticated, against what the request asked: `auth_time` within `max_age` (with the
    /// same skew as the other times), `acr` one of `acr_values`.
    func checkAuthentication(_ claims: [String: JSONValue], now: Date) throws(IDTokenFailure) {
        if let maxAge {
            guard let authTime = claims["auth_time"]?.number else {
                throw .invalid("it has no auth_time, which max_age \(maxAge) requires")
            }
            let age = now.timeIntervalSince1970 - authTime
            guard age <= Double(maxAge) + Self.allowedSkew else {
                throw .invalid("the user signed in at the provider \(Int(age)) s ago, more than max_age \(maxAge)")
            }
        }
        if let acrValues {
            let requested = acrValues.joined(separator: " ")
            guard let acr = claims["acr"] else { throw .invalid("it has no acr (requested: \(requested))") }
            guard let value = acr.string, acrValues.contains(value) else {
                let got = acr.string.map { SignInError.printable(String($0.prefix(80))) } ?? "not a string"
                throw .invalid("its acr is '\(got)', not one requested (\(requested))")
            }
        }
    }

    /// The claims of a JWT signed by one of the issuer's keys with an accepted algorithm: the signature check ID
    /// tokens and JWT-secured authorization responses share.
    public static func signedClaims(_ jwt: String, jwks: String) throws(IDTokenFailure) -> [String: JSONValue] {
        let verified: VerifiedJWS
        do {
            verified = try JWS.verify(jwt, jwks: jwks)
        } catch {
            throw error.isUnknownKeyID ? .unknownKeyID : .invalid("signature: \(error.description)")
        }
        guard algorithms.contains(verified.algorithm) else {
            throw .invalid("algorithm \(verified.algorithm) is not accepted")
        }
        guard case .object(let claims)? = try? JSONValue.parse(verified.payload) else {
            throw .invalid("the payload is not a JSON object")
        }
        return claims
    }
}

/// Why an ID token was refused.
public enum IDTokenFailure: Error, Equatable, Sendable, CustomStringConvertible {
    /// The JWKS has no key with the token's `kid`: refetch it once, then give up.
    case unknownKeyID
    case invalid(String)

    public var description: String {
        switch self {
        case .unknownKeyID: return "no signing key with the token's kid"
        case .invalid(let reason): return reason
        }
    }

    public var signInError: SignInError { .invalidIdToken(reason: description) }
}
