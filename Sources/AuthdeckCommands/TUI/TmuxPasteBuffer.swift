import AuthCrypto
import Foundation

/// A copied token inside tmux: with `set-clipboard on` tmux keeps what an OSC 52 copy carried in a paste buffer of
/// its own, and ignores the empty OSC 52 that clears a terminal's clipboard. So the clearing also deletes, through
/// the tmux server the TUI runs in (`$TMUX`), the paste buffers that hold exactly the copied text: the user's other
/// buffers stay. Only a digest of the text is kept until then, never the text.
struct TmuxPasteBuffer: Sendable {
    let digest: [UInt8]
    let length: Int
    /// The TUI's environment: `$TMUX` and `PATH`.
    let environment: [String: String]

    init(copied text: String, environment: [String: String]) {
        digest = SHA256.hash(text)
        length = text.utf8.count
        self.environment = environment
    }

    /// Deletes the buffers holding the copied text; the names deleted. Nothing when tmux cannot be run.
    @discardableResult
    func delete() -> [String] {
        guard let listing = tmux(["list-buffers", "-F", "#{buffer_size} #{buffer_name}"]) else { return [] }
        var deleted: [String] = []
        for line in String(decoding: listing, as: UTF8.self).split(separator: "\n") {
            let parts = line.split(separator: " ", maxSplits: 1)
            guard parts.count == 2, Int(parts[0]) == length else { continue }
            let name = String(parts[1])
            guard let content = tmux(["show-buffer", "-b", name]), SHA256.hash(content) == digest else {
                continue
            }
            if tmux(["delete-buffer", "-b", name]) != nil { deleted.append(name) }
        }
        return deleted
    }

    /// `tmux ARGUMENTS` on the server `$TMUX` names (tmux reads it), its standard output; nil when it failed.
    private func tmux(_ arguments: [String]) -> [UInt8]? {
        ProgramOutput.run("tmux", arguments, environment: environment)
    }
}
