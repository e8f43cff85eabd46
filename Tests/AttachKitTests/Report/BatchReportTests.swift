import Foundation
import Testing
@testable import AttachKit

/// The batch report as a file: what it shows, what it embeds, what it may replace, how it scales.
@Suite("Batch report")
struct BatchReportTests {
    static func write(_ batch: ReportFixture.Batch, to name: String) throws -> String {
        let path = batch.folder.appendingPathComponent(name).path
        _ = try BatchReport(outputRoot: batch.out.path, path: path).write()
        return try String(contentsOfFile: path, encoding: .utf8)
    }

    @Test("every input is shown with its sizes, actions and notes, each refusal with its code, message and fix; the summary's numbers are the manifest's")
    func showsEveryInput() throws {
        let batch = try ReportFixture.batch()
        let html = try Self.write(batch, to: "every.html")
        let lines = try ReportFixture.lines(batch)
        #expect(lines.count == ReportFixture.files.count)
        #expect(html.components(separatedBy: "<tr data-outcome=").count - 1 == lines.count)
        let prepared = lines.filter { $0["ok"] == .bool(true) }
        #expect(ReportFixture.summaryValue("inputs", in: html) == "\(lines.count)")
        #expect(ReportFixture.summaryValue("prepared", in: html) == "\(prepared.count)")
        #expect(ReportFixture.summaryValue("refused", in: html) == "\(lines.count - prepared.count)")
        let before = lines.compactMap { $0["before"]?["bytes"]?.intValue }.reduce(0, +)
        let after = prepared.compactMap { $0["after"]?["bytes"]?.intValue }.reduce(0, +)
        #expect(ReportFixture.summaryValue("bytes-before", in: html) == "\(before)")
        #expect(ReportFixture.summaryValue("bytes-after", in: html) == "\(after)")
        #expect(html.contains("<code>--max-bytes 300000</code>"), "the options used")
        #expect(html.contains("<code>ios</code>"), "the profile used")
        for line in lines {
            let path = try #require(line["path"]?.stringValue)
            #expect(html.contains("data-name=\"\(HTMLText.escaped(path))\""), "\(path)")
            for note in line["notes"]?.arrayValue?.compactMap(\.stringValue) ?? [] { #expect(html.contains(HTMLText.escaped(note)), "\(note)") }
        }
        #expect(html.contains("downscaled 4032×3024 → 2048×1536"))
        #expect(html.contains("webm vp9+opus 320×240 2.01 s"), "type and size before")
        let broken = try #require(lines.first { $0["path"] == .string("broken.jpg") })
        #expect(broken["ok"] == .bool(false))
        #expect(html.contains("<div class=\"code\">corrupt</div>"))
        #expect(html.contains(HTMLText.escaped(broken["error"]?["message"]?.stringValue ?? "?")))
        #expect(html.contains(HTMLText.escaped(ErrorCode.corrupt.fix)))
    }

    @Test("pictures are small inline JPEGs (160 px at most), never a full-size original; the page names no network resource")
    func smallPictures() throws {
        let batch = try ReportFixture.batch()
        let html = try Self.write(batch, to: "pictures.html")
        let pictures = ReportFixture.pictures(in: html)
        // The photo and the clip each before and after, and the hostile-named photo's.
        #expect(pictures.count >= 6, "\(pictures.count) pictures")
        for picture in pictures {
            let size = try #require(ReportFixture.jpegSize(picture))
            #expect(max(size.width, size.height) <= 160, "\(size)")
            #expect(picture.count < 40_000)
        }
        #expect(html.utf8.count < 300_000, "the 714 KB photo is not in the \(html.utf8.count)-byte page")
        #expect(html.contains("<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; img-src data:;"))
        for attribute in ["src", "href", "action", "srcset", "poster"] {
            #expect(!html.contains("\(attribute)=\"http"), "\(attribute)")
        }
        #expect(!html.contains("url("), "no CSS loads")
        #expect(html.contains("class=\"mark sound\""), "the WAV has no picture: an audio mark")
        #expect(html.contains("refused: not decoded for the report"), "the refused input is not decoded")
    }

    @Test("a file name holding HTML is shown as text, never as markup")
    func hostileName() throws {
        let html = try Self.write(try ReportFixture.batch(), to: "hostile.html")
        #expect(!html.contains("<img src=x"))
        #expect(!html.contains("<script>document"))
        #expect(!html.contains("\"><img src"))
        #expect(html.contains("&quot;&gt;&lt;img src=x onerror=document.body.dataset.pwned=1&gt;&lt;script&gt;document.body.dataset.pwned=2&lt;!--.jpg"))
        #expect(html.components(separatedBy: "<script>").count == 2, "the page's own script alone")
    }

    @Test("the report replaces only a report it wrote: a user's file, a link, a folder and the input folder are refused, untouched")
    func replacesOnlyItsOwn() throws {
        let batch = try ReportFixture.batch()
        let folder = TestEnvironment.temporaryFolder("replace")
        defer { try? FileManager.default.removeItem(at: folder) }
        let report = folder.appendingPathComponent("report.html").path
        _ = try BatchReport(outputRoot: batch.out.path, path: report).write()
        let first = try Data(contentsOf: URL(fileURLWithPath: report))
        #expect(first.starts(with: Array(ReportFile.marker.utf8)))
        _ = try BatchReport(outputRoot: batch.out.path, path: report).write()
        #expect(try !Data(contentsOf: URL(fileURLWithPath: report)).isEmpty, "its own report is replaced")

        let mine = folder.appendingPathComponent("mine.html").path
        try Data("<!DOCTYPE html><p>my page</p>".utf8).write(to: URL(fileURLWithPath: mine))
        #expect(throws: BatchReportError.self) { _ = try BatchReport(outputRoot: batch.out.path, path: mine).write() }
        #expect(try String(contentsOfFile: mine, encoding: .utf8) == "<!DOCTYPE html><p>my page</p>")

        let link = folder.appendingPathComponent("link.html").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: report)
        do {
            _ = try BatchReport(outputRoot: batch.out.path, path: link).write()
            Issue.record("a link was written through")
        } catch {
            #expect(error.code == .outputCollision, "\(error)")
        }
        #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: link)) != nil, "the link is left as it was")

        #expect(throws: BatchReportError.self) { _ = try BatchReport(outputRoot: batch.out.path, path: folder.path).write() }
        do {
            _ = try BatchReport(outputRoot: batch.out.path, path: batch.input.appendingPathComponent("report.html").path).write()
            Issue.record("a report was written into the input folder")
        } catch {
            #expect(error.code == .outputCollision, "\(error)")
        }
        do {
            _ = try BatchReport(outputRoot: batch.input.path, path: folder.appendingPathComponent("none.html").path).write()
            Issue.record("a folder without a manifest gave a report")
        } catch {
            #expect(error.code == .notFound, "\(error)")
        }
        #expect(AtomicOutput.removeStaleTemporaries(in: folder.path, stems: ["report.html", "mine.html", "link.html"]) == 0)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".tmp") }.isEmpty)
    }

    @Test("a hostile manifest (numbers past Int64, damaged lines) never crashes the report; the lines left out are counted and said")
    func hostileManifest() throws {
        let out = TestEnvironment.temporaryFolder("report-hostile")
        let lines = [
            #"{"path":"a.jpg","inputHash":"x","ok":true,"before":{"bytes":1e19,"kind":"image","duration":1e300},"after":{"bytes":1e19,"kind":"video"},"#
                + #""options":{"UNNotificationAttachmentOptionsThumbnailTimeKey":1e30},"elapsedMs":1e308}"#,
            #"{"path":"b.jpg","inputHash":"y","ok":true,"before":{"bytes":9.3e18},"after":{"bytes":9.3e18}}"#,
            "null", "[]", "42", #""text""#, "{}", #"{"path":"c.jpg","inputHash":"#,
        ]
        try (lines.joined(separator: "\n") + "\n").write(to: out.appendingPathComponent("manifest.jsonl"), atomically: true, encoding: .utf8)
        let run = try TestEnvironment.runAttachKit(["report", out.path])
        #expect(run.status == 0, "\(run.status): \(run.stdout)\(run.stderr)")
        #expect(run.stderr.contains("6 manifest line(s) are not a batch's lines"), "\(run.stderr)")
        let html = try String(contentsOf: out.appendingPathComponent("report.html"), encoding: .utf8)
        #expect(html.contains("Incomplete: 6 line(s)"), "the page says it is incomplete")
    }

    @Test("batch --report naming a file the batch writes itself (its manifest, an output's name) is refused before any input is prepared")
    func reportOnTheBatchsOwnNames() throws {
        let input = try ReportFixture.makeInput("own-names", files: [("images/gif_static_320x240.gif", "a.gif")])
        for name in ["manifest.jsonl", "a.gif", "b.jpg"] {
            let out = TestEnvironment.temporaryFolder("report-own-out")
            let run = try TestEnvironment.runAttachKit(["batch", input.path, "--out", out.path, "--report", out.appendingPathComponent(name).path])
            #expect(run.status == 1, "\(name): \(run.stdout)\(run.stderr)")
            #expect(run.stderr.contains("output-collision"), "\(name): \(run.stderr)")
            let written = (try? FileManager.default.contentsOfDirectory(atPath: out.path)) ?? []
            #expect(!written.contains { $0.hasSuffix(".gif") || $0 == "manifest.jsonl" }, "\(name): nothing prepared: \(written)")
        }
    }

    @Test("the shards' manifests are merged: every input once, both manifests named")
    func shardsMerged() throws {
        let input = try ReportFixture.makeInput("shards", files: [("images/gif_static_320x240.gif", "a.gif"), ("images/png_palette_400x300.png", "b.png"),
                                                                  ("images/webp_alpha_320x240.webp", "c.webp"), ("malformed/zero_bytes.jpg", "d.jpg")])
        _ = try ReportFixture.run(input, shard: Shard(index: 0, count: 2))
        let batch = try ReportFixture.run(input, shard: Shard(index: 1, count: 2))
        let html = try Self.write(batch, to: "shards.html")
        #expect(ReportFixture.summaryValue("inputs", in: html) == "4")
        for name in ["a.gif", "b.png", "c.webp", "d.jpg"] {
            #expect(html.components(separatedBy: "data-name=\"\(name)\"").count == 2, "\(name) once")
        }
        #expect(html.contains("manifest-shard-0-of-2.jsonl") && html.contains("manifest-shard-1-of-2.jsonl"))
    }

    @Test("10,000 inputs: rows in inert pages of 100, pictures stop at the budget and the later rows say so, written in seconds")
    func large() throws {
        let batch = try ReportFixture.batch()
        let folder = TestEnvironment.temporaryFolder("large")
        defer { try? FileManager.default.removeItem(at: folder) }
        let out = folder.appendingPathComponent("out")
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        // Every line names the one real output (copied in), so pictures cost what they would.
        let lines = try ReportFixture.lines(batch)
        let photo = try #require(lines.first { $0["path"] == .string("photo_4032x3024.jpg") })
        let output = try #require(photo["outputPath"]?.stringValue)
        try FileManager.default.copyItem(at: batch.out.appendingPathComponent(output), to: out.appendingPathComponent(output))
        var text = ""
        for index in 0..<10_000 {
            guard case .object(var fields) = photo else { break }
            fields = fields.map { $0.0 == "path" ? ("path", .string("n\(index)/photo.jpg")) : $0 }
            text += JSONValue.object(fields).serialized + "\n"
        }
        try text.write(to: out.appendingPathComponent("manifest.jsonl"), atomically: true, encoding: .utf8)
        let path = folder.appendingPathComponent("large.html").path
        let start = ContinuousClock.now
        let written = try BatchReport(outputRoot: out.path, path: path, jobs: 2, pictureBudget: 200_000).write()
        let seconds = (ContinuousClock.now - start).seconds
        let html = try String(contentsOfFile: path, encoding: .utf8)
        #expect(written.inputs == 10_000)
        #expect(html.components(separatedBy: "<template class=\"page\">").count - 1 == 100)
        #expect(html.components(separatedBy: "<tr data-outcome=").count - 1 == 10_000)
        #expect(written.pictured > 0 && written.pictured < 10_000 && written.pictured % ReportPage.rowsPerPage == 0, "\(written.pictured)")
        #expect(html.contains("not drawn: the report&#39;s pictures reached their size budget"))
        #expect(html.contains("Pictures are shown for the first \(written.pictured) of 10000 inputs"))
        #expect(html.utf8.count < 40_000_000, "\(html.utf8.count) bytes")
        #expect(seconds < 120, "\(seconds) s")
    }
}
