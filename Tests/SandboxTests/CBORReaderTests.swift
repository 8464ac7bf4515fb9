import AuthCore
import AuthCrypto
import Foundation
import TestSupport
import Testing

@testable import Sandbox

/// The relying party's CBOR reader against python-fido2's encoder (`fido2.cbor.encode`, run through
/// Tests/Fixtures/webauthn_server.py): what fido2 writes reads back as the values given; indefinite lengths, tags,
/// floats, trailing bytes and lengths past the end are refused.
struct CBORReaderTests {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures/webauthn_server.py").path

    @Test func readsWhatFido2Writes() throws {
        let probe = try Program.run("/usr/bin/python3", ["-c", "import fido2.cbor"], quiet: true)
        guard probe.status == 0 else {
            try SecurityTestPrecondition.unavailable("python3-fido2 is not installed for /usr/bin/python3")
            return
        }
        let request = #"""
            {"values": [0, 23, 24, -1, -25, 65536, -70000, 4294967296, "fmt", "ünï", {"bytes": "AAE"},
                [1, "a", [2]], {"map": [[1, 2], [3, -7], [-1, 1], [-2, {"bytes": "AAEC"}]]},
                {"map": [["fmt", "none"], ["attStmt", {"map": []}], ["authData", {"bytes": "BQ"}]]}]}
            """#
        let output = try Program.run("/usr/bin/python3", [Self.script, "cbor", "unused"], stdin: request)
        let answer = try JSONValue.parse(Array(output.data))
        guard case .array(let encoded)? = answer["encoded"] else {
            Issue.record("no answer from fido2: \(output.text)")
            return
        }
        let items = try encoded.map { try CBORReader.item(Base64URL.decode($0.string ?? "") ?? []) }
        let expected: [CBORItem] = [
            .integer(0), .integer(23), .integer(24), .integer(-1), .integer(-25), .integer(65536), .integer(-70000),
            .integer(4_294_967_296), .text("fmt"), .text("ünï"), .bytes([0, 1]),
            .array([.integer(1), .text("a"), .array([.integer(2)])]),
            .map([
                (.integer(1), .integer(2)), (.integer(3), .integer(-7)), (.integer(-1), .integer(1)),
                (.integer(-2), .bytes([0, 1, 2])),
            ]),
            // fido2 writes map keys in canonical order: shorter first.
            .map([(.text("fmt"), .text("none")), (.text("attStmt"), .map([])), (.text("authData"), .bytes([5]))]),
        ]
        #expect(items == expected)
    }

    @Test func refusesWhatWebAuthnNeverSends() {
        let refused: [[UInt8]] = [
            [0x5f, 0x41, 0x00, 0xff],  // an indefinite-length byte string
            [0xc2, 0x41, 0x01],  // a tag
            [0xf9, 0x3c, 0x00],  // a half-precision float
            [0x01, 0x02],  // trailing bytes
            [0x43, 0x01],  // a byte string longer than what follows
            [0x9b, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff],  // an array longer than any input
            [0x1c],  // a reserved additional value
            [],
        ]
        for bytes in refused { #expect(throws: CBORReader.Malformed.self) { try CBORReader.item(bytes) } }
    }
}
