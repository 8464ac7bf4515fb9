import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Reads lines from standard input on a thread of its own (codes, pasted URLs). End of input closes only this
/// reader: the other receivers keep waiting until the deadline.
final class LineInput: @unchecked Sendable {
    private let handle: @Sendable (String) -> Void

    init(_ handle: @escaping @Sendable (String) -> Void) {
        self.handle = handle
    }

    func start() {
        let handle = self.handle
        let thread = Thread {
            while let line = Swift.readLine(strippingNewline: true) {
                let trimmed = line.trimmingCharacters(in: .whitespacesAndNewlines)
                handle(trimmed)
            }
        }
        thread.name = "authdeck-input"
        thread.start()
    }
}
