/// Where each input's output goes: the same relative folder under the output root, the input's
/// stem, and the extension the bytes will have. Two inputs never share an output: when `a.jpeg`
/// and `a.jpg` both want `a.jpg`, the later one (in sorted order) becomes `a-jpg.jpg`, then
/// `a-2.jpg`... Names are decided over the whole input set before sharding, so every shard agrees.
struct OutputLayout {
    /// Output folder (relative to the output root, "" for the root) and stem for each input.
    private(set) var assignments: [String: (folder: String, stem: String)] = [:]

    init(relativePaths: [String]) {
        var taken: [String: Set<String>] = [:]
        for path in relativePaths {
            let folder = PathResolver.directory(path) == "." ? "" : PathResolver.directory(path)
            let name = PathResolver.fileName(path)
            let dot = name.lastIndex(of: ".").flatMap { $0 == name.startIndex ? nil : $0 }
            let stem = dot.map { String(name[..<$0]) } ?? name
            let ext = dot.map { String(name[name.index(after: $0)...]) } ?? ""
            var candidates = [stem]
            if !ext.isEmpty { candidates.append("\(stem)-\(ext)") }
            var chosen = candidates.first { !(taken[folder]?.contains($0.lowercased()) ?? false) }
            var n = 2
            while chosen == nil {
                let candidate = "\(stem)-\(n)"
                if !(taken[folder]?.contains(candidate.lowercased()) ?? false) { chosen = candidate }
                n += 1
            }
            taken[folder, default: []].insert(chosen!.lowercased())
            // Thumbnails (`STEM.thumbnail.jpg`) live beside outputs: reserve their stem too.
            taken[folder, default: []].insert("\(chosen!).thumbnail".lowercased())
            assignments[path] = (folder, chosen!)
        }
    }
}
