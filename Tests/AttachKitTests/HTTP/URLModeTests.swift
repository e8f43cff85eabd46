import Foundation
import Testing
@testable import AttachKit

/// URL mode end to end: the built `attachkit http` with `--signing-key-file`, a Python origin on
/// 127.0.0.1 (``URLModeOrigin``) and `--allow-private-origins` (the origin is loopback), curl as
/// the client.
@Suite("attachkit http: URL mode", .serialized, .needsCurl, .needsPython)
struct URLModeTests {
    static let key = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff"
    static let oldKey = "ffeeddccbbaa99887766554433221100ffeeddccbbaa99887766554433221100"
    static let files = ["images/jpeg_photo_1600x1200_q90.jpg", "images/png_palette_400x300.png", "images/gif_static_320x240.gif"]

    /// A server in URL mode for `origin`, its keys `keys` (the first signs), allowing `/media/`,
    /// `/plain/`, `/slowish/`, `/slow/`, `/hop/`, `/away/`, `/big`, `/endless`, `/lie/`, `/status/` and the
    /// misbehaving ones (`/redirbody/`, `/twolengths/`, `/badlength/`, `/hugehead/`, `/hugeline/`, `/lmgarbage/`).
    static func server(_ origin: URLModeOrigin, keys: [String] = [key], extra: [String] = [], privateOrigins: Bool = true,
                       sharing: HTTPServerProcess? = nil, name: String = #function) throws -> HTTPServerProcess {
        let keyFile = TestEnvironment.temporaryFolder("keys").appendingPathComponent("keys.txt")
        try ("# signing keys\n" + keys.joined(separator: "\n") + "\n").write(to: keyFile, atomically: true, encoding: .utf8)
        let prefixes = ["media/", "plain/", "slowish/", "slow/", "hop/", "away/", "big", "endless", "errors", "lie/", "status/",
                        "redirbody/", "twolengths/", "badlength/", "hugehead/", "hugeline/", "lmgarbage/"]
        return try HTTPServerProcess(["--jobs", "2", "--max-body", "2MB", "--signing-key-file", keyFile.path, "--origin-timeout", "2"]
                                     + prefixes.flatMap { ["--origin", origin.url + "/" + $0] }
                                     + (privateOrigins ? ["--allow-private-origins"] : []) + extra,
                                     name: name, sharing: sharing)
    }

    static func url(_ server: HTTPServerProcess, _ source: String, _ options: [(key: String, value: String?)] = [], key: String = key) throws -> String {
        try AttachURL.make(base: server.url, source: source, options: options, key: try SigningKeys(text: key).signing)
    }

    /// The server's `/metrics` text.
    static func metrics(_ server: HTTPServerProcess) throws -> String {
        String(decoding: try URLModeClient.get(server.url + "/metrics").body, as: UTF8.self)
    }

    /// A server in URL mode with a fresh result cache (`extra` added to its arguments).
    static func cached(_ origin: URLModeOrigin, _ extra: [String] = [], name: String = #function) throws -> (server: HTTPServerProcess, cache: URL) {
        let cache = TestEnvironment.temporaryFolder("cache")
        return (try server(origin, extra: ["--cache", cache.path] + extra, name: name), cache)
    }

    /// A URL signed without the checks of ``AttachURL/make(base:source:options:key:fileExtension:)``.
    static func raw(_ server: HTTPServerProcess, options: String, source: String) throws -> String {
        let signed = options + "/" + Base64URL.encode(Array(source.utf8))
        return server.url + "/v1/attach/" + AttachSignature.sign(signed, key: try SigningKeys(text: key).signing) + "/" + signed
    }

    @Test("a signed photo URL: the prepared JPEG with ETag, Cache-Control, Last-Modified and its file name; 304 on If-None-Match and If-Modified-Since; HEAD")
    func photo() throws {
        let origin = try URLModeOrigin(files: Self.files)
        let server = try Self.server(origin)
        // Given a URL signed by `attachkit sign`
        let keyFile = TestEnvironment.temporaryFolder("sign").appendingPathComponent("k")
        try Self.key.write(to: keyFile, atomically: true, encoding: .utf8)
        let signed = try TestEnvironment.runAttachKit(["sign", "--key-file", keyFile.path, "--base", server.url, "--max-bytes", "60KB",
                                                        "--max-edge", "800", origin.url + "/media/jpeg_photo_1600x1200_q90.jpg"])
        #expect(signed.status == 0, "\(signed.stderr)")
        let url = signed.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(url.contains("/v1/attach/") && url.contains("/maxBytes=60KB&maxEdge=800/"), "\(url)")
        // When it is fetched
        let answer = try URLModeClient.get(url)
        // Then it is the prepared JPEG, re-probed
        #expect(answer.status == 200, "\(String(decoding: answer.body, as: UTF8.self))")
        #expect(answer.header("content-type") == "image/jpeg")
        #expect(answer.header("content-disposition") == "attachment; filename=\"jpeg_photo_1600x1200_q90.jpg\"")
        #expect(answer.header("cache-control") == "public, max-age=86400")
        #expect(answer.header("last-modified") == "Tue, 01 Dec 2026 10:00:00 GMT")
        #expect(answer.header("attachkit-report") != nil)
        let etag = try #require(answer.header("etag"))
        #expect(answer.body.count <= 60_000 && answer.body.count > 1000)
        let file = TestEnvironment.temporaryFolder("out").appendingPathComponent("p.jpg")
        try answer.body.write(to: file)
        let probed = try TestEnvironment.run("vipsheader", [file.path])
        #expect(probed.stdout.contains("800x600"), "\(probed.stdout)")
        // And revalidation gives 304 without a body
        let again = try URLModeClient.get(url, headers: ["If-None-Match: \(etag)"])
        #expect(again.status == 304 && again.body.isEmpty && again.header("etag") == etag)
        #expect(try URLModeClient.get(url, headers: ["If-None-Match: W/\(etag), \"other\""]).status == 304)
        #expect(try URLModeClient.get(url, headers: ["If-None-Match: \"other\""]).status == 200)
        #expect(try URLModeClient.get(url, headers: ["If-Modified-Since: Tue, 01 Dec 2026 10:00:00 GMT"]).status == 304)
        // If-Modified-Since is compared as a date, in any of the three forms
        #expect(try URLModeClient.get(url, headers: ["If-Modified-Since: Tuesday, 01-Dec-26 11:00:00 GMT"]).status == 304)
        #expect(try URLModeClient.get(url, headers: ["If-Modified-Since: Tue, 01 Dec 2026 09:59:59 GMT"]).status == 200)
        #expect(try URLModeClient.get(url, headers: ["If-Modified-Since: garbage"]).status == 200)
        #expect(try URLModeClient.get(url, headers: ["If-None-Match: \"other\"", "If-Modified-Since: Wed, 02 Dec 2026 10:00:00 GMT"]).status == 200)
        let head = try URLModeClient.get(url, head: true)
        #expect(head.status == 200 && head.header("etag") == etag && head.header("content-length") == String(answer.body.count))
        let (status, log) = server.stop()
        #expect(status == 0, "\(log)")
        #expect(server.spoolLeftovers.isEmpty)
    }

    @Test("every refusal has its status: tampering with each segment, unsigned, outside the origins, redirects out or too many, origin 404/4xx/5xx, oversize, a lying length, a slow origin")
    func refusals() throws {
        let origin = try URLModeOrigin(files: Self.files)
        let server = try Self.server(origin)
        let photo = origin.url + "/media/png_palette_400x300.png"
        let good = try Self.url(server, photo, [("maxEdge", "200")])
        #expect(try URLModeClient.get(good).status == 200)
        // Tampering with each segment of the path: 403 before anything is fetched
        let parts = good.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        let count = try origin.count("/media/png_palette_400x300.png")
        for index in [parts.count - 3, parts.count - 2, parts.count - 1] {
            var tampered = parts
            tampered[index] = index == parts.count - 2 ? "maxEdge=201" : String(tampered[index].dropLast()) + (tampered[index].hasSuffix("A") ? "B" : "A")
            let answer = try URLModeClient.get(tampered.joined(separator: "/"))
            #expect(answer.status == 403 && URLModeClient.code(answer) == "access-denied", "segment \(index): \(answer.status)")
        }
        #expect(try origin.count("/media/png_palette_400x300.png") == count, "a tampered URL reached the origin")
        let cases: [(String, String, Int, String)] = [
            ("unsigned", server.url + "/v1/attach/x/y", 403, "access-denied"),
            ("query added", good + "?maxEdge=300", 400, "bad-options"),
            ("signed by another key", try Self.url(server, photo, key: Self.oldKey), 403, "access-denied"),
            ("outside the origins", try Self.url(server, origin.url + "/private/png_palette_400x300.png"), 403, "access-denied"),
            ("not http", try Self.raw(server, options: "-", source: "ftp://127.0.0.1/x.png"), 403, "access-denied"),
            ("user info", try Self.raw(server, options: "-", source: origin.url.replacing("127.0.0.1", with: "a@127.0.0.1") + "/media/x.png"), 403, "access-denied"),
            ("dot segments", try Self.raw(server, options: "-", source: origin.url + "/media/../private/x.png"), 403, "access-denied"),
            ("bad option, signed", try Self.raw(server, options: "maxEdge=3", source: photo), 400, "bad-options"),
            ("unknown option, signed", try Self.raw(server, options: "out=x", source: photo), 400, "bad-options"),
            ("2 redirects", try Self.url(server, origin.url + "/hop/1/png_palette_400x300.png"), 200, ""),
            ("4 redirects", try Self.url(server, origin.url + "/hop/3/png_palette_400x300.png"), 502, "origin-failed"),
            ("redirect out of the origins", try Self.url(server, origin.url + "/away/png_palette_400x300.png"), 403, "access-denied"),
            ("origin 404", try Self.url(server, origin.url + "/media/missing.png"), 404, "not-found"),
            ("origin 403", try Self.url(server, origin.url + "/status/403"), 502, "origin-failed"),
            ("origin 500", try Self.url(server, origin.url + "/status/500"), 502, "origin-failed"),
            ("origin 500 with an endless body", try Self.url(server, origin.url + "/errors"), 502, "origin-failed"),
            ("declared over --max-body", try Self.url(server, origin.url + "/big"), 413, "over-cap"),
            ("chunked over --max-body", try Self.url(server, origin.url + "/endless"), 413, "over-cap"),
            ("a length that lies", try Self.url(server, origin.url + "/lie/png_palette_400x300.png"), 502, "origin-failed"),
            ("a slow origin", try Self.url(server, origin.url + "/slow/png_palette_400x300.png"), 504, "origin-failed"),
        ]
        for (name, url, status, code) in cases {
            let started = Date()
            let answer = try URLModeClient.get(url)
            #expect(answer.status == status, "\(name): \(answer.status) \(String(decoding: answer.body.prefix(300), as: UTF8.self))")
            if status >= 400 {
                #expect(URLModeClient.code(answer) == code, "\(name)")
                #expect(answer.header("cache-control") == "no-store", "\(name)")
            }
            #expect(Date().timeIntervalSince(started) < 4, "\(name) took \(Date().timeIntervalSince(started)) s")
        }
        // A wrong method: 405 naming GET and HEAD, never the signed path
        let signature = parts[parts.count - 3]
        let post = try TestEnvironment.run("curl", ["-sS", "-X", "POST", "-D", "-", good])
        #expect(post.stdout.contains("405") && post.stdout.contains("GET or HEAD") && post.stdout.contains("Allow: GET, HEAD"), "\(post.stdout)")
        #expect(!post.stdout.contains(signature))
        let metrics = try Self.metrics(server)
        #expect(metrics.contains(#"attachkit_origin_fetches_total{outcome="timed-out"} 1"#), "\(metrics)")
        #expect(metrics.contains(#"attachkit_origin_fetches_total{outcome="over-cap"} 2"#))
        let (status, log) = server.stop()
        #expect(status == 0, "\(log)")
        #expect(server.spoolLeftovers.isEmpty)
    }

    @Test("a thumbnail is its own signed URL: the poster JPEG alone; other prepare options are refused in it")
    func thumbnailURL() throws {
        let origin = try URLModeOrigin(files: ["video/mov_h264_aac_320x240_2s.mov"])
        let server = try Self.server(origin)
        let source = origin.url + "/media/mov_h264_aac_320x240_2s.mov"
        let answer = try URLModeClient.get(try Self.url(server, source, [("thumbnail", nil), ("size", "160")]))
        #expect(answer.status == 200 && answer.header("content-type") == "image/jpeg", "\(String(decoding: answer.body.prefix(300), as: UTF8.self))")
        #expect(answer.header("content-disposition") == "attachment; filename=\"mov_h264_aac_320x240_2s.thumbnail.jpg\"")
        #expect(answer.body.starts(with: [0xFF, 0xD8]) && answer.header("etag") != nil)
        #expect(throws: ServiceError.self) { try Self.url(server, source, [("thumbnail", nil), ("maxBytes", "100KB")]) }
        server.stop()
    }

    @Test("key rotation: URLs signed with either key of the file are served; the first key signs")
    func keyRotation() throws {
        let origin = try URLModeOrigin(files: Self.files)
        let server = try Self.server(origin, keys: [Self.key, Self.oldKey])
        let source = origin.url + "/media/gif_static_320x240.gif"
        #expect(try URLModeClient.get(try Self.url(server, source, key: Self.key)).status == 200)
        #expect(try URLModeClient.get(try Self.url(server, source, key: Self.oldKey)).status == 200)
        let stranger = String(repeating: "ab", count: 32)
        #expect(try URLModeClient.get(try Self.url(server, source, key: stranger)).status == 403)
        server.stop()
    }

    @Test("without --allow-private-origins a loopback origin is refused, 403, and never contacted")
    func loopbackRefused() throws {
        let origin = try URLModeOrigin(files: Self.files)
        let server = try Self.server(origin, privateOrigins: false)
        let answer = try URLModeClient.get(try Self.url(server, origin.url + "/media/gif_static_320x240.gif"))
        #expect(answer.status == 403 && URLModeClient.code(answer) == "access-denied")
        #expect(String(decoding: answer.body, as: UTF8.self).contains("loopback"))
        #expect(try origin.count("/media/gif_static_320x240.gif") == 0)
        server.stop()
    }

    @Test("with a cache: 8 identical requests at once fetch the original once and get the same answer")
    func singleFlight() throws {
        let origin = try URLModeOrigin(files: Self.files)
        let (server, _) = try Self.cached(origin, ["--queue", "16"])
        let url = try Self.url(server, origin.url + "/slowish/png_palette_400x300.png", [("maxEdge", "300")])
        let answers = Locked<[URLModeClient.Answer]>([])
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            if let answer = try? URLModeClient.get(url) { answers.withLock { $0.append(answer) } }
        }
        let all = answers.withLock { $0 }
        #expect(all.count == 8 && all.allSatisfy { $0.status == 200 }, "\(all.map(\.status))")
        #expect(Set(all.map(\.body)).count == 1 && Set(all.compactMap { $0.header("etag") }).count == 1)
        #expect(try origin.count("/slowish/png_palette_400x300.png") == 1)
        let metrics = try Self.metrics(server)
        #expect(metrics.contains("attachkit_cache_misses_total 1") && metrics.contains("attachkit_cache_hits_total 7"), "\(metrics)")
        server.stop()
    }

    @Test("a restarted server serves the cached answer with the origin gone; a stale entry is revalidated with a conditional GET")
    func restartOriginGone() throws {
        let origin = try URLModeOrigin(files: Self.files)
        // max-age 0: every request asks the origin again
        let (first, cache) = try Self.cached(origin, ["--cache-max-age", "0"])
        let source = origin.url + "/media/gif_static_320x240.gif"
        let url = try Self.url(first, source)
        let fresh = try URLModeClient.get(url)
        #expect(fresh.status == 200)
        let revalidated = try URLModeClient.get(url)
        #expect(revalidated.status == 200 && revalidated.body == fresh.body)
        #expect(try origin.count("/media/gif_static_320x240.gif") == 2)
        let metrics = try Self.metrics(first)
        #expect(metrics.contains(#"attachkit_origin_fetches_total{outcome="not-modified"} 1"#), "\(metrics)")
        #expect(first.stop().status == 0)
        origin.stop()
        // When the server restarts on the same cache and the origin is gone
        let second = try Self.server(origin, extra: ["--cache", cache.path, "--cache-max-age", "0"], sharing: first)
        let url2 = try Self.url(second, source)
        let served = try URLModeClient.get(url2)
        // Then the cached answer is served
        #expect(served.status == 200 && served.body == fresh.body && served.header("etag") == fresh.header("etag"),
                "\(served.status) \(String(decoding: served.body.prefix(300), as: UTF8.self))")
        // And another request, never cached, fails as the origin is down
        let other = try URLModeClient.get(try Self.url(second, origin.url + "/media/png_palette_400x300.png"))
        #expect(other.status == 502 && URLModeClient.code(other) == "origin-failed")
        #expect(second.stop().status == 0)
    }

    @Test("the cache stays within --cache-size under churn, least recently used first")
    func cacheBound() throws {
        let origin = try URLModeOrigin(files: Self.files)
        let (server, cache) = try Self.cached(origin, ["--cache-size", "40KB"])
        let source = origin.url + "/plain/png_palette_400x300.png"
        for edge in stride(from: 100, through: 280, by: 20) {
            #expect(try URLModeClient.get(try Self.url(server, source, [("maxEdge", String(edge))])).status == 200)
            // Every byte the cache stores: bodies and metadata
            let files = try FileManager.default.contentsOfDirectory(atPath: cache.path)
            let total = try files.reduce(0) { $0 + ((try FileManager.default.attributesOfItem(atPath: cache.appendingPathComponent($1).path)[.size] as? Int) ?? 0) }
            #expect(total <= 40_000, "\(total) bytes after maxEdge \(edge)")
        }
        let metrics = try Self.metrics(server)
        let evictions = metrics.split(separator: "\n").first { $0.hasPrefix("attachkit_cache_evictions_total ") }.flatMap { Int($0.split(separator: " ")[1]) } ?? 0
        #expect(evictions > 0, "\(metrics)")
        // The newest answer is still there
        #expect(try URLModeClient.get(try Self.url(server, source, [("maxEdge", "280")])).status == 200)
        #expect(metrics.contains("attachkit_cache_misses_total 10"))
        server.stop()
    }

    @Test("every origin answer is bounded and checked, whatever its status: a redirect's body is not read, bad framing and a huge header are 502, a Last-Modified that is no date is not passed on")
    func originAnswersChecked() throws {
        let origin = try URLModeOrigin(files: Self.files)
        let server = try Self.server(origin)
        let name = "png_palette_400x300.png"
        // A 302 declaring 50 MB (over --max-body 2MB): the redirect is followed, its body never read
        let started = Date()
        let redirected = try URLModeClient.get(try Self.url(server, origin.url + "/redirbody/" + name))
        #expect(redirected.status == 200, "\(String(decoding: redirected.body.prefix(300), as: UTF8.self))")
        #expect(Date().timeIntervalSince(started) < 2)
        for (path, text) in [("/twolengths/", "two different Content-Length"), ("/badlength/", "is not a number"), ("/hugehead/", "header is over"), ("/hugeline/", "header is too large")] {
            let answer = try URLModeClient.get(try Self.url(server, origin.url + path + name))
            let message = String(decoding: answer.body, as: UTF8.self)
            #expect(answer.status == 502 && URLModeClient.code(answer) == "origin-failed" && message.contains(text), "\(path): \(answer.status) \(message)")
        }
        let garbage = try Self.url(server, origin.url + "/lmgarbage/" + name)
        let answer = try URLModeClient.get(garbage)
        #expect(answer.status == 200 && answer.header("last-modified") == nil)
        #expect(try URLModeClient.get(garbage, headers: ["If-Modified-Since: garbage"]).status == 200)
        #expect(server.stop().status == 0)
    }

    @Test("an IPv6-literal origin ([::1]) is fetched under --allow-private-origins")
    func ipv6Origin() throws {
        let origin = try URLModeOrigin(files: Self.files, bind: "::1")
        let server = try Self.server(origin)
        let answer = try URLModeClient.get(try Self.url(server, origin.url + "/media/gif_static_320x240.gif"))
        #expect(answer.status == 200 && answer.header("content-type") == "image/gif", "\(String(decoding: answer.body.prefix(300), as: UTF8.self))")
        #expect(try origin.count("/media/gif_static_320x240.gif") == 1)
        server.stop()
    }

    @Test("a redirect from an allowed origin to a refused (loopback) address is 403 and never followed")
    func redirectToPrivate() throws {
        let origin = try URLModeOrigin(files: Self.files)
        // public.test stands for a public origin (it resolves to the loopback origin, passed as public)
        var fetch = OriginFetch(origins: try OriginList(["http://public.test:\(origin.port)/", origin.url + "/"]), allowPrivate: false, maxBytes: 1 << 20)
        fetch.resolve = { host, allowPrivate throws(ServiceError) in
            host == "public.test" ? [OriginAddress("127.0.0.1")!] : try OriginResolver.addresses(of: host, allowPrivate: allowPrivate)
        }
        #expect(try fetch.fetch(try OriginURL("http://public.test:\(origin.port)/media/gif_static_320x240.gif")) { _ in 0 }.length > 0)
        do {
            _ = try fetch.fetch(try OriginURL("http://public.test:\(origin.port)/toloopback/png_palette_400x300.png")) { _ in 0 }
            Issue.record("the redirect to loopback was followed")
        } catch let error as OriginError {
            #expect(error.status == 403 && error.error.message.contains("loopback"), "\(error.error.message)")
        }
        #expect(try origin.count("/toloopback/png_palette_400x300.png") == 1 && origin.count("/media/png_palette_400x300.png") == 0)
    }

    @Test("a failed fetch answers every request waiting on it (one fetch); fetches hold no work slot, so other work goes on")
    func flightFailureAndSlots() throws {
        let origin = try URLModeOrigin(files: Self.files)
        let (server, _) = try Self.cached(origin)
        let slow = try Self.url(server, origin.url + "/slow/png_palette_400x300.png")
        // A first preparation (the workers start), so that timings below are the service's own
        #expect(try URLModeClient.get(try Self.url(server, origin.url + "/media/gif_static_320x240.gif")).status == 200)
        let started = Date()
        let statuses = Locked<[Int]>([])
        // One curl making the 8 transfers at once (8 clients of TestEnvironment.run would take
        // the dispatch threads the 9th needs)
        let group = DispatchGroup()
        group.enter()
        Thread {
            let arguments = ["-sS", "-Z", "--parallel-immediate", "--parallel-max", "8", "--max-time", "20", "-w", "%{http_code}\n"]
                + (0..<8).flatMap { _ in ["-o", "/dev/null", slow] }
            let run = try? TestEnvironment.run("curl", arguments)
            statuses.withLock { $0 = run?.stdout.split(separator: "\n").compactMap { Int($0) } ?? [] }
            group.leave()
        }.start()
        // While 8 requests wait on an origin that does not answer within --origin-timeout 2 (2 jobs)
        Thread.sleep(forTimeInterval: 0.7)
        let otherStarted = Date()
        let other = try URLModeClient.get(try Self.url(server, origin.url + "/media/gif_static_320x240.gif", [("maxEdge", "100")]))
        #expect(other.status == 200 && Date().timeIntervalSince(otherStarted) < 1.2, "\(other.status) after \(Date().timeIntervalSince(otherStarted)) s")
        group.wait()
        let all = statuses.withLock { $0 }
        #expect(all.count == 8 && all.allSatisfy { $0 == 504 }, "\(all)")
        #expect(Date().timeIntervalSince(started) < 3.5, "the last answer after \(Date().timeIntervalSince(started)) s")
        #expect(try origin.count("/slow/png_palette_400x300.png") == 1)
        server.stop()
    }

    @Test("the cache: files 0600 in a 0700 folder, the report's requestId the request's own, a damaged body fetched again, nothing served that the origin policy no longer allows")
    func cacheIntegrity() throws {
        let origin = try URLModeOrigin(files: Self.files)
        let (first, cache) = try Self.cached(origin)
        let source = origin.url + "/media/png_palette_400x300.png"
        let url = try Self.url(first, source, [("maxEdge", "200")])
        let fresh = try URLModeClient.get(url, headers: ["X-Request-Id: first-request"])
        #expect(fresh.status == 200)
        let manager = FileManager.default
        #expect(try manager.attributesOfItem(atPath: cache.path)[.posixPermissions] as? Int == 0o700)
        let files = try manager.contentsOfDirectory(atPath: cache.path)
        for file in files {
            #expect(try manager.attributesOfItem(atPath: cache.appendingPathComponent(file).path)[.posixPermissions] as? Int == 0o600, "\(file)")
        }
        // A cached answer's report names the request it answers
        let second = try URLModeClient.get(url, headers: ["X-Request-Id: second-request"])
        let report = try #require(second.header("attachkit-report").flatMap { Base64URL.decode($0) })
        #expect(try JSONValue.parse(String(decoding: report, as: UTF8.self))["requestId"]?.stringValue == "second-request")
        // A truncated body, then one of the right size with other bytes: dropped and fetched again
        let body = cache.appendingPathComponent(try #require(files.first { $0.hasSuffix(".body") })).path
        #expect(truncate(body, 100) == 0)
        let repaired = try URLModeClient.get(url)
        #expect(repaired.status == 200 && repaired.body == fresh.body)
        try Data(repeating: 0x41, count: fresh.body.count).write(to: URL(fileURLWithPath: body))
        let again = try URLModeClient.get(url)
        #expect(again.status == 200 && again.body == fresh.body)
        #expect(try origin.count("/media/png_palette_400x300.png") == 3)
        // The access log has the path with its signature replaced by -
        let (status, log) = first.stop()
        #expect(status == 0)
        let signature = url.split(separator: "/").dropLast(2).last.map(String.init) ?? "?"
        let paths = log.split(separator: "\n").compactMap { try? JSONValue.parse(String($0)) }.compactMap { $0["path"]?.stringValue }
        #expect(paths.contains { $0.hasPrefix("/v1/attach/-/maxEdge=200/") } && !log.contains(signature), "\(paths)")
        // Restarted on the same cache without --allow-private-origins: the loopback answer is not served
        let strict = try Self.server(origin, extra: ["--cache", cache.path], privateOrigins: false, sharing: first)
        let strictURL = try Self.url(strict, source, [("maxEdge", "200")])
        let refused = try URLModeClient.get(strictURL)
        #expect(refused.status == 403 && String(decoding: refused.body, as: UTF8.self).contains("loopback"))
        #expect(try URLModeClient.get(strictURL, headers: ["If-None-Match: \(fresh.header("etag") ?? "")"]).status == 403)
        #expect(try origin.count("/media/png_palette_400x300.png") == 3)
        #expect(strict.stop().status == 0)
    }
}
