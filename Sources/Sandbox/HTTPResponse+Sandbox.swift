import AuthCore
import Foundation
import LoopbackHTTP

extension HTTPResponse {
    /// A JSON object answer.
    static func json(_ status: Int, object: [String: Any]) -> HTTPResponse {
        .json(status, JSONText.encode(object))
    }

    /// 302 to `location`; only ever called with a location the route has validated.
    static func redirect(to location: String) -> HTTPResponse {
        HTTPResponse(
            status: 302, headers: [("Location", location), ("Content-Type", "text/plain; charset=utf-8")],
            body: Array("Redirecting.\n".utf8))
    }
}

extension HTTPRequest {
    /// A `application/x-www-form-urlencoded` body as a dictionary (last value wins), nil for another content type
    /// or a broken escape.
    var formParameters: [String: String]? {
        guard contentType == "application/x-www-form-urlencoded",
            let text = String(validating: body, as: UTF8.self),
            let pairs = FormEncoding.decode(Substring(text))
        else { return nil }
        return Dictionary(pairs, uniquingKeysWith: { _, last in last })
    }

    /// The JSON object body, nil unless the content type is JSON and the body is one object.
    var jsonObject: [String: Any]? {
        guard contentType == "application/json" else { return nil }
        return JSONText.object(body)
    }

    /// The token of an `Authorization: DPoP …` header (RFC 9449 7.1).
    var dpopToken: String? { credentials(scheme: "dpop") }

    /// The token of an `Authorization: Bearer …` header.
    var bearerToken: String? { credentials(scheme: "bearer") }

    /// The credentials of the `Authorization` header when its scheme is `scheme` (lower-case).
    private func credentials(scheme: String) -> String? {
        guard let value = headers["authorization"] else { return nil }
        let parts = value.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == scheme else { return nil }
        let token = parts[1].trimmingCharacters(in: .whitespaces)
        return token.isEmpty ? nil : token
    }
}
