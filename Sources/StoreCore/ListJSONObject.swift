import AuthBase

/// The fields of one `list --json` object (SPEC section 5), written in this one place for every caller: `ListJSON`
/// straight from SQLite rows (text as the rows' UTF-8 bytes, no String made) for both binaries, and `SessionJSON`
/// from a `StoreEntry` (`login --json`, export lines).
package struct ListJSONObject {
    /// A text field: bytes of an SQLite column (valid until its next step), or a String.
    package enum Text {
        case bytes(UnsafeBufferPointer<UInt8>?)
        case string(String?)
    }

    package var key: Text, backend: Text, provider: Text, subject: Text, email: Text, phone: Text, issuer: Text
    /// Seconds since 1970, as are `expiresAt` (nil: never) and `now`.
    package var createdAt: Double
    package var expiresAt: Double?
    package var refreshable: Bool
    package var selected: Bool

    package init(
        key: Text, backend: Text, provider: Text, subject: Text, email: Text, phone: Text, issuer: Text,
        createdAt: Double, expiresAt: Double?, refreshable: Bool, selected: Bool
    ) {
        self.key = key
        self.backend = backend
        self.provider = provider
        self.subject = subject
        self.email = email
        self.phone = phone
        self.issuer = issuer
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.refreshable = refreshable
        self.selected = selected
    }

    /// key, backend, provider, subject, email, phone, issuer, createdAt, expiresAt, status, refreshable,
    /// selected, without the braces; the status as `SessionStatus` says at `now`.
    package func appendFields(now: Double, to buffer: inout JSONBuffer) {
        buffer.raw("\"key\":")
        Self.append(key, to: &buffer)
        buffer.raw(",\"backend\":")
        Self.append(backend, to: &buffer)
        buffer.raw(",\"provider\":")
        Self.append(provider, to: &buffer)
        buffer.raw(",\"subject\":")
        Self.append(subject, to: &buffer)
        buffer.raw(",\"email\":")
        Self.append(email, to: &buffer)
        buffer.raw(",\"phone\":")
        Self.append(phone, to: &buffer)
        buffer.raw(",\"issuer\":")
        Self.append(issuer, to: &buffer)
        buffer.raw(",\"createdAt\":")
        buffer.date(seconds: createdAt)
        buffer.raw(",\"expiresAt\":")
        buffer.date(seconds: expiresAt)
        switch SessionStatus(expiresAt: expiresAt, now: now) {
        case .active: buffer.raw(",\"status\":\"active\",\"refreshable\":")
        case .expiring: buffer.raw(",\"status\":\"expiring\",\"refreshable\":")
        case .expired: buffer.raw(",\"status\":\"expired\",\"refreshable\":")
        }
        buffer.bool(refreshable)
        buffer.raw(selected ? ",\"selected\":true" : ",\"selected\":false")
    }

    private static func append(_ text: Text, to buffer: inout JSONBuffer) {
        switch text {
        case .bytes(let bytes): buffer.string(utf8: bytes)
        case .string(let string): buffer.string(string)
        }
    }
}
