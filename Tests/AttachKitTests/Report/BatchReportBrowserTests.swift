import Foundation
import Testing
@testable import AttachKit

/// The batch report in a real browser: headless Chromium loads the report `attachkit batch
/// --report` writes over a few TestMedia files, runs its script, draws it, and is watched for
/// network requests.
@Suite("Batch report in Chromium", .serialized, .needsChromium)
struct BatchReportBrowserTests {
    /// A batch run by the CLI (worker processes, as users run it) with `--report`.
    static let made = Result { () throws -> (batch: ReportFixture.Batch, report: String) in
        let input = try ReportFixture.makeInput("browser")
        let out = input.deletingLastPathComponent().appendingPathComponent("out")
        let report = input.deletingLastPathComponent().appendingPathComponent("report.html").path
        let result = try TestEnvironment.runAttachKit(["batch", input.path, "--out", out.path, "--max-bytes", "300KB", "--jobs", "2",
                                                       "--report", report])
        // One input is refused by design (exit 1); the report is written either way.
        guard result.status == 1, result.stderr.contains("report: \(report)") else {
            throw ReportTestError("batch --report: status \(result.status)\n\(result.stderr)")
        }
        return (ReportFixture.Batch(input: input, out: out), report)
    }

    /// Runs Chromium headless on `file` (a profile of its own, no background networking, every
    /// host name unresolvable), with `arguments` added.
    static func chromium(_ file: String, _ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
        let profile = TestEnvironment.temporaryFolder("chromium-profile")
        defer { try? FileManager.default.removeItem(at: profile) }
        return try TestEnvironment.run("timeout", ["120", "chromium", "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                                                   "--user-data-dir=\(profile.path)", "--no-first-run", "--disable-background-networking",
                                                   "--disable-component-update", "--disable-sync", "--disable-default-apps",
                                                   "--host-resolver-rules=MAP * ~NOTFOUND"] + arguments + [URL(fileURLWithPath: file).absoluteString])
    }

    /// The DOM after the page's script ran.
    static func dom(_ file: String) throws -> String {
        let result = try chromium(file, ["--virtual-time-budget=5000", "--dump-dom"])
        try #require(result.status == 0, "\(result.stderr)")
        return result.stdout
    }

    /// What the page loaded over the network: the URLs of requests a page made (Chromium's own
    /// background requests have no page as initiator), from a net log.
    static func pageRequests(_ file: String) throws -> [String] {
        let log = TestEnvironment.temporaryFolder("netlog").appendingPathComponent("net.json")
        let result = try chromium(file, ["--log-net-log=\(log.path)", "--dump-dom"])
        try #require(result.status == 0, "\(result.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: log)) as? [String: Any])
        let events = try #require(json["events"] as? [[String: Any]])
        return events.compactMap { event in
            guard let params = event["params"] as? [String: Any], let url = params["url"] as? String,
                  let initiator = params["initiator"] as? String, initiator != "not an origin" else { return nil }
            return url
        }
    }

    @Test("Chromium shows every input with its pictures, sizes and reasons, and the summary's numbers; the screenshot is not blank")
    func shows() throws {
        let (batch, report) = try Self.made.get()
        let lines = try ReportFixture.lines(batch)
        let dom = try Self.dom(report)
        let rows = try #require(dom.range(of: "<tbody id=\"rows\">").flatMap { start in
            dom.range(of: "</tbody>", range: start.upperBound..<dom.endIndex).map { String(dom[start.upperBound..<$0.lowerBound]) }
        })
        #expect(rows.components(separatedBy: "<tr data-outcome=").count - 1 == lines.count, "the script drew every row")
        let prepared = lines.filter { $0["ok"] == .bool(true) }.count
        #expect(dom.contains("id=\"inputs\" data-value=\"\(lines.count)\">\(lines.count)<"))
        #expect(dom.contains("id=\"prepared\" data-value=\"\(prepared)\">\(prepared)<"))
        #expect(dom.contains("id=\"refused\" data-value=\"\(lines.count - prepared)\">\(lines.count - prepared)<"))
        for line in lines {
            let path = try #require(line["path"]?.stringValue)
            #expect(rows.contains(HTMLText.escaped(path).replacingOccurrences(of: "&#39;", with: "'").replacingOccurrences(of: "&quot;", with: "\"")),
                    "\(path) is shown")
        }
        #expect(rows.contains("jpeg 4032×3024 · 714 KB") && rows.contains("jpeg 2048×1536"), "sizes before and after")
        #expect(rows.contains("<div class=\"code\">corrupt</div>"), "the refusal's code")
        #expect(rows.components(separatedBy: "class=\"thumb before\"").count - 1 >= 3)
        #expect(rows.components(separatedBy: "class=\"thumb after\"").count - 1 >= 3)
        #expect(rows.components(separatedBy: "class=\"mock-picture\"").count - 1 >= 3, "the notification mocks")
        #expect(!rows.contains("class=\"mock-picture\" alt=\"\" style=\"") || rows.contains("src=\"data:image/jpeg;base64,"), "mocks got their picture")

        let shot = URL(fileURLWithPath: report).deletingLastPathComponent().appendingPathComponent("report.png").path
        let result = try Self.chromium(report, ["--screenshot=\(shot)", "--window-size=1200,2000"])
        try #require(result.status == 0, "\(result.stderr)")
        let deviation = try TestEnvironment.run("vips", ["deviate", shot])
        let mean = try TestEnvironment.run("vips", ["avg", shot])
        let spread = try #require(Double(deviation.stdout.trimmingCharacters(in: .whitespacesAndNewlines)))
        let level = try #require(Double(mean.stdout.trimmingCharacters(in: .whitespacesAndNewlines)))
        #expect(spread > 20, "a blank page has no spread (\(spread))")
        #expect(level > 100 && level < 254, "mostly light, not all white (\(level))")
    }

    @Test("a hostile file name is shown as text and runs nothing")
    func hostileName() throws {
        let (_, report) = try Self.made.get()
        let dom = try Self.dom(report)
        let body = try #require(dom.range(of: "<body").map { String(dom[$0.lowerBound...].prefix { $0 != ">" }) })
        #expect(!body.contains("pwned"), "the name's handler or script ran: \(body)")
        #expect(dom.contains("&gt;&lt;img src=x onerror=document.body.dataset.pwned=1&gt;&lt;script&gt;document.body.dataset.pwned=2&lt;!--.jpg"))
        #expect(dom.components(separatedBy: "<script>").count == 2, "the page's own script alone")
    }

    @Test("the page makes no network request (and the net log would show one: a control page's are seen)")
    func noNetwork() throws {
        let (_, report) = try Self.made.get()
        let html = try String(contentsOfFile: report, encoding: .utf8)
        #expect(html.contains("<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none';"))
        #expect(html.range(of: #"(src|href|srcset|action|poster)\s*=\s*"?(https?:)?//"#, options: .regularExpression) == nil)
        #expect(try Self.pageRequests(report).filter { !$0.hasPrefix("data:") && !$0.hasPrefix("file:") } == [])

        let control = TestEnvironment.temporaryFolder("control").appendingPathComponent("control.html")
        try #"<html><body><img src="http://example.invalid/x.png"><script>fetch("https://example.invalid/y")</script></body></html>"#
            .write(to: control, atomically: true, encoding: .utf8)
        let seen = try Self.pageRequests(control.path)
        #expect(seen.contains("http://example.invalid/x.png"), "the method sees a page's request: \(seen)")
    }
}

struct ReportTestError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
