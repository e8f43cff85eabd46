import AttachKit
import Foundation

/// The rows issue 33 adds: `--jobs 2` against `--jobs 1` over a mixed folder of photos and sound
/// (the corpus' when present, TestMedia's otherwise), and photo throughput against
/// `vipsthumbnail` run in parallel over the same photos.
extension Scenarios {
    func issue33() -> [(name: String, make: () -> Scenario)] {
        [("batch-mixed", batchMixed), ("batch-photos", batchPhotos)]
    }

    /// The corpus' valid images and audio (TestMedia's without the corpus), linked into one folder.
    private func mixedFolder() -> String {
        let target = inputs.folder.appendingPathComponent("batch-mixed")
        if FileManager.default.fileExists(atPath: target.path) { return target.path }
        try? FileManager.default.createDirectory(at: target, withIntermediateDirectories: true)
        let sources = inputs.mediaSources(corpus: true)
        let corpus = sources.filter { !$0.contains("/TestMedia/") }
        for source in (corpus.isEmpty ? sources : corpus) where source.contains("/images/") || source.contains("/audio/") {
            let path = target.appendingPathComponent(URL(fileURLWithPath: source).lastPathComponent).path
            if (try? FileManager.default.linkItem(atPath: source, toPath: path)) == nil { try? FileManager.default.copyItem(atPath: source, toPath: path) }
        }
        return target.path
    }

    func batchMixed() -> Scenario {
        jobsScenario("batch-mixed", summary: "batch over a mixed folder of photos (HEIC, AVIF, JPEG...) and sound clips: --jobs 2 vs --jobs 1",
                     input: mixedFolder(), out: folder("batch-mixed"))
    }

    /// `count` 12 MP JPEGs → 2048 px: `attachkit batch --jobs 2` against `vipsthumbnail` in two
    /// parallel processes (`xargs -P 2`, half the photos each, the same encoder settings).
    /// Files per second per core = count ÷ wall ÷ 2.
    func batchPhotos() -> Scenario {
        let count = quick ? 4 : 24
        let photos = copies(of: inputs.photo(megapixels: quick ? 6 : 12), count: count, in: "batch-photos")
        let input = (photos[0] as NSString).deletingLastPathComponent
        let out = folder("batch-photos")
        let vips = ["sh", "-c", "printf '%s\\0' \"$@\" | xargs -0 -P 2 -n \(max(1, count / 2)) vipsthumbnail --size 2048 -o '\(out)/vt/%s.jpg[Q=80,strip,optimize_coding]'",
                    "sh"] + photos
        return Scenario(name: "batch-photos", summary: "\(count) × \(quick ? 6 : 12) MP JPEG → 2048 px on 2 cores (files/s per core = \(count) ÷ wall ÷ 2): batch --jobs 2 vs vipsthumbnail × 2 in parallel",
                        contenders: [
                            Contender(name: "attachkit", command: [attachkit, "batch", input, "--out", out + "/ak", "--jobs", "2", "--profile", "apple",
                                                                   "--max-edge", "2048"], reset: clean(out + "/ak")),
                            Contender(name: "vipsthumbnail", command: vips, reset: clean(out + "/vt")),
                        ], reference: "vipsthumbnail")
    }
}
