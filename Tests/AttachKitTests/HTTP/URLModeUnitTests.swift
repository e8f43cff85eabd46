import Testing
@testable import AttachKit

/// URL mode's pure parts: signatures, base64url, the options segment, source URLs, origin
/// prefixes, and which addresses are refused.
@Suite("URL mode: signing, URLs, origins, addresses")
struct URLModeUnitTests {
    static let keys = try! SigningKeys(text: "# two keys\n00112233445566778899aabbccddeeff\r\n\nffeeddccbbaa99887766554433221100\n")

    @Test("HMAC-SHA256 through GHmac matches RFC 4231 test case 2")
    func hmacVector() {
        let mac = HMACSHA256.mac(key: Array("Jefe".utf8), message: Array("what do ya want for nothing?".utf8))
        #expect(mac.hexString == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
    }

    @Test("a signature verifies under either key and not once any byte of the path changes")
    func signatures() {
        let signed = "maxEdge=200/aHR0cDovL2EvYi5qcGc"
        let first = AttachSignature.sign(signed, key: Self.keys.keys[0])
        let second = AttachSignature.sign(signed, key: Self.keys.keys[1])
        #expect(first.count == 43 && first != second)
        #expect(AttachSignature.verify(Substring(first), of: Substring(signed), keys: Self.keys.keys))
        #expect(AttachSignature.verify(Substring(second), of: Substring(signed), keys: Self.keys.keys))
        #expect(!AttachSignature.verify(Substring(first), of: Substring(signed), keys: [Self.keys.keys[1]]))
        #expect(!AttachSignature.verify(Substring(first), of: "maxEdge=201/aHR0cDovL2EvYi5qcGc", keys: Self.keys.keys))
        #expect(!AttachSignature.verify(Substring(first.dropLast()), of: Substring(signed), keys: Self.keys.keys))
        #expect(!AttachSignature.verify(Substring(first + "A"), of: Substring(signed), keys: Self.keys.keys))
        #expect(!AttachSignature.verify("", of: Substring(signed), keys: Self.keys.keys))
    }

    @Test("key files: hex lines, comments and blanks skipped; short, odd or non-hex keys refused")
    func keyFiles() {
        #expect(Self.keys.keys.count == 2 && Self.keys.signing.count == 16)
        for bad in ["", "# only a comment\n", "0011", "00112233445566778899aabbccddeeff0", "+0112233445566778899aabbccddeeff", "zz112233445566778899aabbccddeeff"] {
            #expect(throws: ServiceError.self, "\(bad)") { try SigningKeys(text: bad) }
        }
    }

    @Test("base64url decodes what it encodes and nothing with padding, stray bits or foreign characters")
    func base64url() {
        for length in 0..<40 {
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 * 37 + 11) }
            #expect(Base64URL.decode(Base64URL.encode(bytes)) == bytes)
        }
        #expect(Base64URL.decode("QQ==") == nil && Base64URL.decode("QR") == nil && Base64URL.decode("Q") == nil && Base64URL.decode("a+b/") == nil)
        #expect(Base64URL.decode("QQ") == [0x41])
    }

    @Test("the options segment is written in the table's order, escaped, and read back as a query")
    func optionsSegment() throws {
        let segment = AttachOptions.segment([("maxEdge", "1024"), ("thumbnail", nil), ("maxBytes", "500KB"), ("clip", ".25,.25,.5,.5"), ("profile", "a b")])
        #expect(segment == "profile=a%20b&maxBytes=500KB&maxEdge=1024&thumbnail&clip=.25,.25,.5,.5")
        let read = try AttachOptions.parameters(Substring(segment))
        #expect(read.map(\.name) == ["profile", "maxBytes", "maxEdge", "thumbnail", "clip"] && read[0].value == "a b" && read[3].value == nil)
        #expect(AttachOptions.segment([]) == "-")
        #expect(try AttachOptions.parameters("-").isEmpty)
        #expect(OptionTable.keys(for: .sign) == OptionsDecoder.prepareKeys.subtracting(["out"]))
    }

    @Test("signed URLs: checked options and source, a .ext suffix signed too")
    func signedURLs() throws {
        let url = try AttachURL.make(base: "https://attach.example.com/", source: "https://media.example.com/push/cat.heic",
                                     options: [("maxEdge", "1024")], key: Self.keys.signing, fileExtension: "jpg")
        #expect(url.hasPrefix("https://attach.example.com/v1/attach/") && url.hasSuffix(".jpg"))
        let path = try AttachPath(String(url.dropFirst("https://attach.example.com".count)))
        try path.verify(Self.keys)
        #expect(try path.sourceURL().text == "https://media.example.com/push/cat.heic" && path.options == "maxEdge=1024")
        #expect(throws: ServiceError.self) { try AttachURL.make(base: "b", source: "https://m/x", options: [("maxEdge", "3")], key: Self.keys.signing) }
        #expect(throws: ServiceError.self) { try AttachURL.make(base: "b", source: "https://m/x", options: [("out", "/tmp")], key: Self.keys.signing) }
        #expect(throws: ServiceError.self) { try AttachURL.make(base: "b", source: "file:///etc/passwd", options: [], key: Self.keys.signing) }
        #expect(throws: ServiceError.self) { try AttachURL.make(base: "b", source: "https://m/x", options: [], key: Self.keys.signing, fileExtension: "j/g") }
        let payload = AttachURL.payload(url)
        #expect(payload["payload"]?["aps"]?["mutable-content"]?.intValue == 1 && payload["payload"]?["attachment-url"]?.stringValue == url)
    }

    @Test("source URLs are read strictly", arguments: [
        "http://user@host/x", "http://host/a/../b", "http://host/a/%2e%2e/b", "http://host/a%2Fb", "http://host/x#frag", "http://host/a b",
        "http:\\\\host/x", "gopher://host/x", "http://ho_st/x", "http://host:0/x", "http://host:99999/x", "http://[::1/x", "//host/x", "http://host/é",
    ])
    func strictSources(_ text: String) {
        #expect(throws: ServiceError.self, "\(text)") { try OriginURL(text) }
    }

    @Test("origin prefixes match scheme, host, port and a path prefix at a segment boundary")
    func origins() throws {
        let list = try OriginList(["https://media.example.com/push", "http://127.0.0.1:8000/"])
        for allowed in ["https://media.example.com/push", "https://MEDIA.example.com:443/push/a.jpg?x=1", "http://127.0.0.1:8000/any"] {
            #expect(list.allows(try OriginURL(allowed)), "\(allowed)")
        }
        for refused in ["https://media.example.com/pushy.jpg", "http://media.example.com/push/a.jpg", "https://media.example.com:444/push/a",
                        "https://media.example.com.evil.com/push/a", "http://127.0.0.1:8001/any", "https://other.example.com/push/a"] {
            #expect(!list.allows(try OriginURL(refused)), "\(refused)")
        }
        #expect(throws: ServiceError.self) { try OriginList(["ftp://x/"]) }
        #expect(throws: ServiceError.self) { try OriginList(["https://x/?q=1"]) }
    }

    @Test("addresses that are not the public Internet are named, public ones pass")
    func addresses() throws {
        let refused = ["127.0.0.1", "10.1.2.3", "172.16.0.1", "192.168.1.1", "169.254.169.254", "100.100.100.200", "0.0.0.0", "224.0.0.1",
                       "255.255.255.255", "::1", "::", "fe80::1", "fd00:ec2::254", "ff02::1", "::ffff:127.0.0.1", "::ffff:169.254.169.254",
                       "64:ff9b::a9fe:a9fe", "::127.0.0.1", "192.0.2.2", "198.51.100.7", "203.0.113.9", "2001:db8::1", "2002:a9fe:a9fe::", "2002:7f00:1::1",
                       // From a second outsider round: local-use NAT64, 6to4 relay anycast, benchmarking, Teredo, ORCHID, 3fff::/20, ::/8
                       "64:ff9b:1::a00:1", "192.88.99.1", "2001:2::1", "2001::1", "2001:10::1", "2001:20::1", "3fff::1", "::ffff:0:a00:1", "100::1", "5f00::1"]
        for text in refused { #expect(try #require(OriginAddress(text)).privateKind != nil, "\(text)") }
        for text in ["93.184.216.34", "8.8.8.8", "2606:4700::1111", "::ffff:8.8.8.8", "172.32.0.1", "192.0.3.1", "198.51.101.1", "2001:db9::1", "2002:808:808::1"] {
            #expect(try #require(OriginAddress(text)).privateKind == nil, "\(text)")
        }
        #expect(OriginAddress("2001:db8::1")?.text == "2001:db8::1" && OriginAddress("nonsense") == nil)
        #expect(throws: ServiceError.self) { try OriginResolver.addresses(of: "localhost", allowPrivate: false) }
        do { _ = try OriginResolver.addresses(of: "0.0.0.0", allowPrivate: false) } catch { #expect(error.message.contains("an unspecified"), "\(error.message)") }
        #expect(try OriginResolver.addresses(of: "127.0.0.1", allowPrivate: true).map(\.text) == ["127.0.0.1"])
    }

    @Test("If-None-Match (weak comparison, lists, *) wins; If-Modified-Since compares HTTP dates, never text")
    func conditions() {
        let etag = "\"abc\""
        let date = "Mon, 01 Jun 2026 00:00:00 GMT"
        #expect(AttachConditions(ifNoneMatch: "\"abc\"", ifModifiedSince: nil).match(etag: etag, lastModified: nil))
        #expect(AttachConditions(ifNoneMatch: "\"x\", W/\"abc\"", ifModifiedSince: nil).match(etag: etag, lastModified: nil))
        #expect(AttachConditions(ifNoneMatch: "*", ifModifiedSince: nil).match(etag: etag, lastModified: nil))
        #expect(!AttachConditions(ifNoneMatch: "\"x\"", ifModifiedSince: date).match(etag: etag, lastModified: date))
        #expect(AttachConditions(ifNoneMatch: nil, ifModifiedSince: date).match(etag: etag, lastModified: date))
        for later in ["Tue, 02 Jun 2026 00:00:00 GMT", "Monday, 01-Jun-26 00:00:00 GMT", "Mon Jun  1 00:00:00 2026"] {
            #expect(AttachConditions(ifNoneMatch: nil, ifModifiedSince: later).match(etag: etag, lastModified: date), "\(later)")
        }
        #expect(!AttachConditions(ifNoneMatch: nil, ifModifiedSince: "Sun, 31 May 2026 23:59:59 GMT").match(etag: etag, lastModified: date))
        #expect(!AttachConditions(ifNoneMatch: nil, ifModifiedSince: "garbage").match(etag: etag, lastModified: "garbage"))
        #expect(!AttachConditions(ifNoneMatch: nil, ifModifiedSince: date).match(etag: etag, lastModified: nil))
    }

    @Test("HTTP dates: the three forms read, anything else refused; the origin's Last-Modified passed on only as a past date")
    func httpDates() {
        #expect(HTTPDate.parse("Sun, 06 Nov 1994 08:49:37 GMT") == 784_111_777)
        #expect(HTTPDate.parse("Sunday, 06-Nov-94 08:49:37 GMT") == 784_111_777)
        #expect(HTTPDate.parse("Sun Nov  6 08:49:37 1994") == 784_111_777)
        #expect(HTTPDate.format(784_111_777) == "Sun, 06 Nov 1994 08:49:37 GMT")
        for bad in ["garbage", "", "a\u{01}b", "Sun, 06 Nov 1994 08:49:37 UTC", "Sun, 31 Feb 1994 08:49:37 GMT", "Sun, 6 Nov 1994 08:49:37 GMT",
                    "Sun, 06 Nov 1994 25:49:37 GMT", String(repeating: "x", count: 5000)] {
            #expect(HTTPDate.parse(bad) == nil, "\(bad)")
        }
        #expect(OriginFetch.lastModified("Sunday, 06-Nov-94 08:49:37 GMT") == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(OriginFetch.lastModified("Fri, 01 Jan 2100 00:00:00 GMT") == nil && OriginFetch.lastModified("garbage") == nil)
    }

    @Test("a redirect's Location is resolved as RFC 3986 says", arguments: [
        ("?q=1", "http://h/deep/dir/redir?q=1"), ("./c.jpg", "http://h/deep/dir/c.jpg"), ("../c.jpg", "http://h/deep/c.jpg"),
        ("c.jpg", "http://h/deep/dir/c.jpg"), ("/a/./b/../x.jpg#frag", "http://h/a/x.jpg"), ("", "http://h/deep/dir/redir?to=1"),
        ("../../../../x", "http://h/x"), ("//other:81/a/../b", "http://other:81/b"), ("HTTPS://h2/x/./y?z", "https://h2/x/y?z"),
    ])
    func redirects(_ location: String, _ expected: String) throws {
        let base = try OriginURL("http://h/deep/dir/redir?to=1")
        #expect(try OriginURL(OriginFetch.resolve(location, against: base)).text == expected)
    }
}
