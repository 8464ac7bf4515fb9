/// What the user asked for when the store turned out to be locked (or not yet made): done as soon as the unlock
/// screen succeeds, so an unlock never drops the user back on the list.
public enum PendingAction: Equatable, Sendable {
    /// `n`: open the New sign-in screen.
    case newSignIn
    /// A sign-in that was starting: start it again.
    case signIn(SignInChoice)
    /// `r` on a session: refresh it.
    case refresh(String)
}
