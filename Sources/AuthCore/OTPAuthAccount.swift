import Foundation

/// The account an `otpauth://` enrolment link names (`otpauth://totp/Issuer:ada%40example.com?secret=…`): how a
/// backend that otherwise knows a user only by an id (Portal's endUserId) says who signed in. Only the label is
/// read; the secret in the query is never looked at.
public enum OTPAuthAccount {
    /// The label's account part, percent-decoded, or nil when the link is not an otpauth one or names nobody
    /// readable (control characters, over 254 characters).
    public static func account(in link: String?) -> String? {
        guard let link, link.lowercased().hasPrefix("otpauth://") else { return nil }
        let afterScheme = link.dropFirst("otpauth://".count)
        guard let slash = afterScheme.firstIndex(of: "/") else { return nil }
        let path = afterScheme[afterScheme.index(after: slash)...].prefix { $0 != "?" && $0 != "#" }
        guard let label = String(path).removingPercentEncoding else { return nil }
        let account = (label.firstIndex(of: ":").map { label[label.index(after: $0)...] } ?? label[...])
            .trimmingCharacters(in: .whitespaces)
        guard !account.isEmpty, account.count <= 254,
            !account.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        else {
            return nil
        }
        return account
    }
}
