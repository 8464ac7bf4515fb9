import Foundation

/// One step of a sign-in as the TUI saw it: a state change, a receiver's callback and its verdict, a notice.
public struct TraceLine: Equatable, Sendable {
    /// What kind of step, for its colour.
    public enum Kind: Equatable, Sendable {
        /// The machine moved to another state.
        case state
        /// A receiver delivered a callback (accepted or refused).
        case callback
        /// Something was refused but the attempt goes on.
        case notice
        /// The attempt ended.
        case result
        /// A protocol step from the flow trace (request, response, id_token…), named by its kind.
        case step(String)
    }

    public var time: Date
    public var kind: Kind
    public var text: String
    /// Whether the step went wrong, so it is drawn in the error colour.
    public var isError: Bool

    public init(time: Date, kind: Kind, text: String, isError: Bool = false) {
        self.time = time
        self.kind = kind
        self.text = text
        self.isError = isError
    }
}
