import AuthCrypto
import Foundation

/// The sandbox's data folder: its signing keys and what it handed out that outlives a request (OIDC access and
/// refresh tokens with their grants, proxy accounts made by sign-ups), so a sandbox started again on the same
/// folder still honours yesterday's sessions. Files are JSON, mode 0600, replaced whole through a temporary file.
/// Test tokens and test keys only: the sandbox is loopback-only and marked, and real backends refuse it.
public struct SandboxDataFolder: Sendable {
    public let path: String

    public init(path: String) {
        self.path = path
    }

    var keysFile: String { path + "/keys.json" }
    var grantsFile: String { path + "/oidc-grants.json" }
    var accountsFile: String { path + "/proxy-accounts.json" }

    /// The keys kept in the folder, or new ones written there when it has none. A keys file that cannot be read
    /// is an error rather than silently replaced: replacing it would orphan every session it signed.
    public func keys() throws(SandboxServer.Failure) -> SandboxKeys {
        if FileManager.default.fileExists(atPath: keysFile) {
            guard let object = read(keysFile), let es256 = object["es256"] as? String,
                let rs256 = object["rs256"] as? String,
                let keys = try? SandboxKeys(es256: JWK(json: es256), rs256: JWK(json: rs256))
            else {
                throw SandboxServer.Failure(
                    description: "\(keysFile) is not a sandbox keys file; move it away to "
                        + "start with new keys")
            }
            return keys
        }
        do {
            let keys = try SandboxKeys()
            try write(["es256": try keys.es256.privateJSON(), "rs256": try keys.rs256.privateJSON()], to: keysFile)
            return keys
        } catch let error as SandboxServer.Failure {
            throw error
        } catch {
            throw SandboxServer.Failure(description: "cannot make signing keys: \(error)")
        }
    }

    /// One saved JSON object, nil when the file is absent or not an object.
    func read(_ file: String) -> [String: Any]? {
        guard let data = FileManager.default.contents(atPath: file) else { return nil }
        return JSONText.object(Array(data))
    }

    /// Best effort for the state files (a full disk must not take the sandbox down); the keys file throws.
    func write(_ object: [String: Any], to file: String) throws(SandboxServer.Failure) {
        do {
            try FileManager.default.createDirectory(
                atPath: path, withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700])
            let temporary = file + ".tmp"
            guard
                FileManager.default.createFile(
                    atPath: temporary, contents: Data(JSONText.encode(object)),
                    attributes: [.posixPermissions: 0o600])
            else {
                throw SandboxServer.Failure(description: "cannot write \(temporary)")
            }
            guard rename(temporary, file) == 0 else {
                throw SandboxServer.Failure(description: "cannot replace \(file)")
            }
        } catch let error as SandboxServer.Failure {
            throw error
        } catch {
            throw SandboxServer.Failure(description: "cannot write \(file): \(error.localizedDescription)")
        }
    }

    func save(_ object: [String: Any], to file: String) {
        try? write(object, to: file)
    }
}
