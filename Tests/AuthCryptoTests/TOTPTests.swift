import Testing

@testable import AuthCrypto

/// TOTP: RFC 6238 appendix B (all three hashes) and RFC 4226 appendix D through 30-second steps.
struct TOTPTests {
    static let sha1Seed = Array("12345678901234567890".utf8)
    static let sha256Seed = Array("12345678901234567890123456789012".utf8)
    static let sha512Seed = Array("1234567890123456789012345678901234567890123456789012345678901234".utf8)

    // (time, SHA-1, SHA-256, SHA-512) rows of RFC 6238 appendix B, eight digits.
    static let rows: [(Int64, String, String, String)] = [
        (59, "94287082", "46119246", "90693936"),
        (1_111_111_109, "07081804", "68084774", "25091201"),
        (1_111_111_111, "14050471", "67062674", "99943326"),
        (1_234_567_890, "89005924", "91819424", "93441116"),
        (2_000_000_000, "69279037", "90698825", "38618901"),
        (20_000_000_000, "65353130", "77737706", "47863826"),
    ]

    @Test(arguments: rows)
    func rfc6238AppendixB(row: (Int64, String, String, String)) {
        let (time, sha1, sha256, sha512) = row
        #expect(TOTP.code(secret: Self.sha1Seed, time: time, digits: 8) == sha1)
        #expect(TOTP.code(secret: Self.sha256Seed, time: time, digits: 8, algorithm: .sha256) == sha256)
        #expect(TOTP.code(secret: Self.sha512Seed, time: time, digits: 8, algorithm: .sha512) == sha512)
    }

    // RFC 4226 appendix D: HOTP values for counters 0...9; TOTP at 30·counter must give the same six digits.
    static let hotpValues = [
        "755224", "287082", "359152", "969429", "338314",
        "254676", "287922", "162583", "399871", "520489",
    ]

    @Test func sixDigitCodesFollowRFC4226() {
        for (counter, expected) in Self.hotpValues.enumerated() {
            let start = Int64(counter) * 30
            #expect(TOTP.code(secret: Self.sha1Seed, time: start) == expected)
            #expect(TOTP.code(secret: Self.sha1Seed, time: start + 29) == expected, "same 30 s window")
        }
    }

    @Test func codeChangesAtTheWindowEdgeAndHonoursThePeriod() {
        #expect(TOTP.code(secret: Self.sha1Seed, time: 29) == "755224")
        #expect(TOTP.code(secret: Self.sha1Seed, time: 30) == "287082")
        #expect(TOTP.code(secret: Self.sha1Seed, time: 60, period: 60) == "287082")
    }

    @Test func algorithmNamesMatchOtpauthLinks() throws {
        #expect(TOTP.Algorithm(rawValue: "SHA1") == .sha1)
        #expect(TOTP.Algorithm(rawValue: "SHA256") == .sha256)
        #expect(TOTP.Algorithm(rawValue: "SHA512") == .sha512)
        #expect(TOTP.Algorithm(rawValue: "MD5") == nil)
    }

    @Test func base32SeedFromALinkGivesTheRFCCodes() throws {
        // "12345678901234567890" in base32, lower-case and grouped the way apps show it.
        let seed = try #require(Base32.decode("gezd gnbv gy3t qojq gezd gnbv gy3t qojq"))
        #expect(TOTP.code(secret: seed, time: 59, digits: 8) == "94287082")
    }
}
