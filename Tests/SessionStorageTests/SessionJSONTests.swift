import AuthCore
import AuthCrypto
import Foundation
import Testing

@testable import SessionStorage

@Suite struct SessionJSONTests {
    let now = Date(timeIntervalSince1970: 1_700_000_000)

    @Test func listObjectsCarryExactlyTheSpecFields() throws {
        let record = SessionRecord(
            key: "k\"1", backend: "turnkey", provider: "email", subject: "u1",
            email: "a@b.c", phone: nil, displayName: "Ann", issuer: "https://i",
            createdAt: Date(timeIntervalSince1970: 0),
            expiresAt: Date(timeIntervalSince1970: 1_700_000_100), refreshable: true)
        let text = SessionJSON.listArray([StoreEntry(record: record, isSelected: true)], now: now)
        let array = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [[String: Any]])
        let object = try #require(array.first)
        #expect(
            Set(object.keys) == [
                "key", "backend", "provider", "subject", "email", "phone", "issuer", "createdAt",
                "expiresAt", "status", "refreshable", "selected",
            ])
        #expect(object["key"] as? String == "k\"1")
        #expect(object["createdAt"] as? String == "1970-01-01T00:00:00Z")
        #expect(object["expiresAt"] as? String == "2023-11-14T22:15:00Z")
        #expect(object["status"] as? String == "expiring")
        #expect(object["phone"] is NSNull)
        #expect(SessionJSON.listArray([], now: now) == "[]\n")
    }

    @Test func transferLinesRoundTrip() throws {
        let session = Session(
            record: SessionRecord(
                key: "a", backend: "portal", provider: "apple", subject: "s", email: nil,
                phone: "+15555550100", displayName: "Bo\nb", issuer: "https://appleid.apple.com",
                createdAt: Date(timeIntervalSince1970: 1_600_000_000),
                expiresAt: nil, refreshable: true, scopes: ["openid", "name"], autoRefresh: true),
            secrets: SessionSecrets(
                accessToken: "at\u{1}", refreshToken: "rt", idToken: "id",
                refreshExpiresAt: Date(timeIntervalSince1970: 1_650_000_000)))
        let line = SessionJSON.transferLine(session, selected: false, now: now)
        let parsed = try SessionJSON.parseLines(Array((line + "\n\n").utf8))
        #expect(parsed == [session])
    }

    @Test func badLinesAreNamedWithoutTheirContent() {
        let lines = "{\"key\":\"a\",\"accessToken\":\"t\"}\nnot json SECRET\n"
        #expect(throws: StoreError.invalidInput("line 2: not a JSON object")) {
            try SessionJSON.parseLines(Array(lines.utf8))
        }
        #expect(throws: StoreError.invalidInput("line 1: needs accessToken, sessionJwt or idToken")) {
            try SessionJSON.parseLines(Array("{\"key\":\"a\"}".utf8))
        }
        #expect(throws: StoreError.invalidInput("line 1: 'expiresAt' is not an ISO 8601 date")) {
            try SessionJSON.parseLines(Array("{\"key\":\"a\",\"accessToken\":\"SECRET\",\"expiresAt\":\"soon\"}".utf8))
        }
    }

    @Test func bundlesOpenOnlyWithTheirPassphrase() throws {
        let lines = Array("{\"key\":\"a\",\"accessToken\":\"BUNDLED-SECRET\"}".utf8)
        let cheap = ScryptParameters(n: 1024, r: 8, p: 1)
        let bundle = try ExportBundle.seal(lines, passphrase: Array("pw".utf8), parameters: cheap)
        #expect(ExportBundle.isBundle(bundle))
        #expect(!ExportBundle.isBundle(lines))
        #expect(!String(decoding: bundle, as: UTF8.self).contains("BUNDLED-SECRET"))
        #expect(try ExportBundle.open(bundle, passphrase: Array("pw".utf8)) == lines)
        #expect(throws: StoreError.self) { try ExportBundle.open(bundle, passphrase: Array("other".utf8)) }
        var tampered = bundle
        tampered[tampered.count - 10] = tampered[tampered.count - 10] == 65 ? 66 : 65
        #expect(throws: StoreError.self) { try ExportBundle.open(tampered, passphrase: Array("pw".utf8)) }
    }
}

/// The row-direct `listJSON` must say exactly what `listArray` over `entries()` says.
@Suite struct ListJSONTests {
    @Test func theFastPathMatchesTheRecordPath() throws {
        let fixture = StoreFixture()
        let store = try fixture.open()
        let now = Date(timeIntervalSince1970: 3_999_999_900)
        #expect(try store.listJSON(now: now).text == "[]\n")
        // Keys carry no control characters (SessionKeyRule); the subject does the escaping check for them.
        var odd = StoreFixture.session("quo\"te\\back", expires: nil)
        odd.record.phone = "+15555550100"
        odd.record.email = nil
        odd.record.subject = "line\nbreak\u{1}"
        try store.persist(odd, replace: false)
        try store.persist(StoreFixture.session("expiring"), replace: false)
        try store.persist(StoreFixture.session("gone", expires: Date(timeIntervalSince1970: 1_000)), replace: false)
        try store.persist(StoreFixture.session("ünï", refresh: "rt"), replace: false)
        let fast = try store.listJSON(now: now).text
        #expect(fast == SessionJSON.listArray(try store.entries(), now: now))
        let parsed = try #require(try JSONSerialization.jsonObject(with: Data(fast.utf8)) as? [[String: Any]])
        #expect(parsed.map { $0["status"] as? String } == ["expiring", "expired", "active", "expiring"])
        #expect(parsed[2]["key"] as? String == "quo\"te\\back")
        #expect(parsed[2]["subject"] as? String == "line\nbreak\u{1}")
        #expect(parsed[2]["phone"] as? String == "+15555550100")
    }
}

/// The import date reader against Python's `datetime.fromisoformat(...).timestamp()` (proleptic Gregorian, UTC),
/// whose answers are the constants below.
@Suite struct ISO8601ReaderTests {
    @Test(arguments: [
        ("2024-05-01T12:00:00Z", 1_714_564_800.0), ("2030-01-01T00:00:00+02:00", 1_893_448_800.0),
        ("1583-01-01T00:00:00Z", -12_212_553_600.0), ("9999-12-31T23:59:59Z", 253_402_300_799.0),
        ("2024-02-29T23:59:59.250-05:30", 1_709_270_999.25), ("2000-03-01T00:00:00Z", 951_868_800.0),
    ])
    func readsWhatPythonReads(_ text: String, _ seconds: Double) {
        #expect(SessionJSON.parseISO8601(text)?.timeIntervalSince1970 == seconds)
    }

    @Test(arguments: [
        "2023-02-29T00:00:00Z", "2024-13-01T00:00:00Z", "2024-05-01 12:00:00Z", "2024-05-01T12:00:00",
        "2024-05-01T12:00:00+0200", "2024-05-01T12:00:00.Z", "2024-05-01T24:00:00Z",
        "2024-05-01T12:00:00Zjunk", "1582-12-31T23:59:59Z", "९९९९-12-31T23:59:59Z", "",
    ])
    func refusesWhatIsNotThatFormat(_ text: String) {
        #expect(SessionJSON.parseISO8601(text) == nil)
    }
}

/// An export line carries everything a session needs on another machine: where and how it refreshes and revokes,
/// and what Portal said of its client.
@Suite struct TransferLineTests {
    @Test func endpointsAndPortalClientSurviveExportAndImport() throws {
        var session = StoreFixture.session("far", refresh: "RT")
        session.secrets.endpoints = SessionEndpoints(
            clientID: "cli", token: "https://id.example/token", revocation: "https://id.example/revoke",
            user: "https://id.example/userinfo", clientSecretFile: "/home/u/secret",
            tokenAuthMethod: "client_secret_basic", revocationAuthMethod: "client_secret_post")
        session.secrets.portalClient = PortalClientInfo(clientID: "portal-client-1", isAccountAbstracted: true)
        session.record.autoRefresh = true
        let line = SessionJSON.transferLine(session, selected: true, now: Date())
        let transfer = try SessionJSON.parseTransfer(Array(line.utf8))
        // Everything but the client secret file, which never travels: another machine's file is not this one's.
        var arrived = session
        arrived.secrets.endpoints?.clientSecretFile = nil
        #expect(transfer.sessions == [arrived])
        #expect(transfer.selectedKey == "far")
        let broken = line.replacingOccurrences(
            of: "\"isAccountAbstracted\":true", with: "\"isAccountAbstracted\":\"yes\"")
        #expect(throws: StoreError.self) { try SessionJSON.parseTransfer(Array(broken.utf8)) }
    }

    /// A session's passkey moves with it (a software one with its key), and a broken one is refused in one line.
    @Test func aPasskeySurvivesExportAndImport() throws {
        var session = StoreFixture.session("para", refresh: "RT")
        session.secrets.passkey = PasskeyCredential(
            kind: .software, relyingPartyID: "127.0.0.1", credentialID: "Y3JlZA", userHandle: "dXNlcg",
            userName: "cleo@example.com", privateKeyHex: String(repeating: "cd", count: 32), signCount: 3)
        let line = SessionJSON.transferLine(session, selected: false, now: Date())
        #expect(try SessionJSON.parseTransfer(Array(line.utf8)).sessions == [session])
        for broken in [
            line.replacingOccurrences(of: "\"signCount\":3", with: "\"signCount\":-1"),
            line.replacingOccurrences(of: "\"kind\":\"software\"", with: "\"kind\":\"tpm\""),
            line.replacingOccurrences(of: String(repeating: "cd", count: 32), with: "cd"),
        ] {
            #expect(throws: StoreError.self) { try SessionJSON.parseTransfer(Array(broken.utf8)) }
        }
    }
}
