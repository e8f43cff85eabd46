/// The endpoints of `attachkit http`.
package enum HTTPRoute: String, Sendable, CaseIterable {
    /// `POST /v1/prepare`: the media as the body; the prepared attachment back.
    case prepare
    /// `POST /v1/probe`: the media as the body; `probe --json`'s object back.
    case probe
    /// `POST /v1/validate`: the media as the body; `validate --json`'s report back.
    case validate
    /// `POST /v1/jobs`: a `serve` request (`{"op", "path", "options"}`) on files under `--allow`.
    case jobs
    /// `GET /v1/attach/{signature}/{options}/{source}`: URL mode, the original fetched from the
    /// media origin and prepared (docs/url-mode.md).
    case attach
    /// `GET /healthz`: the process answers (liveness).
    case healthz
    /// `GET /readyz`: workers started, spool writable, not shutting down (readiness).
    case readyz
    /// `GET /metrics`: Prometheus text.
    case metrics

    /// The route serving `path`; `nil` for none.
    package init?(path: String) {
        switch path {
        case "/v1/prepare": self = .prepare
        case "/v1/probe": self = .probe
        case "/v1/validate": self = .validate
        case "/v1/jobs": self = .jobs
        case "/healthz": self = .healthz
        case "/readyz": self = .readyz
        case "/metrics": self = .metrics
        case _ where path.hasPrefix(AttachPath.prefix): self = .attach
        default: return nil
        }
    }

    /// The one method the route answers (`HEAD` is answered as `GET` by libmicrohttpd).
    package var method: String {
        switch self {
        case .prepare, .probe, .validate, .jobs: return "POST"
        case .healthz, .readyz, .metrics, .attach: return "GET"
        }
    }

    /// Whether the body is media, streamed into the spool (otherwise a small JSON body or none).
    package var takesMedia: Bool { self == .prepare || self == .probe || self == .validate }

    /// Whether the request does work, so it takes a work slot (and may get 429).
    package var isWork: Bool { takesMedia || self == .jobs || self == .attach }
}

/// The `Content-Type` of an output, by the extension AttachKit gave it (``UniformType/mediaType``;
/// anything else is `application/octet-stream`).
package enum MediaTypes {
    package static func type(ofFile path: String) -> String {
        UniformType.mediaType(ofExtension: PathResolver.fileExtension(path)) ?? "application/octet-stream"
    }
}
