extension PrepareOptions {
    /// The options as the `options` object of a `prepare` request, under ``OptionTable``'s keys
    /// and in its order, without `out`: the profile as an inline policy, every other option only
    /// where it differs from its default (the decoder fills the default in). What a batch sends
    /// its worker processes; the service's decoder reads them back to equal options (same
    /// ``fingerprint``).
    public var requestOptions: [(String, JSONValue)] { json(changingOutputOnly: false) }

    /// A short hash of every option that changes what `prepare` produces (profile, budgets, trim,
    /// thumbnail settings when a thumbnail is made...: those ``OptionTable`` marks so), not of
    /// where outputs go, written
    /// as ``requestOptions`` writes them. Batch resume only skips inputs finished with the same
    /// fingerprint. An option at its default is not written, so adding an option leaves earlier
    /// fingerprints as they were.
    public var fingerprint: String {
        // Format 2: the request's keys and values (`size`, `at`, a clip as `x,y,w,h`), defaults left out.
        let hashed = JSONValue.object([("format", .number(2))] + json(changingOutputOnly: true))
        return String(SHA256.hex(Array(hashed.serialized.utf8)).prefix(16))
    }

    /// Each option of ``OptionTable`` with a field here that is not at its default, under its key;
    /// `changingOutputOnly`, only those that change the output: not an option refining a flag
    /// that is off (`size` without `thumbnail`), which changes nothing.
    private func json(changingOutputOnly: Bool) -> [(String, JSONValue)] {
        let written = OptionTable.specs.compactMap { spec in spec.field.prepareBinding?.write(self).map { (spec, $0) } }
        let given = Set(written.map(\.0.key))
        return written.compactMap { spec, value in
            guard !changingOutputOnly || (spec.changesOutput && spec.refines.map(given.contains) != false) else { return nil }
            return (spec.key, value)
        }
    }
}

extension ThumbnailRequest {
    /// The request as the options of a `thumbnail` request, under ``OptionTable``'s keys, each
    /// only where it differs from its default (as ``PrepareOptions/requestOptions`` writes them).
    var requestOptions: [(String, JSONValue)] {
        OptionTable.specs.compactMap { spec in
            guard case .thumbnail(let field)? = spec.field.binding, let value = field.write(self) else { return nil }
            return (spec.key, value)
        }
    }
}
