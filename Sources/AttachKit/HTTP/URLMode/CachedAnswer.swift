/// One answer of the result cache (``ResultCache``): the prepared body in `KEY.body`, and in
/// `KEY.json` the headers it is sent with (type, file name, report, `ETag`, `Last-Modified`), the
/// original's identity (``AttachIdentity``) and when it was stored or last confirmed by the origin.
package struct CachedAnswer: Sendable {
    package let key: String
    package let bodyPath: String
    package let headers: [(name: String, value: String)]
    package let identity: AttachIdentity
    /// Request header lines that ask the origin whether the original changed (`If-None-Match`
    /// with its `ETag`, `If-Modified-Since` with its `Last-Modified`); empty when it gave neither.
    package let validators: [String]
    /// Seconds since the epoch when stored or last revalidated with the origin.
    package let confirmedAt: Double
    /// Body bytes.
    package let size: Int64
    /// SHA-256 (hex) of the body: checked, with ``size``, before the body is served.
    package let checksum: String
    /// How the original was fetched: every URL (the source, then each redirect), and whether any
    /// address was private. Served again only while the origin policy allows both
    /// (``OriginFetch/allowsAgain(hops:reachedPrivate:)``).
    package let hops: [String]
    package let reachedPrivate: Bool

    /// The header `name` (as stored, case-insensitively).
    package func header(_ name: String) -> String? { headers.first { $0.name.lowercased() == name.lowercased() }?.value }

    /// Whether it may be served without asking the origin: confirmed within `maxAge` seconds.
    package func isFresh(maxAge: Int, now: Double = CachedAnswer.wallClock) -> Bool { now - confirmedAt < Double(maxAge) }

    /// The answer, its body from the cached file; `nil` when the file went (evicted meanwhile) or
    /// is not the body stored (its size or SHA-256 differs: damaged).
    package func response() -> HTTPResponse? {
        guard let file = OpenFile(path: bodyPath), file.size == size else { return nil }
        // Read through the descriptor held: the bytes checked are the bytes sent.
        guard let reader = try? FileReader(path: file.path), SHA256.hex(file: reader) == checksum else { return nil }
        return HTTPResponse(status: 200, headers: headers, body: .file(file))
    }

    /// The metadata file's JSON.
    var json: JSONValue {
        .object([("identity", .string(identity.text)), ("confirmedAt", .number(confirmedAt)), ("size", .number(Double(size))),
                 ("sha256", .string(checksum)), ("hops", .array(hops.map { .string($0) })), ("reachedPrivate", .bool(reachedPrivate)),
                 ("validators", .array(validators.map { .string($0) })),
                 ("headers", .array(headers.map { .array([.string($0.name), .string($0.value)]) }))])
    }

    /// The same answer confirmed by the origin at `time`.
    func confirmed(at time: Double) -> CachedAnswer {
        CachedAnswer(key: key, bodyPath: bodyPath, headers: headers, identity: identity, validators: validators, confirmedAt: time,
                     size: size, checksum: checksum, hops: hops, reachedPrivate: reachedPrivate)
    }

    /// Reads a metadata file's JSON; `nil` when it is not one (or of an older layout).
    init?(key: String, bodyPath: String, json: JSONValue) {
        guard let identity = json["identity"]?.stringValue, let confirmed = json["confirmedAt"]?.doubleValue,
              let size = json["size"]?.doubleValue, case .array(let pairs)? = json["headers"], let checksum = json["sha256"]?.stringValue,
              let hops = json["hops"]?.arrayValue?.compactMap(\.stringValue), case .bool(let reachedPrivate)? = json["reachedPrivate"] else { return nil }
        let validators = json["validators"]?.arrayValue?.compactMap(\.stringValue) ?? []
        var headers: [(name: String, value: String)] = []
        for pair in pairs {
            guard case .array(let sides) = pair, sides.count == 2, let name = sides[0].stringValue, let value = sides[1].stringValue else { return nil }
            headers.append((name, value))
        }
        self.init(key: key, bodyPath: bodyPath, headers: headers, identity: AttachIdentity(text: identity), validators: validators,
                  confirmedAt: confirmed, size: Int64(size), checksum: checksum, hops: hops, reachedPrivate: reachedPrivate)
    }

    init(key: String, bodyPath: String, headers: [(name: String, value: String)], identity: AttachIdentity, validators: [String],
         confirmedAt: Double, size: Int64, checksum: String, hops: [String], reachedPrivate: Bool) {
        self.checksum = checksum
        self.hops = hops
        self.reachedPrivate = reachedPrivate
        self.validators = validators
        self.key = key
        self.bodyPath = bodyPath
        self.headers = headers
        self.identity = identity
        self.confirmedAt = confirmedAt
        self.size = size
    }

    /// Seconds since the epoch (`CLOCK_REALTIME`: stored times must survive a restart).
    package static var wallClock: Double {
        let now = SystemClock.wall()
        return Double(now.seconds) + Double(now.nanoseconds) / 1e9
    }
}
