import AuthClient
import Foundation
import TestSupport
import Testing

/// The sign-in QR code is made at error correction level L so an authorize URL fits 120×40, and it
/// still decodes: zbarimg (Debian's zbar-tools), a decoder nobody on this project wrote, reads it back.
@Suite struct QRCodeTests {
    /// A sandbox authorize URL of the usual length (360 bytes): PKCE challenge, state and nonce of 43 characters.
    static let url =
        "http://127.0.0.1:41909/oidc/google/authorize?response_type=code&client_id=sandbox-google"
        + "&redirect_uri=http%3A%2F%2F127.0.0.1%3A40123%2Fcallback&scope=openid%20email%20profile"
        + "&state=" + String(repeating: "s", count: 43) + "&nonce=" + String(repeating: "n", count: 43)
        + "&code_challenge=" + String(repeating: "c", count: 43) + "&code_challenge_method=S256"

    @Test func anAuthorizeURLIsAVersion12Code() throws {
        #expect(Self.url.utf8.count == 360)
        let code = try #require(QRCode(Self.url))
        // Byte-mode capacity (ISO/IEC 18004 table 7): level L holds 321 bytes at version 11 and 367 at 12; level M
        // would need version 14 (362 bytes), 73 modules. Version v has 17 + 4v modules a side.
        #expect(code.size == 17 + 4 * 12)
    }

    @Test func theFormatInformationSaysLevelL() throws {
        let code = try #require(QRCode(Self.url))
        // The 15 format bits around the top-left finder, most significant first (ISO/IEC 18004 7.9, figure 25):
        // row 8 columns 0–5, 7, 8, then column 8 rows 7, 5–0. Unmasked with 101010000010010, the first two bits
        // are the level: L 01, M 00, Q 11, H 10.
        let m = code.modules
        let positions = [
            (8, 0), (8, 1), (8, 2), (8, 3), (8, 4), (8, 5), (8, 7), (8, 8), (7, 8),
            (5, 8), (4, 8), (3, 8), (2, 8), (1, 8), (0, 8),
        ]
        var bits = 0
        for (row, col) in positions { bits = bits << 1 | (m[row][col] ? 1 : 0) }
        let unmasked = bits ^ 0b1010100_00010010
        #expect(Self.isFormatCodeword(unmasked), "not a BCH(15,5) format word: \(String(bits, radix: 2))")
        #expect(unmasked >> 13 == 0b01)
    }

    /// Whether `word` is a codeword of the format information's BCH(15,5) code (generator 10100110111).
    static func isFormatCodeword(_ word: Int) -> Bool {
        var remainder = word
        for shift in stride(from: 4, through: 0, by: -1) where remainder & (1 << (shift + 10)) != 0 {
            remainder ^= 0b101_00110111 << shift
        }
        return remainder == 0
    }

    @Test func zbarimgReadsTheCodeBack() throws {
        guard let zbarimg = QRImage.zbarimg else {
            print("QRCodeTests: skipped, zbarimg (zbar-tools) is not installed")
            return
        }
        for text in [Self.url, "https://example.com/device?user_code=WDJB-MJHT"] {
            let code = try #require(QRCode(text))
            let path = NSTemporaryDirectory() + "authdeck-qr-\(UUID().uuidString.prefix(8)).pgm"
            defer { try? FileManager.default.removeItem(atPath: path) }
            try QRImage.pgm(code.modules).write(to: URL(fileURLWithPath: path))
            let read = try Program.run(zbarimg, ["--raw", "-q", path])
            #expect(read.status == 0)
            #expect(read.text == text + "\n")
        }
    }
}
