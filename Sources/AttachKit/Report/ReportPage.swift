/// The batch report's markup, piece by piece: the head, the summary, the table's start, one row
/// per input (inside `<template class="page">` chunks, which ``ReportAssets/script`` pages
/// through), and the end. Every value from outside goes through ``HTMLText/escaped(_:)``.
enum ReportPage {
    /// Rows per `<template>` chunk, and per page shown.
    static let rowsPerPage = 100

    private static func e(_ text: String) -> String { HTMLText.escaped(text) }

    static func head(title: String) -> String {
        """
        \(ReportFile.marker): made by attachkit \(e(BuildInfo.version)) (`attachkit report`, `attachkit batch --report`), which replace it; nothing else here is replaced. -->
        <html lang="en"><head><meta charset="utf-8">
        <meta http-equiv="Content-Security-Policy" content="\(ReportAssets.contentSecurityPolicy)">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <meta name="referrer" content="no-referrer">
        <title>\(e(title))</title>
        <style>
        \(ReportAssets.style)
        </style></head>
        <body>

        """
    }

    private static func card(_ id: String, _ label: String, _ value: String, data: String, tone: String = "") -> String {
        "<div class=\"card \(tone)\"><span class=\"n\" id=\"\(id)\" data-value=\"\(data)\">\(value)</span><span class=\"l\">\(label)</span></div>"
    }

    private static func counts(_ list: [(name: String, count: Int)]) -> String {
        list.isEmpty ? "none" : list.map { "\(e($0.name)) \($0.count)" }.joined(separator: ", ")
    }

    static func summary(_ s: ReportSummary, source: ReportSource, inputRoot: String?) -> String {
        let settings = source.settings
        let saving = s.bytesBeforePrepared > 0 ? " (the prepared inputs were \(ByteCount.text(s.bytesBeforePrepared)))" : ""
        let time = s.runSeconds.map { ReportSummary.duration($0) } ?? ReportSummary.duration(s.workSeconds)
        let timeLabel = s.runSeconds == nil ? "time taken (summed over inputs)" : "time taken (this run)"
        var facts: [(String, String)] = []
        if settings.isEmpty {
            facts.append(("Profile and options", "not recorded (the manifest predates lines that record them)"))
        }
        for (index, set) in settings.enumerated() {
            let which = settings.count > 1 ? " (\(index + 1) of \(settings.count))" : ""
            facts.append(("Profile" + which, "<code>\(e(set.profile))</code>"))
            facts.append(("Options" + which, set.flags.isEmpty ? "every option at its default" : "<code>\(e(set.flags))</code>"))
        }
        facts += [
            ("Actions", counts(s.actions)),
            ("Refusals", counts(s.refusals)),
            ("Bytes", "\(ByteCount.text(s.bytesBefore)) before → \(ByteCount.text(s.bytesAfter)) after\(saving)"),
            ("Time", "\(ReportSummary.duration(s.workSeconds)) of preparation summed over inputs"
                + (s.runSeconds.map { "; this run took \(ReportSummary.duration($0)) from start to end" } ?? "")),
            ("Input folder", inputRoot.map { e($0) } ?? "unknown"),
            ("Output folder", e(source.outputRoot)),
            ("Manifests", source.manifests.map { "<code>\(e($0))</code>" }.joined(separator: " ")),
            ("Made", "\(ReportSummary.now()) by attachkit \(e(BuildInfo.version))"),
        ]
        return """
            <h1>Batch report</h1>
            <p class="sub">\(e(source.outputRoot))</p>
            <section id="summary"><div class="cards">
            \(card("inputs", "inputs", "\(s.inputs)", data: "\(s.inputs)"))
            \(card("prepared", "prepared", "\(s.prepared)", data: "\(s.prepared)", tone: "ok"))
            \(card("refused", "refused", "\(s.refused)", data: "\(s.refused)", tone: s.refused > 0 ? "bad" : ""))
            \(card("bytes-before", "bytes before", ByteCount.text(s.bytesBefore), data: "\(s.bytesBefore)"))
            \(card("bytes-after", "bytes after", ByteCount.text(s.bytesAfter), data: "\(s.bytesAfter)"))
            \(card("time", timeLabel, time, data: "\(((s.runSeconds ?? s.workSeconds) * 1000).rounded() / 1000)"))
            </div>
            <dl class="facts">
            \(facts.map { "<dt>\($0.0)</dt><dd>\($0.1)</dd>" }.joined(separator: "\n"))
            </dl></section>

            """
    }

    static func tableStart(_ s: ReportSummary) -> String {
        """
        <h2>Inputs</h2>
        <p class="meta">Before: the input; after: the attachment (posters for video, cover art or ♪ for sound). The last column is an
        <b>approximation</b> of an iOS notification banner, not a rendering by iOS: the attachment's thumbnail at the time or frame
        and clipping rect its options give (ThumbnailTimeKey, ThumbnailClippingRectKey), aspect-filled into the banner's square;
        the app's name, icon, fonts and sizes are stand-ins.</p>
        <div class="controls" id="controls" hidden>
        <button type="button" data-filter="all" aria-pressed="true">All \(s.inputs)</button>
        <button type="button" data-filter="prepared" aria-pressed="false">Prepared \(s.prepared)</button>
        <button type="button" data-filter="refused" aria-pressed="false">Refused \(s.refused)</button>
        <label>Order <select id="order"><option value="name">by name</option><option value="outcome">refused first</option>
        <option value="before">largest before</option><option value="after">largest after</option><option value="saving">most saved</option></select></label>
        <span class="pager"><button type="button" id="previous">‹ previous</button><span id="page"></span><button type="button" id="next">next ›</button></span>
        </div>
        <noscript><p>The table of inputs is shown by the page's own inline script, which this browser does not run; the summary above is complete without it.</p></noscript>
        <table><thead><tr><th>Outcome</th><th>Input</th><th>Before</th><th>After</th><th>Attachment</th><th>What was done, or why it was refused</th><th>In a notification (approximation)</th></tr></thead>
        <tbody id="rows"></tbody></table>

        """
    }

    static func pageStart() -> String { "<template class=\"page\">\n" }
    static let pageEnd = "</template>\n"

    /// One input's row.
    static func row(_ entry: ReportEntry, before: ReportPictures.Side, after: ReportPictures.Side) -> String {
        let outcome = entry.ok ? "prepared" : "refused"
        let saving = entry.bytesAfter.flatMap { after in entry.bytesBefore.map { $0 - after } }
        var attributes = "data-outcome=\"\(outcome)\" data-name=\"\(e(entry.path))\""
        if let bytes = entry.bytesBefore { attributes += " data-before=\"\(bytes)\"" }
        if let bytes = entry.bytesAfter { attributes += " data-after=\"\(bytes)\"" }
        if let saving { attributes += " data-saving=\"\(saving)\"" }
        let headline = entry.ok ? (entry.action ?? "") : (entry.errorCode ?? "")
        return """
            <tr \(attributes)>
            <td><span class="badge \(outcome)">\(outcome)</span><div class="action">\(e(headline))</div></td>
            <td><div class="name">\(e(entry.path))</div><div class="meta">\(media(entry.before))</div></td>
            <td class="pic">\(picture(before, role: "before", of: entry))</td>
            <td class="pic">\(picture(after, role: "after", of: entry))</td>
            <td>\(attachment(entry, saving: saving))</td>
            <td>\(entry.ok ? work(entry) : refusal(entry))</td>
            <td>\(mock(entry, after: after))</td>
            </tr>

            """
    }

    /// `jpeg 4032×3024 · 714 KB`.
    private static func media(_ media: ReportEntry.Media?) -> String {
        guard let media else { return "" }
        return e(media.description) + (media.bytes.map { " · " + ByteCount.text($0) } ?? "")
    }

    private static func picture(_ side: ReportPictures.Side, role: String, of entry: ReportEntry) -> String {
        switch side {
        case .picture(let picture):
            // At most 80 CSS pixels on the long edge (the picture has twice that for sharp screens).
            let scale = 80 / Double(max(picture.width, picture.height, 1))
            let width = max(1, (Double(picture.width) * scale).clampedInteger(in: 0...100_000))
            let height = max(1, (Double(picture.height) * scale).clampedInteger(in: 0...100_000))
            return "<img class=\"thumb \(role)\" alt=\"\(role): \(e(entry.name))\" width=\"\(width)\" height=\"\(height)\" src=\"\(picture.uri)\">"
        case .sound:
            return "<div class=\"mark sound\" title=\"sound without a picture\">♪</div>"
        case .none(let reason):
            return "<div class=\"mark\">\(e(reason))</div>"
        }
    }

    private static func attachment(_ entry: ReportEntry, saving: Int64?) -> String {
        guard entry.ok, let output = entry.outputPath else { return "<div class=\"meta\">no attachment</div>" }
        var text = "<div class=\"name\">\(e(output))</div><div class=\"meta\">\(media(entry.after))</div>"
        if let saving, let before = entry.bytesBefore, before > 0 {
            let percent = (Double(saving) / Double(before) * 100).clampedInteger(in: -1_000_000...1_000_000)
            text += saving == 0 ? "<div class=\"saving\">same size</div>"
                : saving > 0 ? "<div class=\"saving\">−\(percent) %</div>" : "<div class=\"saving grew\">+\(-percent) %</div>"
        }
        return text
    }

    private static func work(_ entry: ReportEntry) -> String {
        let actions = entry.actions.isEmpty ? "" : "<div><b>\(entry.actions.map { e($0) }.joined(separator: ", "))</b></div>"
        let findings = entry.findings.map { finding in
            "<li>\(finding.isWarning ? "warning " : "")<span class=\"code\">\(e(finding.code))</span>: \(e(finding.message))\(finding.fix.map { " → \(e($0))" } ?? "")</li>"
        }
        let notes = entry.notes.map { "<li>\(e($0))</li>" }
        let items = notes + findings
        return actions + (items.isEmpty ? "" : "<ul class=\"notes\">\(items.joined())</ul>")
    }

    private static func refusal(_ entry: ReportEntry) -> String {
        let code = entry.errorCode ?? "unknown"
        let fix = ErrorCode(rawValue: code)?.fix
        let findings = entry.findings.filter { $0.fix != nil }.map { "<li><span class=\"code\">\(e($0.code))</span>: \(e($0.message)) → \(e($0.fix ?? ""))</li>" }
        return "<div class=\"code\">\(e(code))</div><div>\(e(entry.errorMessage ?? ""))</div>"
            + (fix.map { "<p class=\"fix\"><b>Fix:</b> \(e($0))</p>" } ?? "")
            + (findings.isEmpty ? "" : "<ul class=\"notes\">\(findings.joined())</ul>")
    }

    /// The banner: the output's thumbnail, clipped by the attachment's rect and aspect-filled into
    /// the banner's 40 px square. The script gives the mock's picture the after picture's source
    /// when it shows the row, so the picture is in the file once.
    private static func mock(_ entry: ReportEntry, after: ReportPictures.Side) -> String {
        guard entry.ok else { return "<div class=\"meta\">no attachment: the notification shows its text alone</div>" }
        var thumb = ""
        var note = "approximation"
        if entry.thumbnailHidden {
            note = "approximation; ThumbnailHiddenKey hides the thumbnail"
        } else if case .picture(let picture) = after {
            let clip = entry.clip ?? .full
            let side = 40.0
            let aspect = (clip.width * Double(picture.width)) / max(1e-9, clip.height * Double(picture.height))
            let (width, height) = aspect >= 1 ? (side * aspect, side) : (side, side / aspect)
            let box = "width:\(css(width))px;height:\(css(height))px;left:\(css((side - width) / 2))px;top:\(css((side - height) / 2))px"
            let image = "width:\(css(100 / clip.width))%;height:\(css(100 / clip.height))%;left:\(css(-clip.x / clip.width * 100))%;top:\(css(-clip.y / clip.height * 100))%"
            thumb = "<div class=\"mock-thumb\"><div class=\"mock-clip\" style=\"\(box)\"><img class=\"mock-picture\" alt=\"\" style=\"\(image)\"></div></div>"
            if entry.clip != nil { note += "; clipped by ThumbnailClippingRectKey" }
        } else if entry.after?.kind == "audio" {
            note = "approximation; sound plays when the notification is opened"
        }
        return """
            <div class="mock" title="An approximation of an iOS notification banner, not a rendering by iOS"><div class="mock-icon"></div>\
            <div class="mock-body"><div class="mock-head"><span>YOUR APP</span><span>now</span></div>\
            <div class="mock-title">\(e(entry.name))</div><div class="mock-text">with its attachment</div></div>\(thumb)</div>\
            <div class="mock-note">\(note)</div>
            """
    }

    /// A CSS number: at most two decimals.
    private static func css(_ value: Double) -> String {
        let rounded = (value * 100).rounded() / 100
        guard rounded.isFinite, abs(rounded) < 1e15 else { return "0" }
        return rounded == rounded.rounded() ? String(Int(rounded)) : String(rounded)
    }

    static func end(pictured: Int, inputs: Int, budgetSpent: Bool, unreadLines: Int = 0) -> String {
        var note = budgetSpent
            ? "Pictures are shown for the first \(pictured) of \(inputs) inputs: the report's inline pictures reached their size budget, and the later rows say so."
            : "Pictures: \(pictured) of \(inputs) inputs."
        if unreadLines > 0 { note += " Incomplete: \(unreadLines) line(s) of the manifests are not a batch's lines and are left out." }
        return """
            <footer><p id="pictures">\(note) Every picture is a small thumbnail inlined in this file; this page loads nothing from the network.</p></footer>
            <script>
            \(ReportAssets.script)
            </script>
            </body></html>

            """
    }
}
