/// One shard of a batch split over N machines (`--shard I/N`): a file belongs to shard
/// `hash(relative path) mod N`, so each machine can decide alone and the union of all shards is
/// exactly the input set, whatever order or scheduler runs them (a Kubernetes Indexed Job, a Slurm
/// array, GNU parallel, an AWS Batch array job).
public struct Shard: Sendable, Equatable, CustomStringConvertible {
    /// 0 ..< count.
    public let index: Int
    public let count: Int

    /// The whole input set.
    public static let all = Shard(uncheckedIndex: 0, count: 1)

    private init(uncheckedIndex index: Int, count: Int) {
        self.index = index
        self.count = count
    }

    /// The most shards a batch splits into: every shard plans every shard's manifest names (and
    /// a split of 10⁹ took 2 GB before its first input).
    public static let maximumCount = 10_000

    /// - Throws: ``ShardError`` unless 0 ≤ index < count ≤ ``maximumCount``.
    public init(index: Int, count: Int) throws(ShardError) {
        guard count >= 1, count <= Self.maximumCount, index >= 0, index < count else { throw ShardError(text: "\(index)/\(count)") }
        self.index = index
        self.count = count
    }

    /// Parses `I/N`.
    public init(parsing text: String) throws(ShardError) {
        let parts = text.split(separator: "/")
        guard parts.count == 2, let index = Int(parts[0]), let count = Int(parts[1]) else { throw ShardError(text: text) }
        try self.init(index: index, count: count)
    }

    /// Whether the file at `relativePath` (relative to the batch's input folder) is in this shard.
    public func contains(relativePath: String) -> Bool {
        guard count > 1 else { return true }
        var hasher = SHA256()
        hasher.update(Array(relativePath.utf8))
        let digest = hasher.finalize()
        let value = digest.prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        return Int(value % UInt64(count)) == index
    }

    public var description: String { "\(index)/\(count)" }
}

public struct ShardError: Error, Sendable, CustomStringConvertible {
    public let text: String
    public var description: String { "shard \(text.debugDescription) must be I/N with 0 ≤ I < N ≤ \(Shard.maximumCount)" }
}
