/// How `attachkit http` answers URL-mode requests (`GET /v1/attach/...`): the keys that verify
/// signatures, how originals are fetched, how long answers may be cached downstream. `nil` on a
/// server without `--signing-key-file` (URL-mode paths are then 404).
package struct URLMode: Sendable {
    package let keys: SigningKeys
    package let fetch: OriginFetch
    /// `Cache-Control: public, max-age=N` on prepared answers, seconds (`--cache-max-age`).
    /// Default 86,400 (a day). Error answers say `no-store`.
    package var maxAge = 86_400
    /// The result cache (`--cache DIR`); `nil` without one (each request fetches and prepares).
    package var cache: ResultCache?
    /// Identical requests (same cache key) at once share one fetch and preparation (with a cache).
    package let flight = SingleFlight<AttachShared>()
    package let metrics = URLModeMetrics()

    package init(keys: SigningKeys, fetch: OriginFetch) {
        self.keys = keys
        self.fetch = fetch
    }
}
