import AttachKit

/// The parts of a command's usage text made from ``OptionTable``: the synopsis and the option
/// lines, with the command's own options (`--json`, `--jobs`) laid out the same way.
enum UsageText {
    /// One option line: `--max-bytes N` and its help, a line each.
    typealias Entry = (name: String, help: [String])

    /// The width lines wrap at.
    static let width = 100

    /// `usage: attachkit NAME` then `items`, wrapped at ``width`` with the continuation lines
    /// under the first item.
    static func synopsis(_ command: String, _ items: [String]) -> String {
        let head = "usage: attachkit \(command) "
        return wrapped(items, first: head, indent: head.count)
    }

    /// The synopsis items of the options `verb` takes, in the table's order: `[--max-bytes N]`,
    /// `--out OUT_DIR` where it is required, and an option refining another within its brackets
    /// (`[--thumbnail [--size PX] ...]`).
    static func items(_ verb: OptionVerb) -> [String] {
        let specs = OptionTable.specs(for: verb)
        let keys = Set(specs.map(\.key))
        func item(_ spec: OptionSpec) -> String {
            let help = spec.help(for: verb)
            let refinements = specs.filter { $0.refines == spec.key }.map(item)
            let text = (["--" + spec.flag(for: verb) + (help.synopsisValue.map { " " + $0 } ?? "")] + refinements).joined(separator: " ")
            return help.required ? text : "[\(text)]"
        }
        return specs.filter { $0.refines.map { !keys.contains($0) } ?? true }.map(item)
    }

    /// The option lines of the options `verb` takes, in the table's order.
    static func entries(_ verb: OptionVerb) -> [Entry] {
        OptionTable.specs(for: verb).map { entry($0, verb) }
    }

    /// `verb`'s options that `like` takes under the same flag with the same help: those the
    /// usage text of `verb` may name as `like`'s (``sameAs(_:for:)``).
    static func shared(_ like: OptionVerb, with verb: OptionVerb) -> [OptionSpec] {
        OptionTable.specs(for: verb).filter { spec in
            spec.verbs.contains(like) && spec.flag(for: like) == spec.flag(for: verb) && spec.help(for: like) == spec.help(for: verb)
        }
    }

    /// The option lines of `verb`'s options other than those it shares with `like`.
    static func entries(_ verb: OptionVerb, besides like: OptionVerb) -> [Entry] {
        let named = Set(shared(like, with: verb).map(\.key))
        return OptionTable.specs(for: verb).filter { !named.contains($0.key) }.map { entry($0, verb) }
    }

    /// The options `verb` shares with `like`, named in one wrapped list: `--max-bytes, --max-edge,
    /// ...   as for prepare`.
    static func sameAs(_ like: OptionVerb, for verb: OptionVerb) -> String {
        let flags = shared(like, with: verb).map { "--" + $0.flag(for: verb) }
        return wrapped(flags.dropLast().map { $0 + "," } + [(flags.last ?? "") + "   as for \(like.rawValue)"], first: "  ", indent: 2)
    }

    /// The lines of `entries`, each name padded to one column, a help line beneath another.
    static func lines(_ entries: [Entry]) -> String {
        let column = (entries.map(\.name.count).max() ?? 0) + 2
        return entries.flatMap { entry in
            entry.help.enumerated().map { index, help in
                "  " + (index == 0 ? entry.name : "").padding(toLength: column) + help
            }
        }.joined(separator: "\n")
    }

    /// `lead`, then the operations of `serve` and the keys each takes: `prepare {out, profile,
    /// maxBytes, ...}`, wrapped.
    static func operationKeys(_ lead: String, _ verbs: [OptionVerb]) -> String {
        let groups = verbs.map { verb in "\(verb.rawValue) {\(OptionTable.specs(for: verb).map(\.key).joined(separator: ", "))}" }
        return wrapped(groups.joined(separator: "; ").split(separator: " ").map(String.init), first: lead, indent: 2)
    }

    private static func entry(_ spec: OptionSpec, _ verb: OptionVerb) -> Entry {
        let help = spec.help(for: verb)
        return ("--" + spec.flag(for: verb) + (help.value.map { " " + $0 } ?? ""), help.lines)
    }

    /// `words` after `first`, separated by spaces, wrapped at ``width`` with `indent` spaces before
    /// each continuation line.
    private static func wrapped(_ words: [String], first: String, indent: Int) -> String {
        var lines: [String] = []
        var line = first
        for (index, word) in words.enumerated() {
            if index > 0, line.count + 1 + word.count > width {
                lines.append(line)
                line = String(repeating: " ", count: indent) + word
            } else {
                line += (index > 0 ? " " : "") + word
            }
        }
        return (lines + [line]).joined(separator: "\n")
    }
}

private extension String {
    func padding(toLength length: Int) -> String {
        count >= length ? self : self + String(repeating: " ", count: length - count)
    }
}
