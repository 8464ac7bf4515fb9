import LoopbackHTTP

/// A Portal error: `{"error": message}` with its HTTP status.
struct PortalError: Error {
    let status: Int
    let message: String

    var response: HTTPResponse {
        .json(status, object: ["error": message])
    }

    static func badRequest(_ message: String) -> PortalError { PortalError(status: 400, message: message) }
    static func unauthorized(_ message: String) -> PortalError { PortalError(status: 401, message: message) }
    static func notFound(_ message: String) -> PortalError { PortalError(status: 404, message: message) }
    static func tooMany(_ message: String) -> PortalError { PortalError(status: 429, message: message) }
    static func server(_ message: String) -> PortalError { PortalError(status: 500, message: message) }
}
