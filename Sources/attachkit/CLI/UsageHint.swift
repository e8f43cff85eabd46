/// What a usage error adds to its one line: the nearest spelling the command accepts (`did you
/// mean --max-bytes?`), and the commands that take an option this one does not (`--thumbnails is
/// an option of batch`). Nothing is suggested when nothing is close.
enum UsageHint {
    /// The optimal-string-alignment distance (Damerau–Levenshtein with adjacent transpositions,
    /// each edit once) between `a` and `b`, compared without regard to ASCII letter case.
    static func distance(_ a: String, _ b: String) -> Int {
        let s = Array(a.lowercased()), t = Array(b.lowercased())
        if s.isEmpty || t.isEmpty { return max(s.count, t.count) }
        var previous2 = [Int](repeating: 0, count: t.count + 1)
        var previous = Array(0...t.count)
        var current = [Int](repeating: 0, count: t.count + 1)
        for i in 1...s.count {
            current[0] = i
            for j in 1...t.count {
                let cost = s[i - 1] == t[j - 1] ? 0 : 1
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, s[i - 1] == t[j - 2], s[i - 2] == t[j - 1] {
                    current[j] = min(current[j], previous2[j - 2] + 1)
                }
            }
            (previous2, previous, current) = (previous, current, previous2)
        }
        return previous[t.count]
    }

    /// The candidate nearest `word`, when it is within a third of `word`'s length (at least one
    /// edit: `--max-byte`, `--jsno`, `--thumbnal`); the first in sorted order on a tie; `nil` when
    /// none is that close.
    static func nearest(_ word: String, among candidates: some Sequence<String>) -> String? {
        let limit = max(1, word.count / 3)
        let scored = candidates.map { ($0, distance(word, $0)) }.filter { $0.1 <= limit }
        return scored.min { $0.1 != $1.1 ? $0.1 < $1.1 : $0.0 < $1.0 }?.0
    }

    /// The line for an option `command` does not take (`given` as written: `--max-byte`,
    /// `-max-bytes`): `unknown option --max-byte (did you mean --max-bytes?)`, `unknown option
    /// --jobs (--jobs is an option of batch, http and serve)`.
    static func unknownOption(_ given: String, command: any Command.Type, among others: [any Command.Type]) -> String {
        let name = String(given.drop { $0 == "-" })
        let own = command.options.union(command.flags)
        var parts: [String] = []
        if let near = nearest(name, among: own.sorted()) { parts.append("did you mean --\(near)?") }
        let takers = others.filter { $0.name != command.name && $0.options.union($0.flags).contains(name) }.map { $0.name }.sorted()
        if !name.isEmpty, !own.contains(name), !takers.isEmpty { parts.append("--\(name) is an option of \(list(takers))") }
        return "unknown option \(given)" + (parts.isEmpty ? "" : " (\(parts.joined(separator: " ")))")
    }

    /// `a`, `a and b`, `a, b and c`.
    static func list(_ words: [String]) -> String {
        words.count <= 1 ? words.joined() : words.dropLast().joined(separator: ", ") + " and " + words.last!
    }
}
