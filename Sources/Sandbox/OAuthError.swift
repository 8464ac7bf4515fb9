import LoopbackHTTP

/// An error from an OAuth endpoint, answered in RFC 6749's JSON shape `{"error", "error_description"}`.
struct OAuthError: Error {
    let status: Int
    let code: String
    let description: String

    var response: HTTPResponse {
        var answer = HTTPResponse.json(status, object: ["error": code, "error_description": description])
        // RFC 6749 5.2: a failed client authentication names the scheme the client should use.
        if status == 401 { answer.headers.append(("WWW-Authenticate", "Basic realm=\"authdeck-sandbox\"")) }
        return answer
    }

    static func invalidRequest(_ description: String) -> OAuthError {
        OAuthError(status: 400, code: "invalid_request", description: description)
    }

    static func invalidGrant(_ description: String) -> OAuthError {
        OAuthError(status: 400, code: "invalid_grant", description: description)
    }

    static func invalidClient(_ description: String) -> OAuthError {
        OAuthError(status: 401, code: "invalid_client", description: description)
    }

    static func invalidScope(_ description: String) -> OAuthError {
        OAuthError(status: 400, code: "invalid_scope", description: description)
    }

    static func serverError(_ description: String) -> OAuthError {
        OAuthError(status: 500, code: "server_error", description: description)
    }

    /// RFC 8628 3.5's polling answers, all 400.
    static func device(_ code: String, _ description: String) -> OAuthError {
        OAuthError(status: 400, code: code, description: description)
    }
}
