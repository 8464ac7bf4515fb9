@testable import AuthCrypto

/// Hex from a test vector as printed in an RFC: spaces and line breaks are layout, not data.
func bytes(_ hex: String) -> [UInt8] {
    let cleaned = hex.filter { !$0.isWhitespace }
    guard let decoded = Hex.decode(cleaned) else { fatalError("bad hex in test vector: \(hex.prefix(16))") }
    return decoded
}

/// The same bytes with one bit flipped at `index`, to show that tampering anywhere is caught.
func flippingBit(_ input: [UInt8], at index: Int, bit: UInt8 = 0x01) -> [UInt8] {
    var copy = input
    copy[index] ^= bit
    return copy
}
