import Foundation
import Testing
@testable import AttachKit

/// What an outside tester found after the layers were redrawn (issue 12), each kept as a case:
/// one code per input from every verb, one reading of numbers from every front end, the floor a
/// user asks for honoured, thumbnails named as what they are, a killed run's leftovers removed.
@Suite("outsider findings after the redesign")
struct ArchitectureOutsiderTests {
    /// The 2 s TestMedia MP4 with its `mvhd` timescale set to 0 (FFmpeg silently takes 1, so the
    /// container "lasts" 2000 s): corrupt from validate --deep, prepare and thumbnail alike.
    @Test("an mvhd timescale of 0 is corrupt from every verb")
    func zeroTimescale() throws {
        let folder = TestEnvironment.temporaryFolder("timescale0")
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: TestEnvironment.fixture("video/mp4_h264_aac_320x240_2s.mp4"))))
        let mvhd = try #require(bytes.indices.dropLast(4).first { bytes[$0..<($0 + 4)] == ArraySlice("mvhd".utf8) })
        #expect(bytes[mvhd + 4] == 0, "a version-0 mvhd")
        bytes.replaceSubrange((mvhd + 16)..<(mvhd + 20), with: [0, 0, 0, 0])
        let input = folder.appendingPathComponent("ts0.mp4").path
        try Data(bytes).write(to: URL(fileURLWithPath: input))

        let deep = try TestEnvironment.runAttachKit(["validate", "--deep", "--json", input])
        #expect(deep.stdout.contains(#""code":"corrupt""#), "\(deep.stdout)")
        let prepare = try TestEnvironment.runAttachKit(["prepare", "--json", "--out", folder.appendingPathComponent("out").path, input])
        #expect(prepare.stdout.contains(#""code":"corrupt""#) && prepare.stdout.contains("timescale of 0"), "\(prepare.stdout)")
        let thumbnail = try TestEnvironment.runAttachKit(["thumbnail", "--json", input, "--out", folder.appendingPathComponent("t.jpg").path])
        #expect(thumbnail.stdout.contains(#""code":"corrupt""#), "\(thumbnail.stdout)")
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("t.jpg").path))
    }

    @Test("a whole-number option reads the same however it is spelled, from text or JSON", arguments: [
        ("16", 16), ("16.0", 16), ("1.6e1", 16), ("1e3", 1000),
    ])
    func wholeNumberSpellings(text: String, expected: Int) throws {
        #expect(try OptionLimits.maxEdge.check(text: text) == expected)
        #expect(try OptionLimits.maxEdge.check(number: Double(text)!) == expected)
    }

    @Test("a fraction is never a whole number or a byte count, from text or JSON", arguments: [
        "16.5", "999.5", "1000.5", "14400.0001",
    ])
    func fractionsRefused(text: String) {
        #expect(throws: OptionError.self) { try OptionLimits.maxEdge.check(text: text) }
        #expect(throws: OptionError.self) { try OptionLimits.maxBytes.check(bytes: text) }
        #expect(throws: OptionError.self) { try OptionLimits.maxBytes.check(number: Double(text)!) }
    }

    @Test("byte counts with units come out whole: 1.1MB is 1,100,000; 0.9999KB is refused")
    func byteUnits() throws {
        #expect(try OptionLimits.maxBytes.check(bytes: "1.1MB") == 1_100_000)
        #expect(try OptionLimits.maxBytes.check(bytes: "1e3") == 1000)
        #expect(try OptionLimits.maxBytes.check(bytes: "2.5KB") == 2500)
        #expect(throws: OptionError.self) { try OptionLimits.maxBytes.check(bytes: "0.9999KB") }
        #expect(throws: OptionError.self) { try OptionLimits.maxBytes.check(bytes: "1.0000001KB") }
    }

    @Test("the CLI reads --max-edge 16.0 and 1e3 as serve reads 16.0 and 1e3; --max-bytes 999.5 is refused")
    func cliSpellings() throws {
        let out = TestEnvironment.temporaryFolder("spellings").path
        let input = TestEnvironment.fixture("images/gif_static_320x240.gif")
        for value in ["16.0", "1e3"] {
            let run = try TestEnvironment.runAttachKit(["prepare", "--max-edge", value, "--out", out, input])
            #expect(run.status == 0, "--max-edge \(value): \(run.stderr)")
        }
        let refused = try TestEnvironment.runAttachKit(["prepare", "--max-bytes", "999.5", "--out", out, input])
        #expect(refused.status == 64 && refused.stderr.contains("--max-bytes"), "\(refused.stderr)")
    }

    @Test("a quality floor above the encoder's ceiling is honoured: floor 90 is never encoded at 80")
    func floorAboveCeiling() throws {
        let out = TestEnvironment.temporaryFolder("floor90").path
        let input = TestEnvironment.fixture("images/jpeg_large_4032x3024.jpg")
        let run = try TestEnvironment.runAttachKit(["prepare", "--json", "--max-bytes", "200KB", "--quality-floor", "90", "--out", out, input])
        let report = try JSONValue.parse(run.stdout)
        #expect(report["ok"] == .bool(true), "\(run.stdout)")
        let quality = try #require(report["quality"]?.intValue, "\(run.stdout)")
        #expect(quality >= 90)
        #expect((report["after"]?["bytes"]?.intValue ?? .max) <= 200_000)
    }

    @Test("a thumbnail named .png is refused (iOS reads the type from the name); nothing is written")
    func thumbnailExtension() throws {
        let folder = TestEnvironment.temporaryFolder("thumb-png")
        let run = try TestEnvironment.runAttachKit(["thumbnail", "--json", TestEnvironment.fixture("images/gif_static_320x240.gif"),
                                                    "--out", folder.appendingPathComponent("x.png").path])
        #expect(run.status != 0)
        #expect(run.stdout.contains(#""code":"unsupported""#) && run.stdout.contains(".jpg"), "\(run.stdout)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)
    }

    @Test("prepare removes the temporaries a killed run left for its files, and no one else's")
    func killedRunLeftovers() throws {
        let out = TestEnvironment.temporaryFolder("leftovers")
        // A process that has exited: its id names no live process.
        let gone = Process()
        gone.executableURL = URL(fileURLWithPath: "/bin/true")
        try gone.run()
        gone.waitUntilExit()
        let stale = out.appendingPathComponent(".gif_static_320x240.\(gone.processIdentifier).abcdef.tmp").path
        let live = out.appendingPathComponent(".gif_static_320x240.\(getpid()).ghijkl.tmp").path
        let other = out.appendingPathComponent(".unrelated.\(gone.processIdentifier).abcdef.tmp").path
        for path in [stale, live, other] { #expect(FileManager.default.createFile(atPath: path, contents: Data([1]))) }

        let run = try TestEnvironment.runAttachKit(["prepare", "--out", out.path, TestEnvironment.fixture("images/gif_static_320x240.gif")])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: stale))
        #expect(FileManager.default.fileExists(atPath: live), "a live process's temporary is never touched")
        #expect(FileManager.default.fileExists(atPath: other), "only this run's names are swept")
    }

    /// The TestMedia APNG with its 5th frame's compressed data replaced (CRCs fixed, so the
    /// structure holds): libvips decodes the first frame only, so the frames after it are decoded
    /// through FFmpeg; the file is corrupt from validate --deep and prepare (never passed through).
    @Test("an APNG whose later frame does not decode is corrupt, not passed through")
    func apngLaterFrame() throws {
        let folder = TestEnvironment.temporaryFolder("apng-frame")
        let original = [UInt8](try Data(contentsOf: URL(fileURLWithPath: TestEnvironment.fixture("images/png_apng_animated_160x120.png"))))
        var out = Array(original[0..<8])
        var index = 8, frames = 0
        func be32(_ at: Int) -> Int { original[at..<(at + 4)].reduce(0) { $0 << 8 | Int($1) } }
        while index + 12 <= original.count {
            let length = be32(index)
            let type = Array(original[(index + 4)..<(index + 8)])
            var body = Array(original[(index + 8)..<(index + 8 + length)])
            if type == Array("fdAT".utf8) {
                frames += 1
                if frames == 5 { body = Array(body[0..<4]) + [0x78, 0x9C] + Array(repeating: 0xFF, count: body.count - 6) }
            }
            let crc = CRC32.update(CRC32.update(0, type), body)
            out += [UInt8(length >> 24 & 0xFF), UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF)] + type + body
            out += [UInt8(crc >> 24 & 0xFF), UInt8(crc >> 16 & 0xFF), UInt8(crc >> 8 & 0xFF), UInt8(crc & 0xFF)]
            index += 12 + length
        }
        #expect(frames >= 5)
        let input = folder.appendingPathComponent("apng.png").path
        try Data(out).write(to: URL(fileURLWithPath: input))

        let deep = try TestEnvironment.runAttachKit(["validate", "--deep", "--json", input])
        #expect(deep.stdout.contains(#""code":"corrupt""#), "\(deep.stdout)")
        let prepare = try TestEnvironment.runAttachKit(["prepare", "--json", "--out", folder.appendingPathComponent("out").path, input])
        #expect(prepare.stdout.contains(#""code":"corrupt""#), "\(prepare.stdout)")
        // The untouched animation still passes.
        let intact = try TestEnvironment.runAttachKit(["validate", "--deep", "--json", TestEnvironment.fixture("images/png_apng_animated_160x120.png")])
        #expect(!intact.stdout.contains(#""code":"corrupt""#), "\(intact.stdout)")
    }
}
