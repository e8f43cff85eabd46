#if canImport(Glibc)
import Glibc
#endif

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
        for hop in 0...Self.maxRedirects {
            let reply = try perform(easy, url, conditional: conditional, sink: sink)
            if let failure = reply.failure { throw refusal(failure, url) }
            switch reply.status {
            case 200, 304:
                guard reply.status == 200 || !conditional.isEmpty else { throw OriginError(.originFailed, "the origin answered 304 to a request that was not conditional") }
                return Answer(notModified: reply.status == 304, etag: reply.header("etag"), lastModified: reply.header("last-modified"),
                              length: reply.received, url: url)
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

    /// One hop: the URL checked against the origins, its host's addresses checked and pinned.
    private func perform(_ easy: borrowing CurlEasy, _ url: OriginURL, conditional: [String],
                         sink: @escaping @Sendable (UnsafeRawBufferPointer) -> Int32) throws(OriginError) -> CurlReply {
        do throws(ServiceError) {
            try origins.check(url)
            let addresses = try OriginResolver.addresses(of: url.host, allowPrivate: allowPrivate)
            var request = CurlRequest(url: url.text, host: url.host, port: url.port, pinnedAddresses: addresses.map(\.text),
                                      maxBytes: maxBytes, userAgent: "AttachKit/\(BuildInfo.version)", sink: sink)
            request.connectTimeoutMs = connectTimeoutMs
            request.totalTimeoutMs = totalTimeoutMs
            request.headers = conditional
            return easy.perform(request)
        } catch {
            throw OriginError(error)
        }
    }

    /// The URL a `Location` leads to (absolute, scheme-relative, absolute path or relative path).
    private func next(_ location: String, from url: OriginURL) throws(OriginError) -> OriginURL {
        let base = "\(url.scheme)://\(url.hostInURL):\(url.port)"
        let target: String
        if location.contains("://") { target = location }
        else if location.hasPrefix("//") { target = url.scheme + ":" + location }
        else if location.hasPrefix("/") { target = base + location }
        else { target = base + url.path[...(url.path.lastIndex(of: "/") ?? url.path.startIndex)] + location }
        do throws(ServiceError) { return try OriginURL(target) } catch { throw OriginError(error) }
    }

    private func refusal(_ failure: CurlFailure, _ url: OriginURL) -> OriginError {
        switch failure {
        case .timedOut:
            return OriginError(.originFailed, "the origin did not answer \(url.text) in time (--origin-connect-timeout \(connectTimeoutMs / 1000), --origin-timeout \(totalTimeoutMs / 1000))", status: 504)
        case .tooLarge(let bytes):
            return OriginError(.overCap, "the original at \(url.text) is \(bytes) bytes or more, over the \(maxBytes)-byte limit (--max-body)")
        case .cannotConnect(let why):
            return OriginError(.originFailed, "cannot connect to the origin for \(url.text): \(why)")
        case .addressRefused(let address):
            return OriginError(.accessDenied, "the connection for \(url.text) reached \(address), an address that was not checked: refused")
        case .writeFailed(let code):
            return OriginError(.writeFailed, "cannot write the original into the spool: \(String(cString: strerror(code)))")
        case .other(let why):
            return OriginError(.originFailed, "the transfer of \(url.text) failed: \(why)")
        }
    }
}
