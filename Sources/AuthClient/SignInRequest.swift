import AuthCore
import Foundation

/// A backend's answer to an exchange or verification.
public enum BackendAnswer: Equatable, Sendable {
    case issued(IssuedSession)
    case totpRequired(TOTPChallenge)
    /// Identity is proven, but the contact must be verified with the code just sent (a new account).
    case codeRequired(contact: Contact, format: OTPCodeFormat, otpID: String)
}

/// What the user asked for: provider, backend, and the options of `authdeck login`.
public struct SignInRequest: Equatable, Sendable {
    public var provider: Provider
    public var backendName: String
    public var sessionKey: String?
    public var replace: Bool
    public var scopes: [String]?
    public var contact: Contact?
    /// `login --grant`: how the tokens are asked for.
    public var grant: SignInGrant
    public var timeout: TimeInterval
    /// Turnkey's `completeOAuth` in two steps (`login --oidc-token-only`, then `--oidc-token`); nil signs in whole.
    public var oidcStep: OIDCTokenStep?
    /// `login --passkey`: Para's passkey step with this authenticator (sandbox social sign-ins).
    public var passkey: PasskeyCredential.Kind?
    /// The store's passkeys for the backend, read from the unlocked store before the sign-in starts.
    public var passkeys: [PasskeyCredential] = []

    /// `--device` (and New sign-in's device choice): the device authorization grant.
    public var useDevice: Bool {
        get { grant == .device }
        set {
            if newValue {
                grant = .device
            } else if grant == .device {
                grant = .authorizationCode
            }
        }
    }

    public init(
        provider: Provider, backendName: String, sessionKey: String? = nil, replace: Bool = false,
        scopes: [String]? = nil, contact: Contact? = nil, useDevice: Bool = false, timeout: TimeInterval = 300,
        grant: SignInGrant? = nil
    ) {
        self.provider = provider
        self.backendName = backendName
        self.sessionKey = sessionKey
        self.replace = replace
        self.scopes = scopes
        self.contact = contact
        self.grant = grant ?? (useDevice ? .device : .authorizationCode)
        self.timeout = timeout
    }
}

/// The turnkey backend's social sign-in split where the SDK's `onOAuthSuccess` splits it.
/// The token and the key are secrets: `description` leaves them out.
public enum OIDCTokenStep: Equatable, Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    /// Stop once the provider's OIDC token is in hand: nothing goes to `account`, `signup` or `oauth_login`.
    case stopAtToken
    /// `completeOAuth(oidcToken:publicKey:)`: no provider leg; `oidcToken`, whose nonce is sha256 of the session key's
    /// public half, goes to the proxy with that key (32 raw bytes, kept pending in the store since the first step).
    case complete(oidcToken: String, sessionKey: [UInt8])

    public var description: String {
        switch self {
        case .stopAtToken: return "OIDCTokenStep.stopAtToken"
        case .complete: return "OIDCTokenStep.complete(redacted)"
        }
    }
    public var debugDescription: String { description }
}

/// The OAuth grant a sign-in runs (`login --grant NAME`).
public enum SignInGrant: Equatable, Sendable {
    /// Authorization code with PKCE, through the browser: the default.
    case authorizationCode
    /// RFC 8628: a code typed on any device while authdeck polls.
    case device
    /// RFC 6749 4.4: tokens for the client itself, no user (a machine session).
    case clientCredentials
    /// OpenID CIBA Core 1.0, poll mode: the provider asks the user `loginHint` names on a device of theirs.
    case ciba(loginHint: String, bindingMessage: String?)
    /// RFC 8693: another session's access token exchanged for a new session's tokens.
    case tokenExchange(TokenExchange)

    /// `--grant`'s values, in the order help lists them.
    public static let names = ["authorization-code", "device", "client-credentials", "ciba", "token-exchange"]

    /// The grant type sent to the token endpoint.
    public var grantType: String {
        switch self {
        case .authorizationCode: return "authorization_code"
        case .device: return "urn:ietf:params:oauth:grant-type:device_code"
        case .clientCredentials: return SessionEndpoints.clientCredentialsGrant
        case .ciba: return SessionEndpoints.cibaGrant
        case .tokenExchange: return SessionEndpoints.tokenExchangeGrant
        }
    }
}

/// What a token exchange (RFC 8693 2.1) sends: the parent session's access token as the subject token, and what
/// the new token is for. The subject token is a secret: `description` leaves it out.
public struct TokenExchange: Equatable, Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    /// `--subject-session`: the key of the session whose access token is exchanged.
    public var parentKey: String
    public var audience: String?
    public var resource: String?
    public var requestedTokenType: String?
    /// The parent session as the store has it and its access token, read by the sign-in use case once the store is
    /// open; nil until then.
    public var parent: SessionRecord?
    public var subjectToken: String?

    public init(
        parentKey: String, audience: String? = nil, resource: String? = nil, requestedTokenType: String? = nil
    ) {
        self.parentKey = parentKey
        self.audience = audience
        self.resource = resource
        self.requestedTokenType = requestedTokenType
    }

    /// RFC 8693 3: the subject token is an OAuth access token.
    public static let accessTokenType = "urn:ietf:params:oauth:token-type:access_token"

    public var description: String { "TokenExchange(parent: \(parentKey))" }
    public var debugDescription: String { description }
}
