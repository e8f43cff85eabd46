/// `attachkit report OUT_DIR` and `attachkit batch --report FILE`: one self-contained HTML file
/// showing what a batch prepared, what it refused and why, with before and after pictures.
///
/// It is drawn from the batch's manifests (every shard's, merged: ``ReportSource``), so it can be
/// drawn again at any time after the run. The file loads nothing: its Content-Security-Policy
/// forbids every network load, the style and script are inline, and the pictures are small
/// JPEG thumbnails inlined as `data:` URIs (``ReportPictures``: never a full-size original).
/// Rows are paged 100 at a time, from inert `<template>` chunks, so a report of 10,000 inputs
/// opens as quickly as one of 100; the inline pictures stop at ``pictureBudget`` bytes, and the
/// later rows say so. Written atomically (``ReportFile``: it replaces only a report it wrote).
public struct BatchReport: Sendable {
    /// The batch's output folder, which holds its manifests.
    public var outputRoot: String
    /// The HTML file to write.
    public var path: String
    /// The run's wall-clock time, seconds, when the report closes a run (`batch --report`);
    /// `nil` shows the preparations' own times summed.
    public var runSeconds: Double?
    /// Pictures rendered at once. Default: the cores.
    public var jobs: Int
    /// Bytes of inline pictures (as base64 text) after which rows are drawn without pictures.
    /// Default 40 MB (about 3,000 inputs' before and after pictures).
    public var pictureBudget: Int

    /// The report of the batch whose output folder is `outputRoot`, written to `path`.
    public init(outputRoot: String, path: String, runSeconds: Double? = nil, jobs: Int = BatchOptions.coreCount,
                pictureBudget: Int = 40_000_000) {
        self.outputRoot = outputRoot
        self.path = path
        self.runSeconds = runSeconds
        self.jobs = max(1, jobs)
        self.pictureBudget = pictureBudget
    }

    /// What a written report holds.
    public struct Written: Sendable, Equatable {
        /// The report's absolute path.
        public var path: String
        public var inputs: Int
        public var prepared: Int
        public var refused: Int
        /// Inputs drawn with pictures (before, after or both).
        public var pictured: Int
        /// Manifest lines left out: not a batch's lines (damaged, or something else's).
        public var unreadLines: Int = 0
    }

    /// Checks, before a batch runs, that its report could be written at `path`: the folder
    /// exists, nothing is there that the report may not replace (``ReportFile``), and it is not a
    /// name the batch itself will write in the output folder (a manifest, a lock, or any name
    /// with an output's extension, which an output or a thumbnail may take).
    /// - Parameter shard: the batch's split (its manifests' names).
    /// - Throws: ``BatchReportError/output(_:)`` as ``write()`` would.
    public static func checkDestination(_ path: String, inputRoot: String, outputRoot: String, shard: Shard = .all) throws(BatchReportError) {
        let input = PathResolver.realPath(PathResolver.absolute(inputRoot)) ?? inputRoot
        let output = PathResolver.realPath(PathResolver.absolute(outputRoot)) ?? PathResolver.absolute(outputRoot)
        let absolute = PathResolver.absolute(path)
        let folder = PathResolver.realPath(PathResolver.directory(absolute)) ?? PathResolver.directory(absolute)
        if folder == output || folder.hasPrefix(output + "/") {
            let name = PathResolver.fileName(absolute)
            let options = BatchOptions(inputRoot: input, outputRoot: output, prepare: PrepareOptions(outputFolder: output), shard: shard)
            let bookkeeping = folder == output && options.rootFiles.contains { CaselessName.key($0.name) == CaselessName.key(name) }
            let ext = WritePlan.split(CaselessName.key(name)).extension
            if bookkeeping || WritePlan.outputExtensions.contains(ext) {
                throw .output(.collision(path: path, with: "the batch writes \(name) itself (\(bookkeeping ? "its bookkeeping" : "an output or a thumbnail may take a .\(ext) name")); name the report .html"))
            }
        }
        _ = try ReportFile(path: path, inputRoot: input, outputRoot: output, inputs: InputWalker.files(under: input).map { input + "/" + $0 })
    }

    /// Reads the manifests, renders the pictures (``jobs`` at a time, one page of rows at once, so
    /// memory stays flat however many inputs) and writes the report.
    /// - Throws: ``BatchReportError``: no manifest in ``outputRoot``; a path the report may not
    ///   replace (`output-collision`); a write that failed (`write-failed`).
    public func write() throws(BatchReportError) -> Written {
        let source = try ReportSource(outputRoot: outputRoot)
        let inputRoot = source.inputRoot
        var file = try ReportFile(path: path, inputRoot: inputRoot, outputRoot: source.outputRoot,
                                  inputs: inputRoot.map { root in source.entries.map { root + "/" + $0.path } } ?? [])
        let summary = ReportSummary(source.entries, runSeconds: runSeconds)
        try file.append(ReportPage.head(title: "AttachKit batch report: \(source.outputRoot)"))
        try file.append(ReportPage.summary(summary, source: source, inputRoot: inputRoot))
        try file.append(ReportPage.tableStart(summary))
        let pictures = ReportPictures(inputRoot: inputRoot, outputRoot: source.outputRoot)
        let pool = WorkerPool(threads: jobs)
        var spent = 0, pictured = 0, undrawn = 0
        var start = 0
        while start < source.entries.count {
            let chunk = Array(source.entries[start..<min(start + ReportPage.rowsPerPage, source.entries.count)])
            let sides = Locked([(ReportPictures.Side, ReportPictures.Side)?](repeating: nil, count: chunk.count))
            if spent < pictureBudget {
                pool.runAll(Array(chunk.indices)) { index in
                    let pair = (pictures.before(chunk[index]), pictures.after(chunk[index]))
                    sides.withLock { $0[index] = pair }
                }
            } else {
                undrawn += chunk.count
            }
            try file.append(ReportPage.pageStart())
            for (index, entry) in chunk.enumerated() {
                let skipped = ReportPictures.Side.none(reason: "not drawn: the report's pictures reached their size budget")
                let (before, after) = sides.withLock { $0[index] } ?? (skipped, skipped)
                for case .picture(let picture) in [before, after] { spent += picture.uri.utf8.count }
                if case .picture = before { pictured += 1 } else if case .picture = after { pictured += 1 }
                try file.append(ReportPage.row(entry, before: before, after: after))
            }
            try file.append(ReportPage.pageEnd)
            start += chunk.count
        }
        try file.append(ReportPage.end(pictured: pictured, inputs: source.entries.count, budgetSpent: undrawn > 0, unreadLines: source.unreadLines))
        let written = try file.commit()
        return Written(path: written, inputs: summary.inputs, prepared: summary.prepared, refused: summary.refused, pictured: pictured,
                       unreadLines: source.unreadLines)
    }
}
