import AuthCore
import AuthCrypto
import CJansson
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Sessions as JSON text: the `list --json` object (exactly the fields of SPEC section 5) and the import/export
/// line, which adds the secrets. Written by hand: `list --json` over 100,000 sessions must stay well under
/// 300 ms, and a coder per object would not.
public enum SessionJSON {
    /// The `list --json` fields in order: key, backend, provider, subject, email, phone, issuer, createdAt,
    /// expiresAt, status, refreshable, selected.
    public static func listObject(_ entry: StoreEntry, now: Date) -> String {
        var buffer = JSONBuffer(capacity: 320)
        buffer.raw("{")
        appendListFields(entry, now: now, to: &buffer)
        buffer.raw("}")
        return buffer.text
    }

    /// An array of `listObject`s, one per line.
    public static func listArray(_ entries: [StoreEntry], now: Date) -> String {
        guard !entries.isEmpty else { return "[]\n" }
        var buffer = JSONBuffer(capacity: entries.count * 320)
        buffer.raw("[\n")
        for (index, entry) in entries.enumerated() {
            buffer.raw("  {")
            appendListFields(entry, now: now, to: &buffer)
            buffer.raw(index == entries.count - 1 ? "}\n" : "},\n")
        }
        buffer.raw("]\n")
        return buffer.text
    }

    /// One import/export line: the list fields, then displayName, scopes, autoRefresh and the secrets that are set.
    public static func transferLine(_ session: Session, selected: Bool, now: Date) -> String {
        let entry = StoreEntry(
            record: session.record, isSelected: selected,
            refreshExpiresAt: session.secrets.refreshExpiresAt)
        var buffer = JSONBuffer(capacity: 1024)
        buffer.raw("{")
        appendListFields(entry, now: now, to: &buffer)
        let record = session.record
        let secrets = session.secrets
        buffer.raw(",\"displayName\":")
        buffer.string(record.displayName)
        buffer.raw(",\"scopes\":[")
        for (index, scope) in record.scopes.enumerated() {
            if index > 0 { buffer.raw(",") }
            buffer.string(scope)
        }
        buffer.raw("],\"autoRefresh\":")
        buffer.bool(record.autoRefresh)
        buffer.strings(
            [
                (",\"accessToken\":", secrets.accessToken), (",\"refreshToken\":", secrets.refreshToken),
                (",\"idToken\":", secrets.idToken), (",\"sessionJwt\":", secrets.sessionJwt),
                (",\"privateKeyHex\":", secrets.privateKeyHex), (",\"dpopKeyHex\":", secrets.dpopKeyHex),
                (",\"dpopNonce\":", secrets.dpopNonce), (",\"tokenType\":", secrets.tokenType),
                (",\"browser\":", secrets.browser),
            ], skippingUnset: true)
        if let refreshExpiresAt = secrets.refreshExpiresAt {
            buffer.raw(",\"refreshExpiresAt\":")
            buffer.date(refreshExpiresAt)
        }
        if let endpoints = secrets.endpoints {
            // Where the session is refreshed, revoked and checked: without it an imported session cannot refresh. Never
            // the client secret file: the importing machine's config.json gives the client secret, for its issuer.
            buffer.strings([
                (",\"endpoints\":{\"clientID\":", endpoints.clientID), (",\"token\":", endpoints.token),
                (",\"revocation\":", endpoints.revocation), (",\"user\":", endpoints.user),
                (",\"tokenAuthMethod\":", endpoints.tokenAuthMethod),
                (",\"revocationAuthMethod\":", endpoints.revocationAuthMethod),
            ])
            buffer.raw("}")
        }
        if let portal = secrets.portalClient {
            buffer.raw(",\"portalClient\":{\"clientID\":")
            buffer.string(portal.clientID)
            buffer.raw(",\"isAccountAbstracted\":")
            if let abstracted = portal.isAccountAbstracted { buffer.bool(abstracted) } else { buffer.raw("null") }
            buffer.raw("}")
        }
        if let passkey = secrets.passkey {
            // A software passkey's key travels as the session keys do: only in an export, which is encrypted.
            buffer.strings([
                (",\"passkey\":{\"kind\":", passkey.kind.rawValue), (",\"relyingPartyID\":", passkey.relyingPartyID),
                (",\"credentialID\":", passkey.credentialID), (",\"userHandle\":", passkey.userHandle),
                (",\"userName\":", passkey.userName),
            ])
            buffer.strings([(",\"privateKeyHex\":", passkey.privateKeyHex)], skippingUnset: true)
            buffer.raw(",\"signCount\":")
            Array(String(passkey.signCount).utf8).withUnsafeBufferPointer { buffer.raw($0) }
            buffer.raw("}")
        }
        buffer.raw("}")
        return buffer.text
    }

    /// A test account's TOTP seed as an export line: `{"totpSeed":{user, secret (base32), algorithm, digits, period,
    /// createdAt}}`, so `store import` on another machine gets the seeds back with the sessions.
    public static func seedLine(_ seed: TestAccountSeed) -> String {
        var buffer = JSONBuffer(capacity: 256)
        buffer.raw("{\"totpSeed\":{\"user\":")
        buffer.string(seed.user)
        buffer.raw(",\"secret\":")
        buffer.string(Base32.encode(seed.secret))
        buffer.raw(",\"algorithm\":")
        buffer.string(seed.algorithm.rawValue)
        buffer.raw(",\"digits\":")
        buffer.string(String(seed.digits))
        buffer.raw(",\"period\":")
        buffer.string(String(seed.period))
        buffer.raw(",\"createdAt\":")
        buffer.date(seed.createdAt)
        buffer.raw("}}")
        return buffer.text
    }

    /// What `token --json` prints: the key, the token and its expiry.
    public static func tokenObject(key: String, token: String, expiresAt: Date?) -> String {
        CachedToken(key: key, token: token, expiresAt: expiresAt?.timeIntervalSince1970).json
    }

    /// What an import file or export bundle holds: sessions, test-account seeds, and which session was selected.
    public struct Transfer: Sendable {
        public var sessions: [Session] = []
        public var seeds: [TestAccountSeed] = []
        /// The key of the line marked `"selected": true`, if any.
        public var selectedKey: String?
        /// The keys of sessions whose line named a client secret (a file, or a method that sends one): imports never
        /// follow a secret file, so these refresh only with the client this machine's config.json has for their
        /// issuer.
        public var needingLocalClient: [String] = []
    }

    /// The longest import line, and the most an import (file or standard input) may hold: 100,000 sessions take
    /// about 45 MB.
    public static let maximumLineBytes = 1 << 20
    public static let maximumImportBytes = 256 << 20

    /// Parses import lines (blank lines skipped). Errors name the line, never its content: it may hold a token.
    public static func parseLines(_ bytes: [UInt8]) throws(StoreError) -> [Session] {
        try parseTransfer(bytes).sessions
    }

    /// Parses session lines and `totpSeed` lines. Each line is parsed by jansson and read in place (see
    /// `JSONLineValue`); a line that is not one JSON object (RFC 8259; a UTF-8 byte order mark before it is
    /// skipped, as Foundation skipped it) is refused with its number.
    public static func parseTransfer(_ bytes: [UInt8]) throws(StoreError) -> Transfer {
        try bytes.withUnsafeBufferPointer { (all) throws(StoreError) -> Transfer in
            var transfer = Transfer()
            var lines: [String: Int] = [:]
            var selectedLine: Int?
            var lineNumber = 0
            var start = 0
            // As `split(separator:omittingEmptySubsequences: false)` numbered them: the text after the last newline
            // is a line too (blank, when the input ends with one).
            while start <= all.count {
                let end =
                    all.count == start
                    ? start
                    : memchr(all.baseAddress! + start, 0x0A, all.count - start).map {
                        all.baseAddress!.distance(to: $0.assumingMemoryBound(to: UInt8.self))
                    } ?? all.count
                lineNumber += 1
                defer { start = end + 1 }
                if end - start > maximumLineBytes {
                    throw .invalidInput("line \(lineNumber): longer than \(maximumLineBytes >> 20) MiB")
                }
                if all[start..<end].allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0d }) { continue }
                var first = start
                if end - first >= 3, all[first] == 0xEF, all[first + 1] == 0xBB, all[first + 2] == 0xBF { first += 3 }
                var error = json_error_t()
                let text = UnsafeRawPointer(all.baseAddress! + first).assumingMemoryBound(to: CChar.self)
                guard let root = json_loadb(text, end - first, Int(JSON_ALLOW_NUL | JSON_DECODE_INT_AS_REAL), &error)
                else {
                    throw .invalidInput("line \(lineNumber): not a JSON object")
                }
                defer { cjansson_decref(root) }
                let object = JSONLineValue(pointer: root)
                guard object.isObject else { throw .invalidInput("line \(lineNumber): not a JSON object") }
                if let seed = object.member("totpSeed") {
                    transfer.seeds.append(try parseSeed(seed, number: lineNumber))
                    continue
                }
                let session = try parseLine(object, number: lineNumber)
                let key = session.record.key
                if let first = lines[key] {
                    throw .invalidInput(
                        "lines \(first) and \(lineNumber) both hold session '\(key)'; nothing was imported")
                }
                lines[key] = lineNumber
                if object.member("selected")?.bool == true {
                    if let first = selectedLine {
                        throw .invalidInput(
                            "lines \(first) and \(lineNumber) are both marked selected; nothing was imported")
                    }
                    selectedLine = lineNumber
                    transfer.selectedKey = key
                }
                if namesClientSecret(object.member("endpoints")) { transfer.needingLocalClient.append(key) }
                transfer.sessions.append(session)
            }
            return transfer
        }
    }

    private static func parseSeed(_ object: JSONLineValue, number: Int) throws(StoreError) -> TestAccountSeed {
        // A field of the wrong type reads as absent, as the casts of the Foundation reader did.
        func text(_ name: StaticString) -> String? { object.member(name)?.string }
        guard object.isObject, let user = text("user"), !user.isEmpty,
            let secret = text("secret").flatMap(Base32.decode), !secret.isEmpty,
            let algorithm = TOTP.Algorithm(rawValue: text("algorithm") ?? "SHA1"),
            let digits = Int(text("digits") ?? "6"), let period = Int(text("period") ?? "30")
        else {
            throw .invalidInput("line \(number): 'totpSeed' needs user, a base32 secret, algorithm, digits and period")
        }
        let created = text("createdAt").flatMap(parseISO8601) ?? Date()
        return TestAccountSeed(
            user: user, secret: secret, algorithm: algorithm, digits: digits, period: period,
            createdAt: created)
    }

    static func parseLine(_ object: JSONLineValue, number: Int) throws(StoreError) -> Session {
        func string(_ name: StaticString, required: Bool = false) throws(StoreError) -> String? {
            guard let value = object.member(name), !value.isNull else {
                if required { throw .invalidInput("line \(number): '\(name)' is missing") }
                return nil
            }
            guard let text = value.string else { throw .invalidInput("line \(number): '\(name)' must be a string") }
            return text
        }
        func date(_ name: StaticString, required: Bool = false) throws(StoreError) -> Date? {
            guard let text = try string(name, required: required) else { return nil }
            guard let value = parseISO8601(text) else {
                throw .invalidInput("line \(number): '\(name)' is not an ISO 8601 date")
            }
            return value
        }
        func bool(_ name: StaticString) throws(StoreError) -> Bool? {
            guard let value = object.member(name), !value.isNull else { return nil }
            guard let flag = value.bool else { throw .invalidInput("line \(number): '\(name)' must be true or false") }
            return flag
        }
        guard let key = try string("key", required: true) else {
            throw .invalidInput("line \(number): 'key' must not be empty")
        }
        if let problem = SessionKeyRule.problem(key) { throw .invalidKey("line \(number): \(problem)") }
        var secrets = SessionSecrets(
            accessToken: try string("accessToken"), refreshToken: try string("refreshToken"),
            idToken: try string("idToken"), sessionJwt: try string("sessionJwt"),
            privateKeyHex: try string("privateKeyHex"), refreshExpiresAt: try date("refreshExpiresAt"),
            endpoints: try endpoints(object.member("endpoints"), number: number))
        secrets.portalClient = try portalClient(object.member("portalClient"), number: number)
        secrets.dpopKeyHex = try string("dpopKeyHex")
        secrets.dpopNonce = try string("dpopNonce")
        secrets.tokenType = try string("tokenType")
        secrets.browser = try string("browser")
        secrets.passkey = try passkey(object.member("passkey"), number: number)
        if let key = secrets.dpopKeyHex, key.utf8.count != 64 || Hex.decode(key) == nil {
            throw .invalidInput("line \(number): 'dpopKeyHex' must be 64 hex characters")
        }
        guard secrets.bearer != nil || secrets.idToken != nil else {
            throw .invalidInput("line \(number): needs accessToken, sessionJwt or idToken")
        }
        let scopes: [String]
        if let value = object.member("scopes"), !value.isNull {
            if let list = value.strings {
                scopes = list
            } else if let text = value.string {
                scopes = text.split(separator: " ").map(String.init)
            } else {
                throw .invalidInput("line \(number): 'scopes' must be a list of strings")
            }
        } else {
            scopes = []
        }
        let record = SessionRecord(
            key: key, backend: try string("backend") ?? "direct", provider: try string("provider") ?? "oidc",
            subject: try string("subject") ?? "", email: try string("email"), phone: try string("phone"),
            displayName: try string("displayName"), issuer: try string("issuer") ?? "",
            createdAt: try date("createdAt") ?? Date(), expiresAt: try date("expiresAt"),
            refreshable: secrets.refreshToken != nil, scopes: scopes, autoRefresh: try bool("autoRefresh") ?? false)
        return Session(record: record, secrets: secrets)
    }

    private static func endpoints(_ value: JSONLineValue?, number: Int) throws(StoreError) -> SessionEndpoints? {
        guard let value, !value.isNull else { return nil }
        guard value.isObject else { throw .invalidInput("line \(number): 'endpoints' must be an object") }
        func text(_ name: StaticString) throws(StoreError) -> String? {
            guard let field = value.member(name), !field.isNull else { return nil }
            guard let text = field.string else {
                throw .invalidInput("line \(number): 'endpoints.\(name)' must be a string")
            }
            return text
        }
        guard let clientID = try text("clientID"), let token = try text("token") else {
            throw .invalidInput("line \(number): 'endpoints' needs clientID and token")
        }
        return SessionEndpoints(
            clientID: clientID, token: token, revocation: try text("revocation"),
            // A secret file named here is never followed: it would send any file the user can read to the line's
            // token endpoint (`namesClientSecret` reports the session instead).
            user: try text("user"), clientSecretFile: nil,
            tokenAuthMethod: try text("tokenAuthMethod"),
            revocationAuthMethod: try text("revocationAuthMethod"))
    }

    /// Whether an `endpoints` object named a client secret file or a method that sends a secret.
    private static func namesClientSecret(_ value: JSONLineValue?) -> Bool {
        guard let value, value.isObject else { return false }
        if value.member("clientSecretFile")?.string != nil { return true }
        let methods = [value.member("tokenAuthMethod")?.string, value.member("revocationAuthMethod")?.string]
        return methods.contains { $0 != nil && $0 != "none" }
    }

    private static func portalClient(_ value: JSONLineValue?, number: Int) throws(StoreError) -> PortalClientInfo? {
        guard let value, !value.isNull else { return nil }
        guard value.isObject else { throw .invalidInput("line \(number): 'portalClient' must be an object") }
        let clientField = value.member("clientID")
        let abstractedField = value.member("isAccountAbstracted")
        let clientID = clientField?.string
        let abstracted = abstractedField?.bool
        guard clientField == nil || clientField!.isNull || clientID != nil,
            abstractedField == nil || abstractedField!.isNull || abstracted != nil
        else {
            throw .invalidInput(
                "line \(number): 'portalClient' needs a string clientID and a boolean "
                    + "isAccountAbstracted")
        }
        return PortalClientInfo(clientID: clientID, isAccountAbstracted: abstracted)
    }

    private static func passkey(_ value: JSONLineValue?, number: Int) throws(StoreError) -> PasskeyCredential? {
        guard let value, !value.isNull else { return nil }
        func text(_ name: StaticString) -> String? { value.member(name)?.string }
        guard value.isObject, let kind = text("kind").flatMap(PasskeyCredential.Kind.init(rawValue:)),
            let relyingPartyID = text("relyingPartyID"), let credentialID = text("credentialID"),
            let userHandle = text("userHandle"), let userName = text("userName"),
            let count = value.member("signCount")?.integer, let signCount = UInt32(exactly: count)
        else {
            throw .invalidInput(
                "line \(number): 'passkey' needs kind (software or hardware), relyingPartyID, credentialID, "
                    + "userHandle, userName and signCount")
        }
        let key = text("privateKeyHex")
        if kind == .software, key?.utf8.count != 64 || key.flatMap(Hex.decode) == nil {
            throw .invalidInput("line \(number): a software passkey's 'privateKeyHex' must be 64 hex characters")
        }
        return PasskeyCredential(
            kind: kind, relyingPartyID: relyingPartyID, credentialID: credentialID, userHandle: userHandle,
            userName: userName, privateKeyHex: kind == .software ? key : nil, signCount: signCount)
    }

    // MARK: - Pieces

    private static func appendListFields(_ entry: StoreEntry, now: Date, to buffer: inout JSONBuffer) {
        let record = entry.record
        ListJSONObject(
            key: .string(record.key), backend: .string(record.backend), provider: .string(record.provider),
            subject: .string(record.subject), email: .string(record.email), phone: .string(record.phone),
            issuer: .string(record.issuer), createdAt: record.createdAt.timeIntervalSince1970,
            expiresAt: record.expiresAt?.timeIntervalSince1970, refreshable: record.refreshable,
            selected: entry.isSelected
        ).appendFields(now: now, to: &buffer)
    }

    /// A JSON string literal, or `null`.
    public static func quoted(_ value: String?) -> String {
        var buffer = JSONBuffer()
        buffer.string(value)
        return buffer.text
    }

    /// `2024-05-01T12:00:00Z`: UTC, whole seconds.
    public static func iso8601(_ date: Date) -> String {
        var bytes: [UInt8] = []
        JSONBuffer.appendISO8601(date, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Reads `YYYY-MM-DDTHH:MM:SS[.fff](Z|±HH:MM)` in the proleptic Gregorian calendar, as `iso8601` writes it.
    /// By hand: an import of 100,000 lines spent seconds in `ISO8601DateFormatter` alone.
    public static func parseISO8601(_ text: String) -> Date? {
        var text = text
        return text.withUTF8 { bytes -> Date? in
            guard bytes.count >= 20 else { return nil }
            func number(_ start: Int, _ count: Int) -> Int? {
                var value = 0
                for index in start..<(start + count) {
                    let byte = bytes[index]
                    guard byte >= 0x30 && byte <= 0x39 else { return nil }
                    value = value * 10 + Int(byte - 0x30)
                }
                return value
            }
            guard let year = number(0, 4), bytes[4] == 0x2D, let month = number(5, 2), bytes[7] == 0x2D,
                let day = number(8, 2), bytes[10] == 0x54, let hour = number(11, 2), bytes[13] == 0x3A,
                let minute = number(14, 2), bytes[16] == 0x3A, let second = number(17, 2),
                (1...12).contains(month), (1...daysIn(month, of: year)).contains(day), hour < 24, minute < 60,
                second < 60
            else { return nil }
            var index = 19
            var fraction = 0.0
            if bytes[index] == 0x2E {
                var scale = 0.1
                index += 1
                let start = index
                while index < bytes.count, bytes[index] >= 0x30 && bytes[index] <= 0x39 {
                    fraction += Double(bytes[index] - 0x30) * scale
                    scale /= 10
                    index += 1
                }
                guard index > start, index < bytes.count else { return nil }
            }
            var offset = 0
            switch bytes[index] {
            case 0x5A:
                index += 1
            case 0x2B, 0x2D:
                guard index + 6 == bytes.count, let hours = number(index + 1, 2), bytes[index + 3] == 0x3A,
                    let minutes = number(index + 4, 2), hours < 24, minutes < 60
                else { return nil }
                offset = (hours * 3600 + minutes * 60) * (bytes[index] == 0x2D ? -1 : 1)
                index += 6
            default:
                return nil
            }
            guard index == bytes.count else { return nil }
            let seconds =
                daysSinceEpoch(year: year, month: month, day: day) * 86_400 + hour * 3600 + minute * 60
                + second - offset
            let interval = Double(seconds) + fraction
            // Past 9999 `iso8601` has no digits left: such a date would move on every export and import (found
            // by `make fuzz`); and no session is older than 1583.
            return supportedDates.contains(interval) ? Date(timeIntervalSince1970: interval) : nil
        }
    }

    private static func daysIn(_ month: Int, of year: Int) -> Int {
        switch month {
        case 2: return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days from 1970-01-01 to the date (proleptic Gregorian), by the civil-from-days arithmetic.
    private static func daysSinceEpoch(year: Int, month: Int, day: Int) -> Int {
        let shifted = month <= 2 ? year - 1 : year
        let era = (shifted >= 0 ? shifted : shifted - 399) / 400
        let yearOfEra = shifted - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// 1583-01-01T00:00:00Z up to 9999-12-31T23:59:59Z.
    private static let supportedDates: ClosedRange<TimeInterval> = -12_212_553_600...253_402_300_799
}
