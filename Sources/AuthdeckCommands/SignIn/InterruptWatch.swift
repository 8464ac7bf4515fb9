import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Turns Ctrl-C (SIGINT) and SIGTERM into a cancel of the running sign-in.
final class InterruptWatch: Sendable {
    private let sources: Mutex<[DispatchSourceSignal]>

    init(_ onInterrupt: @escaping @Sendable () -> Void) {
        let sources = [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler(handler: onInterrupt)
            source.resume()
            return source
        }
        self.sources = Mutex(sources)
    }

    func stop() {
        sources.withLock { sources in
            for source in sources { source.cancel() }
        }
    }
}
