import AuthCore
import AuthCrypto
import Foundation
import TestSupport
import Testing

@testable import Passkeys

/// The CBOR encoder byte for byte against python-fido2's own (`fido2.cbor.encode`), which sorts map keys in CTAP2's
/// canonical order: the integers at every head width, strings, arrays, a COSE key and an attestation object's map.
struct CBORTests {
    @Test func encodesAsFido2Does() throws {
        if let reason = FidoServerPeer.unavailableReason {
            try SecurityTestPrecondition.unavailable(reason)
            return
        }
        let key = try P256PrivateKey(rawRepresentation: [UInt8](repeating: 0, count: 31) + [1]).publicKey
        let point = key.x963Representation
        let cases: [(CBOR, JSONValue)] = [
            (.integer(0), .number(0)), (.integer(23), .number(23)), (.integer(24), .number(24)),
            (.integer(-1), .number(-1)), (.integer(-24), .number(-24)), (.integer(-25), .number(-25)),
            (.integer(255), .number(255)), (.integer(256), .number(256)), (.integer(-70000), .number(-70000)),
            (.integer(65536), .number(65536)), (.integer(4_294_967_296), .number(4_294_967_296)),
            (.text("fmt"), .string("fmt")), (.text("ünï"), .string("ünï")),
            (.bytes([]), .object(["bytes": .string("")])),
            (
                .bytes(Array(repeating: 0xab, count: 300)),
                .object(["bytes": .string(Base64URL.encode(Array(repeating: 0xab, count: 300)))])
            ),
            (.array([.integer(1), .text("a")]), .array([.number(1), .string("a")])),
            (
                AuthenticatorData.coseKey(key),
                .object([
                    "map": .array([
                        .array([.number(1), .number(2)]), .array([.number(3), .number(-7)]),
                        .array([.number(-1), .number(1)]),
                        .array([.number(-2), .object(["bytes": .string(Base64URL.encode(Array(point[1...32])))])]),
                        .array([.number(-3), .object(["bytes": .string(Base64URL.encode(Array(point[33...64])))])]),
                    ])
                ])
            ),
            (
                .map([
                    (.text("fmt"), .text("none")), (.text("attStmt"), .map([])), (.text("authData"), .bytes([1, 2])),
                ]),
                .object([
                    "map": .array([
                        .array([.string("authData"), .object(["bytes": .string("AQI")])]),
                        .array([.string("attStmt"), .object(["map": .array([])])]),
                        .array([.string("fmt"), .string("none")]),
                    ])
                ])
            ),
        ]
        let answer = try FidoServerPeer.run("cbor", rpID: "unused", .object(["values": .array(cases.map(\.1))]))
        let expected = answer["encoded"]?.arrayValue?.compactMap(\.string) ?? []
        #expect(expected.count == cases.count)
        for (index, (value, _)) in cases.enumerated() where index < expected.count {
            #expect(Base64URL.encode(value.encoded) == expected[index], "case \(index)")
        }
    }
}
