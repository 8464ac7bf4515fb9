import Foundation

/// `ListJSONObject` (StoreCore, which has no Foundation) at the store's `Date`s.
extension ListJSONObject {
    func appendFields(now: Date, to buffer: inout JSONBuffer) {
        appendFields(now: now.timeIntervalSince1970, to: &buffer)
    }
}
