import Foundation
import Testing
@testable import AttachKit

/// An outside tester's camera raws (outsider round 45, F1, F1b, F2, F4, F5), made from the
/// fixtures (TestMedia/formats, generate.sh "issue 29: camera raws") by cutting or patching their
/// bytes in a temporary folder:
/// - whatever a raw's header points to past the end of the file (a JPEG's offset, an IFD, a box,
///   the sensor data) makes it `corrupt` when it leaves no usable preview, from every verb; a raw
///   is refused as `unsupported` only when it is whole and simply has no large preview;
/// - the same damage outside a whole preview is recoverable, for every raw (CR3 and RAF too):
///   validate warns `recoverable-damage`, prepare notes `repaired:`;
/// - a NEF listing many SubIFDs is still a NEF, and one listing more than are read says so;
/// - a preview shorter than its JPEG is said to end at the end of the preview, not of the file.
@Suite("Camera raws: cut or patched headers, one verdict from every verb")
struct CameraRawDamageTests {
    static func fixture(_ file: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: URL(fileURLWithPath: CameraRawProbeTests.path(file))))
    }

    // MARK: Bytes

    /// A TIFF's numbers in its byte order.
    struct Order {
        let big: Bool
        init(_ bytes: [UInt8]) { big = bytes[0] == 0x4D }
        func u16(_ b: [UInt8], _ i: Int) -> Int { big ? Int(b[i]) << 8 | Int(b[i + 1]) : Int(b[i + 1]) << 8 | Int(b[i]) }
        func u32(_ b: [UInt8], _ i: Int) -> Int { big ? (u16(b, i) << 16 | u16(b, i + 2)) : (u16(b, i + 2) << 16 | u16(b, i)) }
        func bytes32(_ v: UInt32) -> [UInt8] {
            let be = [UInt8(v >> 24), UInt8((v >> 16) & 0xFF), UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)]
            return big ? be : be.reversed()
        }
        func put32(_ b: inout [UInt8], _ i: Int, _ v: UInt32) { b.replaceSubrange(i..<i + 4, with: bytes32(v)) }
        /// Where the entry for `tag` of the IFD at `ifd` starts.
        func entry(_ b: [UInt8], ifd: Int, tag: Int) throws -> Int {
            let count = u16(b, ifd)
            let found = (0..<count).map { ifd + 2 + 12 * $0 }.first { u16(b, $0) == tag }
            return try #require(found, "tag \(tag) in the IFD at \(ifd)")
        }
    }

    /// The NEF fixture, and where its IFD0 lists its SubIFDs (the preview's first, the sensor's second).
    static func nef() throws -> (bytes: [UInt8], order: Order, subIFDEntry: Int, preview: Int, sensor: Int) {
        let bytes = try fixture("nef_nikon_preview_1280x854_orientation6.nef")
        let order = Order(bytes)
        let entry = try order.entry(bytes, ifd: 8, tag: 0x014A)
        let list = order.u32(bytes, entry + 8)
        return (bytes, order, entry, order.u32(bytes, list), order.u32(bytes, list + 4))
    }

    static func write(_ bytes: [UInt8], _ name: String, in folder: URL) throws -> String {
        let url = folder.appendingPathComponent(name)
        try Data(bytes).write(to: url)
        return url.path
    }

    // MARK: Verbs

    /// What probe, validate and prepare (`--json`) say of `path`: probe's and prepare's error
    /// (code and message, `nil` when they succeed), validate's diagnostics, prepare's notes.
    struct Verdicts: CustomStringConvertible {
        var probe: (code: String, message: String)?
        var container: String?
        var width: Int?
        var validate: [(code: String, message: String)] = []
        var prepare: (code: String, message: String)?
        var notes: [String] = []
        var description: String { "probe \(String(describing: probe)) validate \(validate) prepare \(String(describing: prepare)) notes \(notes)" }
    }

    static func verdicts(_ path: String) throws -> Verdicts {
        func json(_ stdout: String) throws -> JSONValue {
            try JSONValue.parse(stdout.split(separator: "\n").first.map(String.init) ?? "")
        }
        func error(_ value: JSONValue) -> (code: String, message: String)? {
            value["error"].map { ($0["code"]?.stringValue ?? "", $0["message"]?.stringValue ?? "") }
        }
        var result = Verdicts()
        let probe = try json(try TestEnvironment.runAttachKit(["probe", "--json", path]).stdout)
        result.probe = error(probe)
        result.container = probe["container"]?.stringValue
        result.width = probe["width"]?.intValue
        let validate = try json(try TestEnvironment.runAttachKit(["validate", "--json", path]).stdout)
        result.validate = (validate["diagnostics"]?.arrayValue ?? []).map { ($0["code"]?.stringValue ?? "", $0["message"]?.stringValue ?? "") }
        let out = TestEnvironment.temporaryFolder("raw-damage-out")
        defer { try? FileManager.default.removeItem(at: out) }
        let prepare = try json(try TestEnvironment.runAttachKit(["prepare", "--json", "--out", out.path, path]).stdout)
        result.prepare = error(prepare)
        result.notes = prepare["notes"]?.arrayValue?.compactMap(\.stringValue) ?? []
        return result
    }

    /// Every verb says `corrupt`, naming `words`; none says `unsupported`.
    static func expectCorrupt(_ path: String, _ words: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let v = try verdicts(path)
        #expect(v.probe?.code == "corrupt" && v.probe?.message.contains(words) == true, "\(v)", sourceLocation: sourceLocation)
        #expect(v.validate.contains { $0.code == "corrupt" && $0.message.contains(words) }, "\(v)", sourceLocation: sourceLocation)
        #expect(!v.validate.contains { $0.code == "unsupported" }, "\(v)", sourceLocation: sourceLocation)
        #expect(v.prepare?.code == "corrupt" && v.prepare?.message.contains(words) == true, "\(v)", sourceLocation: sourceLocation)
    }

    /// Validate warns `recoverable-damage` naming `words`, and prepare converts the preview with a
    /// `repaired:` note saying the same.
    static func expectRepaired(_ path: String, _ words: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let v = try verdicts(path)
        #expect(v.probe == nil, "\(v)", sourceLocation: sourceLocation)
        #expect(v.validate.contains { $0.code == "recoverable-damage" && $0.message.contains(words) }, "\(v)", sourceLocation: sourceLocation)
        #expect(!v.validate.contains { $0.code == "corrupt" }, "\(v)", sourceLocation: sourceLocation)
        #expect(v.prepare == nil && v.notes.contains { $0.hasPrefix("repaired: ") && $0.contains(words) }, "\(v)", sourceLocation: sourceLocation)
        #expect(v.notes.contains { $0.hasPrefix("used the camera's embedded JPEG preview") }, "\(v)", sourceLocation: sourceLocation)
    }

    // MARK: F1, F1b: cut before or inside the preview

    @Test("F1: a preview whose offset lies past the end of the file (NEF; wrapping at 32 bits; a CR2's preview strip) is corrupt from every verb, naming the offset")
    func previewOffsetPastEnd() throws {
        let folder = TestEnvironment.temporaryFolder("raw-offset-past-end")
        defer { try? FileManager.default.removeItem(at: folder) }
        let (bytes, order, _, preview, _) = try Self.nef()
        var past = bytes
        order.put32(&past, try order.entry(bytes, ifd: preview, tag: 0x0201) + 8, UInt32(bytes.count + 1000))
        try Self.expectCorrupt(try Self.write(past, "past.nef", in: folder), "at byte \(bytes.count + 1000) lies past the end of the file at byte \(bytes.count)")
        var wrap = bytes
        order.put32(&wrap, try order.entry(bytes, ifd: preview, tag: 0x0201) + 8, 0xFFFF_FF00)
        order.put32(&wrap, try order.entry(bytes, ifd: preview, tag: 0x0202) + 8, 0x200)
        try Self.expectCorrupt(try Self.write(wrap, "wrap.nef", in: folder), "its embedded JPEG of 512 bytes at byte 4294967040 lies past the end of the file")
        var cr2 = try Self.fixture("cr2_canon_preview_1024x680.cr2")
        let cr2Order = Order(cr2)
        cr2Order.put32(&cr2, try cr2Order.entry(cr2, ifd: 16, tag: 0x0111) + 8, 100_000_000)
        try Self.expectCorrupt(try Self.write(cr2, "past.cr2", in: folder), "at byte 100000000 lies past the end of the file")
    }

    @Test("F1b: a raw cut before or inside its preview (NEF before it, CR2 at byte 292, CR3 inside the preview's uuid box, RAF inside its JPEG) is corrupt, not 'no preview' or 'a thumbnail'")
    func cutBeforePreview() throws {
        let folder = TestEnvironment.temporaryFolder("raw-cut-before-preview")
        defer { try? FileManager.default.removeItem(at: folder) }
        let nef = try Self.fixture("nef_nikon_preview_1280x854_orientation6.nef")
        let previewOffset = Int(try #require(try Through.probe(CameraRawProbeTests.path("nef_nikon_preview_1280x854_orientation6.nef"), scope: CameraRawProbeTests.folder).cameraRaw).previewOffset)
        try Self.expectCorrupt(try Self.write(Array(nef.prefix(previewOffset - 100)), "cut.nef", in: folder),
                               "at byte \(previewOffset) lies past the end of the file at byte \(previewOffset - 100) (truncated)")
        try Self.expectCorrupt(try Self.write(Array(nef.prefix(533)), "cut533.nef", in: folder), "lies past the end of the file at byte 533")
        let cr2 = try Self.fixture("cr2_canon_preview_1024x680.cr2")
        try Self.expectCorrupt(try Self.write(Array(cr2.prefix(292)), "cut.cr2", in: folder), "lies past the end of the file at byte 292")
        // The CR3's preview uuid box follows its moov (which holds only the 160×120 thumbnail).
        let cr3 = try Self.fixture("cr3_canon_preview_1024x680_orientation3.cr3")
        let uuid = try #require(cr3.indices.first { cr3[$0...].starts(with: Array("uuid".utf8) + [0xEA, 0xF4, 0x2B, 0x5E]) }) - 4
        try Self.expectCorrupt(try Self.write(Array(cr3.prefix(uuid + 800)), "cut.cr3", in: folder),
                               "the 'uuid' box (\(Order([0x4D]).u32(cr3, uuid)) bytes at byte \(uuid)) runs past the end of the file at byte \(uuid + 800)")
        let raf = try Self.fixture("raf_fujifilm_preview_1024x680_orientation3.raf")
        try Self.expectCorrupt(try Self.write(Array(raf.prefix(2000)), "cut.raf", in: folder), "runs past the end of the file at byte 2000 (truncated)")
        // A whole raw with only a thumbnail stays unsupported (CameraRawProbeTests.thumbnailOnly); cut, it is corrupt.
        let thumbnailOnly = try Self.fixture("nef_nikon_thumbnail_only.nef")
        try Self.expectCorrupt(try Self.write(Array(thumbnailOnly.dropLast(100)), "thumbnail-cut.nef", in: folder), "runs past the end of the file")
    }

    // MARK: F5: the sensor data cut, the preview whole

    @Test("F5: a raw whose sensor data is cut (NEF, CR2, CR3's mdat, RAF's sensor data) is recoverable: validate warns, prepare converts the preview and notes 'repaired:'",
          arguments: [("nef_nikon_preview_1280x854_orientation6.nef", "runs past the end of the file"),
                      ("cr2_canon_preview_1024x680.cr2", "runs past the end of the file"),
                      ("cr3_canon_preview_1024x680_orientation3.cr3", "the 'mdat' box (2056 bytes at byte"),
                      ("raf_fujifilm_preview_1024x680_orientation3.raf", "the sensor data (2048 bytes at byte")])
    func sensorCut(file: String, words: String) throws {
        let folder = TestEnvironment.temporaryFolder("raw-sensor-cut")
        defer { try? FileManager.default.removeItem(at: folder) }
        // Each fixture's sensor data comes last.
        let bytes = try Self.fixture(file)
        try Self.expectRepaired(try Self.write(Array(bytes.dropLast(1000)), "cut-" + file, in: folder), words)
    }

    // MARK: F2: many SubIFDs

    @Test("F2: a NEF listing its preview's SubIFD 999 times before its sensor's (or declaring 2^32-1 SubIFDs) is still a NEF shown by its preview; one listing more distinct SubIFDs than are read is a NEF refused saying so, never a TIFF thumbnail")
    func manySubIFDs() throws {
        let folder = TestEnvironment.temporaryFolder("raw-many-subifds")
        defer { try? FileManager.default.removeItem(at: folder) }
        let (bytes, order, entry, preview, sensor) = try Self.nef()
        // A new SubIFD list at the end of the file, the IFD0 entry pointing to it.
        func listing(_ offsets: [Int], extra: [UInt8] = []) -> [UInt8] {
            var out = bytes + extra
            let list = out.count
            out += offsets.flatMap { order.bytes32(UInt32($0)) }
            order.put32(&out, entry + 4, UInt32(offsets.count))
            order.put32(&out, entry + 8, UInt32(list))
            return out
        }
        let repeated = try Self.write(listing(Array(repeating: preview, count: 999) + [sensor]), "repeated.nef", in: folder)
        let v = try Self.verdicts(repeated)
        #expect(v.probe == nil && v.container == "nef" && v.width == 1280, "\(v)")
        #expect(v.prepare == nil && v.notes.contains("used the camera's embedded JPEG preview (1280×854)"), "\(v)")
        // A count running past the end of the file: the SubIFDs listed inside it are still read.
        var huge = bytes
        order.put32(&huge, entry + 4, 0xFFFF_FFFF)
        try Self.expectRepaired(try Self.write(huge, "huge.nef", in: folder), "the 4294967295 SubIFD offsets of the IFD at byte 8")
        // 100 distinct one-entry IFDs, then the preview's and the sensor's: past the 64 IFDs read.
        let base = bytes.count
        // Big-endian, as the NEF: one entry (NewSubfileType 1), no next IFD.
        let empty: [UInt8] = [0, 1, 0, 0xFE, 0, 4, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0]
        #expect(order.big)
        let many = try Self.write(listing((0..<100).map { base + 18 * $0 } + [preview, sensor], extra: (0..<100).flatMap { _ in empty }), "many.nef", in: folder)
        #expect(FormatSniffer.sniff(try FileReader(path: many)).container == .nef)
        let w = try Self.verdicts(many)
        #expect(w.probe?.code == "unsupported" && w.probe?.message.contains("more than the 64 IFDs read here, and the rest were not read") == true, "\(w)")
        #expect(w.prepare?.code == "unsupported", "\(w)")
    }

    // MARK: F4: a preview shorter than its JPEG

    @Test("F4: a preview whose declared length is shorter than its JPEG is corrupt, said to run to the end of the preview, not of the file")
    func previewLengthShort() throws {
        let folder = TestEnvironment.temporaryFolder("raw-preview-short")
        defer { try? FileManager.default.removeItem(at: folder) }
        let nef = try Self.nef()
        let order = nef.order
        var bytes = nef.bytes
        let lengthEntry = try order.entry(bytes, ifd: nef.preview, tag: 0x0202) + 8
        let half = order.u32(bytes, lengthEntry) / 2
        order.put32(&bytes, lengthEntry, UInt32(half))
        let v = try Self.verdicts(try Self.write(bytes, "short.nef", in: folder))
        let corrupt = try #require(v.validate.first { $0.code == "corrupt" }, "\(v)")
        #expect(corrupt.message.contains("runs to the end of the preview (byte \(half))") && !corrupt.message.contains("end of the file"), "\(corrupt.message)")
        #expect(v.prepare?.code == "corrupt" && v.prepare?.message.contains("end of the preview") == true, "\(v)")
    }
}
