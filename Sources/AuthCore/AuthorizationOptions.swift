import Foundation

/// What an operator adds to one sign-in's requests, from `login`'s options, the TUI's New sign-in or config.json:
/// OpenID Connect's `prompt`, `login_hint`, `max_age`, `acr_values` and `claims` (Core 3.1.2.1, 5.5), RFC 8707's
/// `resource` (on the authorization and the token request), RFC 9396's `authorization_details`, extra authorization
/// and token parameters, and headers for every request to the provider. `max_age` and `acr_values` also say what
/// the ID token must then show (`IDTokenVerifier`). Every value here was checked when it was made (`Problem`).
public struct AuthorizationOptions: Equatable, Sendable {
    public var prompt: String?
    public var loginHint: String?
    public var maxAge: Int?
    public var acrValues: [String]?
    /// A JSON object, compact.
    public var claims: String?
    /// Absolute URIs without a fragment, each sent as its own `resource`.
    public var resources: [String]
    /// A JSON array of objects each naming its `type`, compact.
    public var authorizationDetails: String?
    /// Extra authorization-request parameters, sent last (`--param`, config.json's `authorizeParameters`).
    public var authorizeParameters: [(String, String)]
    /// Extra token-request parameters (config.json's `tokenParameters`).
    public var tokenParameters: [(String, String)]
    /// Headers sent with every request to the provider (config.json's `requestHeaders`, an `Origin` for example).
    public var requestHeaders: [(String, String)]

    public init(
        prompt: String? = nil, loginHint: String? = nil, maxAge: Int? = nil, acrValues: [String]? = nil,
        claims: String? = nil, resources: [String] = [], authorizationDetails: String? = nil,
        authorizeParameters: [(String, String)] = [], tokenParameters: [(String, String)] = [],
        requestHeaders: [(String, String)] = []
    ) {
        self.prompt = prompt
        self.loginHint = loginHint
        self.maxAge = maxAge
        self.acrValues = acrValues
        self.claims = claims
        self.resources = resources
        self.authorizationDetails = authorizationDetails
        self.authorizeParameters = authorizeParameters
        self.tokenParameters = tokenParameters
        self.requestHeaders = requestHeaders
    }

    /// Why a value cannot be used, in words that name the fix (the caller says where it came from).
    public struct Problem: Error, Equatable, Sendable, CustomStringConvertible {
        public let description: String
    }

    /// OpenID Connect Core 3.1.2.1's prompt values.
    public static let prompts = ["login", "consent", "select_account", "none"]

    /// Authorization parameters authdeck sets itself (the attempt's secrets and the request's identity); an extra
    /// parameter may never replace one.
    public static let ownedParameters: Set<String> = [
        "state", "nonce", "code_challenge", "code_challenge_method", "redirect_uri", "response_type", "client_id",
        "request", "request_uri",
    ]

    /// Authorization parameters that have their own option: an extra parameter names the option instead.
    public static let parametersWithOptions: [String: String] = [
        "prompt": "--prompt", "login_hint": "--login-hint", "max_age": "--max-age", "acr_values": "--acr-values",
        "claims": "--claims", "resource": "--resource", "authorization_details": "--authorization-details",
        "scope": "--scope", "response_mode": "responseMode", "dpop_jkt": "--dpop",
    ]

    /// Token parameters authdeck sets itself or the client's authentication carries.
    public static let ownedTokenParameters: Set<String> = [
        "grant_type", "code", "redirect_uri", "code_verifier", "client_id", "client_secret", "client_assertion",
        "client_assertion_type", "refresh_token", "device_code", "resource",
    ]

    /// Headers every request sets itself, or that carry the client's or the token's proof.
    public static let ownedHeaders: Set<String> = [
        "authorization", "dpop", "content-type", "content-length", "host", "accept",
    ]

    /// The authorization request's parameters, in a fixed order, extras last.
    public var parameters: [(String, String)] {
        var pairs: [(String, String)] = []
        if let prompt { pairs.append(("prompt", prompt)) }
        if let loginHint { pairs.append(("login_hint", loginHint)) }
        if let maxAge { pairs.append(("max_age", String(maxAge))) }
        if let acrValues { pairs.append(("acr_values", acrValues.joined(separator: " "))) }
        if let claims { pairs.append(("claims", claims)) }
        pairs += resources.map { ("resource", $0) }
        if let authorizationDetails { pairs.append(("authorization_details", authorizationDetails)) }
        return pairs + authorizeParameters
    }

    /// The token request's additions: each resource again (RFC 8707 2.2), then the extras.
    public var tokenRequestParameters: [(String, String)] {
        resources.map { ("resource", $0) } + tokenParameters
    }

    /// Whether the ID token is held to something (`auth_time` within `max_age`, an `acr` asked for).
    public var checksIDToken: Bool { maxAge != nil || acrValues != nil }

    /// Every value `other` sets taking precedence; `other`'s resources replace these when it names any, and its
    /// extra parameters and headers replace these of the same name.
    public func overridden(by other: AuthorizationOptions) -> AuthorizationOptions {
        func merged(_ base: [(String, String)], _ over: [(String, String)]) -> [(String, String)] {
            base.filter { name, _ in !over.contains { $0.0 == name } } + over
        }
        return AuthorizationOptions(
            prompt: other.prompt ?? prompt, loginHint: other.loginHint ?? loginHint, maxAge: other.maxAge ?? maxAge,
            acrValues: other.acrValues ?? acrValues, claims: other.claims ?? claims,
            resources: other.resources.isEmpty ? resources : other.resources,
            authorizationDetails: other.authorizationDetails ?? authorizationDetails,
            authorizeParameters: merged(authorizeParameters, other.authorizeParameters),
            tokenParameters: merged(tokenParameters, other.tokenParameters),
            requestHeaders: merged(requestHeaders, other.requestHeaders))
    }

    public static func == (lhs: AuthorizationOptions, rhs: AuthorizationOptions) -> Bool {
        lhs.prompt == rhs.prompt && lhs.loginHint == rhs.loginHint && lhs.maxAge == rhs.maxAge
            && lhs.acrValues == rhs.acrValues && lhs.claims == rhs.claims && lhs.resources == rhs.resources
            && lhs.authorizationDetails == rhs.authorizationDetails
            && lhs.authorizeParameters.elementsEqual(rhs.authorizeParameters, by: ==)
            && lhs.tokenParameters.elementsEqual(rhs.tokenParameters, by: ==)
            && lhs.requestHeaders.elementsEqual(rhs.requestHeaders, by: ==)
    }
}

// MARK: - Checking values

extension AuthorizationOptions {
    public static func prompt(_ value: String) throws(Problem) -> String {
        // OIDC allows several space-separated values; `none` must stand alone.
        let words = value.split(separator: " ").map(String.init)
        guard !words.isEmpty, words.allSatisfy(prompts.contains), !(words.contains("none") && words.count > 1)
        else {
            throw Problem(
                description: "'\(printable(value))' is not one of "
                    + prompts.joined(separator: ", "))
        }
        return words.joined(separator: " ")
    }

    public static func maxAge(_ text: String) throws(Problem) -> Int {
        guard !text.isEmpty, text.allSatisfy({ $0.isASCII && $0.isNumber }), let seconds = Int(text) else {
            throw Problem(description: "takes a whole number of seconds (0 or more), not '\(printable(text))'")
        }
        return seconds
    }

    public static func acrValues(_ text: String) throws(Problem) -> [String] {
        let values = text.split(separator: " ").map(String.init)
        guard !values.isEmpty else { throw Problem(description: "names no value (space-separated, \"A B\")") }
        return values
    }

    public static func loginHint(_ text: String) throws(Problem) -> String {
        guard !text.isEmpty, !Configuration.hasControl(text) else {
            throw Problem(description: "takes a user name or address, not empty text or control characters")
        }
        return text
    }

    /// `--claims`: a JSON object (OIDC Core 5.5), sent compact.
    public static func claims(_ text: String) throws(Problem) -> String {
        guard case .object(let members)? = try? JSONValue.parse(text) else {
            throw Problem(description: "takes a JSON object ({\"id_token\":{\"acr\":null}}), and this is not one")
        }
        return compact(.object(members))
    }

    /// `--authorization-details`: a JSON array of objects, each with a `type` (RFC 9396 2), sent compact.
    public static func authorizationDetails(_ text: String) throws(Problem) -> String {
        guard case .array(let items)? = try? JSONValue.parse(text) else {
            throw Problem(description: "takes a JSON array ([{\"type\":\"…\"}]), and this is not one")
        }
        for item in items {
            guard case .string(let type)? = item["type"], !type.isEmpty else {
                throw Problem(description: "each element must be a JSON object with a \"type\" (RFC 9396 2)")
            }
        }
        return compact(.array(items))
    }

    /// `--resource`: an absolute URI without a fragment (RFC 8707 2).
    public static func resource(_ text: String) throws(Problem) -> String {
        guard !text.contains(where: { $0.isWhitespace || $0.isNewline }), let parsed = URLComponents(string: text),
            let scheme = parsed.scheme, !scheme.isEmpty, parsed.fragment == nil, !Configuration.hasControl(text)
        else {
            throw Problem(description: "'\(printable(text))' is not an absolute URI without a fragment (RFC 8707)")
        }
        return text
    }

    /// `--param NAME=VALUE`: any parameter but the ones authdeck owns or has an option for.
    public static func parameter(_ text: String) throws(Problem) -> (String, String) {
        guard let equals = text.firstIndex(of: "="), equals != text.startIndex else {
            throw Problem(description: "takes NAME=VALUE, not '\(printable(text))'")
        }
        let name = String(text[..<equals])
        let value = String(text[text.index(after: equals)...])
        try checkParameterName(name)
        guard !Configuration.hasControl(value) else {
            throw Problem(description: "\(name)'s value has a control character")
        }
        return (name, value)
    }

    static func checkParameterName(_ name: String) throws(Problem) {
        guard !name.isEmpty, !Configuration.hasControl(name), !name.contains(where: \.isWhitespace) else {
            throw Problem(description: "'\(printable(name))' is not a parameter name")
        }
        if ownedParameters.contains(name) {
            throw Problem(description: "\(name) is set by authdeck for every sign-in and cannot be replaced")
        }
        if let option = parametersWithOptions[name] {
            throw Problem(description: "\(name) has its own option: use \(option)")
        }
    }

    /// JSON without spaces, keys sorted, slashes as they are.
    public static func compact(_ value: JSONValue) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(value)).flatMap { String(data: $0, encoding: .utf8) } ?? "null"
    }

    private static func printable(_ text: String) -> String {
        SignInError.printable(String(text.prefix(80)))
    }
}

// MARK: - config.json

extension ProviderConfiguration {
    /// The request shaping config.json sets for this provider, each value checked as its option is; a problem
    /// names the field.
    public func authorizationOptions() throws(AuthorizationOptions.Problem) -> AuthorizationOptions {
        typealias Check = AuthorizationOptions
        var options = AuthorizationOptions()
        // The field being read, for the one line a bad value gets.
        var field = ""
        do throws(AuthorizationOptions.Problem) {
            field = "prompt"
            options.prompt = try prompt.map { (value) throws(Check.Problem) in try Check.prompt(value) }
            field = "loginHint"
            options.loginHint = try loginHint.map { (value) throws(Check.Problem) in try Check.loginHint(value) }
            field = "claims"
            options.claims = try claims.map { (value) throws(Check.Problem) in try Check.claims(Check.compact(value)) }
            field = "authorizationDetails"
            options.authorizationDetails = try authorizationDetails.map { (value) throws(Check.Problem) in
                try Check.authorizationDetails(Check.compact(value))
            }
            field = "resources"
            for resource in resources ?? [] { options.resources.append(try Check.resource(resource)) }
            field = "authorizeParameters"
            for (name, value) in (authorizeParameters ?? [:]).sorted(by: { $0.key < $1.key }) {
                try Check.checkParameterName(name)
                options.authorizeParameters.append((name, value))
            }
        } catch {
            throw Check.Problem(description: "\(field) \(error.description)")
        }
        if let maxAge {
            guard maxAge >= 0 else { throw .init(description: "maxAge takes a whole number of seconds (0 or more)") }
            options.maxAge = maxAge
        }
        if let acrValues {
            guard !acrValues.isEmpty, acrValues.allSatisfy({ !$0.isEmpty && !$0.contains(" ") }) else {
                throw .init(description: "acrValues takes a list of values without spaces")
            }
            options.acrValues = acrValues
        }
        for (name, value) in (tokenParameters ?? [:]).sorted(by: { $0.key < $1.key }) {
            guard !AuthorizationOptions.ownedTokenParameters.contains(name), !name.isEmpty else {
                throw .init(description: "tokenParameters: \(name) is set by authdeck and cannot be replaced")
            }
            options.tokenParameters.append((name, value))
        }
        for (name, value) in (requestHeaders ?? [:]).sorted(by: { $0.key < $1.key }) {
            let token = name.unicodeScalars.allSatisfy {
                $0.isASCII
                    && (CharacterSet.alphanumerics.contains($0) || "!#$%&'*+-.^_`|~".unicodeScalars.contains($0))
            }
            guard token, !name.isEmpty else {
                throw .init(description: "requestHeaders: '\(name)' is not a header name")
            }
            guard !AuthorizationOptions.ownedHeaders.contains(name.lowercased()) else {
                throw .init(description: "requestHeaders: \(name) is set by authdeck and cannot be replaced")
            }
            options.requestHeaders.append((name, value))
        }
        return options
    }
}
