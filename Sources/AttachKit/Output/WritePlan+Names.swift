/// What holds a name in a folder of a ``WritePlan``: its exact spelling and what it is, for
/// messages ("the input a.jpg", "the batch manifest").
struct Holder: Sendable {
    let name: String
    let phrase: String
}

/// The names one folder of a ``WritePlan`` holds, by ``CaselessName`` key.
struct FolderNames: Sendable {
    /// Output stems (`S` holds `S.EXT` for any output extension and `S.thumbnail.jpg`), each with
    /// its exact spelling and the input it is for.
    var stems: [String: (stem: String, owner: String)] = [:]
    /// Exact names (inputs, folders, manifests, explicit paths).
    var names: [String: Holder] = [:]
    /// The keys of ``names`` by their part before the last dot, with the extension after it.
    var namesByStem: [String: [(ext: String, holder: Holder)]] = [:]
    /// What the folder holds on disk (exact names), listed when first needed; empty when it does
    /// not exist (yet).
    var present: Set<ExactPath>?
    /// ``present``'s names that an output stem would take, by stem key (``WritePlan/replaceable``).
    var presentOutputs: [String: [String]]?
}

extension WritePlan {
    /// Protects the input at `path`: its file (device and inode), its name where it was named and
    /// its name where it really is (a symbolic link's target).
    /// - Parameters:
    ///   - identity, resolved: the file and its real path, when the caller holds them already.
    mutating func addInput(_ path: String, shown: String, identity known: FileIdentity? = nil, resolved: String? = nil) {
        let absolute = PathResolver.absolute(path)
        let phrase = "the input \(shown)"
        var locations = [absolute]
        if let resolved {
            locations.append(resolved)
        } else if FileNames.statusIfPresent(absolute, followingLinks: false)?.kind == .symbolicLink, let real = PathResolver.realPath(absolute) {
            locations.append(real)
        }
        for location in locations {
            let name = PathResolver.fileName(location)
            hold(name: name, in: PathResolver.directory(location), by: Holder(name: name, phrase: phrase))
        }
        guard let identity = known ?? FileIdentity(path: absolute) else { return }
        protected.insert(identity)
        inputNames[identity] = inputNames[identity] ?? shown
    }

    /// Records that `holder` holds the exact name `name` in `folder`.
    mutating func hold(name: String, in folder: String, by holder: Holder) {
        let key = CaselessName.key(name)
        let (stem, ext) = Self.split(key)
        let folderKey = ExactPath(realFolder(folder))
        folders[folderKey, default: FolderNames()].names[key] = holder
        folders[folderKey, default: FolderNames()].namesByStem[stem, default: []].append((ext, holder))
    }

    /// What an output stem `stem` in `folder` for the input `owner` would collide with (`nil`:
    /// nothing), in words.
    mutating func conflict(stem: String, in folder: String, for owner: String) -> String? {
        let real = realFolder(folder)
        let held = folders[ExactPath(real)] ?? FolderNames()
        let key = CaselessName.key(stem)
        let suffix = Self.thumbnailSuffix
        if let other = held.stems[key] {
            return said("\(stem).*", is: "the output of \(other.owner)", spelled: other.stem + ".*")
        }
        if let other = held.stems[key + suffix] {
            return said("\(stem)\(suffix).jpg", is: "the output of \(other.owner)", spelled: other.stem + ".jpg")
        }
        if key.hasSuffix(suffix), let other = held.stems[String(key.dropLast(suffix.count))] {
            return said("\(stem).jpg", is: "the thumbnail of \(other.owner)", spelled: other.stem + suffix + ".jpg")
        }
        let outputs: [(ext: String, holder: Holder)] = (held.namesByStem[key] ?? []).filter { Self.outputExtensions.contains($0.ext) }
        let thumbnails: [(ext: String, holder: Holder)] = (held.namesByStem[key + suffix] ?? []).filter { $0.ext == "jpg" }
        if let clash = (outputs + thumbnails).first {
            let wanted = clash.holder.name.hasPrefix(stem) ? clash.holder.name : stem + "." + clash.ext
            return said(wanted, is: clash.holder.phrase, spelled: clash.holder.name)
        }
        for name in Self.outputExtensions.sorted().map({ stem + "." + $0 }) + [stem + suffix + ".jpg"] {
            if let found = inputFile(named: name, in: real) { return found }
        }
        return foreignFile(stem: key, in: real, for: owner)
    }

    /// The files at the names the stem `stem` takes in `folder` (`S.EXT` for an output extension,
    /// `S.thumbnail.jpg`) that the output of `owner` may replace (``mayReplace(_:for:)``).
    mutating func replaceableFiles(stem: String, in folder: String, for owner: String) -> Set<FileVersion> {
        let real = realFolder(folder)
        let names = presentOutputs(in: real)[CaselessName.key(stem)] ?? []
        return Set(names.compactMap { FileVersion(path: real + "/" + $0) }.filter { mayReplace($0, for: owner) })
    }

    /// "NAME is a file already in the output folder that AttachKit did not write" when the
    /// folder `real` holds a file named `stem.EXT` (an output extension) or `stem.thumbnail.jpg`,
    /// compared ignoring case and normalization, that the output of `owner` may not replace.
    private mutating func foreignFile(stem key: String, in real: String, for owner: String) -> String? {
        let found = presentOutputs(in: real)[key] ?? []
        var foreign: (name: String, version: FileVersion)?
        for name in found.sorted(by: { ExactPath($0) < ExactPath($1) }) {
            if let version = FileVersion(path: real + "/" + name), !mayReplace(version, for: owner) {
                foreign = (name, version)
                break
            }
        }
        guard let (name, version) = foreign else {
            return nil
        }
        if replaceable.contains(version), let writers = writers[version] {
            return "\(name) is the output an earlier run wrote for \(writers.sorted().joined(separator: ", "))"
        }
        return "\(name) is a file already in the output folder \(unprovenPhrases[version] ?? foreignFilePhrase)"
    }

    /// The names in the folder `real` that an output stem would take, by that stem's
    /// ``CaselessName`` key: `S.EXT` for an output extension under `S`, `S.thumbnail.jpg` under
    /// `S` too (indexed once per folder).
    private mutating func presentOutputs(in real: String) -> [String: [String]] {
        if let indexed = folders[ExactPath(real)]?.presentOutputs { return indexed }
        var index: [String: [String]] = [:]
        let suffix = Self.thumbnailSuffix
        for name in present(in: real).map(\.text) {
            let (stem, ext) = Self.split(CaselessName.key(name))
            if stem.hasSuffix(suffix) && ext == "jpg" { index[String(stem.dropLast(suffix.count)), default: []].append(name) }
            if Self.outputExtensions.contains(ext) { index[stem, default: []].append(name) }
        }
        folders[ExactPath(real), default: FolderNames()].presentOutputs = index
        return index
    }

    /// What the exact name `name` in `folder` would collide with (`nil`: nothing), in words.
    mutating func conflict(name: String, in folder: String) -> String? {
        let real = realFolder(folder)
        let held = folders[ExactPath(real)] ?? FolderNames()
        let key = CaselessName.key(name)
        if let holder = held.names[key] { return said(name, is: holder.phrase, spelled: holder.name) }
        let (stem, ext) = Self.split(key)
        if Self.outputExtensions.contains(ext), let other = held.stems[stem] {
            return said(name, is: "the output of \(other.owner)", spelled: other.stem + "." + ext)
        }
        let suffix = Self.thumbnailSuffix
        if ext == "jpg", stem.hasSuffix(suffix), let other = held.stems[String(stem.dropLast(suffix.count))] {
            return said(name, is: "the thumbnail of \(other.owner)", spelled: other.stem + suffix + ".jpg")
        }
        return inputFile(named: name, in: real)
    }

    /// "NAME is a file already in the output folder, not a folder" when something other than a
    /// folder (a file, a link, a FIFO) already holds `name` in `folder`, compared ignoring case
    /// and normalization: a mirrored folder cannot be made there, and its outputs would be lost.
    mutating func notAFolder(_ name: String, in folder: String) -> String? {
        let real = realFolder(folder)
        let key = CaselessName.key(name)
        for found in present(in: real).map(\.text) where CaselessName.key(found) == key {
            guard let status = FileNames.statusIfPresent(real + "/" + found, followingLinks: false), status.kind != .directory else { continue }
            return "\(found) is a file already in the output folder, not a folder"
        }
        return nil
    }

    /// "NAME is WHAT", saying that names are compared as a case- and normalization-insensitive
    /// volume compares them when the two spellings differ.
    private func said(_ name: String, is what: String, spelled held: String) -> String {
        "\(name) is \(what)" + (ExactPath(held) == ExactPath(name) ? "" : " (as \(held): names are compared ignoring letter case and Unicode normalization)")
    }

    /// "NAME is the input X (the same file)" when `name` exists in the folder `real` as an input's file.
    /// A plan of a few inputs (a request) looks the name up; a plan of many (a batch) lists each
    /// folder once and looks up only the names there.
    private mutating func inputFile(named name: String, in real: String) -> String? {
        guard !protected.isEmpty, protected.count <= 16 || present(in: real).contains(ExactPath(name)),
              let identity = FileIdentity(path: real + "/" + name), let input = inputNames[identity] else { return nil }
        return "\(name) is the same file as the input \(input) (a link to it)"
    }

    /// The exact names in the folder `real` (listed once; empty when it cannot be listed).
    private mutating func present(in real: String) -> Set<ExactPath> {
        if let listed = folders[ExactPath(real)]?.present { return listed }
        let listed = Set(FileSystem.names(in: real).map(ExactPath.init))
        folders[ExactPath(real), default: FolderNames()].present = listed
        return listed
    }

    /// The folder's real path (links resolved) when it exists, else its normalized absolute path:
    /// the key its names are held under.
    mutating func realFolder(_ folder: String) -> String {
        let given = ExactPath(folder)
        if let known = realFolders[given] { return known }
        let absolute = PathResolver.normalized(PathResolver.absolute(folder))
        let real = PathResolver.realPath(absolute) ?? absolute
        realFolders[given] = real
        return real
    }
}

extension FileIdentity {
    /// The file at `path`, symbolic links followed (`stat`); `nil` when there is none.
    init?(path: String) {
        guard let descriptor = try? FileDescriptor.open(path, Descriptors.pathOnly) else { return nil }
        self.init(descriptor: descriptor.rawValue)
    }
}
