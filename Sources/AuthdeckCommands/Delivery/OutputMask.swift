/// `exec --mask`: each secret the env file resolved is replaced by `<authdeck:KEY>` in the command's output. Bytes
/// that could still be the start of a secret are held back until the next read shows whether they are, so a token
/// written a few bytes at a time is masked as surely as one written whole.
struct OutputMask {
    /// A secret and what stands in its place; the longest first, so a token holding another is masked whole.
    private let secrets: [(bytes: [UInt8], replacement: [UInt8])]
    private var held: [Int32: [UInt8]] = [:]

    init(_ secrets: [(value: String, key: String)]) {
        self.secrets =
            secrets
            .filter { !$0.value.isEmpty }
            .map { (Array($0.value.utf8), Array("<authdeck:\($0.key)>".utf8)) }
            .sorted { $0.bytes.count > $1.bytes.count }
    }

    /// The output to pass on for `bytes`, the next output of the stream written to `descriptor`.
    mutating func pass(_ bytes: ArraySlice<UInt8>, from descriptor: Int32) -> [UInt8] {
        var pending = held[descriptor] ?? []
        pending.append(contentsOf: bytes)
        var output: [UInt8] = []
        output.reserveCapacity(pending.count)
        var index = 0
        scan: while index < pending.count {
            var partial = false
            for secret in secrets {
                let available = min(secret.bytes.count, pending.count - index)
                guard pending[index..<index + available].elementsEqual(secret.bytes.prefix(available)) else {
                    continue
                }
                if available == secret.bytes.count {
                    output.append(contentsOf: secret.replacement)
                    index += available
                    continue scan
                }
                partial = true
            }
            // A secret may start here and go on in the next read: hold the rest back until then.
            if partial { break }
            output.append(pending[index])
            index += 1
        }
        held[descriptor] = Array(pending[index...])
        return output
    }

    /// The end of a stream: what was held back was not a secret after all.
    mutating func ended(_ descriptor: Int32) -> [UInt8] {
        held.removeValue(forKey: descriptor) ?? []
    }
}
