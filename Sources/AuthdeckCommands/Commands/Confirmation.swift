#if canImport(Glibc)
    import Glibc
#endif

/// A yes/no question on the terminal before something that cannot be undone; anything but `y` or `yes` is no.
enum Confirmation {
    /// Asks on the command's standard error and reads the answer from its input.
    static func ask(_ environment: CommandEnvironment, _ question: String) -> Bool {
        environment.errors.write(question)
        guard let answer = environment.input.readLine() else { return false }
        return isYes(answer)
    }

    /// Asks on the process's own terminal (the agent's `--confirm`: the agent runs only as its own process).
    static func ask(_ question: String) -> Bool {
        ask(.process(), question)
    }

    /// Whether a typed answer is `y` or `yes` (any case, blanks ignored).
    static func isYes(_ answer: String) -> Bool {
        let word = answer.lowercased().filter { $0 != " " && $0 != "\t" }
        return word == "y" || word == "yes"
    }
}
