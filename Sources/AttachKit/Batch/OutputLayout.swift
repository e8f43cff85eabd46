/// Where each input of a batch goes: the mirror of its folder under the output root and a stem,
/// planned by one ``WritePlan`` over the whole input set before sharding (so every shard and every
/// rerun agrees) together with what else the run writes in the output root (its manifests, their
/// locks and compaction temporaries). An input `NAME.EXT` wants the stem `NAME`; when that
/// collides (`a.jpeg` and `a.jpg`, `é` precomposed and decomposed, `x.webp`'s thumbnail and
/// `x.thumbnail.jpg`), the one later in byte order gets `NAME-EXT`, then `NAME-2`...; a mirrored
/// folder that collides (with a twin, or with the manifest) becomes `NAME-2`...
struct OutputLayout: Sendable {
    /// Where one input goes.
    struct Assignment: Sendable {
        /// The output folder, relative to the output root ("" for the root).
        let folder: String
        let stem: String
        /// The stem the input's name asked for.
        let wanted: String
        /// Why the folder or stem is not the one the input's path asked for; `nil` when it is.
        let reason: String?
        /// The files already at the stem's names that earlier runs recorded writing (as they were
        /// when planned): the only ones its output may replace.
        var replacing: Set<FileVersion> = []

        /// `{"folder", "stem", "wanted", "reason"}` for the manifest line, when renamed.
        var json: JSONValue? {
            reason.map { .object([("folder", .string(folder)), ("stem", .string(stem)), ("wanted", .string(wanted)), ("reason", .string($0))]) }
        }
    }

    /// Every input's assignment, by its path relative to the input root (byte for byte).
    private(set) var assignments: [ExactPath: Assignment] = [:]
    /// The inputs' files: no output may replace one.
    let protected: Set<FileIdentity>
    /// The files on disk (as planned) that earlier runs wrote and nobody changed since: the only
    /// ones an output may replace, or a run remove (``BatchWork``).
    let replaceable: Set<FileVersion>

    /// Plans `relativePaths` (files under `inputRoot`) into `outputRoot`, beside `reserved`: the
    /// names the run writes in the output root itself, each with what it is. A file already at an
    /// output's name is the batch's own, and may be replaced by the output of the input that
    /// wrote it, only when `written` (paths relative to `outputRoot`: what earlier runs recorded
    /// writing, with the input and ``OutputStamp`` each line recorded) lists it and it is still a
    /// version recorded there; any other file is somebody else's (a user's, or a user's edit of an
    /// earlier output, or one a line recorded without a stamp), and so is another input's output
    /// (`a.jpeg` added beside `a.jpg` done earlier would take `a.jpg`'s output name in byte order):
    /// the output takes the next stem, and the file stays.
    /// - Throws: ``OutputError/collision(path:with:)`` when a reserved name is an input's file
    ///   (a link to one): the run cannot write it without replacing that input.
    init(relativePaths: [String], inputRoot: String, outputRoot: String, reserved: [(name: String, role: String)] = [],
         written: [ExactPath: Set<RecordedWrite>] = [:]) throws(OutputError) {
        let sorted = relativePaths.sortedExactly()
        var plan = WritePlan(inputs: sorted.map { inputRoot + "/" + $0 }, shown: { String($0.dropFirst(inputRoot.count + 1)) })
        for (file, writes) in written {
            guard let version = FileVersion(path: outputRoot + "/" + file.text) else { continue }
            let current = writes.filter { $0.stamp?.matches(version) ?? false }
            if !current.isEmpty {
                plan.replaceable.insert(version)
                plan.writers[version] = Set(current.map(\.input.text))
            } else {
                plan.unprovenPhrases[version] = writes.contains(where: { $0.stamp != nil })
                    ? "that changed since this batch wrote it (an edit is never replaced)"
                    : "whose size and time no manifest line recorded (a batch from before they were), so it is never replaced"
            }
        }
        replaceable = plan.replaceable
        plan.foreignFilePhrase = "that no run of this batch wrote"
        for file in reserved { try plan.claimFile(outputRoot + "/" + file.name, as: file.role) }
        let folders = Self.claimFolders(of: sorted, in: outputRoot, plan: &plan)
        for path in sorted {
            let parent = PathResolver.directory(path) == "." ? "" : PathResolver.directory(path)
            let folder = folders[ExactPath(parent)] ?? (parent, nil)
            let planned = plan.claimOutput(fileName: PathResolver.fileName(path), in: Self.join(outputRoot, folder.path), for: path)
            assignments[ExactPath(path)] = Assignment(folder: folder.path, stem: planned.stem, wanted: planned.wanted,
                                                      reason: [folder.reason, planned.reason].compactMap { $0 }.joined(separator: "; ").nilIfEmpty,
                                                      replacing: plan.replaceableFiles(stem: planned.stem, in: Self.join(outputRoot, folder.path), for: path))
        }
        protected = plan.protected
    }

    /// The mirror of every folder holding an input (relative input folder → relative output
    /// folder, and why it was renamed), parents first.
    private static func claimFolders(of paths: [String], in outputRoot: String, plan: inout WritePlan) -> [ExactPath: (path: String, reason: String?)] {
        var wanted = Set<ExactPath>()
        for path in paths {
            var folder = PathResolver.directory(path)
            while folder != "." && folder != "/" && wanted.insert(ExactPath(folder)).inserted { folder = PathResolver.directory(folder) }
        }
        var mirrors: [ExactPath: (path: String, reason: String?)] = [ExactPath(""): ("", nil)]
        for folder in wanted.sorted() {
            let parent = PathResolver.directory(folder.text) == "." ? "" : PathResolver.directory(folder.text)
            let above = mirrors[ExactPath(parent)] ?? (parent, nil)
            let claimed = plan.claimFolder(PathResolver.fileName(folder.text), in: join(outputRoot, above.path), for: folder.text)
            mirrors[folder] = (above.path.isEmpty ? claimed.name : above.path + "/" + claimed.name, above.reason ?? claimed.reason)
        }
        return mirrors
    }

    private static func join(_ root: String, _ relative: String) -> String {
        relative.isEmpty ? root : root + "/" + relative
    }
}

private extension String {
    var nilIfEmpty: String? { isEmpty ? nil : self }
}
