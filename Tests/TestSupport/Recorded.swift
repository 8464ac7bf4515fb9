import Foundation

/// What a callback on another thread saw (requests a server got, callbacks a receiver delivered), in order, read by
/// the test once it is done.
public final class Recorded<Element: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var elements: [Element] = []

    public init() {}

    public func append(_ element: Element) { lock.withLock { elements.append(element) } }

    public var all: [Element] { lock.withLock { elements } }
}
