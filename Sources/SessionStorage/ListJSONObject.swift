import AuthCore
import Foundation

/// The fields of one `list --json` object (SPEC section 5), written in this one place for every caller: `list
/// --json` straight from SQLite rows (text as the rows' UTF-8 bytes, no String made), and `SessionJSON` from a
/// `StoreEntry` (`login --json`, export lines).
struct ListJSONObject {
    /// A text field: bytes of an SQLite column (valid until its next step), or a String.
    enum Text {
        case bytes(UnsafeBufferPointer<UInt8>?)
        case string(String?)
    }

    var key: Text, backend: Text, provider: Text, subject: Text, email: Text, phone: Text, issuer: Text
    var createdAt: Double
    var expiresAt: Double?
    var refreshable: Bool
    var selected: Bool

    /// key, backend, provider, subject, email, phone, issuer, createdAt, expiresAt, status, refreshable,
    /// selected, without the braces.
    func appendFields(now: Date, to buffer: inout JSONBuffer) {
        func text(_ value: Text) {
            switch value {
            case .bytes(let bytes): buffer.string(utf8: bytes)
            case .string(let string): buffer.string(string)
            }
        }
        buffer.raw("\"key\":")
        text(key)
        buffer.raw(",\"backend\":")
        text(backend)
        buffer.raw(",\"provider\":")
        text(provider)
        buffer.raw(",\"subject\":")
        text(subject)
        buffer.raw(",\"email\":")
        text(email)
        buffer.raw(",\"phone\":")
        text(phone)
        buffer.raw(",\"issuer\":")
        text(issuer)
        buffer.raw(",\"createdAt\":")
        buffer.date(seconds: createdAt)
        buffer.raw(",\"expiresAt\":")
        buffer.date(seconds: expiresAt)
        switch SessionStatus(expiresAt: expiresAt.map { Date(timeIntervalSince1970: $0) }, now: now) {
        case .active: buffer.raw(",\"status\":\"active\"")
        case .expiring: buffer.raw(",\"status\":\"expiring\"")
        case .expired: buffer.raw(",\"status\":\"expired\"")
        }
        buffer.raw(",\"refreshable\":")
        buffer.bool(refreshable)
        buffer.raw(",\"selected\":")
        buffer.bool(selected)
    }
}
