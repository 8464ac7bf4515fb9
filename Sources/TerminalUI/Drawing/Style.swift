/// How text looks when written into a `ScreenBuffer`: colours and attributes together.
public struct Style: Hashable, Sendable {
    public var foreground: Color
    public var background: Color
    public var attributes: TextAttributes

    public init(foreground: Color = .normal, background: Color = .normal, attributes: TextAttributes = []) {
        self.foreground = foreground
        self.background = background
        self.attributes = attributes
    }

    public static let plain = Style()

    /// The same style with more attributes; widgets use it to mark focus or selection.
    public func adding(_ extra: TextAttributes) -> Style {
        var copy = self
        copy.attributes.formUnion(extra)
        return copy
    }

    public func with(foreground: Color) -> Style {
        var copy = self
        copy.foreground = foreground
        return copy
    }
}
