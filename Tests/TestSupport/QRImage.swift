import Foundation

/// QR codes as zbarimg (zbar-tools) reads them: the modules drawn into an image, for a decoder that is not
/// authdeck's to say what the code holds.
public enum QRImage {
    /// zbarimg's path, or nil when zbar-tools is not installed.
    public static let zbarimg: String? = ["/usr/bin/zbarimg", "/usr/local/bin/zbarimg"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    /// The modules (dark is true) as a binary greyscale PGM image: dark black, `scale` pixels a module, with a
    /// white margin of `margin` modules.
    public static func pgm(_ modules: [[Bool]], scale: Int = 4, margin: Int = 4) -> Data {
        let width = ((modules.first?.count ?? 0) + 2 * margin) * scale
        let height = (modules.count + 2 * margin) * scale
        var pixels = [UInt8](repeating: 255, count: width * height)
        for (row, line) in modules.enumerated() {
            for (col, dark) in line.enumerated() where dark {
                for dy in 0..<scale {
                    for dx in 0..<scale {
                        pixels[((row + margin) * scale + dy) * width + (col + margin) * scale + dx] = 0
                    }
                }
            }
        }
        return Data("P5\n\(width) \(height)\n255\n".utf8) + Data(pixels)
    }
}
