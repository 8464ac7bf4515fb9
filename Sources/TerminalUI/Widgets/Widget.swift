/// Something that draws itself into a rectangle of a `ScreenBuffer`. Widgets are values built fresh from the
/// screen's state on every frame; they keep no state of their own between frames.
public protocol Widget {
    func draw(in rect: Rect, into buffer: inout ScreenBuffer)
}
