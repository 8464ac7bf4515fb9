import LoopbackHTTP

/// `/sandbox/faults`, the sandbox's admin route (127.0.0.1 only, like the rest of it): `GET` shows the faults
/// that are on and every fault there is; `PUT` with `{"faults": [NAME, …], "delayMs": N}` replaces the selection
/// while the sandbox runs (what `authdeck sandbox faults` sends). A change must carry the header
/// `X-Authdeck-Sandbox: admin`, which a web page cannot send across origins without a preflight this route never
/// answers, so a page open in the browser cannot switch faults behind the user's back. Every request must name
/// the sandbox itself as its `Host` (a page that rebinds its own name to 127.0.0.1 sends its name) and come from a
/// process of the user running the sandbox (another local user could stall everyone's sign-ins).
struct SandboxAdminRoutes: Sendable {
    let faults: SandboxFaults
    /// The port the sandbox listens on, which every accepted `Host` names.
    let port: UInt16
    /// `SandboxConfiguration.adminPeerCheck`: nil refuses every request.
    let peerCheck: (@Sendable (HTTPRequest) -> Bool)?

    static let path = "/sandbox/faults"
    static let header = "x-authdeck-sandbox"

    /// The `Host` values that name this sandbox: its address or `localhost`, with the port (bare on port 80, as
    /// clients send it there).
    var acceptedHosts: Set<String> {
        let hosts = ["127.0.0.1", "localhost"]
        return Set(hosts.map { "\($0):\(port)" } + (port == 80 ? hosts : []))
    }

    func handle(_ request: HTTPRequest, path: String) -> HTTPResponse {
        guard path == Self.path else {
            return .json(404, object: ["error": "not_found", "error_description": "the admin route is \(Self.path)"])
        }
        guard let host = request.headers["host"], acceptedHosts.contains(host.lowercased()) else {
            return .json(
                403,
                object: [
                    "error": "forbidden",
                    "error_description": "the admin route answers only Host 127.0.0.1:\(port) or localhost:\(port)",
                ])
        }
        guard let peerCheck, peerCheck(request) else {
            return .json(
                403,
                object: [
                    "error": "forbidden",
                    "error_description": "the admin route answers only the user running the sandbox",
                ])
        }
        switch request.method {
        case "GET", "HEAD":
            return state()
        case "PUT", "POST":
            guard request.headers[Self.header] == "admin" else {
                return .json(
                    403,
                    object: [
                        "error": "forbidden",
                        "error_description": "send the header X-Authdeck-Sandbox: admin",
                    ])
            }
            guard request.contentType == "application/json" else {
                return .json(
                    415,
                    object: [
                        "error": "invalid_request",
                        "error_description": "send an application/json body",
                    ])
            }
            do throws(SandboxFaults.Failure) {
                faults.set(try SandboxFaults.parse(json: request.body))
            } catch {
                return .json(400, object: ["error": "invalid_request", "error_description": error.description])
            }
            return state()
        default:
            var answer = HTTPResponse.json(
                405,
                object: [
                    "error": "invalid_request",
                    "error_description": "use GET or PUT",
                ])
            answer.headers.append(("Allow", "GET, HEAD, PUT"))
            return answer
        }
    }

    private func state() -> HTTPResponse {
        var object = faults.current.jsonObject
        object["available"] = SandboxFault.allCases.map { ["name": $0.rawValue, "summary": $0.summary] }
        return .json(200, object: object)
    }
}
