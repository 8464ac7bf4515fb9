/// The name a mistyped one most likely meant, for "did you mean" in keys.json's errors and the `:` command line.
enum NearestName {
    /// The name of `names` that starts with `typed`, else the one fewest edits away (at most half the typed
    /// length, so a word that resembles nothing suggests nothing); nil when none is near.
    static func to(_ typed: String, among names: [String]) -> String? {
        let word = typed.lowercased()
        guard !word.isEmpty else { return nil }
        if let started = names.first(where: { $0.hasPrefix(word) }) { return started }
        let scored = names.map { ($0, distance(Array(word), Array($0))) }
        guard let best = scored.min(by: { $0.1 < $1.1 }), best.1 <= max(1, word.count / 2) else { return nil }
        return best.0
    }

    /// Levenshtein distance: insertions, deletions and substitutions, one each.
    static func distance(_ a: [Character], _ b: [Character]) -> Int {
        var previous = Array(0...b.count)
        for (i, x) in a.enumerated() {
            var current = [i + 1]
            for (j, y) in b.enumerated() {
                current.append(min(previous[j + 1] + 1, current[j] + 1, previous[j] + (x == y ? 0 : 1)))
            }
            previous = current
        }
        return previous[b.count]
    }
}
