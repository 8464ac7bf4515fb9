import AuthCrypto

/// The `X-Stamp` header Turnkey's API wants on each request, in the format of tkhq/sdk's api-key-stamper:
/// base64url (no padding) of the JSON `{"publicKey": compressed P-256 key in hex, "scheme":
/// "SIGNATURE_SCHEME_TK_API_P256", "signature": DER ECDSA-SHA256 signature of the body in hex}`.
enum TurnkeyStamp {
    static let headerName = "X-Stamp"
    static let scheme = "SIGNATURE_SCHEME_TK_API_P256"

    /// The header value for `body`, signed with the session key given as 64 hex characters.
    static func value(body: [UInt8], privateKeyHex: String) throws(CommandFailure) -> String {
        guard let scalar = Hex.decode(privateKeyHex), scalar.count == 32 else {
            throw CommandFailure(.failed, "the session's P-256 key is damaged")
        }
        do throws(CryptoError) {
            let key = try P256PrivateKey(rawRepresentation: scalar)
            let signature = try key.derSignature(for: body)
            let json =
                "{\"publicKey\":\"\(key.publicKey.compressedHex)\",\"scheme\":\"\(scheme)\","
                + "\"signature\":\"\(Hex.encode(signature))\"}"
            return Base64URL.encode(Array(json.utf8))
        } catch {
            throw CommandFailure(.failed, "cannot sign with the session's P-256 key")
        }
    }
}
