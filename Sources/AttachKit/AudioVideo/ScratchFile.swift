/// A second file beside the output's temporary file, for an encode attempt that may or may not
/// beat the first: deleted when the value goes away. Made by ``AtomicOutput/makeScratch()``:
/// `.STEM.PID.XXXXXX.retry.tmp` in the same folder (a killed run's leftover is still a `*.tmp`
/// the next batch removes), created relative to the folder's descriptor like the output itself.
struct ScratchFile: ~Copyable {
    /// Where the attempt writes: `/proc/self/fd/N`, the scratch file itself.
    let path: String
    private let directory: FileDescriptor
    private let name: String
    private let file: FileDescriptor

    /// Takes ownership of `directory` (a descriptor of the folder) and `descriptor` (the new file
    /// `name` in it).
    init(directory: consuming FileDescriptor, name: String, descriptor: consuming FileDescriptor) {
        self.path = Descriptors.path(of: descriptor.rawValue)
        self.directory = directory
        self.name = name
        self.file = descriptor
    }

    /// Convenience for the pipelines: a scratch file beside `output`.
    /// - Throws: ``PrepareError/output(_:)`` when it cannot be created.
    init(beside output: borrowing AtomicOutput) throws(PrepareError) {
        do {
            self = try output.makeScratch()
        } catch {
            throw .output(error)
        }
    }

    deinit {
        if FileIdentity(named: name, in: directory.rawValue, followingLinks: false) == FileIdentity(descriptor: file.rawValue) {
            try? FileNames.remove(name, in: directory.rawValue)
        }
    }

    /// Makes the scratch file's content the output's (the output keeps its own file and
    /// descriptor, so what it re-checks and renames is still what it wrote); the scratch file is
    /// then deleted.
    /// - Throws: ``PrepareError/output(_:)`` when the copy fails.
    consuming func move(over output: borrowing AtomicOutput) throws(PrepareError) {
        do {
            try output.copy(from: path)
        } catch {
            throw .output(error)
        }
    }
}
