/// Renders JPEG thumbnails of images (a frame of an animation) and movies (a poster frame at a
/// time), clipped with a normalized rect, and reports the attachment options that make the
/// device show the same thumbnail. Safe to use from many threads at once.
public struct Thumbnailer: Sendable {
    public var safety: SafetyLimits
    public var prober: Prober

    public init(safety: SafetyLimits = SafetyLimits(), prober: Prober = Prober()) {
        self.safety = safety
        self.prober = prober
    }

    /// Renders a thumbnail of the file behind `input` and writes it atomically to `outputPath`
    /// (which must be inside a folder scope of `ledger`). The input is screened as `prepare`
    /// screens it, so the same file fails with the same code: probed from its header, checked
    /// against the safety caps (`over-cap`), then its structure (`corrupt`), before any decoding.
    /// An `outputPath` that is the input (by name, ignoring letter case and Unicode normalization,
    /// or the same file through a hard or symbolic link) is refused before any work with
    /// `output-collision` (``WritePlan``). Nothing already at `outputPath` is replaced (a user's
    /// photo, an earlier thumbnail, a link, `/dev/null`): the rename refuses it, `output-collision`
    /// too (``OutputGuard``).
    public func thumbnail(_ input: borrowing AccessHandle, to outputPath: String, request: ThumbnailRequest,
                          ledger: AccessLedger, deadline: Deadline = Deadline(seconds: nil)) -> ThumbnailReport {
        var report = ThumbnailReport(input: input.resolvedPath)
        do throws(PrepareError) {
            // A path naming a folder (`out/`) has no file name to write: refused before any work. Only
            // said inside the allowed roots (outside, the write is refused as access-denied: what is
            // a folder there is not the caller's to learn).
            let absolute = PathResolver.absolute(outputPath)
            let folder = PathResolver.realPath(absolute) ?? PathResolver.realPath(PathResolver.directory(absolute))
            let inScope = folder.map { real in ledger.scopes.contains { $0.contains(resolvedPath: real) } } ?? false
            guard !inScope || (!outputPath.hasSuffix("/") && !FileSystem.isDirectory(outputPath)) else {
                throw .output(.system(operation: "write", path: outputPath, reason: "is a folder; give the thumbnail's file path (e.g. \(outputPath.hasSuffix("/") ? outputPath : outputPath + "/")thumbnail.jpg)"))
            }
            var plan = WritePlan(input: input)
            do throws(OutputError) { try plan.claimFile(outputPath, as: "the thumbnail") } catch { throw .output(error) }
            // iOS reads the type from the extension: JPEG bytes under another name would not show.
            let named = PathResolver.fileExtension(outputPath).lowercased()
            guard named.isEmpty || named == "jpg" || named == "jpeg" else {
                throw .unsupported(reason: "a thumbnail is a JPEG: name it .jpg or .jpeg, not .\(named)")
            }
            let (info, rendered) = try picture(of: input, request: request, deadline: deadline)
            do throws(OutputError) {
                let output = try AtomicOutput(folder: PathResolver.directory(PathResolver.absolute(outputPath)),
                                              stem: Preparer.stem(of: outputPath), ledger: ledger, guarding: OutputGuard(protected: plan.protected))
                try output.write(rendered.jpeg)
                report.output = try output.commit(named: PathResolver.fileName(outputPath))
            } catch {
                throw .output(error)
            }
            report.width = rendered.width
            report.height = rendered.height
            report.frame = rendered.frame
            report.time = rendered.time
            // The attachment is the JPEG written here, whatever the input was (a WebM is no attachment).
            report.options = Self.options(for: info, typeHint: UniformType.jpeg.identifier, request: request, rendered: rendered)
        } catch {
            report.error = error
        }
        report.elapsedMilliseconds = deadline.elapsed * 1000
        return report
    }

    /// Screens the file behind `input` as ``thumbnail(_:to:request:ledger:deadline:)`` does (header,
    /// safety caps, structure) and renders its thumbnail in memory, writing nothing (the batch
    /// report inlines it).
    /// - Returns: the input as probed, and the JPEG.
    /// - Throws: ``PrepareError``: the same code `thumbnail` and `prepare` give the file.
    func picture(of input: borrowing AccessHandle, request: ThumbnailRequest,
                 deadline: Deadline) throws(PrepareError) -> (info: MediaInfo, rendered: RenderedThumbnail) {
        // The renderer opens the file itself: the header is all the probe needs to read here.
        var headerProber = prober
        headerProber.limits.headerOnly = true
        let look: InputScreening.Look
        do {
            look = try InputScreening(prober: headerProber, safety: safety).look(path: input.path, displayPath: input.requestedPath,
                                                                               screened: true, span: .picture)
        } catch {
            throw PrepareError.probe(error)
        }
        if let refusal = PrepareError(look.structure) { throw refusal }
        return (look.info, try render(path: input.path, info: look.info, request: request, deadline: deadline))
    }

    /// Renders without writing (used by `prepare --thumbnail`, which writes beside its output).
    func render(path: String, info: MediaInfo, request: ThumbnailRequest, deadline: Deadline) throws(PrepareError) -> RenderedThumbnail {
        if let violation = safety.violation(for: info, span: .picture) { throw .overCap(violation) }
        // A format AttachKit identifies but does not convert is refused with the reason prepare gives.
        if let refusal = info.container.facts?.refusal { throw .unsupported(reason: refusal) }
        let renderer: any ThumbnailRendering
        switch info.kind {
        case .image: renderer = ImageThumbnailRenderer()
        case .video, .audio: renderer = VideoThumbnailRenderer()
        case .unknown: throw .unsupported(reason: "\(info.container) content has no picture")
        }
        return try renderer.render(path: path, info: info, request: request, limits: safety, deadline: deadline)
    }

    /// `TypeHintKey` (`typeHint`: the type of the attachment the options go with), and
    /// `ThumbnailClippingRectKey` and `ThumbnailTimeKey` (frame for animated images, seconds for
    /// movies) of the picture rendered from `info`.
    static func options(for info: MediaInfo, typeHint: String, request: ThumbnailRequest, rendered: RenderedThumbnail) -> AttachmentOptions {
        var options = AttachmentOptions(typeHint: typeHint, clippingRect: request.clip)
        if info.kind == .video { options.thumbnailTime = rendered.time }
        if info.isAnimated { options.thumbnailFrame = rendered.frame }
        return options
    }
}
