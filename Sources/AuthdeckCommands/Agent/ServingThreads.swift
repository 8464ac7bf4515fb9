import Dispatch
import Foundation
import Synchronization

/// The threads the agent serves connections on. A thread is started only when none is idle, and one that finishes
/// a connection waits for the next instead of ending, so a steady stream of clients costs no thread start per
/// request, while a slow client still holds up only the thread it is on. There are never more threads than
/// connections were open at once (the agent caps those).
final class ServingThreads: Sendable {
    private struct State {
        var waiting: [@Sendable () -> Void] = []
        /// Threads parked on `wake`, each owed one signal when work comes.
        var idle = 0
    }

    private let state = Mutex(State())
    private let wake = DispatchSemaphore(value: 0)

    /// Runs `work` on an idle thread, or on a new one when none is idle.
    func run(_ work: @escaping @Sendable () -> Void) {
        let woken = state.withLock { state in
            state.waiting.append(work)
            guard state.idle > 0 else { return false }
            state.idle -= 1
            return true
        }
        if woken {
            wake.signal()
        } else {
            Thread.detachNewThread { [self] in serveForever() }
        }
    }

    /// Takes work while there is some, then parks until `run` signals. Checking for work and counting itself idle
    /// happen under one lock, so work queued in between is never left without a thread.
    private func serveForever() {
        while true {
            let next = state.withLock { state -> (@Sendable () -> Void)? in
                guard !state.waiting.isEmpty else {
                    state.idle += 1
                    return nil
                }
                return state.waiting.removeFirst()
            }
            if let next {
                next()
            } else {
                wake.wait()
            }
        }
    }
}
