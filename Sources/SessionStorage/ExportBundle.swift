import AuthCrypto
import Foundation

/// An encrypted export of sessions that `store import` reads on another machine: one JSON line holding the scrypt
/// parameters, the salt and an AES-256-GCM box of the sessions' import lines, under the bundle's own passphrase
/// (never the store's master key, which does not travel).
public enum ExportBundle {
    static let format = "authdeck-export"
    static let associatedData = Array("authdeck-export-v1".utf8)

    /// Seals `lines` (import lines, newline-separated) under `passphrase`.
    public static func seal(
        _ lines: [UInt8], passphrase: [UInt8],
        parameters: ScryptParameters = .interactive
    ) throws(StoreError) -> [UInt8] {
        do {
            let salt = try SecureRandom.bytes(16)
            let key = try Scrypt.deriveKey(password: passphrase, salt: salt, parameters: parameters, length: 32)
            let sealed = try AESGCM.seal(lines, key: key, associatedData: associatedData)
            let header =
                "{\"format\":\"\(format)\",\"version\":1,\"kdf\":\"scrypt\",\"n\":\(parameters.n),"
                + "\"r\":\(parameters.r),\"p\":\(parameters.p),\"salt\":\"\(Base64URL.encode(salt))\","
                + "\"sealed\":\"\(Base64URL.encode(sealed))\"}\n"
            return Array(header.utf8)
        } catch {
            throw .storage("cannot seal the bundle: \(error)")
        }
    }

    /// Whether `bytes` look like a bundle rather than import lines.
    public static func isBundle(_ bytes: [UInt8]) -> Bool {
        guard let start = bytes.firstIndex(where: { $0 != 0x20 && $0 != 0x0a && $0 != 0x0d && $0 != 0x09 }) else {
            return false
        }
        let head = String(decoding: bytes[start..<min(bytes.count, start + 64)], as: UTF8.self)
        return head.replacingOccurrences(of: " ", with: "").hasPrefix("{\"format\":\"\(format)\"")
    }

    /// The import lines inside a bundle. A wrong passphrase and a damaged bundle look the same to AES-GCM.
    public static func open(_ bytes: [UInt8], passphrase: [UInt8]) throws(StoreError) -> [UInt8] {
        guard let object = (try? JSONSerialization.jsonObject(with: Data(bytes))) as? [String: Any],
            object["format"] as? String == format, object["version"] as? Int == 1,
            // r and p are 32-bit in scrypt; a larger value must be refused here, not trap in the conversion
            // (found by `make fuzz`).
            let n = object["n"] as? Int, let r = (object["r"] as? Int).flatMap(UInt32.init(exactly:)),
            let p = (object["p"] as? Int).flatMap(UInt32.init(exactly:)),
            n > 1, r > 0, p > 0,
            let salt = (object["salt"] as? String).flatMap(Base64URL.decode),
            let sealed = (object["sealed"] as? String).flatMap(Base64URL.decode)
        else {
            throw .invalidInput("the export bundle is malformed")
        }
        let parameters = ScryptParameters(n: UInt64(n), r: r, p: p)
        let key: [UInt8]
        do {
            key = try Scrypt.deriveKey(password: passphrase, salt: salt, parameters: parameters, length: 32)
        } catch {
            throw .invalidInput("the export bundle has unusable scrypt parameters")
        }
        do {
            return try AESGCM.open(sealed, key: key, associatedData: associatedData)
        } catch {
            throw .invalidInput("wrong bundle passphrase, or the bundle is damaged")
        }
    }
}
