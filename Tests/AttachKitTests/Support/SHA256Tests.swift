import Testing
@testable import AttachKit

@Suite("SHA-256")
struct SHA256Tests {
    @Test("standard vectors", arguments: [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
    ])
    func vectors(input: String, digest: String) {
        #expect(SHA256.hex(Array(input.utf8)) == digest)
    }

    @Test("a million 'a's, fed in uneven pieces, equals the one-shot digest")
    func incremental() {
        var hasher = SHA256()
        let piece = [UInt8](repeating: UInt8(ascii: "a"), count: 999)
        var fed = 0
        while fed < 1_000_000 {
            let n = min(piece.count - fed % 7, 1_000_000 - fed)
            hasher.update(piece.prefix(n))
            fed += n
        }
        #expect(hasher.finalize().hexString == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }
}

extension SHA256Tests {
    @Test("after a digest the hasher starts over, empty")
    func startsOver() {
        var hasher = SHA256()
        hasher.update(Array("abc".utf8))
        _ = hasher.finalize()
        #expect(hasher.finalize().hexString == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    }
}
