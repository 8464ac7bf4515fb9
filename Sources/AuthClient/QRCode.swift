import CQRencode

/// A QR code made by libqrencode, as a square matrix of dark modules.
public struct QRCode: Equatable, Sendable {
    public let modules: [[Bool]]

    /// Encodes `text` (byte mode, error correction level L); nil when it is too long for a QR code.
    ///
    /// Level L: a code on a screen is not scratched or folded, and L keeps an authorize URL of 300-odd bytes at
    /// version 12 (65 modules, 35 terminal lines with the quiet zone), which fits 120×40 where M's 73 do not.
    public init?(_ text: String) {
        guard let code = QRcode_encodeString8bit(text, 0, QR_ECLEVEL_L) else { return nil }
        defer { QRcode_free(code) }
        let width = Int(code.pointee.width)
        var rows: [[Bool]] = []
        rows.reserveCapacity(width)
        for row in 0..<width {
            var line: [Bool] = []
            line.reserveCapacity(width)
            for column in 0..<width {
                // Bit 0 of each byte is the module's colour; the other bits describe its role.
                line.append(code.pointee.data[row * width + column] & 1 == 1)
            }
            rows.append(line)
        }
        modules = rows
    }

    public var size: Int { modules.count }

    /// The code as terminal text: two module rows per line with half blocks, dark on a light quiet zone, so it
    /// scans on dark and light terminals alike.
    public func terminalText(quietZone: Int = 2) -> String {
        let width = size + 2 * quietZone
        func dark(_ row: Int, _ column: Int) -> Bool {
            let r = row - quietZone
            let c = column - quietZone
            guard r >= 0, c >= 0, r < size, c < size else { return false }
            return modules[r][c]
        }
        var lines: [String] = []
        var row = 0
        while row < width {
            var line = ""
            for column in 0..<width {
                // Light modules are drawn as blocks, dark ones as spaces: terminals show text light on dark.
                switch (dark(row, column), row + 1 < width ? dark(row + 1, column) : false) {
                case (false, false): line += "█"
                case (false, true): line += "▀"
                case (true, false): line += "▄"
                case (true, true): line += " "
                }
            }
            lines.append(line)
            row += 2
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
