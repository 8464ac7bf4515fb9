import AuthCore
import Foundation

/// Reads a file that holds a secret (a private key): like ssh with its keys, and as passphrase files are read, one
/// that other users may read is refused, not used.
enum OwnerOnlyFile {
    /// The file's bytes; `what` names it in the one-line errors ("the private key file").
    static func read(_ file: String, what: String, limit: Int = 65_536) throws(SignInError) -> [UInt8] {
        let path = (file as NSString).expandingTildeInPath
        let bytes: [UInt8]
        do {
            bytes = try SecretFile.read(path, subject: "the \(what) \(file)", regularOnly: true, limit: limit)
        } catch {
            throw .unavailable(reason: error.message)
        }
        guard !bytes.isEmpty else { throw .unavailable(reason: "the \(what) \(file) is empty") }
        return bytes
    }
}
