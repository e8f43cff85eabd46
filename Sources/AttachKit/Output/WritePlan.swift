/// Every path a run writes, planned before the first byte is written and checked against every
/// input of the run and every other planned path: the one planner of every verb. `prepare` and
/// `batch` plan their whole run (outputs, thumbnails, the manifest, its lock and compaction
/// temporary, the mirrored folders); ``Preparer`` and ``Thumbnailer`` plan each request again
/// (what `serve`, `attachkit http` and ``AttachKitService`` run), so nothing is written unplanned.
///
/// Two names are one name when their ``CaselessName`` keys are equal (letter case and Unicode
/// normalization ignored: what a macOS or SMB volume merges and ext4 keeps apart); a file that
/// exists is an input when its device and inode are an input's (a hard link, or a symbolic link
/// to it). An output stem `S` holds `S.EXT` for every extension an output can get (the extension
/// is known only once the output is made) and its thumbnail, `S.thumbnail.jpg`.
///
/// A stem that collides gets the first free candidate of `NAME`, `NAME-EXT` (for an input
/// `NAME.EXT`), `NAME-2`, `NAME-3`...; callers claim in byte order (``ExactPath``) over the whole
/// input set, so every rerun and every shard chooses the same, and ``PlannedOutput/reason`` says
/// why. An exact path that collides (a thumbnail's `--out`, a manifest) is refused with
/// ``OutputError/collision(path:with:)``: code `output-collision`.
package struct WritePlan: Sendable {
    /// The inputs' files (device and inode): no output may replace one. ``AtomicOutput`` checks
    /// again at the rename.
    var protected: Set<FileIdentity> = []
    /// The first name each input's file was given, for messages.
    var inputNames: [FileIdentity: String] = [:]
    /// What each folder holds, by folder (real path, or a planned path beneath one).
    var folders: [ExactPath: FolderNames] = [:]
    /// Real paths of the folders met so far.
    var realFolders: [ExactPath: String] = [:]
    /// The files already on disk an output may replace (``FileVersion``: what earlier runs of
    /// the same batch recorded writing, ``OutputLayout``). Any other file already at an output's
    /// name (`S.EXT` for an output extension, `S.thumbnail.jpg`) is somebody else's, and the stem
    /// moves on: no verb replaces a file AttachKit did not write (a user's file in an output folder
    /// nested in the input folder, a second request's output). ``OutputGuard`` checks again at
    /// the rename. Default: none.
    var replaceable: Set<FileVersion> = []
    /// How a reason names a file ``replaceable`` does not list: `NAME is a file already in the
    /// output folder ` + this.
    var foreignFilePhrase = "that AttachKit did not write (it never replaces one)"
    /// Files a batch recorded writing that are not ``replaceable`` all the same (changed since,
    /// or recorded without a stamp), each with how a reason says so instead of ``foreignFilePhrase``.
    var unprovenPhrases: [FileVersion: String] = [:]
    /// The inputs (as `owner` names them in ``claimOutput(fileName:in:for:)``) whose output each
    /// ``replaceable`` file is, where known: only their outputs may take its name; to any other
    /// input it is somebody else's file. Without an entry, any output may. Default: none.
    var writers: [FileVersion: Set<String>] = [:]

    /// Whether the output of `owner` may replace the file `version`.
    func mayReplace(_ version: FileVersion, for owner: String) -> Bool {
        replaceable.contains(version) && (writers[version]?.contains(owner) ?? true)
    }

    /// The extensions an output can be given (every known type's preferred extension).
    static let outputExtensions: Set<String> = Set(UniformType.known.map(\.preferredExtension))
    static let thumbnailSuffix = ".thumbnail"

    /// A plan protecting `inputs` (paths as given: absolute, or relative to the working directory),
    /// shown in messages as `shown` gives them (default: as given).
    package init(inputs: [String], shown: (String) -> String = { $0 }) {
        for path in inputs { addInput(path, shown: shown(path)) }
    }

    /// A plan protecting the one input behind `handle` (a request of ``Preparer`` or ``Thumbnailer``).
    init(input handle: borrowing AccessHandle) {
        addInput(handle.requestedPath, shown: handle.requestedPath, identity: handle.identity, resolved: handle.resolvedPath)
    }

    /// The name of a file without its last extension (a leading dot is part of the name), and that
    /// extension.
    package static func split(_ fileName: String) -> (stem: String, extension: String) {
        guard let dot = fileName.lastIndex(of: "."), dot != fileName.startIndex else { return (fileName, "") }
        return (String(fileName[..<dot]), String(fileName[fileName.index(after: dot)...]))
    }

    /// Plans the output (and thumbnail) of the input `owner`, named after `fileName` (the input's
    /// name), in `folder`: the stem `NAME`, else `NAME-EXT`, `NAME-2`...
    package mutating func claimOutput(fileName: String, in folder: String, for owner: String) -> PlannedOutput {
        let (stem, ext) = Self.split(fileName)
        return claimOutput(candidates: ext.isEmpty ? [stem] : [stem, "-" + ext], in: folder, for: owner)
    }

    /// Plans the output (and thumbnail) of `owner` under `stem` in `folder`, else `STEM-2`...
    package mutating func claimOutput(stem: String, in folder: String, for owner: String) -> PlannedOutput {
        claimOutput(candidates: [stem], in: folder, for: owner)
    }

    /// The longest file name Linux file systems take (`NAME_MAX`), in bytes.
    static let longestName = 255
    /// What an output stem must leave room for: `.thumbnail.jpg`, or a dot and the longest output extension.
    static let stemRoom = max(thumbnailSuffix.utf8.count + 4, 1 + (outputExtensions.map(\.utf8.count).max() ?? 0))

    /// Plans one exact file (`role`: what it is, for messages: "the thumbnail", "the batch manifest").
    /// - Throws: ``OutputError/collision(path:with:)`` when it is an input, or another planned path.
    package mutating func claimFile(_ path: String, as role: String) throws(OutputError) {
        let folder = PathResolver.directory(PathResolver.absolute(path))
        let name = PathResolver.fileName(path)
        if let conflict = conflict(name: name, in: folder) { throw .collision(path: path, with: conflict) }
        hold(name: name, in: folder, by: Holder(name: name, phrase: role))
    }

    /// Plans the folder `name` in `parent` (a batch's mirror of an input folder; `owner` names it):
    /// `name`, else `name-2`, `name-3`...
    /// - Returns: the name given, and why when it is not `name`.
    package mutating func claimFolder(_ name: String, in parent: String, for owner: String) -> (name: String, reason: String?) {
        var reason: String?
        for candidate in Self.candidates([name], room: 0) {
            guard let conflict = conflict(name: candidate, in: parent) ?? notAFolder(candidate, in: parent) else {
                hold(name: candidate, in: parent, by: Holder(name: candidate, phrase: "the output folder of \(owner)"))
                return (candidate, reason)
            }
            reason = reason ?? "the folder \(name) would collide: \(conflict)"
        }
        fatalError("unreachable: the candidates never end")
    }

    /// The name `wanted[0]`, then `wanted[0]` followed by each further suffix of `wanted`
    /// (`-EXT`), then by `-2`, `-3`... without end; each cut (at a character's edge) so that it
    /// leaves `room` bytes of a file name for what follows it.
    private static func candidates(_ wanted: [String], room: Int) -> some Sequence<String> {
        sequence(state: 0) { index -> String? in
            defer { index += 1 }
            let suffix = index == 0 ? "" : index < wanted.count ? wanted[index] : "-\(index - wanted.count + 2)"
            return fitted(wanted[0], then: suffix, within: longestName - room)
        }
    }

    /// `base` + `suffix`, `base` shortened at a character's edge when the two pass `bytes`.
    static func fitted(_ base: String, then suffix: String, within bytes: Int) -> String {
        let allowed = bytes - suffix.utf8.count
        guard base.utf8.count > allowed else { return base + suffix }
        var kept = ""
        for character in base {
            guard kept.utf8.count + character.utf8.count <= allowed else { break }
            kept.append(character)
        }
        return kept + suffix
    }

    private mutating func claimOutput(candidates: [String], in folder: String, for owner: String) -> PlannedOutput {
        let wanted = candidates[0]
        var reason: String? = Self.fitted(wanted, then: "", within: Self.longestName - Self.stemRoom) == wanted ? nil
            : "\(wanted) leaves no room in a \(Self.longestName)-byte file name for the output's extension or its .thumbnail.jpg"
        for candidate in Self.candidates(candidates, room: Self.stemRoom) {
            guard let conflict = conflict(stem: candidate, in: folder, for: owner) else {
                let key = ExactPath(realFolder(folder))
                folders[key, default: FolderNames()].stems[CaselessName.key(candidate)] = (candidate, owner)
                return PlannedOutput(folder: folder, stem: candidate, wanted: wanted, reason: reason)
            }
            reason = reason ?? conflict
        }
        fatalError("unreachable: the candidates never end")
    }
}

/// Where a planned output goes: its folder and stem (the output is `STEM.EXT`, its thumbnail
/// `STEM.thumbnail.jpg`), and why the stem is not the one wanted, when it is not.
package struct PlannedOutput: Sendable, Equatable {
    package let folder: String
    package let stem: String
    /// The stem the input's name asked for.
    package let wanted: String
    /// Why ``stem`` differs from ``wanted`` (`nil` when it does not): the name that collided, and with what.
    package let reason: String?

    /// `{"stem", "wanted", "reason"}` for reports and manifest lines, when the stem was changed.
    package var json: JSONValue? {
        reason.map { .object([("stem", .string(stem)), ("wanted", .string(wanted)), ("reason", .string($0))]) }
    }
}
