import Synchronization
import TerminalUI

/// Events posted from other threads (the sign-in controllers' queues, background store and network work) for the
/// event loop, which drains them between key reads. The loop's thread is the only one that touches the app state.
final class TUIInbox: Sendable {
    private let events = Mutex<[AppEvent]>([])

    func post(_ event: AppEvent) {
        events.withLock { $0.append(event) }
    }

    /// Everything posted since the last drain, in order.
    func drain() -> [AppEvent] {
        events.withLock { pending in
            defer { pending.removeAll(keepingCapacity: true) }
            return pending
        }
    }
}
