import Foundation
import Testing
@testable import AttachKit

/// The batch progress bar: the view as a pure function of events and time (the files in
/// progress, their encodes' share, an ETA that moves during a long file, the terminal's width,
/// names escaped), and the whole path end to end: a worker's progress lines, the pool that reads
/// them, the batch events, and `attachkit batch` on a terminal.
@Suite("batch progress")
struct BatchProgressTests {
    static func item(_ path: String, ok: Bool = true, skipped: Bool = false, bytes: Int64 = 0) -> BatchItem {
        BatchItem(relativePath: path, skipped: skipped, outcome: nil, ok: ok, inputBytes: bytes, outputBytes: bytes / 2, elapsedMilliseconds: 5)
    }

    @Test("the bar, then a line per file in progress with its share and time; the ETA counts the share done and never freezes")
    func view() {
        var view = BatchProgressView()
        view.apply(.planned(total: 4, skipped: 1, bytes: 9999, isolation: "in-process"), at: 0)
        view.apply(.finished(Self.item("done-earlier.jpg", skipped: true)), at: 0)
        view.apply(.queued(files: 3, bytes: 3000), at: 0)
        view.apply(.started(relativePath: "a.jpg", bytes: 1000), at: 0)
        view.apply(.started(relativePath: "movies/b.mov", bytes: 2000), at: 0)
        #expect(view.lines(elapsed: 1, width: 120)[0].contains("ETA ?"), "nothing measured yet")

        view.apply(.progress(relativePath: "movies/b.mov", fraction: 0.5), at: 10)
        let at10 = view.lines(elapsed: 10, width: 120)
        #expect(at10 == ["[#########...............] 1/4 files  ETA 20 s  0 failed  0 B → 0 B  0.1 files/s",
                         "  a.jpg  10 s",
                         "  movies/b.mov  50%  10 s"], "\(at10)")
        // Ten seconds later with no event: the time moves and so does the ETA (half the bytes
        // done took 20 s: 40 s left), rather than staying at what it said.
        let at20 = view.lines(elapsed: 20, width: 120)
        #expect(at20[0].contains("ETA 40 s") && at20[1] == "  a.jpg  20 s", "\(at20)")
        // The encode moves on: 1,800 of 3,000 bytes in 20 s, so 13 s left.
        view.apply(.progress(relativePath: "movies/b.mov", fraction: 0.9), at: 20)
        #expect(view.lines(elapsed: 20, width: 120)[0].contains("ETA 13 s"))
        // A file finishes: its line goes, its bytes count whole (2,800 of 3,000 in 25 s: 2 s left).
        view.apply(.finished(Self.item("a.jpg", ok: false, bytes: 1000)), at: 25)
        let after = view.lines(elapsed: 25, width: 120)
        #expect(after.count == 2 && after[1] == "  movies/b.mov  90%  25 s", "\(after)")
        #expect(after[0].hasPrefix("[#################.......] 2/4 files  ETA 2 s  1 failed  1 KB → 500 B"), "\(after[0])")
        // Progress out of range is clamped; an unknown file's progress is ignored.
        view.apply(.progress(relativePath: "movies/b.mov", fraction: 7), at: 26)
        view.apply(.progress(relativePath: "nobody.mov", fraction: 0.5), at: 26)
        #expect(view.running.map(\.fraction) == [1])
        #expect(BatchProgressView.duration(65) == "1:05" && BatchProgressView.duration(3725) == "1:02:05")
    }

    @Test("every line fits the terminal's width; a long name keeps its end; control characters and wide characters are safe")
    func width() {
        var view = BatchProgressView()
        view.apply(.planned(total: 3, skipped: 0, bytes: 0, isolation: "in-process"), at: 0)
        let evil = "folder/\u{1B}[2J\u{1B}]0;owned\u{07}" + String(repeating: "very-long-name-", count: 12) + "\u{202E}gpj.exe"
        let wide = String(repeating: "写真", count: 30) + ".jpg"
        view.apply(.started(relativePath: evil, bytes: 100), at: 0)
        view.apply(.started(relativePath: wide, bytes: 100), at: 0)
        view.apply(.progress(relativePath: evil, fraction: 0.42), at: 1)
        for width in [20, 40, 80, 200] {
            let lines = view.lines(elapsed: 3, width: width)
            #expect(lines.count == 3)
            for line in lines {
                #expect(TerminalText.columns(line) <= max(20, width - 1), "\(width): \(line)")
                #expect(!line.unicodeScalars.contains { $0.properties.generalCategory == .control || $0.properties.generalCategory == .format },
                        "\(line.debugDescription)")
            }
            if width >= 40 {
                #expect(lines[1].hasPrefix("  …") && lines[1].hasSuffix("gpj.exe  42%  3 s"), "\(lines[1])")
                #expect(lines[2].hasSuffix("写真.jpg  3 s"), "\(lines[2])")
            }
        }
        #expect(view.lines(elapsed: 3, width: 200)[1].contains("\\u{202E}gpj.exe"))
        #expect(TerminalText.columns("写真.jpg") == 8)
    }

    @Test("at most eight file lines, then how many more")
    func manyFiles() {
        var view = BatchProgressView()
        view.apply(.planned(total: 12, skipped: 0, bytes: 0, isolation: "in-process"), at: 0)
        for index in 0..<11 { view.apply(.started(relativePath: "f\(index).mov", bytes: 1), at: 0) }
        let lines = view.lines(elapsed: 1, width: 80)
        #expect(lines.count == 10 && lines.last == "  … and 3 more", "\(lines)")
    }

    /// A 6 s 640×360 clip squeezed to 150 KB: a real transcode.
    static let clip = TestEnvironment.fixture("video/mp4_h264_aac_640x360_6s_gop1s.mp4")

    static func workerRequest(out: String, progress: Bool?) -> String {
        let flag = progress.map { #","progress":\#($0)"# } ?? ""
        return #"{"id":"x","op":"prepare","path":"\#(clip)","options":{"out":"\#(out)","maxBytes":"150KB","maxEdge":480\#(flag)}}"#
    }

    @Test("a worker asked for progress writes {\"progress\": F, \"id\"} lines before its answer; unasked, none; a client cannot ask")
    func workerLines() throws {
        let out = TestEnvironment.temporaryFolder("workerprogress").path
        let arguments = ["worker", "--read-only", TestEnvironment.testMedia.path, "--allow", out]
        let asked = try TestEnvironment.runAttachKit(arguments, stdin: Data((Self.workerRequest(out: out, progress: true) + "\n").utf8))
        let lines = asked.stdout.split(separator: "\n").map(String.init)
        try #require(lines.count >= 3, "\(asked.stdout) \(asked.stderr)")
        #expect(lines[0].hasPrefix(#"{"worker":"ready""#))
        let progress = lines.dropFirst().dropLast()
        #expect(!progress.isEmpty)
        for line in progress {
            #expect(line.hasPrefix(#"{"progress":"#), "\(line)")
            let json = try JSONValue.parse(line)
            #expect(json["id"]?.stringValue == "x")
            let fraction = try #require(json["progress"]?.doubleValue)
            #expect((0...1).contains(fraction))
        }
        let answer = try JSONValue.parse(try #require(lines.last))
        #expect(answer["id"]?.stringValue == "x" && answer["ok"] == .bool(true), "\(lines.last ?? "")")
        #expect(answer["result"]?["action"]?.stringValue == "transcoded" || answer["result"]?["actions"] != nil)

        for unasked in [nil, false] as [Bool?] {
            let quiet = try TestEnvironment.runAttachKit(arguments, stdin: Data((Self.workerRequest(out: out, progress: unasked) + "\n").utf8))
            let quietLines = quiet.stdout.split(separator: "\n")
            #expect(quietLines.count == 2 && !quiet.stdout.contains(#""progress""#), "\(quiet.stdout.prefix(300))")
        }

        // serve's clients never get progress lines: the key is a parent's only.
        let served = try TestEnvironment.runAttachKit(["serve", "--allow", TestEnvironment.testMedia.path, "--allow", out],
                                                     stdin: Data((Self.workerRequest(out: out, progress: true) + "\n").utf8))
        let answers = served.stdout.split(separator: "\n").map(String.init)
        #expect(answers.count == 1, "\(served.stdout)")
        let refused = try JSONValue.parse(try #require(answers.first))
        #expect(refused["error"]?["code"]?.stringValue == "bad-options", "\(served.stdout)")
    }

    @Test("the pool hands progress lines to the caller and returns the answer; the batch turns them into events, with workers and in-process",
          arguments: [false, true])
    func batchEvents(workers: Bool) throws {
        let root = TestEnvironment.temporaryFolder("batchprogress")
        let input = root.appendingPathComponent("in")
        try FileManager.default.createDirectory(at: input, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Self.clip, toPath: input.appendingPathComponent("clip.mp4").path)
        try FileManager.default.copyItem(atPath: TestEnvironment.fixture("images/gif_static_320x240.gif"),
                                         toPath: input.appendingPathComponent("still.gif").path)
        var prepare = PrepareOptions(outputFolder: root.appendingPathComponent("out").path)
        prepare.maxBytes = 150_000
        prepare.maxEdge = 480
        for fileProgress in [true, false] {
            var options = BatchOptions(inputRoot: input.path, outputRoot: root.appendingPathComponent("out-\(fileProgress)").path,
                                       prepare: prepare, jobs: 2, isolation: workers ? .workers(WorkerLimits()) : .inProcess)
            options.fileProgress = fileProgress
            let events = Locked<[String]>([])
            let summary = try BatchRunner(options: options).run { event in
                switch event {
                case .planned: events.withLock { $0.append("planned") }
                case .queued(let files, let bytes): events.withLock { $0.append("queued \(files) \(bytes > 0)") }
                case .started(let path, let bytes): events.withLock { $0.append("started \(path) \(bytes > 0)") }
                case .progress(let path, let fraction): events.withLock { $0.append("progress \(path) \((0...1).contains(fraction))") }
                case .finished(let item): events.withLock { $0.append("finished \(item.relativePath)") }
                }
            }
            #expect(summary.prepared == 2, "\(summary)")
            let seen = events.withLock { $0 }
            if fileProgress {
                #expect(seen.first == "planned" && seen.dropFirst().first == "queued 2 true", "\(seen)")
                #expect(seen.contains("started clip.mp4 true") && seen.contains("started still.gif true"), "\(seen)")
                #expect(seen.contains("progress clip.mp4 true") && !seen.contains { $0.hasPrefix("progress still.gif") }, "\(seen)")
                #expect(seen.allSatisfy { !$0.hasPrefix("progress") || $0.hasSuffix("true") }, "\(seen)")
                // Every file's events come between its start and its end.
                let start = try #require(seen.firstIndex(of: "started clip.mp4 true")), end = try #require(seen.firstIndex(of: "finished clip.mp4"))
                #expect(seen.indices.filter { seen[$0].hasPrefix("progress clip.mp4") }.allSatisfy { $0 > start && $0 < end })
            } else {
                #expect(Set(seen) == ["planned", "finished clip.mp4", "finished still.gif"], "\(seen)")
            }
        }
    }

    @Test("attachkit batch on a terminal shows the files in progress and a transcode's share; off a terminal, one plain line per file as before",
          .enabled(if: TestEnvironment.hasTool("script"), "needs script(1) for a terminal"))
    func onTerminal() throws {
        let root = TestEnvironment.temporaryFolder("batchtty")
        let input = root.appendingPathComponent("in")
        try FileManager.default.createDirectory(at: input, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Self.clip, toPath: input.appendingPathComponent("clip.mp4").path)
        try FileManager.default.copyItem(atPath: TestEnvironment.fixture("video/webm_vp9_opus_320x240_2s.webm"),
                                         toPath: input.appendingPathComponent("evil\u{1B}[2Jname.webm").path)
        let arguments = ["batch", input.path, "--out", root.appendingPathComponent("tty").path, "--max-bytes", "150KB", "--max-edge", "480"]
        let command = ([TestEnvironment.attachkit] + arguments).map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }.joined(separator: " ")
        let tty = try TestEnvironment.run("script", ["-qec", command, "/dev/null"])
        #expect(tty.status == 0, "\(tty.stdout.suffix(500))")
        #expect(tty.stdout.contains("\u{1B}[2K  clip.mp4  "), "\(tty.stdout.debugDescription.prefix(2000))")
        #expect(tty.stdout.range(of: #"clip\.mp4  \d{1,3}%  "#, options: .regularExpression) != nil, "\(tty.stdout.debugDescription.prefix(2000))")
        #expect(tty.stdout.contains("evil\\u{1B}[2Jname.webm"), "the name is escaped")
        #expect(!tty.stdout.contains("evil\u{1B}"), "the raw escape never reaches the terminal")
        #expect(tty.stdout.contains("2/2 files  ETA"))

        let plain = try TestEnvironment.runAttachKit(["batch", input.path, "--out", root.appendingPathComponent("plain").path, "--max-bytes", "150KB",
                                                      "--max-edge", "480"])
        #expect(plain.status == 0, "\(plain.stderr)")
        #expect(!plain.stderr.contains("\u{1B}"), "\(plain.stderr)")
        let lines = plain.stderr.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("batch: 2 file(s), 0 already done; work runs in ") == true, "\(lines)")
        #expect(lines.filter { $0.hasPrefix("[1/2] ok ") || $0.hasPrefix("[2/2] ok ") }.count == 2, "\(lines)")
        #expect(!lines.contains { $0.contains("%") }, "\(lines)")
    }
}
