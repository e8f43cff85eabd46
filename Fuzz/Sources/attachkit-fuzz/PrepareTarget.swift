import Foundation
@testable import AttachKit

/// The `prepare` fuzz target: the whole preparation path of one small input, in this process —
/// sniff, probe, structure check, caps, validation, then passthrough or the image / audio-video
/// pipeline (decode, scale, encode, byte fitting, remux, trim), the output's re-probe and
/// re-validation and the atomic commit — under a small budget so each input costs well under
/// libFuzzer's timeout. After each input: the ledger is clean, the input is unchanged, nothing
/// temporary is left, and the output folder holds exactly the output the report names.
enum PrepareTarget {
    /// `/dev/shm/attachkit-fuzz-prepare-PID/{in,out}` (one process runs inputs one at a time).
    static let root: String = {
        let base = FileManager.default.fileExists(atPath: "/dev/shm") ? "/dev/shm" : NSTemporaryDirectory()
        let root = "\(base)/attachkit-fuzz-prepare-\(getpid())"
        for folder in ["in", "out"] { try? FileManager.default.createDirectory(atPath: "\(root)/\(folder)", withIntermediateDirectories: true) }
        atexit { try? FileManager.default.removeItem(atPath: PrepareTarget.root) }
        return root
    }()

    /// Small enough that a hostile header is refused before it costs seconds: 4 Mpx per frame,
    /// 16 Mpx over all frames, 100 frames, one minute (the defaults allow 16383² and four hours).
    static let safety: SafetyLimits = {
        var limits = SafetyLimits()
        limits.maxInputBytes = 1 << 20
        limits.maxPixels = 4_000_000
        limits.maxTotalPixels = 16_000_000
        limits.maxFrames = 100
        limits.maxDuration = 60
        limits.maxWholeFramePixels = 4_000_000
        return limits
    }()

    /// Budgets that only tighten the `ios` profile: 200 KB, 512 px, 1 s of media, a 3 s deadline, one codec thread.
    static let options: PrepareOptions = {
        var options = PrepareOptions(profile: .ios, outputFolder: root + "/out", maxBytes: 200_000, maxEdge: 512,
                                     maxDuration: 1, deadline: 3)
        options.threads = 1
        return options
    }()

    static func run(_ bytes: [UInt8]) {
        let input = root + "/in/input." + fileExtension(of: bytes)
        FileManager.default.createFile(atPath: input, contents: Data(bytes))
        defer { unlink(input) }
        let report = prepare(input)
        check(report, input: input, bytes: bytes)
        for name in contents(of: root + "/out") { unlink(root + "/out/" + name) }
    }

    /// The extension a sender would have used: the one that names the bytes, so valid media takes
    /// the passthrough path; `bin` when the bytes are not media.
    static func fileExtension(of bytes: [UInt8]) -> String {
        let scratch = root + "/in/sniff"
        FileManager.default.createFile(atPath: scratch, contents: Data(bytes))
        defer { unlink(scratch) }
        guard let info = try? Prober().probeWithSniff(path: scratch, displayPath: "fuzz").info,
              let type = UniformType.of(container: info.container, kind: info.kind) else { return "bin" }
        return type.preferredExtension
    }

    static func prepare(_ input: String) -> PrepareReport {
        let ledger = AccessLedger(scopes: [try! AccessScope.folder(root)])
        let handle = try! ledger.acquire(input)
        let report = Preparer(options: options, safety: safety).prepare(handle, ledger: ledger)
        handle.release()
        precondition(ledger.report.isClean, "access ledger not clean: \(ledger.report.problems)")
        return report
    }

    static func check(_ report: PrepareReport, input: String, bytes: [UInt8]) {
        precondition(FileManager.default.contents(atPath: input) == Data(bytes), "prepare changed its input")
        let left = contents(of: root + "/out")
        precondition(!left.contains { $0.hasSuffix(".tmp") }, "temporary files left: \(left)")
        if let output = report.output {
            precondition(report.error == nil, "an output and an error: \(report.error!)")
            precondition(left == [PathResolver.fileName(output)], "the output folder holds \(left), the report names \(output)")
        } else {
            precondition(report.error != nil, "no output and no error")
            precondition(left.isEmpty, "a failed prepare left \(left)")
        }
    }

    /// Every name in `folder`, hidden ones included.
    static func contents(of folder: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted()
    }
}
