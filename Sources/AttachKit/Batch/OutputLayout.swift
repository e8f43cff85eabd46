/// Chooses output names so two inputs never write the same output: an input `NAME.EXT` wants the
/// stem `NAME` (the extension comes from the output's bytes); when `a.jpeg` and `a.jpg` both want
/// `a`, the later one gets `a-jpg`, then `a-2`, `a-3`... Each stem's thumbnail name
/// (`STEM.thumbnail`) is reserved with it. Comparisons ignore case.
package struct OutputNamer: Sendable {
    private var taken: [String: Set<String>] = [:]

    public init() {}

    /// A stem for `fileName` in `folder` (relative to the output root, "" for the root) that no
    /// earlier claim in that folder holds.
    package mutating func claim(folder: String = "", fileName: String) -> String {
        let (stem, ext) = Self.split(fileName)
        var candidates = [stem]
        if !ext.isEmpty { candidates.append("\(stem)-\(ext)") }
        var chosen = candidates.first { !isTaken($0, in: folder) }
        var n = 2
        while chosen == nil {
            if !isTaken("\(stem)-\(n)", in: folder) { chosen = "\(stem)-\(n)" }
            n += 1
        }
        taken[folder, default: []].insert(chosen!.lowercased())
        taken[folder, default: []].insert("\(chosen!).thumbnail".lowercased())
        return chosen!
    }

    private func isTaken(_ stem: String, in folder: String) -> Bool {
        taken[folder]?.contains(stem.lowercased()) ?? false
    }

    /// The name without its last extension (a leading dot is part of the stem), and that extension.
    package static func split(_ fileName: String) -> (stem: String, extension: String) {
        guard let dot = fileName.lastIndex(of: "."), dot != fileName.startIndex else { return (fileName, "") }
        return (String(fileName[..<dot]), String(fileName[fileName.index(after: dot)...]))
    }
}

/// Where each input of a batch goes: the same relative folder under the output root and a stem
/// from ``OutputNamer``. Decided over the whole input set before sharding, so every shard agrees.
struct OutputLayout {
    /// Output folder (relative to the output root, "" for the root) and stem for each input.
    private(set) var assignments: [String: (folder: String, stem: String)] = [:]

    init(relativePaths: [String]) {
        var namer = OutputNamer()
        for path in relativePaths {
            let folder = PathResolver.directory(path) == "." ? "" : PathResolver.directory(path)
            assignments[path] = (folder, namer.claim(folder: folder, fileName: PathResolver.fileName(path)))
        }
    }
}
