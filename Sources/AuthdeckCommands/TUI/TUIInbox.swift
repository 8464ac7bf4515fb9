import Synchronization
import TerminalUI

#if canImport(Glibc)
    import Glibc
#endif

/// Events posted from other threads (the sign-in controllers' queues, background store and network work) for the
/// event loop, which drains them between key reads. The loop's thread is the only one that touches the app state.
/// Each post also writes a byte to a wake-up pipe the loop `poll`s beside the terminal, so the loop sleeps until
/// a key or a post arrives instead of waking on a timer.
final class TUIInbox: Sendable {
    private let events = Mutex<[AppEvent]>([])
    /// The pipe's read end (what the loop polls) and write end; -1 when no pipe could be made (the loop then
    /// wakes on its own every few milliseconds rather than miss a post).
    let wakeDescriptor: Int32
    private let wakeWriter: Int32
    /// The write end, for the SIGWINCH handler (`TUIResizeWake`).
    var wakeDescriptorForSignals: Int32 { wakeWriter }

    init() {
        var ends: [Int32] = [-1, -1]
        if pipe(&ends) == 0 {
            for end in ends {
                _ = fcntl(end, F_SETFD, FD_CLOEXEC)
                _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
            }
        } else {
            ends = [-1, -1]
        }
        wakeDescriptor = ends[0]
        wakeWriter = ends[1]
    }

    deinit {
        if wakeDescriptor >= 0 { close(wakeDescriptor) }
        if wakeWriter >= 0 { close(wakeWriter) }
    }

    func post(_ event: AppEvent) {
        events.withLock { $0.append(event) }
        guard wakeWriter >= 0 else { return }
        // A full pipe already wakes the loop; the byte's value means nothing.
        var byte: UInt8 = 1
        _ = write(wakeWriter, &byte, 1)
    }

    /// Everything posted since the last drain, in order; the wake-up bytes go with them.
    func drain() -> [AppEvent] {
        if wakeDescriptor >= 0 {
            var bytes = [UInt8](repeating: 0, count: 256)
            while read(wakeDescriptor, &bytes, bytes.count) == bytes.count {}
        }
        return events.withLock { pending in
            defer { pending.removeAll(keepingCapacity: true) }
            return pending
        }
    }
}
