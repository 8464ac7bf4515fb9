import Foundation
import Synchronization

/// The sandbox's sense of time, in Unix seconds. The system clock in normal use; tests start it at a fixed
/// instant and move it forward, so expiry (codes, tokens, device polling) is tested without sleeping.
public final class SandboxClock: Sendable {
    private let offset = Mutex<Double>(0)
    private let frozenAt: Double?

    /// The system clock.
    public init() {
        frozenAt = nil
    }

    /// A clock that stands still at `start` until `advance(by:)` moves it.
    public init(frozenAt start: Double) {
        frozenAt = start
    }

    /// Now, in seconds since 1970.
    public var now: Double {
        let shift = offset.withLock { $0 }
        return (frozenAt ?? Date().timeIntervalSince1970) + shift
    }

    /// Whole seconds, as JWT `iat`/`exp` want them.
    var seconds: Int { Int(now) }

    /// Moves the clock forward; the system clock keeps running on top of the shift.
    public func advance(by seconds: Double) {
        offset.withLock { $0 += seconds }
    }
}
