import AuthCore
import AuthCrypto
import Foundation

/// The users file: a JSON array of `{name, email?, phone?, totpSecret?, existing?}`, checked as a whole so a
/// typo is reported at start rather than as a puzzling refusal in the middle of a flow.
public enum SandboxUsers {
    /// Why a users file was refused; one line naming the entry.
    public struct Failure: Error, Sendable, CustomStringConvertible {
        public let description: String
    }

    /// The default users, the same list as Resources/sandbox-users.json (a test keeps the two equal), so the
    /// sandbox runs even where the resource folder is not installed.
    public static let builtInJSON = """
        [
          {"name": "ada", "email": "ada@example.com", "phone": "+15550100001", "existing": true},
          {"name": "bob", "phone": "+15550100002", "existing": true},
          {"name": "cleo", "email": "cleo@example.com", "existing": false},
          {"name": "dora", "email": "dora@example.com", "totpSecret": "JBSWY3DPEHPK3PXP", "existing": true}
        ]

        """

    public static var builtIn: [SandboxUser] {
        // The built-in list is a constant checked by the tests; failing here is a programming error.
        guard let users = try? decode(Array(builtInJSON.utf8)) else { fatalError("built-in sandbox users invalid") }
        return users
    }

    public static func load(path: String) throws(Failure) -> [SandboxUser] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw Failure(description: "cannot read the users file \(path)")
        }
        do throws(Failure) {
            return try decode(Array(data))
        } catch {
            throw Failure(description: "\(path): \(error.description)")
        }
    }

    /// Decodes and checks: unique non-empty names, valid email and E.164 phone, decodable TOTP seeds.
    /// Email (lower-cased) and phone (E.164) are normalised so lookups match what users type.
    public static func decode(_ bytes: [UInt8]) throws(Failure) -> [SandboxUser] {
        let decoded: [SandboxUser]
        do {
            decoded = try JSONDecoder().decode([SandboxUser].self, from: Data(bytes))
        } catch {
            throw Failure(description: "not a JSON array of users {name, email, phone, totpSecret, existing}")
        }
        var seen = Set<String>()
        var users: [SandboxUser] = []
        for (index, entry) in decoded.enumerated() {
            var user = entry
            let label = "user \(index + 1)"
            let allowed = user.name.unicodeScalars.allSatisfy {
                $0.properties.isAlphabetic || ("0"..."9").contains($0)
                    || $0 == "-" || $0 == "_" || $0 == "."
            }
            guard !user.name.isEmpty, user.name.count <= 64, allowed else {
                throw Failure(description: "\(label): name must be 1–64 letters, digits, '-', '_' or '.'")
            }
            guard seen.insert(user.name).inserted else {
                throw Failure(description: "\(label): the name '\(user.name)' is used twice")
            }
            if let email = user.email {
                guard let valid = try? Contact.validatedEmail(email) else {
                    throw Failure(description: "\(label) (\(user.name)): '\(email)' is not an email address")
                }
                // Lower-cased whole, so matching is case-insensitive as at real providers.
                user.email = valid.value.lowercased()
            }
            if let phone = user.phone {
                guard let valid = try? Contact.validatedPhone(phone) else {
                    throw Failure(description: "\(label) (\(user.name)): '\(phone)' is not an E.164 phone number")
                }
                user.phone = valid.value
            }
            if let secret = user.totpSecret {
                guard let seed = Base32.decode(secret), seed.count >= 10 else {
                    throw Failure(
                        description: "\(label) (\(user.name)): totpSecret must be base32 of "
                            + "10 bytes or more")
                }
            }
            users.append(user)
        }
        let emails = users.compactMap(\.email)
        let phones = users.compactMap(\.phone)
        guard Set(emails).count == emails.count, Set(phones).count == phones.count else {
            throw Failure(description: "two users share an email address or a phone number")
        }
        return users
    }
}
