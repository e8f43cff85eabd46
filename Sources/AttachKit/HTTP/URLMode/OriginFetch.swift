/// Fetches an original from the media origin into a file, as URL mode allows: only under the
/// origins (``OriginList``), every address of the host checked and the connection pinned to them
/// (``OriginResolver``), redirects followed only within the origins (each hop checked the same
/// way, at most ``maxRedirects``), the body streamed to the file under ``maxBytes`` (the transfer
/// aborted at once past it), within the connect and total timeouts, over libcurl (``CurlEasy``:
/// HTTP(S) only, no cookies, no proxy).
package struct OriginFetch: Sendable {
    package let origins: OriginList
    /// `--allow-private-origins`: loopback, private, link-local... addresses are fetched from too.
    package let allowPrivate: Bool
    /// Milliseconds to connect (default 5,000: `--origin-connect-timeout 5`) and for each hop's
    /// whole transfer (default 20,000: `--origin-timeout 20`).
    package var connectTimeoutMs = 5_000
    package var totalTimeoutMs = 20_000
    /// The largest original, bytes (`--max-body`).
    package var maxBytes: Int64

    /// How a host's addresses are found and checked (``OriginResolver/addresses(of:allowPrivate:)``;
    /// tests replace it to have a loopback origin pass for a public one).
    package var resolve: @Sendable (String, Bool) throws(ServiceError) -> [OriginAddress] = { host, allowPrivate throws(ServiceError) in
        try OriginResolver.addresses(of: host, allowPrivate: allowPrivate)
    }

    /// Redirects followed at most.
    package static let maxRedirects = 3

    /// What the origin answered for a fetch that gave an original (`200`) or confirmed the one
    /// the caller holds (`304`, to a conditional fetch).
    package struct Answer: Sendable {
        package let notModified: Bool
        /// The origin's validators and length, when given (``AttachIdentity``).
        package let etag: String?
        package let lastModified: String?
        package let length: Int64
        /// The URL that answered (after redirects).
        package let url: OriginURL
        /// Every URL fetched, the source first and ``url`` last (the redirects between).
        package var hops: [OriginURL] = []
        /// Whether any address of any hop's host was not public (``OriginAddress/privateKind``):
        /// fetched only under `--allow-private-origins`, so served from the cache only while it holds.
        package var reachedPrivate = false
    }

    /// The origin's `Last-Modified` as an IMF-fixdate when it is an HTTP date not in the future
    /// (RFC 9110 §8.8.2); else none: nothing the origin sends is passed on unchecked.
    static func lastModified(_ value: String?) -> String? {
        guard let value, let seconds = HTTPDate.parse(value), seconds <= SystemClock.wall().seconds else { return nil }
        return HTTPDate.format(seconds)
    }

    /// Whether an answer fetched through `hops`, from private addresses or not, would be fetched
    /// now: every hop under the origins, and private addresses allowed when any was one. A cached
    /// answer is served only then (the origin policy may have tightened since it was stored).
    package func allowsAgain(hops: [String], reachedPrivate: Bool) -> Bool {
        guard !hops.isEmpty, !reachedPrivate || allowPrivate else { return false }
        return hops.allSatisfy { (try? OriginURL($0)).map(origins.allows) ?? false }
    }

    package init(origins: OriginList, allowPrivate: Bool, maxBytes: Int64) {
        self.origins = origins
        self.allowPrivate = allowPrivate
        self.maxBytes = maxBytes
    }

    /// Fetches `source`, writing a `200` body through `sink`; `conditional` are request header
    /// lines (`If-None-Match: ...`) that may make the origin answer `304`.
    /// - Throws: ``OriginError``: 403 `access-denied` (outside the origins, a refused address),
    ///   404 `not-found`, 413 `over-cap`, 502 `origin-failed` (unreachable, another 4xx, 5xx, too
    ///   many redirects, a broken transfer), 504 `origin-failed` (a timeout).
    package func fetch(_ source: OriginURL, conditional: [String] = [],
                       sink: @escaping @Sendable (UnsafeRawBufferPointer) -> Int32) throws(OriginError) -> Answer {
        guard let easy = CurlEasy() else { throw OriginError(.processingFailed, "libcurl cannot make a transfer handle") }
        var url = source
        var hops: [OriginURL] = []
        var reachedPrivate = false
        for hop in 0...Self.maxRedirects {
            let (reply, isPrivate) = try perform(easy, url, conditional: conditional, sink: sink)
            hops.append(url)
            reachedPrivate = reachedPrivate || isPrivate
            if let failure = reply.failure { throw refusal(failure, url) }
            switch reply.status {
            case 200, 304:
                guard reply.status == 200 || !conditional.isEmpty else { throw OriginError(.originFailed, "the origin answered 304 to a request that was not conditional") }
                var answer = Answer(notModified: reply.status == 304, etag: reply.header("etag"),
                                    lastModified: Self.lastModified(reply.header("last-modified")),
                                    length: reply.received, url: url)
                answer.hops = hops
                answer.reachedPrivate = reachedPrivate
                return answer
            case 301, 302, 303, 307, 308:
                guard hop < Self.maxRedirects else { throw OriginError(.originFailed, "the origin redirected more than \(Self.maxRedirects) times from \(source.text)") }
                guard let location = reply.header("location") else { throw OriginError(.originFailed, "the origin redirected \(url.text) without a Location") }
                url = try next(location, from: url)
            case 404:
                throw OriginError(.notFound, "the origin has nothing at \(url.text) (404)")
            default:
                throw OriginError(.originFailed, "the origin answered \(reply.status) for \(url.text)")
            }
        }
        throw OriginError(.originFailed, "the origin redirected more than \(Self.maxRedirects) times from \(source.text)")
    }

    /// One hop: the URL checked against the origins, its host's addresses checked and pinned;
    /// whether any of them is private.
    private func perform(_ easy: borrowing CurlEasy, _ url: OriginURL, conditional: [String],
                         sink: @escaping @Sendable (UnsafeRawBufferPointer) -> Int32) throws(OriginError) -> (CurlReply, reachedPrivate: Bool) {
        do throws(ServiceError) {
            try origins.check(url)
            let addresses = try resolve(url.host, allowPrivate)
            var request = CurlRequest(url: url.text, host: url.host, port: url.port, pinnedAddresses: addresses.map(\.text),
                                      maxBytes: maxBytes, userAgent: "AttachKit/\(BuildInfo.version)", sink: sink)
            request.connectTimeoutMs = connectTimeoutMs
            request.totalTimeoutMs = totalTimeoutMs
            request.headers = conditional
            return (easy.perform(request), addresses.contains { $0.privateKind != nil })
        } catch {
            throw OriginError(error)
        }
    }

    /// The URL a `Location` leads to, resolved against `url` as RFC 3986 §5.2 says (absolute,
    /// scheme-relative, absolute path, relative path with `./` and `../`, query only, empty),
    /// its fragment dropped; the result is checked as a source is.
    private func next(_ location: String, from url: OriginURL) throws(OriginError) -> OriginURL {
        do throws(ServiceError) { return try OriginURL(Self.resolve(location, against: url)) } catch { throw OriginError(error) }
    }

    /// RFC 3986 §5.2.2's resolution of a reference against `base` (a fragment dropped).
    static func resolve(_ location: String, against base: OriginURL) -> String {
        let reference = String(location.prefix { $0 != "#" })
        let authority = "\(base.scheme)://\(base.hostInURL):\(base.port)"
        if let colon = reference.firstIndex(of: ":"), let first = reference.first, first.isASCII, first.isLetter,
           reference[..<colon].allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) }) {
            return absolute(reference)
        }
        if reference.hasPrefix("//") { return absolute(base.scheme + ":" + reference) }
        let queryStart = reference.firstIndex(of: "?") ?? reference.endIndex
        let path = String(reference[..<queryStart]), query = String(reference[queryStart...])
        if path.isEmpty { return authority + base.path + (query.isEmpty ? base.query : query) }
        if path.hasPrefix("/") { return authority + removingDotSegments(path) + query }
        let directory = base.path[...(base.path.lastIndex(of: "/") ?? base.path.startIndex)]
        return authority + removingDotSegments(directory + path) + query
    }

    /// An absolute URL with the dot segments of its path removed.
    private static func absolute(_ text: String) -> String {
        guard let separator = text.firstRange(of: "://") else { return text }
        let rest = text[separator.upperBound...]
        guard let pathStart = rest.firstIndex(where: { $0 == "/" || $0 == "?" }), rest[pathStart] == "/" else { return text }
        let queryStart = rest[pathStart...].firstIndex(of: "?") ?? rest.endIndex
        return String(text[..<pathStart]) + removingDotSegments(String(rest[pathStart..<queryStart])) + rest[queryStart...]
    }

    /// RFC 3986 §5.2.4 for an absolute path: `.` segments go, `..` removes the one before.
    static func removingDotSegments(_ path: String) -> String {
        var output: [Substring] = []
        let segments = path.dropFirst().split(separator: "/", omittingEmptySubsequences: false)
        for (index, segment) in segments.enumerated() {
            let last = index == segments.count - 1
            switch segment {
            case ".": if last { output.append("") }
            case "..":
                if !output.isEmpty { output.removeLast() }
                if last { output.append("") }
            default: output.append(segment)
            }
        }
        return "/" + output.joined(separator: "/")
    }

    private func refusal(_ failure: CurlFailure, _ url: OriginURL) -> OriginError {
        switch failure {
        case .timedOut:
            return OriginError(.originFailed, "the origin did not answer \(url.text) in time (--origin-connect-timeout \(connectTimeoutMs / 1000), --origin-timeout \(totalTimeoutMs / 1000))", status: 504)
        case .tooLarge(let bytes):
            let size = bytes == Int64.max ? "more than 2^63 bytes" : "\(bytes) bytes or more"
            return OriginError(.overCap, "the original at \(url.text) is \(size), over the \(maxBytes)-byte limit (--max-body)")
        case .cannotConnect(let why):
            return OriginError(.originFailed, "cannot connect to the origin for \(url.text): \(why)")
        case .addressRefused(let address):
            return OriginError(.accessDenied, "the connection for \(url.text) reached \(address), an address that was not checked: refused")
        case .writeFailed(let code):
            return OriginError(.writeFailed, "cannot write the original into the spool: \(SystemError(code: code).description)")
        case .malformed(let why):
            return OriginError(.originFailed, "the origin's answer for \(url.text) is malformed: \(why)")
        case .other(let why):
            return OriginError(.originFailed, "the transfer of \(url.text) failed: \(why)")
        }
    }
}
