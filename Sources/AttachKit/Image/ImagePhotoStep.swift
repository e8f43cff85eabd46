/// Judges a PNG photograph before it is decoded (``PhotoEstimate/judgeTop(path:width:height:fileBytes:)``),
/// so that a photo PNG bound for JPEG streams from the decoder into the encoder (one pass, as
/// `vips copy` does) instead of being decoded into memory to be judged first. Runs only for what
/// ``ImageFormatStep`` could turn from PNG into JPEG: a still 8-bit PNG without alpha in its
/// header, under a profile that allows both, whose PNG would be over the recommended size (or the
/// budget). Only a photographic verdict is kept (``ImageWork/photo``); otherwise the whole picture
/// is judged in memory later, as before.
struct ImagePhotoStep: ImageStep {
    let name = "judge photograph"

    func run(_ work: inout ImageWork) throws(PrepareError) {
        let info = work.job.info, profile = work.job.profile
        guard info.container == .png, info.hasAlpha == false, (info.bitDepth ?? 8) == 8, !work.plan.animated,
              !work.plan.outputsGIF, work.plan.reader == .vips,
              ImageFormat.png.isAllowed(by: profile), ImageFormat.jpeg.isAllowed(by: profile),
              let width = info.width, let height = info.height else { return }
        let target = work.plan.recommended ?? work.plan.budget
        let estimate = PhotoEstimate.pngBytes(info: info, width: work.loadBox.width, height: work.loadBox.height)
        guard Double(target) < estimate else { return }
        let path = work.job.inputPath
        let verdict = try ImageFailure.vips(name) { () throws(VipsError) in
            try PhotoEstimate.judgeTop(path: path, width: width, height: height, fileBytes: info.bytes)
        }
        if let verdict, verdict.photographic { work.photo = verdict }
    }
}
