import AuthCore
import AuthCrypto
import Foundation
import Testing

@testable import SessionStorage

/// Inputs `make fuzz` found breaking the store's readers, kept so they stay fixed.
@Suite struct FuzzRegressionTests {
    let now = Date(timeIntervalSince1970: 1_700_000_000)

    /// A date before the Gregorian reform moved by days on each export and import: Foundation parsed it as a Julian
    /// date, `iso8601` wrote it back as a proleptic Gregorian one. Such dates are now refused with the line number.
    @Test func importLineFromBeforeTheGregorianReformIsRefused() {
        let line = #"{"key":"work","accessToken":"at","createdAt":"1012-05-01T12:00:00Z"}"#
        #expect(throws: StoreError.invalidInput("line 1: 'createdAt' is not an ISO 8601 date")) {
            try SessionJSON.parseLines(Array(line.utf8))
        }
    }

    /// Past 9999 `iso8601` has no fifth digit, so the year came back as 0000.
    @Test func importLinePastYear9999IsRefused() {
        let line = #"{"key":"k","accessToken":"at","expiresAt":"9999-12-31T23:00:00-05:00"}"#
        #expect(throws: StoreError.invalidInput("line 1: 'expiresAt' is not an ISO 8601 date")) {
            try SessionJSON.parseLines(Array(line.utf8))
        }
    }

    @Test func datesAtTheEdgesOfTheSupportedRangeSurviveExportAndImport() throws {
        for text in ["1583-01-01T00:00:00Z", "9999-12-31T23:59:59Z"] {
            let line = #"{"key":"k","accessToken":"at","createdAt":"\#(text)"}"#
            let session = try #require(try SessionJSON.parseLines(Array(line.utf8)).first)
            #expect(SessionJSON.iso8601(session.record.createdAt) == text)
            let exported = SessionJSON.transferLine(session, selected: false, now: now)
            #expect(try SessionJSON.parseLines(Array(exported.utf8)) == [session])
        }
    }

    /// scrypt's r and p are 32-bit: a bundle claiming more trapped in the conversion and killed `store import`.
    @Test func bundleWithScryptParametersPast32BitsIsRefused() throws {
        let passphrase = Array("pass".utf8)
        let bundle = try ExportBundle.seal(
            Array("{}".utf8), passphrase: passphrase,
            parameters: ScryptParameters(n: 16, r: 1, p: 1))
        let text = String(decoding: bundle, as: UTF8.self)
        for (old, new) in [("\"r\":1", "\"r\":4294967395"), ("\"p\":1", "\"p\":4294967296")] {
            let hostile = Array(text.replacingOccurrences(of: old, with: new).utf8)
            #expect(throws: StoreError.invalidInput("the export bundle is malformed")) {
                try ExportBundle.open(hostile, passphrase: passphrase)
            }
        }
        #expect(try ExportBundle.open(bundle, passphrase: passphrase) == Array("{}".utf8))
    }

    /// The input the fuzzer saved: the first line changed its createdAt on a second export and import.
    @Test func savedFuzzerInputIsRefusedRatherThanChanged() {
        let lines = #"""
            {"key":"work","backend":"direct","provider":"google","subject":"1234","email":"a@example.com",\#
            "phone":null,"issuer":"https://accounts.google.com","createdAt":"1012-05-01T12:00:00Z",\#
            "expiresAt":"2024-05-01T13:00:00.5Z","status":"active","refreshable":true,"selected":true,\#
            "displayName":"A","scopes":["openid","email"],\#
            "autoRefresh":true,"accessToken":"at","refreshTok(n":"rt","idToken":"eyJ.eyJ.sig",\#
            "refreshExpiresAt":"2030-01-01T00:00:00+02:00"}
            {"key":"proxy","backend":"turnkey","provider":"email","sessionJwt":"NumberElementseyJ.eyJ.sig",\#
            "privateKeyHex":"00ff","scopes":"SESSION_TYPE_READ_WRITE"}
            """#
        #expect(throws: StoreError.invalidInput("line 1: 'createdAt' is not an ISO 8601 date")) {
            try SessionJSON.parseLines(Array(lines.utf8))
        }
    }
}

/// Dates from a damaged database row are formatted without trapping, whatever double the row holds.
@Suite struct DamagedDateFormattingTests {
    @Test(arguments: [Double.infinity, -Double.infinity, Double.nan, 1e300, -1e300, 253_402_300_800, -62_135_596_801])
    func anyDoubleFormatsAsAnISODate(_ seconds: Double) {
        var bytes: [UInt8] = []
        JSONBuffer.appendISO8601(Date(timeIntervalSince1970: seconds), to: &bytes)
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(text.count == 20 && text.hasSuffix("Z"), "\(text)")
    }

    @Test func ordinaryDatesAreUnchanged() {
        var bytes: [UInt8] = []
        JSONBuffer.appendISO8601(Date(timeIntervalSince1970: 1_800_000_000), to: &bytes)
        #expect(String(decoding: bytes, as: UTF8.self) == "2027-01-15T08:00:00Z")
    }

    /// The ends of the range and a leap day, checked by hand (`date -u -d @SECONDS`): every field keeps its zeros.
    @Test(arguments: [
        (-62_135_596_800.0, "0001-01-01T00:00:00Z"), (253_402_300_799, "9999-12-31T23:59:59Z"),
        (951_782_400, "2000-02-29T00:00:00Z"), (-1, "1969-12-31T23:59:59Z"),
        (1_000_000_000.9, "2001-09-09T01:46:40Z"),
    ])
    func edgeDatesKeepEveryDigit(_ seconds: Double, _ expected: String) {
        var bytes: [UInt8] = []
        JSONBuffer.appendISO8601(seconds: seconds, to: &bytes)
        #expect(String(decoding: bytes, as: UTF8.self) == expected)
    }
}
