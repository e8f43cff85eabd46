/// A URL-mode request's validators (`If-None-Match`, `If-Modified-Since`) against an answer:
/// `304 Not Modified` (with `ETag`, `Cache-Control` and `Last-Modified`, no body) when the client
/// holds it already. `If-None-Match` wins when both are sent (RFC 9110 §13.2.2) and matches by
/// the weak comparison (`W/` ignored, `*` matches any); `If-Modified-Since` matches when both it
/// and the answer's `Last-Modified` are HTTP dates (``HTTPDate``: any of the three forms) and
/// the answer was not modified after it (RFC 9110 §13.1.3); a date that does not parse never matches.
struct AttachConditions: Sendable {
    let ifNoneMatch: String?
    let ifModifiedSince: String?

    /// Whether an answer with `etag` and `lastModified` is one the client holds.
    func match(etag: String, lastModified: String?) -> Bool {
        if let ifNoneMatch {
            let wanted = Self.opaque(etag)
            return ifNoneMatch.split(separator: ",").contains { tag in
                let trimmed = HTTPBytes.trimmed(tag)
                return trimmed == "*" || Self.opaque(trimmed) == wanted
            }
        }
        guard let ifModifiedSince, let lastModified, let since = HTTPDate.parse(HTTPBytes.trimmed(Substring(ifModifiedSince))),
              let modified = HTTPDate.parse(lastModified) else { return false }
        return modified <= since
    }

    /// The 304 for `response` when the client holds it; `response` otherwise.
    func answer(_ response: HTTPResponse) -> HTTPResponse {
        guard response.status == 200, let etag = Self.header("etag", response),
              match(etag: etag, lastModified: Self.header("last-modified", response)) else { return response }
        return HTTPResponse(status: 304, headers: response.headers.filter { ["etag", "cache-control", "last-modified"].contains($0.name.lowercased()) },
                            body: .bytes([]))
    }

    private static func opaque(_ tag: some StringProtocol) -> Substring {
        tag.hasPrefix("W/") ? Substring(tag.dropFirst(2)) : Substring(tag)
    }

    private static func header(_ name: String, _ response: HTTPResponse) -> String? {
        response.headers.last { $0.name.lowercased() == name }?.value
    }
}
