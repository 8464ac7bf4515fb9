import AuthClient
import AuthCore

extension DoctorCommand {
    /// The authorization protocols the issuer's discovery document offers next to what the config uses: PAR
    /// (RFC 9126), DPoP (RFC 9449), JARM, signed request objects (RFC 9101) and `iss` in authorization responses
    /// (RFC 9207). One line for what is in use and what else is offered; a failed line for each thing the config
    /// asks for that discovery lacks. Nothing when discovery cannot be fetched (the provider line above says so).
    static func checkProtocols(_ provider: ResolvedProvider, transport: HTTPTransport, area: String) -> [Check] {
        let issuer = provider.endpoints.issuer
        let url = ProviderPreset.discoveryURL(issuer: issuer)
        guard let response = try? transport.send(OutgoingRequest(url: url, headers: [("Accept", "application/json")])),
            response.status == 200, let document = try? response.json(),
            document["issuer"]?.string == issuer
        else { return [] }
        let offer = ProtocolOffer(document)
        var used: [String] = []
        var unused: [String] = []
        var failures: [Check] = []
        func fail(_ message: String, _ fix: String) {
            failures.append(Check(level: .fail, area: area, message: message, fix: fix))
        }

        // PAR asked of an issuer without the endpoint failed `resolve` already, with its own line.
        if provider.shape.pushed {
            used.append(offer.pushedRequired ? "PAR (required)" : "PAR")
        } else if offer.pushed {
            // Endpoints config.json names skip discovery, and with it the PAR endpoint.
            unused.append(
                provider.endpoints.pushedAuthorizationRequest == nil
                    ? "PAR (pushedAuthorizationRequests, with the endpoints left to discovery)"
                    : "PAR (pushedAuthorizationRequests)")
        }

        if provider.dpop {
            used.append("DPoP")
            if let algorithms = offer.dpopAlgorithms, !algorithms.contains("ES256") {
                fail(
                    "dpop is on but dpop_signing_alg_values_supported lists no ES256 (authdeck's DPoP keys are P-256)",
                    "turn dpop off for this provider")
            } else if offer.dpopAlgorithms == nil {
                fail(
                    "dpop is on but discovery lists no dpop_signing_alg_values_supported",
                    "turn dpop off, or check that the issuer binds tokens with DPoP")
            }
        } else if offer.dpopAlgorithms?.contains("ES256") == true {
            unused.append("DPoP (dpop)")
        }

        if provider.shape.responseMode == .jwt {
            used.append("JARM")
            if let modes = offer.responseModes, !modes.contains("jwt") {
                fail(
                    "responseMode is jwt but response_modes_supported lists no jwt",
                    "set responseMode to query or form_post")
            }
        } else if offer.responseModes?.contains("jwt") == true {
            unused.append("JARM (responseMode jwt)")
        }

        if let signer = provider.shape.requestObject {
            used.append("signed request objects (\(signer.algorithm))")
            if let algorithms = offer.requestObjectAlgorithms, !algorithms.contains(signer.algorithm) {
                fail(
                    "requestObject is signed with \(signer.algorithm) but request_object_signing_alg_values_supported "
                        + "lists " + algorithms.prefix(8).map { SignInError.printable($0) }.joined(separator: ", "),
                    "sign with a key of a listed algorithm (privateKeyFile, signingAlg), or turn requestObject off")
            } else if !offer.requestObjects {
                fail(
                    "requestObject is signed but discovery says nothing of request objects "
                        + "(request_parameter_supported, request_object_signing_alg_values_supported)",
                    "turn requestObject off for this provider")
            }
        } else if offer.requestObjects {
            unused.append("signed request objects (requestObject signed)")
        }

        // RFC 9207: authdeck checks `iss` whenever the response carries it, and demands it when discovery promises it.
        if offer.issuerInResponse { used.append("iss in responses (RFC 9207)") }

        let message =
            "protocols: "
            + (used.isEmpty ? "none beyond the code flow" : used.joined(separator: ", "))
            + (unused.isEmpty ? "" : "; the issuer also offers " + unused.joined(separator: ", "))
        return [Check(level: .ok, area: area, message: message, fix: nil)] + failures
    }
}

/// What an OpenID Provider Configuration document says of the authorization protocols doctor reports.
struct ProtocolOffer {
    let pushed: Bool
    let pushedRequired: Bool
    let dpopAlgorithms: [String]?
    let responseModes: [String]?
    let requestObjectAlgorithms: [String]?
    /// `request_parameter_supported` true, or request object algorithms listed.
    let requestObjects: Bool
    let issuerInResponse: Bool

    init(_ document: JSONValue) {
        func strings(_ name: String) -> [String]? {
            guard case .array(let items)? = document[name] else { return nil }
            return items.compactMap(\.string)
        }
        pushed = document["pushed_authorization_request_endpoint"]?.string != nil
        pushedRequired = document["require_pushed_authorization_requests"]?.bool == true
        dpopAlgorithms = strings("dpop_signing_alg_values_supported")
        responseModes = strings("response_modes_supported")
        requestObjectAlgorithms = strings("request_object_signing_alg_values_supported")
        requestObjects =
            document["request_parameter_supported"]?.bool == true || !(requestObjectAlgorithms ?? []).isEmpty
        issuerInResponse = document["authorization_response_iss_parameter_supported"]?.bool == true
    }
}
