import AuthCore
import Foundation
import TestSupport

/// Yubico's python-fido2 relying party (`Tests/Fixtures/webauthn_server.py`), one ceremony step per run: the
/// counterpart that checks what the authenticator answers. Debian's python3-fido2 is imported, so the script runs
/// with /usr/bin/python3; without it, `available` says why.
enum FidoServerPeer {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures/webauthn_server.py").path

    /// Nil when python-fido2 can be imported, else why not.
    static let unavailableReason: String? = {
        guard let output = try? Program.run("/usr/bin/python3", ["-c", "import fido2.server"], quiet: true),
            output.status == 0
        else { return "python3-fido2 is not installed for /usr/bin/python3 (apt-get install python3-fido2)" }
        return nil
    }()

    struct Refused: Error, CustomStringConvertible {
        let description: String
    }

    /// Runs `step` with `request`; a refusal (exit status 1) throws with the server's words.
    static func run(_ step: String, rpID: String, attestation: String? = nil, _ request: JSONValue) throws -> JSONValue
    {
        let input = String(decoding: try JSONEncoder().encode(request), as: UTF8.self)
        let output = try Program.run(
            "/usr/bin/python3", [script, step, rpID] + (attestation.map { [$0] } ?? []), stdin: input)
        let answer = try JSONValue.parse(output.data.isEmpty ? Array("{}".utf8) : Array(output.data))
        guard output.status == 0 else {
            throw Refused(description: answer["error"]?.string ?? "the fido2 server failed (status \(output.status))")
        }
        return answer
    }

    static func text(_ value: JSONValue?) throws -> [UInt8] {
        guard let value else { throw Refused(description: "missing member") }
        return Array(try JSONEncoder().encode(value))
    }
}
