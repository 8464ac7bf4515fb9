import AuthCore
import AuthCrypto
import Foundation
import Testing

@Suite struct PKCETests {
    @Test func rfc7636AppendixB() {
        let verifierBytes: [UInt8] = [
            116, 24, 223, 180, 151, 153, 224, 37, 79, 250, 96, 125, 216, 173, 187, 186, 22, 212, 37, 77, 105, 214,
            191, 240, 91, 88, 5, 88, 83, 132, 141, 121,
        ]
        let pkce = PKCE(randomBytes: verifierBytes)
        #expect(pkce.verifier == "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk")
        #expect(pkce.challenge == "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")
        #expect(PKCE.method == "S256")
    }

    @Test func stateIs128BitsBase64URL() {
        let state = AttemptSecrets.state(randomBytes: Array(repeating: 0xFB, count: 16))
        #expect(state.count == 22)
        #expect(state == "-_v7-_v7-_v7-_v7-_v7-w")
    }

    @Test func turnkeyNonceIsHexSHA256OfThePublicKeyHex() {
        let publicKey = "02" + String(repeating: "ab", count: 32)
        let nonce = AttemptSecrets.turnkeyNonce(sessionPublicKeyHex: publicKey)
        #expect(nonce == Hex.encode(SHA256.hash(Array(publicKey.utf8))))
        #expect(nonce.count == 64)
        #expect(nonce == nonce.lowercased())
        #expect(
            AttemptSecrets.turnkeyNonce(sessionPublicKeyHex: "abc")
                == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }
}

@Suite struct AuthorizationRequestTests {
    func request(endpoint: String = "https://accounts.example.com/authorize") -> AuthorizationRequest {
        AuthorizationRequest(
            endpoint: endpoint, clientID: "client id&1", redirectURI: "http://127.0.0.1:5000/callback",
            scopes: ["openid", "email"], state: "s t", codeChallenge: "E9Mel-_",
            nonce: "n+1", responseMode: "form_post", extraParameters: [("prompt", "consent")])
    }

    @Test func encodesEveryParameter() throws {
        let url = try request().url()
        #expect(
            url == "https://accounts.example.com/authorize?response_type=code&client_id=client%20id%261"
                + "&redirect_uri=http%3A%2F%2F127.0.0.1%3A5000%2Fcallback&scope=openid%20email&state=s%20t"
                + "&code_challenge=E9Mel-_&code_challenge_method=S256&nonce=n%2B1&response_mode=form_post&prompt=consent"
        )
    }

    @Test func keepsAnExistingQuery() throws {
        let url = try request(endpoint: "https://x.example/authorize?tenant=a").url()
        #expect(url.hasPrefix("https://x.example/authorize?tenant=a&response_type=code&"))
    }

    @Test func roundTripsThroughTheCallbackParser() throws {
        let url = try request().url()
        let parsed = try CallbackParser.parse(url: url)
        #expect(parsed.state == "s t")
    }

    @Test func refusesNonHTTPEndpoints() {
        #expect(throws: SignInError.self) { try request(endpoint: "javascript:alert(1)").url() }
        #expect(throws: SignInError.self) { try request(endpoint: "not a url").url() }
        #expect(throws: SignInError.self) { try request(endpoint: "https:///nohost").url() }
    }
}

@Suite struct CallbackParserTests {
    @Test func query() throws {
        let callback = try CallbackParser.parse(url: "http://127.0.0.1:4711/callback?code=abc%2B1&state=xyz&extra=1")
        #expect(callback == Callback(code: "abc+1", state: "xyz"))
    }

    @Test func errorAndDescription() throws {
        let callback = try CallbackParser.parse(
            url: "authdeck://callback?error=access_denied&error_description=The+user+said+no&state=s")
        #expect(callback.error == "access_denied")
        #expect(callback.errorDescription == "The user said no")
        #expect(callback.state == "s")
    }

    @Test func fragmentTokens() throws {
        let callback = try CallbackParser.parse(url: "https://relay.example/cb#id_token=a.b.c&state=s")
        #expect(callback.idToken == "a.b.c")
        #expect(callback.state == "s")
    }

    @Test func formBody() throws {
        let body = Array("state=s%3D&code=c1&id_token=h.p.s&user=%7B%22name%22%7D".utf8)
        let callback = try CallbackParser.parse(form: body)
        #expect(callback == Callback(code: "c1", state: "s=", idToken: "h.p.s"))
    }

    @Test func portalToken() throws {
        #expect(try CallbackParser.parse(url: "myapp://auth?token=one-time").token == "one-time")
    }

    @Test func refusesMalformedInput() {
        #expect(throws: CallbackParser.Failure.malformedURL) { try CallbackParser.parse(url: "no scheme here") }
        #expect(throws: CallbackParser.Failure.malformedURL) { try CallbackParser.parse(url: "") }
        #expect(throws: CallbackParser.Failure.malformedParameters) {
            try CallbackParser.parse(url: "http://127.0.0.1/callback?code=%ZZ&state=s")
        }
        #expect(throws: CallbackParser.Failure.duplicateParameter("state")) {
            try CallbackParser.parse(url: "http://127.0.0.1/callback?code=a&state=s&state=t")
        }
        #expect(throws: CallbackParser.Failure.malformedParameters) { try CallbackParser.parse(form: [0xFF, 0xFE]) }
        #expect(throws: CallbackParser.Failure.tooLarge) {
            try CallbackParser.parse(form: Array(repeating: UInt8(ascii: "a"), count: 16 * 1024 + 1))
        }
    }
}

@Suite struct ContactTests {
    @Test(arguments: ["ada@example.com", " Ada.Lovelace+tag@Example.CO.uk ", "x@a-b.io"])
    func validEmails(_ text: String) throws {
        let contact = try Contact.validatedEmail(text)
        #expect(contact.value.contains("@"))
        #expect(!contact.value.hasPrefix(" ") && !contact.value.hasSuffix(" "))
    }

    @Test(arguments: [
        "", "ada", "ada@", "@example.com", "ada@example", "ada@@example.com", "a b@example.com",
        "ada@exa mple.com", "ada@-example.com", "ada@example.c", "ada..x@example.com", "ada@example.123",
    ])
    func invalidEmails(_ text: String) {
        #expect(throws: SignInError.invalidContact) { try Contact.validatedEmail(text) }
    }

    @Test func normalisesPhonesToE164() throws {
        #expect(try Contact.validatedPhone("+1 (415) 555-0100") == .phone("+14155550100"))
        #expect(try Contact.validatedPhone("0044 20 7946 0958") == .phone("+442079460958"))
        #expect(try Contact.parse("+33.1.23.45.67.89") == .phone("+33123456789"))
    }

    @Test(arguments: [
        "4155550100", "+1234567", "+1234567890123456", "+1 415 555 O100", "+", "+0123456789", "++14155550100",
    ])
    func invalidPhones(_ text: String) {
        #expect(throws: SignInError.invalidContact) { try Contact.validatedPhone(text) }
    }

    @Test func emailDomainIsLowerCased() throws {
        #expect(try Contact.validatedEmail("Ada@EXAMPLE.com") == .email("Ada@example.com"))
    }
}

@Suite struct OTPCodeFormatTests {
    @Test func digitsOnly() throws {
        let format = try OTPCodeFormat(length: 6, alphanumeric: false)
        #expect(format.validate("123456") == "123456")
        #expect(format.validate(" 123-456 ") == "123456")
        #expect(format.validate("12345") == nil)
        #expect(format.validate("1234567") == nil)
        #expect(format.validate("12345A") == nil)
        #expect(format.validate("١٢٣٤٥٦") == nil)  // Arabic-Indic digits are not ASCII digits
        #expect(format.accepts("7"))
        #expect(!format.accepts("a"))
    }

    @Test func alphanumericIsUpperCased() throws {
        let format = try OTPCodeFormat(length: 9, alphanumeric: true)
        #expect(format.validate("ab12cd34e") == "AB12CD34E")
        #expect(format.validate("AB12CD34É") == nil)
        #expect(format.accepts("q"))
    }

    @Test func lengthOutsideSixToNineIsRefused() {
        #expect(throws: SignInError.self) { try OTPCodeFormat(length: 5, alphanumeric: false) }
        #expect(throws: SignInError.self) { try OTPCodeFormat(length: 10, alphanumeric: false) }
        #expect(OTPCodeFormat.totp.length == 6)
    }
}

@Suite struct ProviderCatalogTests {
    static var resources: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Resources")
    }

    @Test func shippedPresetsMatchTheSpec() throws {
        let data = try Data(contentsOf: Self.resources.appendingPathComponent("providers.json"))
        let catalog = try ProviderCatalog(json: data)
        #expect(catalog.providers.map(\.name) == ["google", "apple", "discord", "x", "oidc"])
        #expect(catalog["google"]?.discoveryURL == "https://accounts.google.com/.well-known/openid-configuration")
        #expect(catalog["google"]?.deviceGrant == true)
        #expect(catalog["apple"]?.authorizationEndpoint == "https://appleid.apple.com/auth/authorize")
        #expect(catalog["apple"]?.responseMode == "form_post")
        #expect(catalog["apple"]?.redirect == .httpsRelay)
        #expect(catalog["apple"]?.clientSecret == "es256-jwt")
        #expect(catalog["discord"]?.tokenEndpoint == "https://discord.com/api/oauth2/token")
        #expect(catalog["discord"]?.userEndpoint == "https://discord.com/api/users/@me")
        #expect(catalog["discord"]?.scopes == ["identify", "email"])
        #expect(catalog["discord"]?.idToken == false)
        #expect(catalog["x"]?.authorizationEndpoint == "https://x.com/i/oauth2/authorize")
        #expect(catalog["x"]?.tokenEndpoint == "https://api.x.com/2/oauth2/token")
        #expect(catalog["x"]?.userEndpoint == "https://api.x.com/2/users/me")
        #expect(catalog["x"]?.revocationEndpoint == "https://api.x.com/2/oauth2/revoke")
        #expect(catalog["x"]?.scopes == ["tweet.read", "users.read", "offline.access"])
        #expect(catalog["oidc"]?.issuer == nil)
        // Every social login `login` takes has its endpoints here, and every preset here is one `login` takes.
        #expect(catalog.providers.map(\.provider) == Provider.standard.filter { $0.kind == .social })
    }

    @Test func refusesBrokenFiles() {
        #expect(throws: ProviderCatalog.Failure.self) { try ProviderCatalog(json: Data("{".utf8)) }
        #expect(throws: ProviderCatalog.Failure.unsupportedVersion(2)) {
            try ProviderCatalog(json: Data(#"{"version":2,"providers":[]}"#.utf8))
        }
        let twice = #"{"version":1,"providers":[\#(Self.minimal),\#(Self.minimal)]}"#
        #expect(throws: ProviderCatalog.Failure.duplicate("p")) { try ProviderCatalog(json: Data(twice.utf8)) }
        do {
            _ = try ProviderCatalog(json: Data(#"{"version":1,"providers":[{"name":"p"}]}"#.utf8))
            Issue.record("a provider without fields was accepted")
        } catch {
            #expect(error.description.contains("missing"))
        }
    }

    static let minimal =
        #"{"name":"p","title":"P","mnemonic":"p","kind":"oidc","scopes":[],"redirect":"loopback","deviceGrant":false,"idToken":true}"#
}
