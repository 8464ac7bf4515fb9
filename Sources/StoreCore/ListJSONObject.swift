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
    /// selected, without the braces; the status as `SessionStatus` says at `now`. Room is made once for the whole
    /// object: the names and other literals take 151 bytes, two dates 44, and each text field its worst case.
    package func appendFields(now: Double, to buffer: inout JSONBuffer) {
        let start = buffer.count
        defer { buffer.escapeHiddenCharacters(from: start) }
        let room =
            200 + Self.room(key) + Self.room(backend) + Self.room(provider) + Self.room(subject) + Self.room(email)
            + Self.room(phone) + Self.room(issuer)
        buffer.write(atMost: room) { cursor in
            Self.write("\"key\":", key, to: &cursor)
            Self.write(",\"backend\":", backend, to: &cursor)
            Self.write(",\"provider\":", provider, to: &cursor)
            Self.write(",\"subject\":", subject, to: &cursor)
            Self.write(",\"email\":", email, to: &cursor)
            Self.write(",\"phone\":", phone, to: &cursor)
            Self.write(",\"issuer\":", issuer, to: &cursor)
            cursor.raw(",\"createdAt\":")
            cursor.date(seconds: createdAt)
            cursor.raw(",\"expiresAt\":")
            cursor.date(seconds: expiresAt)
            switch SessionStatus(expiresAt: expiresAt, now: now) {
            case .active: cursor.raw(",\"status\":\"active\",\"refreshable\":")
            case .expiring: cursor.raw(",\"status\":\"expiring\",\"refreshable\":")
            case .expired: cursor.raw(",\"status\":\"expired\",\"refreshable\":")
            }
            cursor.bool(refreshable)
            cursor.raw(selected ? ",\"selected\":true" : ",\"selected\":false")
        }
    }

    private static func room(_ text: Text) -> Int {
        switch text {
        case .bytes(let bytes): JSONCursor.room(utf8: bytes?.count ?? 0)
        case .string(let string): JSONCursor.room(utf8: string?.utf8.count ?? 0)
        }
    }

    /// `name` (the comma, the quoted name and the colon) and then the text as a JSON string or null.
    private static func write(_ name: StaticString, _ text: Text, to cursor: inout JSONCursor) {
        cursor.raw(name)
        switch text {
        case .bytes(let bytes): cursor.string(utf8: bytes)
        case .string(let string): cursor.string(string)
        }
    }
}
