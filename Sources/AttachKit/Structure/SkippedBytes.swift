/// Bytes a structure walk stepped over that belong to no frame, page, packet or sample — junk
/// between Ogg pages or MPEG audio frames, before the first frame or after the last, a transport
/// stream's last packet cut short, an `mdat` claiming more than the file holds while every sample
/// is inside it — which every player skips. Damage of this kind is recoverable: `validate` warns
/// (``Diagnostic/Code/recoverableDamage``) and `prepare` writes a clean remux without it, never
/// the damaged bytes. Damage inside a frame, page or sample is not recorded here: it stays corrupt.
struct SkippedBytes {
    private var first: (offset: Int64, count: Int64, place: String, junk: Bool)?
    private(set) var regions = 0
    private(set) var bytes: Int64 = 0

    /// Notes `count` bytes at `offset`; `place` says where they sit ("between Ogg pages"); `junk`:
    /// they belong to nothing (default), else they are the rest of a part cut short.
    mutating func add(at offset: Int64, count: Int64, _ place: String, junk: Bool = true) {
        guard count > 0 else { return }
        if first == nil { first = (offset, count, place, junk) }
        regions += 1
        bytes += count
    }

    /// `.intact` when nothing was skipped, else ``StructureVerdict/recoverable(reason:)`` naming
    /// the first region, and how many more there were.
    var verdict: StructureVerdict {
        guard let first else { return .intact }
        var reason = "\(first.count) \(first.junk ? "junk " : "")byte\(first.count == 1 ? "" : "s") \(first.place) at byte \(first.offset)"
        if regions > 1 { reason += ", and \(regions - 1) more region(s): \(bytes) bytes in all" }
        return .recoverable(reason: reason)
    }
}
