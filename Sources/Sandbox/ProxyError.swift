import LoopbackHTTP

/// An Auth Proxy error: gRPC-style `{"code": <status code>, "message": …, "details": []}` as Turnkey answers,
/// with the HTTP status that goes with it.
struct ProxyError: Error {
    let status: Int
    let code: Int
    let message: String

    var response: HTTPResponse {
        .json(status, object: ["code": code, "message": message, "details": [Any]()])
    }

    /// gRPC INVALID_ARGUMENT.
    static func invalidArgument(_ message: String) -> ProxyError { ProxyError(status: 400, code: 3, message: message) }
    /// gRPC NOT_FOUND.
    static func notFound(_ message: String) -> ProxyError { ProxyError(status: 404, code: 5, message: message) }
    /// gRPC ALREADY_EXISTS.
    static func alreadyExists(_ message: String) -> ProxyError { ProxyError(status: 409, code: 6, message: message) }
    /// gRPC PERMISSION_DENIED.
    static func permissionDenied(_ message: String) -> ProxyError {
        ProxyError(status: 403, code: 7, message: message)
    }
    /// gRPC RESOURCE_EXHAUSTED.
    static func exhausted(_ message: String) -> ProxyError { ProxyError(status: 429, code: 8, message: message) }
    /// gRPC FAILED_PRECONDITION.
    static func failedPrecondition(_ message: String) -> ProxyError {
        ProxyError(status: 400, code: 9, message: message)
    }
    /// gRPC UNAUTHENTICATED.
    static func unauthenticated(_ message: String) -> ProxyError {
        ProxyError(status: 401, code: 16, message: message)
    }
    /// gRPC INTERNAL.
    static func `internal`(_ message: String) -> ProxyError { ProxyError(status: 500, code: 13, message: message) }
}
