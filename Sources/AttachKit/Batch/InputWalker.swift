/// Lists the files under a batch's input folder without leaving it: hidden entries are skipped,
/// symbolic links to folders are not descended (no loops, no escapes), and symbolic links to files
/// are listed so the access ledger can refuse those that point outside the folder; FIFOs, sockets
/// and devices are listed so it refuses them as not regular files (each refusal is then recorded
/// as that file's failure, never silently dropped).
enum InputWalker {
    /// Paths relative to `root`, in byte order (``ExactPath``), using `/` separators.
    static func files(under root: String) -> [String] { walk(root, hidden: false).files }

    /// The same, hidden entries included (to find stale temporaries).
    static func filesIncludingHidden(under root: String) -> [String] { walk(root, hidden: true).files }

    /// ``files(under:)`` and what the walk could not list or look at (relative to `root`, `""` for
    /// `root` itself), each with the reason.
    static func listing(under root: String) -> FolderListing { walk(root, hidden: false) }

    private static func walk(_ root: String, hidden: Bool) -> FolderListing {
        var out: [String] = []
        var unlistable: [(folder: String, reason: String)] = []
        var pending = [""]
        while let relative = pending.popLast() {
            let folder = relative.isEmpty ? root : root + "/" + relative
            var directory: DirectoryStream
            do { directory = try DirectoryStream(path: folder) } catch {
                unlistable.append((relative, error.description))
                continue
            }
            while let entry = directory.next() {
                let (name, valid) = (entry.name, entry.isValidUTF8)
                if name == "." || name == ".." || (!hidden && name.hasPrefix(".")) { continue }
                let childRelative = relative.isEmpty ? name : relative + "/" + name
                // A name that is not UTF-8 cannot be spelled as a String: it is listed as shown
                // (with U+FFFD) so the batch records it as a failure instead of dropping it.
                guard valid else { out.append(childRelative); continue }
                let status: FileStatus
                do { status = try FileNames.status(root + "/" + childRelative, followingLinks: false) } catch {
                    // Listed but not looked at (a folder without search permission, a path past
                    // PATH_MAX): reported, not dropped. An entry removed since the listing is not.
                    if error != .noEntry { unlistable.append((childRelative, error.description)) }
                    continue
                }
                // Everything that is not a folder is listed, FIFOs, sockets and devices too: the
                // access ledger refuses what is not a regular file, by name (never skipped unseen).
                if status.kind == .directory { pending.append(childRelative) } else { out.append(childRelative) }
            }
        }
        return FolderListing(files: out.sortedExactly(), unlistable: unlistable.sorted { ExactPath($0.folder) < ExactPath($1.folder) })
    }
}

/// What a folder's walk found (``FileSystem/listing(under:)``).
public struct FolderListing: Sendable {
    /// Paths relative to the folder, in byte order (``ExactPath``), `/` separators.
    public var files: [String]
    /// Folders of the walk that could not be listed, and entries that could not be looked at
    /// (relative; `""` is the folder itself), with the reason (`strerror`): their files are not in
    /// ``files``.
    public var unlistable: [(folder: String, reason: String)]
}
