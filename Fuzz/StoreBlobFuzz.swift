// What the store reads back from disk or from another machine: a session's decrypted secret blob
// (SecretsCodec.decode), an export bundle (ExportBundle.open, fixed passphrase) and import lines
// (SessionJSON.parseLines). Compiled as part of the SessionStorage module (SecretsCodec is internal); see scripts/fuzz.sh.
//
// Every input goes to all three: blobs start with their version byte 1, bundles and import lines with `{`.
import AuthCore
import AuthCrypto
import Foundation

private let passphrase = Array("correct horse battery staple".utf8)
private let now = Date(timeIntervalSince1970: 1_700_000_000)

/// The seeds `scripts/fuzz.sh --write-seeds` keeps for this target.
func fuzzSeeds() -> [(name: String, bytes: [UInt8])] { storeSeeds() }

/// One input of libFuzzer's.
func fuzzOne(_ bytes: [UInt8]) {
    checkSecretsBlob(bytes)
    if let lines = openBundle(bytes) { checkImportLines(lines) }
    checkImportLines(bytes)
}

/// A blob that decodes re-encodes to bytes that decode to the same secrets. (Not to the same bytes: the endpoints
/// are JSON from JSONEncoder, whose key order is not fixed, and fields of later versions are dropped.)
private func checkSecretsBlob(_ bytes: [UInt8]) {
    guard let secrets = SecretsCodec.decode(bytes) else { return }
    guard let again = SecretsCodec.decode(SecretsCodec.encode(secrets)) else {
        invariant(false, "a re-encoded secrets blob does not decode")
        return
    }
    // NaN is the one date that is not equal to itself, so two NaN dates are compared as absent (putting one NaN in
    // place of the other, as this check once did, still compares unequal: the input kept in the corpus).
    var before = secrets
    var after = again
    if before.refreshExpiresAt?.timeIntervalSince1970.isNaN == true,
        after.refreshExpiresAt?.timeIntervalSince1970.isNaN == true
    {
        before.refreshExpiresAt = nil
        after.refreshExpiresAt = nil
    }
    // The message shows the dates as bit patterns: Date's own description traps on far-out values.
    let bits = { (date: Date?) in date.map { String($0.timeIntervalSince1970.bitPattern, radix: 16) } ?? "nil" }
    invariant(
        after == before,
        "secrets changed across encode and decode: refreshExpiresAt "
            + "\(bits(again.refreshExpiresAt)) vs \(bits(secrets.refreshExpiresAt))")
}

/// Opens a bundle unless its scrypt parameters would make one input take more than a few milliseconds: a real
/// import may spend seconds on them, a fuzzer must not. Parameters that scrypt would refuse anyway (too much
/// memory, not a power of two) or that do not fit its types still go through, since that is where bugs hide.
private func openBundle(_ bytes: [UInt8]) -> [UInt8]? {
    guard let object = (try? JSONSerialization.jsonObject(with: Data(bytes))) as? [String: Any] else {
        return try? ExportBundle.open(bytes, passphrase: passphrase)
    }
    if let n = object["n"] as? Int, let r = object["r"] as? Int, let p = object["p"] as? Int,
        n > 1, n & (n - 1) == 0, r > 0, p > 0, r <= Int(UInt32.max), p <= Int(UInt32.max)
    {
        let memory = 128 * Double(r) * (Double(n) + Double(p) + 2)
        let work = Double(n) * Double(r) * Double(p)
        let scryptWouldRun = memory <= Double(Scrypt.maximumMemoryBytes) && Double(r) * Double(p) < 0x4000_0000
        if scryptWouldRun && (memory > 4 * 1024 * 1024 || work > 16 * 1024) { return nil }
    }
    return try? ExportBundle.open(bytes, passphrase: passphrase)
}

/// Import lines survive export and import: what one line parses to is written back by `transferLine` and parses
/// to the same session (after the first pass, which drops what the format does not keep, such as fractions of
/// seconds).
private func checkImportLines(_ bytes: [UInt8]) {
    guard let sessions = try? SessionJSON.parseLines(bytes) else { return }
    for session in sessions {
        invariant(!session.record.key.isEmpty, "an import line with an empty key passed")
        invariant(session.secrets.bearer != nil || session.secrets.idToken != nil, "a session without tokens passed")
        // A secret file an import named would be read and sent at the next refresh: never kept.
        invariant(session.secrets.endpoints?.clientSecretFile == nil, "an import line kept a client secret file")
        let line = SessionJSON.transferLine(session, selected: false, now: now)
        guard let once = try? SessionJSON.parseLines(Array(line.utf8)), once.count == 1 else {
            invariant(false, "an exported line does not import: \(line)")
            return
        }
        invariant(
            once[0].record.key == session.record.key && once[0].record.scopes == session.record.scopes
                && once[0].secrets.accessToken == session.secrets.accessToken
                && once[0].secrets.sessionJwt == session.secrets.sessionJwt,
            "a session changed across export and import: \(line)")
        let again = SessionJSON.transferLine(once[0], selected: false, now: now)
        let twice = try? SessionJSON.parseLines(Array(again.utf8))
        invariant(twice == once, "a second export and import changed the session: \(line)")
    }
}

private func storeSeeds() -> [(name: String, bytes: [UInt8])] {
    let endpoints = SessionEndpoints(
        clientID: "client-1", token: "https://oauth.example/token",
        revocation: "https://oauth.example/revoke", user: nil,
        clientSecretFile: "/etc/authdeck/secret")
    let full = SessionSecrets(
        accessToken: "at-1", refreshToken: "rt-1", idToken: "eyJ.eyJ.sig",
        sessionJwt: "eyJhbGciOiJFUzI1NiJ9.e30.c2ln",
        privateKeyHex: String(repeating: "ab", count: 32),
        refreshExpiresAt: Date(timeIntervalSince1970: 1_800_000_000), endpoints: endpoints)
    var blobs: [(String, [UInt8])] = [
        ("blob-full", SecretsCodec.encode(full)),
        ("blob-access-only", SecretsCodec.encode(SessionSecrets(accessToken: "at"))),
        ("blob-empty", SecretsCodec.encode(SessionSecrets())),
        // A field from a later version (tag 99) is skipped, not refused.
        ("blob-unknown-tag", SecretsCodec.encode(SessionSecrets(accessToken: "at")) + [99, 3, 0, 0, 0, 1, 2, 3]),
        ("blob-truncated", Array(SecretsCodec.encode(full).dropLast(5))),
    ]
    let lines = """
        {"key":"work","backend":"direct","provider":"google","subject":"1234","email":"a@example.com","phone":null,\
        "issuer":"https://accounts.google.com","createdAt":"2024-05-01T12:00:00Z",\
        "expiresAt":"2024-05-01T13:00:00.5Z",\
        "status":"active","refreshable":true,"selected":true,"displayName":"A","scopes":["openid","email"],\
        "autoRefresh":true,"accessToken":"at","refreshToken":"rt","idToken":"eyJ.eyJ.sig",\
        "refreshExpiresAt":"2030-01-01T00:00:00+02:00"}
        {"key":"proxy","backend":"turnkey","provider":"email","sessionJwt":"eyJ.eyJ.sig","privateKeyHex":"00ff",\
        "scopes":"SESSION_TYPE_READ_WRITE"}

        """
    blobs.append(("import-lines", Array(lines.utf8)))
    blobs.append(("import-bad-date", Array(#"{"key":"k","accessToken":"a","createdAt":"2024-13-01T00:00:00Z"}"#.utf8)))
    blobs.append(("import-no-token", Array(#"{"key":"k","subject":"s"}"#.utf8)))
    if let bundle = try? ExportBundle.seal(
        Array(lines.utf8), passphrase: passphrase,
        parameters: ScryptParameters(n: 16, r: 1, p: 1))
    {
        blobs.append(("bundle-small-scrypt", bundle))
        // The same bundle claiming parameters scrypt refuses.
        let text = String(decoding: bundle, as: UTF8.self)
        blobs.append(("bundle-huge-r", Array(text.replacingOccurrences(of: "\"r\":1", with: "\"r\":4294967295").utf8)))
        blobs.append(("bundle-odd-n", Array(text.replacingOccurrences(of: "\"n\":16", with: "\"n\":17").utf8)))
    }
    return blobs
}
