import Foundation
import Testing
@testable import AttachKit

/// A small batch over TestMedia for the report's tests: a photo to downscale, a WebM to
/// transcode, a 40 s WAV to trim, a truncated JPEG the batch refuses, and a JPEG whose name is
/// hostile HTML. Made once, in-process, and shared by the report's tests.
enum ReportFixture {
    /// A name that would run script if the report put it in the page unescaped.
    static let hostileName = "\"><img src=x onerror=document.body.dataset.pwned=1><script>document.body.dataset.pwned=2<!--.jpg"

    static let files: [(source: String, name: String)] = [
        ("images/jpeg_large_4032x3024.jpg", "photo_4032x3024.jpg"),
        ("video/webm_vp9_opus_320x240_2s.webm", "clip.webm"),
        ("audio/wav_s16le_8k_mono_40s.wav", "voice.wav"),
        ("malformed/jpeg_truncated_half.jpg", "broken.jpg"),
        ("images/jpeg_exif_orientation6_600x400.jpg", hostileName),
    ]

    /// `in/` (the inputs) and `out/` (the batch's output folder) of a finished batch.
    struct Batch: Sendable {
        let input: URL
        let out: URL
        var folder: URL { input.deletingLastPathComponent() }
    }

    /// Copies `files` into a fresh `in/` folder.
    static func makeInput(_ name: String, files: [(source: String, name: String)] = files) throws -> URL {
        let input = TestEnvironment.temporaryFolder(name).appendingPathComponent("in", isDirectory: true)
        try FileManager.default.createDirectory(at: input, withIntermediateDirectories: true)
        for file in files {
            try FileManager.default.copyItem(at: TestEnvironment.testMedia.appendingPathComponent(file.source),
                                             to: input.appendingPathComponent(file.name))
        }
        return input
    }

    /// Runs a batch (in-process) over `input` into a sibling `out/`.
    static func run(_ input: URL, shard: Shard = .all, maxBytes: Int64? = 300_000) throws -> Batch {
        let out = input.deletingLastPathComponent().appendingPathComponent("out")
        let options = BatchOptions(inputRoot: input.path, outputRoot: out.path, prepare: PrepareOptions(outputFolder: "", maxBytes: maxBytes),
                                   jobs: 2, shard: shard)
        _ = try BatchRunner(options: options).run()
        return Batch(input: input, out: out)
    }

    private static let made = Result { try run(makeInput("report")) }

    /// The shared batch.
    static func batch() throws -> Batch { try made.get() }

    /// The manifest's lines.
    static func lines(_ batch: Batch, name: String = "manifest.jsonl") throws -> [JSONValue] {
        try String(contentsOf: batch.out.appendingPathComponent(name), encoding: .utf8)
            .split(separator: "\n").map { try JSONValue.parse(String($0)) }
    }

    /// Every `data:image/jpeg;base64,` picture in `html`, decoded.
    static func pictures(in html: String) -> [Data] {
        html.components(separatedBy: "src=\"data:image/jpeg;base64,").dropFirst().compactMap { part in
            part.split(separator: "\"", maxSplits: 1).first.flatMap { Data(base64Encoded: String($0)) }
        }
    }

    /// A JPEG's width and height, from its first SOF marker.
    static func jpegSize(_ data: Data) -> (width: Int, height: Int)? {
        let bytes = [UInt8](data)
        var index = 2
        while index + 9 < bytes.count {
            guard bytes[index] == 0xFF else { return nil }
            let marker = bytes[index + 1]
            let length = Int(bytes[index + 2]) << 8 | Int(bytes[index + 3])
            if (0xC0...0xCF).contains(marker), ![0xC4, 0xC8, 0xCC].contains(marker) {
                return (Int(bytes[index + 7]) << 8 | Int(bytes[index + 8]), Int(bytes[index + 5]) << 8 | Int(bytes[index + 6]))
            }
            index += 2 + length
        }
        return nil
    }

    /// The value of the element `id` carries in `data-value`.
    static func summaryValue(_ id: String, in html: String) -> String? {
        guard let range = html.range(of: "id=\"\(id)\" data-value=\"") else { return nil }
        return String(html[range.upperBound...].prefix { $0 != "\"" })
    }
}

extension Trait where Self == ConditionTrait {
    /// For tests that load a report in a real browser: Debian's `chromium` (scripts/setup.sh chromium).
    static var needsChromium: Self {
        .enabled(if: TestEnvironment.hasTool("chromium"), "needs Debian's chromium on PATH (scripts/setup.sh chromium)")
    }
}
