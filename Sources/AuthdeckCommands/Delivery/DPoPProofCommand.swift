import AuthClient
import AuthCore
import Foundation
import SessionStorage

/// One resource request a DPoP proof is made for (RFC 9449 section 7): its method, URL and the nonce the resource
/// server asked for, if any.
struct ProofRequest: Sendable, Equatable {
    var method: String
    var url: String
    var nonce: String?

    /// `--method`, `--url` and `--nonce` of `arguments`, checked.
    static func parse(_ arguments: Arguments) throws(CommandFailure) -> ProofRequest {
        guard let method = arguments.value("method"), let url = arguments.value("url") else {
            throw .usage("dpop-proof needs --method METHOD and --url URL (the request the proof goes with)")
        }
        let request = ProofRequest(method: method, url: url, nonce: arguments.value("nonce"))
        if let problem = request.problem { throw .usage(problem) }
        return request
    }

    /// Why the request cannot have a proof, or nil: an HTTP method is a token of capital letters (RFC 9110 9.1's
    /// registered methods), the URL an absolute http(s) one, the nonce printable ASCII (RFC 9449 8.1's NQCHAR).
    var problem: String? {
        guard !method.isEmpty, method.count <= 16, method.allSatisfy({ $0.isASCII && $0.isUppercase }) else {
            return "--method takes an HTTP method in capitals, such as GET or POST"
        }
        guard let scheme = URLComponents(string: url)?.scheme?.lowercased(), ["http", "https"].contains(scheme),
            URLComponents(string: url)?.host?.isEmpty == false
        else {
            return "--url takes the request's absolute http or https URL"
        }
        if let nonce, nonce.isEmpty || !nonce.unicodeScalars.allSatisfy({ (0x21...0x7E).contains($0.value) }) {
            return "--nonce takes the DPoP-Nonce value the server sent (printable characters, no spaces)"
        }
        return nil
    }
}

/// `authdeck dpop-proof --method METHOD --url URL [KEY] [--nonce N]`: the `DPoP` header value for one request with
/// the session's access token (`Authorization: DPoP $(authdeck token)`), bound to that token by `ath`. The key never
/// leaves the store; with `AUTHDECK_AGENT_SOCK` set the agent makes the proof.
enum DPoPProofCommand {
    static func run(_ arguments: Arguments, _ global: GlobalOptions) throws(CommandFailure) -> ExitCode {
        let key = try global.session(or: arguments.positionals(atMost: 1).first)
        let request = try ProofRequest.parse(arguments)
        let requirement = TokenRequirement(key: key)
        let proof: String
        if let socket = TokenSource.agentSocket(global) {
            proof = try AgentClient(path: socket).proof(requirement, request)
        } else {
            let store = try StoreCommands.requireStore(global)
            proof = try make(
                request, requirement, store: store, config: global.config, variables: global.environment.variables)
        }
        global.out(proof + "\n")
        return .done
    }

    /// A proof with the session's current access token, refreshed first as `token` would (so the two agree).
    static func make(
        _ request: ProofRequest, _ requirement: TokenRequirement, store: SessionStore, config: String?,
        variables: [String: String] = ProcessEnvironment.current()
    ) throws(CommandFailure) -> String {
        let issued = try TokenSource.issue(requirement, store: store, config: config, variables: variables)
        let session = try StoreCommands.attempt { () throws(StoreError) in try store.session(issued.key) }
        let prover: DPoPProver?
        do throws(SignInError) {
            prover = try DPoPProver(session: session.secrets)
        } catch {
            throw CommandFailure(.failed, error.message)
        }
        guard let prover, let accessToken = session.secrets.accessToken else {
            throw CommandFailure(
                .failed,
                "session '\(issued.key)' has no DPoP key: it was signed in without DPoP (set dpop: true for its "
                    + "provider in config.json, or login --dpop, and sign in again)")
        }
        do throws(SignInError) {
            return try prover.proof(
                method: request.method, url: request.url, accessToken: accessToken, nonce: request.nonce)
        } catch {
            throw CommandFailure(.failed, error.message)
        }
    }
}
