import Testing
@testable import AttachKit

/// The batch report's one way of writing outside text into HTML.
@Suite("HTML text")
struct HTMLTextTests {
    @Test("the five HTML specials become references: a name holding <script> or a closing quote opens no element or attribute")
    func specials() {
        #expect(HTMLText.escaped("<script>alert('x')</script>") == "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;")
        #expect(HTMLText.escaped("\" onerror=\"x") == "&quot; onerror=&quot;x")
        #expect(HTMLText.escaped("a&b") == "a&amp;b")
        #expect(HTMLText.escaped("&lt;") == "&amp;lt;", "a reference in a name stays text")
        let hostile = HTMLText.escaped("<img src=x onerror=alert(1)>\"'&")
        #expect(!hostile.contains("<") && !hostile.contains(">") && !hostile.contains("\"") && !hostile.contains("'"))
    }

    @Test("bidi overrides, controls and backslashes are made visible as the terminal shows them; text and emoji stay")
    func hidden() {
        #expect(HTMLText.escaped("photo\u{202E}gpj.exe") == "photo\\u{202E}gpj.exe")
        #expect(HTMLText.escaped("a\nb\u{0}c\u{7F}") == "a\\nb\\u{0}c\\u{7F}")
        #expect(HTMLText.escaped("C:\\x") == "C:\\\\x")
        #expect(HTMLText.escaped("été 👩‍👩‍👧 写真.jpg") == "été 👩‍👩‍👧 写真.jpg")
    }
}
