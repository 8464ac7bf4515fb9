#if canImport(Glibc)
    import Glibc
#endif

/// A yes/no question on the terminal before something that cannot be undone; anything but `y` or `yes` is no.
enum Confirmation {
    static func ask(_ question: String) -> Bool {
        Output.err(question)
        guard let answer = readLine(strippingNewline: true) else { return false }
        return isYes(answer)
    }

    /// Whether a typed answer is `y` or `yes` (any case, blanks ignored).
    static func isYes(_ answer: String) -> Bool {
        let word = answer.lowercased().filter { $0 != " " && $0 != "\t" }
        return word == "y" || word == "yes"
    }
}
