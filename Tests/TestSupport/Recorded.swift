import Synchronization

/// What a callback on another thread saw (requests a server got, callbacks a receiver delivered), in order, read by
/// the test once it is done.
public final class Recorded<Element: Sendable>: Sendable {
    private let elements = Mutex<[Element]>([])

    public init() {}

    public func append(_ element: Element) { elements.withLock { $0.append(element) } }

    public var all: [Element] { elements.withLock { $0 } }
}
