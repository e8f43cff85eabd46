/// The origins URL mode fetches from (`--origin PREFIX`, repeatable): a source is fetched only
/// when its scheme, host and port are a prefix's and its path starts with the prefix's path at a
/// segment boundary (`https://media.example.com/push` allows `/push` and `/push/a.jpg`, not
/// `/pushy.jpg`); else 403 `access-denied`. Each redirect is checked again.
package struct OriginList: Sendable {
    package let prefixes: [OriginURL]

    /// - Throws: ``ServiceError`` `bad-options` for a prefix that is not an http(s) URL, or has a query.
    package init(_ prefixes: [String]) throws(ServiceError) {
        var parsed: [OriginURL] = []
        for text in prefixes {
            guard let prefix = try? OriginURL(text), prefix.query.isEmpty else {
                throw ServiceError(code: .badOptions, message: "--origin \(text.debugDescription) is not an http(s) URL prefix without a query (https://media.example.com/push/)")
            }
            parsed.append(prefix)
        }
        self.prefixes = parsed
    }

    /// Whether `url` lies under one of the prefixes.
    package func allows(_ url: OriginURL) -> Bool {
        prefixes.contains { prefix in
            guard prefix.scheme == url.scheme, prefix.host == url.host, prefix.port == url.port else { return false }
            if prefix.path.hasSuffix("/") { return url.path.hasPrefix(prefix.path) }
            return url.path == prefix.path || url.path.hasPrefix(prefix.path + "/")
        }
    }

    /// Refuses `url` (403) unless it lies under a prefix.
    /// - Throws: ``ServiceError`` `access-denied` naming the URL.
    package func check(_ url: OriginURL) throws(ServiceError) {
        guard allows(url) else {
            throw ServiceError(code: .accessDenied, message: "the source \(url.text.debugDescription) is under no --origin prefix: not fetched")
        }
    }
}
