import AuthClient
import AuthCore
import Foundation
import SandboxTestSupport
import Testing

/// Portal's email magic link (`login email-link`) against the sandbox's routes, every request and answer held to
/// the contract (portal-client-auth.json, from PortalSwift's `PortalAuthApi` and `SendMagicLinkRequest`): the send,
/// the link opened once, its redirect marked `authMethod=EMAIL_MAGIC_LINK` and exchanged at
/// `/magic-links/validations`, the TOTP step, and the sandbox's refusals of what the contract rules out.
extension PortalSignInTests {
    static let ada = Contact.email("ada@example.com")

    /// Starts `login email-link` for `contact` and answers the attempt and the link the outbox got.
    func sendLink(
        _ sandbox: TurnkeySandbox, to contact: Contact = ada, transport: RecordingTransport = RecordingTransport()
    ) throws -> (Attempt, String) {
        let backend = try sandbox.backend(
            .emailLink, backend: "sandbox-portal", contact: contact, transport: transport)
        controller.start(backend, timeout: 60)
        let attempt = try #require(presenter.waitForBegin())
        #expect(presenter.prompts.last == .linkSent(contact: contact))
        let link = try #require(sandbox.running.deliveries.link(to: contact.description))
        return (attempt, link)
    }

    /// Opens the link as a browser does (one GET) and answers where the sandbox sends it.
    static func open(_ link: String) throws -> IncomingResponse {
        try CurlTransport(timeout: 5).send(OutgoingRequest(url: link))
    }

    static func query(_ url: String) -> [String: String] {
        Dictionary(
            URLComponents(string: url)?.queryItems?.map { ($0.name, $0.value ?? "") } ?? [],
            uniquingKeysWith: { first, _ in first })
    }

    @Test func aMagicLinksRedirectSignsInThroughItsValidation() throws {
        let sandbox = try TurnkeySandbox()
        let transport = RecordingTransport()
        let (attempt, link) = try sendLink(sandbox, transport: transport)
        guard case .browser(let redirectURI) = attempt.method else {
            Issue.record("the link does not wait for a redirect")
            return
        }
        // What PortalSwift sends: the address, the allow-listed redirect URL, the environment's sender and template.
        let sent = try #require(transport.bodies("/magic-links").first)
        #expect(sent["email"]?.string == "ada@example.com")
        #expect(sent["redirectUrl"]?.string == redirectURI)
        #expect(sent["fromEmail"]?.string == "login@sandbox.example")
        #expect(sent["templateId"]?.string == "sandbox-magic-link")
        let opened = try Self.open(link)
        #expect(opened.status == 302)
        let redirect = try #require(opened.headers["location"])
        #expect(redirect.hasPrefix(redirectURI + "?"))
        // The magic link's marker, not an OAuth login_type, and no app-side state: the contract's redirect shape.
        let query = Self.query(redirect)
        #expect(query["authMethod"] == "EMAIL_MAGIC_LINK")
        #expect(query["login_type"] == nil && query["state"] == nil && query["token"] != nil)
        #expect(WireContract.portal.check(redirectQuery: query).isEmpty)
        // The link opens once.
        #expect(try Self.open(link).status == 400)
        #expect(controller.paste(redirect) == .accepted)
        let asked = try #require(confirming())
        #expect(stored.count == 0)
        #expect(asked.session.record.provider == "email-link")
        controller.answerIdentity(keep: true)
        guard case .success(let outcome)? = ended() else {
            Issue.record("no session")
            return
        }
        #expect(outcome.record.backend == "sandbox-portal")
        #expect(stored.sessions.first?.secrets.sessionJwt?.isEmpty == false)
        #expect(transport.count("/magic-links/validations") == 1)
        #expect(transport.count("/oauth/tokens") == 0)
    }

    @Test func aTOTPUserTypesTheCodeAfterOpeningTheLink() throws {
        let sandbox = try TurnkeySandbox()
        let (_, link) = try sendLink(sandbox, to: .email("dora@example.com"))
        let redirect = try #require(try Self.open(link).headers["location"])
        #expect(controller.paste(redirect) == .accepted)
        #expect(presenter.wait { if case .totpRequired(_, _, .waiting) = controller.state { true } else { false } })
        controller.enterCode(sandbox.totp())
        #expect(confirming()?.session.record.email == "dora@example.com")
        controller.answerIdentity(keep: true)
        guard case .success(let outcome)? = ended() else {
            Issue.record("no session")
            return
        }
        #expect(outcome.record.provider == "email-link")
    }

    /// A token without the magic link's marker is another method's (an OAuth redirect's `login_type`): it is not
    /// sent to either exchange for this attempt.
    @Test func aTokenWithoutTheMagicLinkMarkerIsNotExchanged() throws {
        let sandbox = try TurnkeySandbox()
        let transport = RecordingTransport()
        let (_, link) = try sendLink(sandbox, transport: transport)
        let redirect = try #require(try Self.open(link).headers["location"])
        let token = try #require(Self.query(redirect)["token"])
        _ = controller.paste("authdeck://callback?token=\(token)&login_type=GOOGLE")
        #expect(ended() == .failure(.callbackIncomplete))
        #expect(transport.count("/magic-links/validations") == 0 && transport.count("/oauth/tokens") == 0)
        #expect(stored.count == 0)
    }

    @Test func theSandboxRefusesSendsTheContractRulesOut() throws {
        let sandbox = try TurnkeySandbox()
        let url = sandbox.base + "/portal/api/v3/auth/magic-links"
        let headers = [("x-portal-auth-environment-id", "sandbox-environment")]
        func send(_ members: [String: JSONValue]) throws -> (OutgoingRequest, IncomingResponse) {
            var body: [String: JSONValue] = [
                "email": .string("ada@example.com"), "redirectUrl": .string("authdeck://callback"),
                "fromEmail": .string("login@sandbox.example"), "templateId": .string("sandbox-magic-link"),
            ]
            body.merge(members) { $1 }
            let text = try JSONEncoder().encode(JSONValue.object(body))
            let request = OutgoingRequest.json(url, Array(text), headers: headers)
            return (request, try CurlTransport(timeout: 3).send(request))
        }
        // Portal requires lower case and does not trim; the redirect is allow-listed byte for byte.
        for (members, status) in [
            (["email": JSONValue.string("Ada@example.com")], 400), (["email": .string(" ada@example.com")], 400),
            (["templateId": .string("another")], 400), (["fromEmail": .null], 400),
            (["redirectUrl": .string("authdeck%3A%2F%2Fcallback")], 401),
        ] {
            let (request, answer) = try send(members)
            #expect(answer.status == status, "\(members)")
            // The refusal in the shape the contract gives that status.
            #expect(WireContract.portal.check(response: answer, to: request).isEmpty, "\(members)")
        }
        #expect(sandbox.running.deliveries.link(to: "ada@example.com") == nil)
        // Three links a minute to one address, then 429, which the client names as a rate limit.
        let client = PortalClient(
            baseURL: sandbox.base + "/portal", environmentID: "sandbox-environment",
            transport: CurlTransport(timeout: 3))
        for _ in 0..<3 {
            try client.sendMagicLink(
                email: "ada@example.com", redirectURL: "authdeck://callback", fromEmail: "login@sandbox.example",
                templateID: "sandbox-magic-link")
        }
        #expect(throws: SignInError.rateLimited) {
            try client.sendMagicLink(
                email: "ADA@example.com ", redirectURL: "authdeck://callback", fromEmail: "login@sandbox.example",
                templateID: "sandbox-magic-link")
        }
    }

    @Test func anEnvironmentWithoutMagicLinksDoesNotOfferThem() throws {
        let sandbox = try TurnkeySandbox { $0.portalMagicLinks = false }
        let backend = try sandbox.backend(.emailLink, backend: "sandbox-portal", contact: Self.ada)
        // config.json has no sender or template then, as a backend whose environment never sent links.
        #expect {
            _ = try backend.method(loopbackRedirectURI: nil)
        } throws: { error in
            guard case .unavailable(let reason) = error as? SignInError else { return false }
            return reason.contains("magicLinkFromEmail")
        }
        var configuration = sandbox.configuration
        configuration.backends?["sandbox-portal"]?.magicLinkFromEmail = "login@sandbox.example"
        configuration.backends?["sandbox-portal"]?.magicLinkTemplateID = "sandbox-magic-link"
        let configured = try sandbox.backend(
            .emailLink, backend: "sandbox-portal", contact: Self.ada, configuration: configuration)
        #expect(throws: SignInError.authMethodUnavailable(method: "Email link")) {
            _ = try configured.method(loopbackRedirectURI: nil)
        }
    }
}
