import Foundation

/// Lists files under a folder without leaving it: hidden entries are skipped and symbolic links
/// are listed as files (the access ledger then refuses those that point outside the folder).
enum FileWalker {
    static func isDirectory(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue
    }

    /// Files under `folder`, recursively, sorted by path.
    static func files(under folder: String) -> [String] {
        var out: [String] = []
        var pending = [folder]
        while let current = pending.popLast() {
            guard let names = try? FileManager.default.contentsOfDirectory(atPath: current) else { continue }
            for name in names where !name.hasPrefix(".") {
                let path = current.hasSuffix("/") ? current + name : current + "/" + name
                let attributes = try? FileManager.default.attributesOfItem(atPath: path)
                if attributes?[.type] as? FileAttributeType == .typeDirectory {
                    pending.append(path)
                } else {
                    out.append(path)
                }
            }
        }
        return out.sorted()
    }
}
