import Foundation
import Testing

/// DPoP against the sandbox, whose checks follow RFC 9449 4.3 on its own (Sources/Sandbox/DPoPProofCheck.swift):
/// a sign-in whose token endpoint demands a nonce (the `dpop-nonce` fault), the bound token refused as Bearer and
/// taken with `dpop-proof`'s proofs, refresh and revocation; and proofs the RFC says a server refuses.
@Suite(.serialized) struct SandboxDPoPTests {
    func userinfo(_ setup: FaultedSandbox) -> String { setup.sandbox.baseURL + "/oidc/google/userinfo" }

    /// UserInfo asked with `token` and `proof` (on standard input): status, body, DPoP-Nonce, WWW-Authenticate.
    func ask(_ setup: FaultedSandbox, token: String, proof: String?) -> [String] {
        let result = setup.runner.run(
            executable: "/usr/bin/python3", [CLIRunner.repositoryRoot + "/Tests/Interop/userinfo.py", userinfo(setup)],
            stdin: token + (proof.map { "\n" + $0 } ?? ""))
        return result.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }

    func proof(_ setup: FaultedSandbox, method: String = "GET", url: String? = nil, nonce: String? = nil) -> String {
        let run = setup.runner.run(
            ["dpop-proof", "d", "--method", method, "--url", url ?? userinfo(setup)]
                + (nonce.map { ["--nonce", $0] } ?? []))
        #expect(run.status == 0, "stderr: \(run.stderr)")
        return run.stdout.trimmingCharacters(in: .newlines)
    }

    @Test func signInWithANonceDemandingTokenEndpointThenUseRefreshAndRevoke() throws {
        let setup = try FaultedSandbox(["--fault", "dpop-nonce"])
        let result = setup.login(["google", "--dpop", "--session-key", "d"])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let steps = setup.trace()
        let statuses = steps.filter { $0["kind"] as? String == "response" }.compactMap {
            TraceFile.details($0)["status"] as? Double
        }
        #expect(statuses.contains(400), "statuses: \(statuses)")
        let proofs = InteropLogin.proofClaims(in: steps)
        #expect(proofs.first?["nonce"] == nil && proofs.dropFirst().first?["nonce"] != nil)
        let status = setup.runner.run(["status", "d"])
        #expect(status.stdout.contains("token type:     DPoP") && status.stdout.contains("valid"), "\(status.stdout)")

        let token = setup.runner.run(["token", "d"]).stdout.trimmingCharacters(in: .newlines)
        #expect(ask(setup, token: token, proof: nil).first == "401")
        // Without the nonce the user endpoint asks for it; with it (remembered from the sign-in) it answers.
        let demanded = ask(setup, token: token, proof: proof(setup, nonce: "not-the-nonce"))
        #expect(demanded.first == "401" && demanded[3].contains("use_dpop_nonce") && !demanded[2].isEmpty)
        #expect(ask(setup, token: token, proof: proof(setup, nonce: demanded[2])).first == "200")
        #expect(ask(setup, token: token, proof: proof(setup)).first == "200")

        #expect(setup.runner.run(["refresh", "d"]).status == 0)
        let refreshed = setup.runner.run(["token", "d"]).stdout.trimmingCharacters(in: .newlines)
        #expect(refreshed != token && ask(setup, token: refreshed, proof: proof(setup)).first == "200")
        let revoke = setup.runner.run(["logout", "d", "--revoke"])
        #expect(revoke.status == 0, "stderr: \(revoke.stderr)")
    }

    @Test func proofsTheRFCRefusesAreRefused() throws {
        let setup = try FaultedSandbox([])
        #expect(setup.login(["google", "--dpop", "--session-key", "d"]).status == 0)
        let token = setup.runner.run(["token", "d"]).stdout.trimmingCharacters(in: .newlines)
        let good = proof(setup)
        #expect(ask(setup, token: token, proof: good).first == "200")
        // 11.1: a proof is used once.
        #expect(ask(setup, token: token, proof: good).first == "401")
        // 4.3 step 8: htm must be the request's method; step 9: htu its URL.
        #expect(ask(setup, token: token, proof: proof(setup, method: "POST")).first == "401")
        #expect(ask(setup, token: token, proof: proof(setup, url: "https://elsewhere.example/userinfo")).first == "401")
        // Step 6: a signature that does not verify.
        let fresh = proof(setup)
        var tampered = Array(fresh)
        // A symbol in the signature's middle (its last one holds padding bits), changed.
        let middle = tampered.count - 20
        tampered[middle] = tampered[middle] == "A" ? "B" : "A"
        #expect(ask(setup, token: token, proof: String(tampered)).first == "401")
        // A session signed in without DPoP has no key to prove with: one line, exit 1.
        #expect(setup.login(["google", "--session-key", "b"]).status == 0)
        let unbound = setup.runner.run(["dpop-proof", "b", "--method", "GET", "--url", userinfo(setup)])
        #expect(unbound.status == 1 && unbound.stderr.contains("has no DPoP key"))
    }
}
