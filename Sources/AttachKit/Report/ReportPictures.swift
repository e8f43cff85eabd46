/// The batch report's pictures: small JPEG thumbnails rendered in memory by ``Thumbnailer`` (the
/// renderers of `attachkit thumbnail`), inlined as `data:` URIs. Never a full-size original: a
/// picture's long edge is ``size`` pixels at most.
///
/// The report is drawn in the calling process, not in the batch's sandboxed workers, so it
/// decodes only what the batch already decoded whole in them: the input of a file the batch
/// prepared (screened again as `thumbnail` screens it, and only when its bytes still hash as the
/// manifest says), and the output the batch wrote (only when its size is still the one recorded).
/// A refused input is never decoded for the report: it may be hostile, and why it was refused is
/// shown instead.
struct ReportPictures: Sendable {
    /// One side's picture, or why there is none.
    enum Side: Sendable {
        case picture(Picture)
        /// Sound without cover art: the report draws a plain audio mark.
        case sound
        case none(reason: String)
    }

    struct Picture: Sendable {
        /// `data:image/jpeg;base64,...`
        let uri: String
        let width: Int
        let height: Int
    }

    /// Pictures' long edge, pixels. Default 160 (shown at 80 CSS pixels: sharp on a 2× screen).
    var size = 160
    /// JPEG quality. Default 70.
    var quality = 70
    /// The longest one picture may take to render, seconds. Default 20.
    var secondsPerPicture = 20.0
    var thumbnailer = Thumbnailer()
    let inputRoot: String?
    let outputRoot: String
    private let ledger: AccessLedger?
    private let inputScope: Bool

    /// Pictures of inputs beneath `inputRoot` (none when `nil` or gone) and outputs beneath `outputRoot`.
    init(inputRoot: String?, outputRoot: String) {
        self.inputRoot = inputRoot
        self.outputRoot = outputRoot
        let input = inputRoot.flatMap { try? AccessScope.folder($0) }
        inputScope = input != nil
        ledger = (try? AccessScope.folder(outputRoot)).map { AccessLedger(scopes: [$0] + (input.map { [$0] } ?? [])) }
    }

    /// The input's picture: only for an input the batch prepared.
    func before(_ entry: ReportEntry) -> Side {
        guard entry.ok else { return .none(reason: "refused: not decoded for the report") }
        guard let inputRoot, inputScope, let ledger else { return .none(reason: "the input folder is not there") }
        return ledger.withAccess(inputRoot + "/" + entry.path, refused: { .none(reason: "the input cannot be read now (\($0.code))") }) { handle in
            // A size that differs costs a stat, not a read of the whole file (a 20 GB file put
            // where the input was would otherwise be hashed).
            guard let reader = try? FileReader(path: handle.path), entry.before?.bytes.map({ $0 == reader.size }) ?? true,
                  SHA256.hex(file: reader) == entry.inputHash else {
                return .none(reason: "the input changed since the batch")
            }
            return render(handle, kind: entry.before?.kind, entry: entry)
        }
    }

    /// The output's picture: the frame (movie time, animation frame) the notification shows.
    func after(_ entry: ReportEntry) -> Side {
        guard let outputPath = entry.outputPath, let ledger else { return .none(reason: "no output") }
        let path = outputRoot + "/" + outputPath
        return ledger.withAccess(path, refused: { .none(reason: "the output cannot be read now (\($0.code))") }) { handle in
            guard entry.after?.bytes.map({ FileSystem.size(handle.path) == $0 }) ?? false else {
                return .none(reason: "the output changed since the batch")
            }
            return render(handle, kind: entry.after?.kind, entry: entry)
        }
    }

    private func render(_ handle: borrowing AccessHandle, kind: String?, entry: ReportEntry) -> Side {
        let request = ThumbnailRequest(size: size, frame: entry.thumbnailFrame, time: entry.thumbnailTime, quality: quality)
        do {
            let rendered = try thumbnailer.picture(of: handle, request: request, deadline: Deadline(seconds: secondsPerPicture)).rendered
            return .picture(Picture(uri: "data:image/jpeg;base64," + Base64.encode(rendered.jpeg), width: rendered.width, height: rendered.height))
        } catch {
            return kind == "audio" ? .sound : .none(reason: "no picture (\(error.code))")
        }
    }
}
