import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Reads lines from standard input on a thread of its own (codes, pasted URLs, answers). End of input closes only
/// this reader (`ended` is told): the other receivers keep waiting until the deadline.
final class LineInput: Sendable {
    private let handle: @Sendable (String) -> Void
    private let ended: @Sendable () -> Void

    init(ended: @escaping @Sendable () -> Void = {}, _ handle: @escaping @Sendable (String) -> Void) {
        self.handle = handle
        self.ended = ended
    }

    func start() {
        let handle = self.handle
        let ended = self.ended
        let thread = Thread {
            while let line = Swift.readLine(strippingNewline: true) {
                let trimmed = line.trimmingCharacters(in: .whitespacesAndNewlines)
                handle(trimmed)
            }
            ended()
        }
        thread.name = "authdeck-input"
        thread.start()
    }
}
