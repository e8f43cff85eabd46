/// URL mode's result cache (`--cache DIR --cache-size N`): prepared answers on disk, one per
/// request key (``AttachWork/cacheKey``: the source URL, the options with the profile, and
/// AttachKit's version, hashed), each with the identity of the original it was prepared from. An
/// answer is served for its key only (the key is the file's name), and only while the origin
/// confirms that identity or cannot be reached.
///
/// Writes are atomic (``AtomicOutput``: a temporary, `fsync`, rename, `fsync` of the folder), the
/// body before the metadata that names it, so a crash leaves no half entry (a `*.tmp` at most,
/// removed at the next start). Entries are evicted least-recently-used (each use sets the metadata
/// file's modification time, so the order survives a restart) until the total — bodies and
/// metadata, every byte stored — is within the size. Everything is found again at start: the
/// cache survives restarts. The folder is 0700 and its files 0600 (prepared media of other
/// people's requests). An entry whose body is not the one stored (size or SHA-256) is dropped
/// when looked up, so the request fetches anew.
package final class ResultCache: Sendable {
    package let folder: String
    /// Most bytes kept (bodies and metadata). Default 2 GB.
    package let capacity: Int64
    private let ledger: AccessLedger
    private let index: Locked<[String: (size: Int64, lastUse: Double)]>
    private let metrics: URLModeMetrics

    /// Opens (or creates) the cache in `folder` and reads what it holds.
    /// - Throws: ``ServiceError`` `write-failed` when the folder cannot be made or opened.
    /// - Parameter metrics: where evictions and bytes are counted.
    package init(folder path: String, capacity: Int64, metrics: URLModeMetrics) throws(ServiceError) {
        guard FileSystem.makeFolders(path), let resolved = PathResolver.realPath(path), let scope = try? AccessScope.folder(resolved) else {
            throw ServiceError(code: .writeFailed, message: "cannot create or open the cache folder \(path)")
        }
        try? FileNames.setPermissions(resolved, 0o700)
        folder = resolved
        self.capacity = capacity
        self.metrics = metrics
        ledger = AccessLedger(scopes: [scope])
        index = Locked(Self.scan(resolved))
        metrics.setBytes(index.withLock { $0.values.reduce(0) { $0 + $1.size } })
    }

    /// The answer stored for `key`, marked as used; `nil` when none. An entry whose metadata does
    /// not read, or whose body is not the one stored (its size or SHA-256 differs), is removed.
    package func lookup(_ key: String) -> CachedAnswer? {
        guard index.withLock({ $0[key] }) != nil else { return nil }
        guard let text = TextFile.contents(metaPath(key)), let json = try? JSONValue.parse(text),
              let answer = CachedAnswer(key: key, bodyPath: bodyPath(key), json: json), Self.holds(answer) else {
            remove(key)
            return nil
        }
        let now = CachedAnswer.wallClock
        index.withLock { $0[key]?.lastUse = now }
        try? FileNames.touch(metaPath(key))
        return answer
    }

    /// Stores a prepared answer (its body read from the response's file) for `key`, replacing any
    /// answer there, and evicts the least recently used beyond the size. `nil` when it could not
    /// be written (the answer is then served uncached), or is larger than the whole cache.
    /// - Parameter validators: the request header lines that ask the origin whether the original
    ///   changed (``CachedAnswer/validators``).
    /// - Parameter origin: how the original was fetched (``OriginFetch/Answer/hops``, ``OriginFetch/Answer/reachedPrivate``).
    package func store(_ key: String, response: HTTPResponse, identity: AttachIdentity, validators: [String],
                       origin: OriginFetch.Answer) -> CachedAnswer? {
        guard case .file(let file) = response.body, file.size <= capacity, let reader = try? FileReader(path: file.path) else { return nil }
        let checksum = SHA256.hex(file: reader)
        let kept = response.headers.filter { !["x-request-id", "connection"].contains($0.name.lowercased()) }
        let answer = CachedAnswer(key: key, bodyPath: bodyPath(key), headers: kept, identity: identity, validators: validators,
                                  confirmedAt: CachedAnswer.wallClock, size: file.size, checksum: checksum,
                                  hops: origin.hops.map(\.text), reachedPrivate: origin.reachedPrivate)
        remove(key)
        do throws(OutputError) {
            let body = try AtomicOutput(folder: folder, stem: key, ledger: ledger)
            try body.copy(from: file.path)
            let committed = try body.commit(named: key + ".body")
            try? FileNames.setPermissions(committed, 0o600)
            try write(answer)
        } catch {
            remove(key)
            return nil
        }
        let size = storedSize(key)
        guard size <= capacity else {
            unlinkFiles(key)
            return nil
        }
        index.withLock { $0[key] = (size, answer.confirmedAt) }
        metrics.addBytes(size)
        evict(keeping: key)
        return answer
    }

    /// Marks `answer` as confirmed by the origin now (a `304`, or the same identity again).
    package func confirm(_ answer: CachedAnswer) -> CachedAnswer {
        let renewed = answer.confirmed(at: CachedAnswer.wallClock)
        do throws(OutputError) { try write(renewed) } catch { return answer }
        let size = storedSize(answer.key)
        let old = index.withLock { entries -> Int64? in
            defer { entries[answer.key]?.size = size }
            return entries[answer.key]?.size
        }
        if let old { metrics.addBytes(size - old) }
        return renewed
    }

    /// Bytes held now (bodies and metadata).
    package var bytes: Int64 { index.withLock { $0.values.reduce(0) { $0 + $1.size } } }

    private func write(_ answer: CachedAnswer) throws(OutputError) {
        let meta = try AtomicOutput(folder: folder, stem: answer.key, ledger: ledger)
        try meta.write(Array(answer.json.serialized.utf8))
        // A rename never replaces (AtomicOutput): the old metadata goes first; a lookup in between
        // misses, and fetches as if the entry were not there.
        try? FileNames.remove(metaPath(answer.key))
        let committed = try meta.commit(named: answer.key + ".json")
        try? FileNames.setPermissions(committed, 0o600)
    }

    /// Whether `answer`'s body file is the body stored: its size and SHA-256.
    private static func holds(_ answer: CachedAnswer) -> Bool {
        guard let reader = try? FileReader(path: answer.bodyPath), reader.size == answer.size else { return false }
        return SHA256.hex(file: reader) == answer.checksum
    }

    /// Bytes of `key`'s files (body and metadata).
    private func storedSize(_ key: String) -> Int64 { Self.storedSize(folder, key) }

    private static func storedSize(_ folder: String, _ key: String) -> Int64 {
        guard let meta = FileNames.statusIfPresent(folder + "/" + key + ".json"),
              let body = FileNames.statusIfPresent(folder + "/" + key + ".body") else { return 0 }
        return meta.size + body.size
    }

    /// Removes the least recently used entries, never `key`, until the total is within the size.
    private func evict(keeping key: String) {
        let victims: [(String, Int64)] = index.withLock { entries in
            var total = entries.values.reduce(0) { $0 + $1.size }
            var chosen: [(String, Int64)] = []
            for (name, entry) in entries.sorted(by: { $0.value.lastUse < $1.value.lastUse }) where total > capacity && name != key {
                chosen.append((name, entry.size))
                total -= entry.size
                entries[name] = nil
            }
            return chosen
        }
        for (name, size) in victims {
            unlinkFiles(name)
            metrics.evicted(size)
        }
    }

    private func remove(_ key: String) {
        if let old = index.withLock({ $0.removeValue(forKey: key) }) { metrics.addBytes(-old.size) }
        unlinkFiles(key)
    }

    private func unlinkFiles(_ key: String) {
        try? FileNames.remove(metaPath(key))
        try? FileNames.remove(bodyPath(key))
    }

    private func metaPath(_ key: String) -> String { folder + "/" + key + ".json" }
    private func bodyPath(_ key: String) -> String { folder + "/" + key + ".body" }

    /// The entries in `folder` (a metadata file and its body), with sizes and last uses; removes
    /// the temporaries of writers that are gone and bodies without metadata.
    private static func scan(_ folder: String) -> [String: (size: Int64, lastUse: Double)] {
        var found: [String: (size: Int64, lastUse: Double)] = [:]
        let names = HTTPSpool.entries(of: folder)
        for name in names where name.hasSuffix(".json") {
            let key = String(name.dropLast(5))
            guard let meta = FileNames.statusIfPresent(folder + "/" + name),
                  let body = FileNames.statusIfPresent(folder + "/" + key + ".body") else { continue }
            found[key] = (body.size + meta.size, Double(meta.modified) / 1e9)
        }
        for name in names where name.hasSuffix(".tmp") || (name.hasSuffix(".body") && found[String(name.dropLast(5))] == nil) {
            if name.hasSuffix(".tmp"), let owner = AtomicOutput.owner(ofTemporary: name, stem: String(name.dropFirst().prefix(64))), !Processes.isGone(owner) { continue }
            try? FileNames.remove(folder + "/" + name)
        }
        return found
    }
}
