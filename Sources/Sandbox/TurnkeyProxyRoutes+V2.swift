import AuthCore
import AuthCrypto
import Foundation

/// The v2 code routes, as tkhq/sdk's swagger and tkhq/swift-sdk's `HpkeHelpers` describe them: `otp_init_v2`
/// answers a bundle signed by the proxy's signer (`enclaveQuorumPublic`, `dataSignature` DER over SHA-256 of the
/// `data` bytes, `data` hex of `{"targetPublic"}`); `otp_verify_v2` takes the code and the key to bind, HPKE-sealed
/// to that target (info `turnkey_hpke`, associated data the encapsulated key then the target key), and answers as
/// `otp_verify` does; `otp_login_v2` needs a bound token and its clientSignature.
extension TurnkeyProxyRoutes {
    func otpInitV2(_ body: [String: Any]) throws(ProxyError) -> [String: Any] {
        var answer = try otpInit(body)
        guard let otpID = answer["otpId"] as? String else { throw .internal("otp_init answered no otpId") }
        let target: P256PrivateKey
        let bundle: String
        do {
            target = try P256PrivateKey()
            let data = JSONText.encode(["targetPublic": Hex.encode(target.publicKey.x963Representation)])
            let signature = try context.keys.otpSigner.derSignature(for: data)
            bundle = String(
                decoding: JSONText.encode([
                    "enclaveQuorumPublic": context.keys.otpSignerPublicKeyHex, "dataSignature": Hex.encode(signature),
                    "data": Hex.encode(data),
                ]), as: UTF8.self)
        } catch {
            throw .internal("the sandbox could not make an encryption target")
        }
        state.withLock { $0.codes[otpID]?.target = target }
        answer["otpEncryptionTargetBundle"] = bundle
        return answer
    }

    func otpVerifyV2(_ body: [String: Any]) throws(ProxyError) -> [String: Any] {
        let otpID = try Self.required(body, "otpId")
        let sealedText = try Self.required(body, "encryptedOtpBundle")
        guard let target = state.withLock({ $0.codes[otpID]?.target }) else {
            throw .notFound("unknown otpId")
        }
        guard let sealed = JSONText.object(Array(sealedText.utf8)),
            let enc = (sealed["encappedPublic"] as? String).flatMap({ Hex.decode($0.lowercased()) }),
            let ciphertext = (sealed["ciphertext"] as? String).flatMap({ Hex.decode($0.lowercased()) })
        else {
            throw .invalidArgument("encryptedOtpBundle must be {\"encappedPublic\", \"ciphertext\"} in hex")
        }
        let opened: [UInt8]
        do {
            opened = try HPKE.open(
                HPKE.Sealed(encapsulatedKey: enc, ciphertext: ciphertext), recipient: target,
                info: Array("turnkey_hpke".utf8),
                associatedData: enc + target.publicKey.x963Representation)
        } catch {
            throw .invalidArgument("encryptedOtpBundle cannot be decrypted with this otpId's target key")
        }
        guard let inner = JSONText.object(opened), let code = inner["otp_code"] as? String,
            let publicKey = inner["public_key"] as? String
        else {
            throw .invalidArgument("the encrypted bundle must hold otp_code and public_key")
        }
        return try otpVerify(["otpId": otpID, "otpCode": code, "publicKey": publicKey])
    }

    func otpLoginV2(_ body: [String: Any]) throws(ProxyError) -> [String: Any] {
        let verified = try verifiedVerificationToken(try Self.required(body, "verificationToken"))
        guard verified.publicKey != nil else {
            throw .unauthenticated("otp_login_v2 needs a verificationToken bound to a public key")
        }
        return try otpLogin(body)
    }
}
