import AttachKit

/// `attachkit merge OUT_DIR [--prefer-latest] [--json]`
struct MergeCommand: Command {
    static let name = "merge"
    static let summary = "fold a batch's shard manifests into one manifest.jsonl, naming conflicts"
    static let usage = """
        usage: attachkit merge OUT_DIR [--prefer-latest] [--json]

        Folds every manifest a batch left in OUT_DIR (each shard's manifest-shard-I-of-N.jsonl, of
        any shard count, and manifest.jsonl) into one OUT_DIR/manifest.jsonl holding one line per
        input, written atomically, then removes the shards' manifests. Of the lines for one input,
        the one recorded last wins when they agree (the same input hash and options hash); when
        they record different bytes, the input's content now decides (older lines are stale). A
        conflict (one input under different options, or bytes none of which is the input's now;
        two inputs naming one output) is printed on stderr, and nothing is written or removed.
        Run it while no batch writes OUT_DIR: it refuses (exit 75) while one does.
          --prefer-latest   resolve every conflict by the line recorded last (an input that loses
                            its output to another input's later line is prepared again next run)
          --json            print the result as one JSON object on stdout
        Exit status: 0 merged, 1 a conflict left unresolved (nothing changed) or the manifest could
        not be written, 64 usage error, 75 a batch is writing OUT_DIR.
        """
    static let options: Set<String> = []
    static let flags: Set<String> = ["prefer-latest", "json"]

    let merge: BatchMerge
    let json: Bool

    init(_ arguments: Arguments) throws(UsageError) {
        guard arguments.positional.count == 1 else { throw UsageError("give exactly one OUT_DIR (the --out folder of a batch)") }
        guard FileSystem.isDirectory(arguments.positional[0]) else { throw UsageError("\(arguments.positional[0]) is not a folder") }
        merge = BatchMerge(outputRoot: arguments.positional[0], preferLatest: arguments.flag("prefer-latest"))
        json = arguments.flag("json")
    }

    func run() -> ExitCode {
        let result: BatchMerge.Result
        do {
            result = try merge.run()
        } catch {
            Output.error("attachkit merge: \(error.description)")
            switch error {
            case .busy, .survivors, .otherSplit: return .busy
            default: return .failure
            }
        }
        for conflict in result.conflicts {
            Output.error("attachkit merge: conflict: \(conflict.description)")
        }
        if json {
            let conflicts = result.conflicts.map { conflict in
                JSONValue.object([("subject", .string(conflict.subject)), ("message", .string(conflict.message)),
                                  ("resolution", conflict.resolution.map(JSONValue.string) ?? .null)])
            }
            Output.json(JSONValue.object([
                ("manifest", .string(result.path)), ("written", .bool(result.written)),
                ("manifests", .array(result.manifests.map(JSONValue.string))), ("inputs", .number(Double(result.inputs))),
                ("duplicates", .number(Double(result.duplicates))), ("stale", .number(Double(result.stale))),
                ("unreadLines", .number(Double(result.unreadLines))), ("conflicts", .array(conflicts)),
                ("removed", .array(result.removed.map(JSONValue.string))),
            ]).serialized)
        } else if result.written {
            let removed = result.removed.isEmpty ? "nothing" : result.removed.joined(separator: ", ")
            Output.line("merged \(result.manifests.count) manifest(s) into \(result.path): \(result.inputs) input(s), \(result.duplicates) older duplicate line(s) and \(result.stale) stale line(s) dropped, \(result.conflicts.count) conflict(s) resolved; removed \(removed)")
        }
        if result.unreadLines > 0 {
            Output.error("attachkit merge: \(result.unreadLines) manifest line(s) are not a batch's lines and are left out")
        }
        guard result.written else {
            Output.error("attachkit merge: \(result.unresolved.count) conflict(s) left unresolved: nothing written, no manifest removed (--prefer-latest takes the line recorded last)")
            return .failure
        }
        return .success
    }
}
