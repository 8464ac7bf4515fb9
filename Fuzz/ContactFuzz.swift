// What a user types or pastes for a one-time code sign-in: contacts (Contact.validatedEmail, validatedPhone,
// parse), codes (OTPCodeFormat.validate) and TOTP seeds (Base32.decode). Results must always be in normal form.
import AuthCore
import AuthCrypto

private let formats: [OTPCodeFormat] =
    [OTPCodeFormat.totp]
    + (6...9).flatMap { length in
        [false, true].compactMap { try? OTPCodeFormat(length: length, alphanumeric: $0) }
    }

/// The seeds `scripts/fuzz.sh --write-seeds` keeps for this target.
func fuzzSeeds() -> [(name: String, bytes: [UInt8])] { contactSeeds() }

/// One input of libFuzzer's.
func fuzzOne(_ bytes: [UInt8]) {
    let text = String(decoding: bytes, as: UTF8.self)
    checkContact(text)
    checkCodes(text)
    checkBase32(text, bytes)
}

private func checkContact(_ text: String) {
    let email = try? Contact.validatedEmail(text)
    let phone = try? Contact.validatedPhone(text)
    if case .email(let address)? = email {
        let parts = address.split(separator: "@", omittingEmptySubsequences: false)
        invariant(parts.count == 2 && !parts[0].isEmpty, "email \(address.debugDescription) is not local@domain")
        invariant(parts[1] == parts[1].lowercased(), "email domain \(parts[1]) is not lower-cased")
        invariant(parts[1].unicodeScalars.allSatisfy { $0.isASCII && $0.value > 0x20 }, "email domain is not ASCII")
        // "Without spaces" in the user's sense: no Unicode space or line break, no control or format character.
        invariant(
            address.unicodeScalars.allSatisfy {
                !$0.properties.isWhitespace && ![.control, .format].contains($0.properties.generalCategory)
            }, "email \(address.debugDescription) holds spaces or controls")
        invariant((try? Contact.validatedEmail(address)) == email, "a validated email is not stable")
    } else if email != nil {
        invariant(false, "validatedEmail answered a phone")
    }
    if case .phone(let number)? = phone {
        let digits = number.utf8.dropFirst()
        invariant(
            number.hasPrefix("+") && (8...15).contains(digits.count)
                && digits.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
                && digits.first != UInt8(ascii: "0"),
            "phone \(number.debugDescription) is not E.164")
        invariant((try? Contact.validatedPhone(number)) == phone, "a validated phone is not stable")
    } else if phone != nil {
        invariant(false, "validatedPhone answered an email")
    }
    let parsed = try? Contact.parse(text)
    invariant(parsed == (text.contains("@") ? email : phone), "parse disagrees with the validator it picks")
}

private func checkCodes(_ text: String) {
    for format in formats {
        guard let code = format.validate(text) else { continue }
        invariant(code.count == format.length, "a \(code.count)-character code passed as \(format.length)")
        invariant(
            code.unicodeScalars.allSatisfy {
                ($0.value >= 0x30 && $0.value <= 0x39)
                    || (format.alphanumeric && $0.value >= 0x41 && $0.value <= 0x5A)
            },
            "code \(code.debugDescription) has characters outside its alphabet")
        invariant(format.validate(code) == code, "a validated code is not stable")
        invariant(code.allSatisfy(format.accepts), "a validated code has characters a code field refuses")
    }
}

/// Whatever decodes encodes back to text that decodes to the same bytes; and any bytes survive encoding.
private func checkBase32(_ text: String, _ bytes: [UInt8]) {
    if let decoded = Base32.decode(text) {
        invariant(Base32.decode(Base32.encode(decoded)) == decoded, "Base32 round trip changed the seed")
    }
    invariant(Base32.decode(Base32.encode(bytes)) == bytes, "Base32 does not round-trip \(bytes.count) bytes")
}

private func contactSeeds() -> [(name: String, bytes: [UInt8])] {
    let texts = [
        ("email", "user@example.com"),
        ("email-spaces-case", "  First.Last+tag@Mail.Example.CO.uk \n"),
        ("email-two-at", "a@b@example.com"),
        ("email-unicode", "josé@exämple.com"),
        ("email-line-separator", "a\u{2028}b@example.com"),
        ("phone-e164", "+14155550123"),
        ("phone-formatted", "+44 (20) 7946-0958"),
        ("phone-00", "0049 30 901820"),
        ("phone-national", "030 901820"),
        ("phone-short", "+1234"),
        ("code-6", "123456"),
        ("code-dashed", "123-456"),
        ("code-alnum", "ab12 cd34"),
        ("code-fullwidth", "１２３４５６"),
        ("base32", "JBSWY3DPEHPK3PXP"),
        ("base32-grouped", "jbsw y3dp ehpk 3pxp===="),
        ("base32-bad-length", "JBSWY3D"),
    ]
    return texts.map { ($0.0, Array($0.1.utf8)) }
}
