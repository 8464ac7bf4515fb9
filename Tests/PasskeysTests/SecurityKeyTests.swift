import Testing

@testable import Passkeys

/// The security-key path as far as a machine without one allows: libfido2 loads through the shim, its device
/// manifest answers (empty here unless a key is plugged in), and with no key the one-line refusal names the fix.
/// makeCredential and getAssertion need a key to touch and are not run here.
struct SecurityKeyTests {
    @Test func libfido2LoadsAndListsDevices() throws {
        let library = try SecurityKey.shared.get()
        let devices = try library.devices()
        guard devices.isEmpty else {
            print("skipped: a security key is plugged in (\(devices[0].product)); the none-present line is not checked")
            return
        }
        let refusal = #expect(throws: PasskeyError.self) { try library.firstDevice() }
        #expect(refusal?.description == "no FIDO2 security key is plugged in; plug one in or use --passkey software")
    }

    /// libfido2 hands an assertion's authenticator data as the CBOR byte string CTAP2 sent (RFC 8949 major type 2).
    @Test func authenticatorDataIsUnwrappedFromItsByteString() {
        let data = [UInt8](repeating: 0x5a, count: 37)
        #expect(SecurityKey.unwrapByteString([0x58, 37] + data) == data)
        #expect(SecurityKey.unwrapByteString([0x43, 1, 2, 3]) == [1, 2, 3])
        #expect(SecurityKey.unwrapByteString([0x59, 0, 37] + data) == data)
        #expect(SecurityKey.unwrapByteString([0x58, 38] + data) == nil)
        #expect(SecurityKey.unwrapByteString([0x78, 37] + data) == nil)
        #expect(SecurityKey.unwrapByteString([]) == nil)
    }
}
