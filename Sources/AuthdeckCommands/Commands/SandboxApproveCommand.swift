import AuthClient
import AuthCore
import Foundation

/// `authdeck sandbox approve URL [--user NAME] [--deny]`: answers a sandbox consent page from the terminal, as a
/// browser would: asks the sandbox to decide at once for NAME, follows the redirects to the waiting loopback
/// receiver (through Portal's callback on `sandbox-portal`), submits a form_post page (the apple profile), and
/// hands an authdeck:// redirect to the waiting sign-in as `open-url` does. `trace replay` uses it as `$BROWSER`; support staff
/// use it the same way (`BROWSER="authdeck sandbox approve --user dora" authdeck login google`).
enum SandboxApproveCommand {
    static func run(_ arguments: Arguments, _ global: GlobalOptions) throws(CommandFailure) -> ExitCode {
        let words = try arguments.positionals(atMost: 2)
        guard words.count == 2 else { throw .usage("name the sandbox URL to approve: sandbox approve URL") }
        let user = arguments.value("user") ?? "ada"
        let decision = arguments.has("deny") ? "deny" : "approve"
        guard SandboxFaultsCommand.isLoopback(words[1]) else {
            throw .usage("sandbox approve answers only a sandbox on loopback (http://127.0.0.1:PORT/…)")
        }
        let separator = words[1].contains("?") ? "&" : "?"
        let start = words[1] + separator + FormEncoding.encode([("sandbox_user", user), ("sandbox_auto", decision)])
        let transport = CurlTransport(timeout: 10)
        var request = OutgoingRequest(url: start)
        var response = try fetch(request, transport)
        // As a browser: redirects are followed (Portal's callback redirects on to the app) and a form_post page is
        // posted, until the answer is the receiver's page, the sandbox's refusal, or an authdeck:// URL, which goes
        // where the desktop would send it, as `open-url` does.
        for _ in 0..<maxHops {
            if [301, 302, 303, 307, 308].contains(response.status), let location = response.headers["location"] {
                let next = URL(string: location, relativeTo: URL(string: request.url))?.absoluteString ?? location
                if next.lowercased().hasPrefix(SchemeReceiver.scheme + "://") {
                    try SessionCommands.handOver(next, global)
                    if !global.quiet {
                        global.err(
                            "authdeck sandbox approve: \(decision) as \(user): handed \(SchemeReceiver.scheme):// to the waiting sign-in\n"
                        )
                    }
                    return .done
                }
                guard SandboxFaultsCommand.isLoopback(next) else {
                    throw CommandFailure(
                        .failed,
                        "the sandbox redirected off loopback (\(CurlTransport.redactedForDisplay(next))): not followed")
                }
                request = OutgoingRequest(url: next)
            } else if response.status == 200, let form = postForm(in: response.body) {
                request = OutgoingRequest.form(form.action, form.fields)
            } else {
                break
            }
            response = try fetch(request, transport)
        }
        if !global.quiet { global.err("authdeck sandbox approve: \(decision) as \(user): HTTP \(response.status)\n") }
        return response.status < 300 ? .done : .failed
    }

    /// More redirects than a sign-in makes (authorize, Portal's callback, the receiver): a loop.
    static let maxHops = 8

    private static func fetch(_ request: OutgoingRequest, _ transport: CurlTransport) throws(CommandFailure)
        -> IncomingResponse
    {
        do throws(SignInError) {
            return try transport.send(request)
        } catch {
            throw CommandFailure(.failed, "\(CurlTransport.redactedForDisplay(request.url)): \(error.message)")
        }
    }

    /// The action and hidden fields of a `<form method="post">` page, as the sandbox writes them.
    static func postForm(in body: [UInt8]) -> (action: String, fields: [(String, String)])? {
        let page = String(decoding: body, as: UTF8.self)
        guard let formExpression = try? NSRegularExpression(pattern: #"<form method="post" action="([^"]*)""#),
            let fieldExpression = try? NSRegularExpression(
                pattern: #"<input type="hidden" name="([^"]*)" value="([^"]*)">"#)
        else { return nil }
        let whole = NSRange(page.startIndex..., in: page)
        guard let match = formExpression.firstMatch(in: page, range: whole),
            let actionRange = Range(match.range(at: 1), in: page)
        else { return nil }
        let fields = fieldExpression.matches(in: page, range: whole).compactMap { found -> (String, String)? in
            guard let name = Range(found.range(at: 1), in: page), let value = Range(found.range(at: 2), in: page) else {
                return nil
            }
            return (unescape(String(page[name])), unescape(String(page[value])))
        }
        return (unescape(String(page[actionRange])), fields)
    }

    private static func unescape(_ text: String) -> String {
        text.replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&#39;", with: "'")
            .replacingOccurrences(of: "&#x27;", with: "'").replacingOccurrences(of: "&lt;", with: "<")
            .replacingOccurrences(of: "&gt;", with: ">").replacingOccurrences(of: "&amp;", with: "&")
    }
}
