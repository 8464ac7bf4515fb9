import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Turns Ctrl-C (SIGINT) and SIGTERM into a cancel of the running sign-in.
final class InterruptWatch: @unchecked Sendable {
    private let sources: [DispatchSourceSignal]

    init(_ onInterrupt: @escaping @Sendable () -> Void) {
        sources = [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler(handler: onInterrupt)
            source.resume()
            return source
        }
    }

    func stop() {
        for source in sources { source.cancel() }
    }
}
