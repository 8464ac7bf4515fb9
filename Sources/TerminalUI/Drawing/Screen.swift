/// One screen of the app (Sessions, New sign-in, Awaiting callback…): a pure function from the state it shows
/// to a frame. It never reads keys or touches the terminal; the event loop hands it a fresh buffer of the
/// terminal's size (through `TooSmallScreen.frame`) and gives the result to `Terminal.present`.
public protocol Screen {
    associatedtype State
    func render(_ state: State, into buffer: inout ScreenBuffer)
}
