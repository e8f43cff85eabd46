/// Resamples the frames of a libvips-loaded animation to the planned size (``ImageWork/loadBox``),
/// after frames were dropped, with `vips_thumbnail_image` (alpha premultiplied, each frame on its
/// own rows: the stack's `page-height` tells it where frames start). Stills were already shrunk
/// while loading, and FFmpeg-decoded frames while decoding: nothing to do for them.
struct ImageAnimationResizeStep: ImageStep {
    let name = "downscale frames"

    func run(_ work: inout ImageWork) throws(PrepareError) {
        guard work.plan.animated, work.plan.reader == .vips, let pageHeight = work.pageHeight,
              let width = work.image?.width else { return }
        let box = work.loadBox
        guard width > box.width || pageHeight > box.height, let image = work.image.take() else { return }
        let frames = work.frameCount
        let target = work.plan.caps.thumbnailBox(box, width: width, height: pageHeight)
        let resized = try ImageFailure.vips(name) { () throws(VipsError) in
            try Self.resize(image, frames: frames, pageHeight: pageHeight, into: target)
        }
        work.pageHeight = resized.height / max(1, frames)
        work.image = consume resized
        work.did(.downscaled)
    }

    /// `image` (`frames` frames of `pageHeight` rows) with each frame fitted inside `box`; the
    /// result holds `frames` frames of equal height.
    static func resize(_ image: borrowing VipsImage, frames: Int, pageHeight: Int,
                       into box: (width: Int, height: Int)) throws(VipsError) -> VipsImage {
        let tagged = try image.editingMetadata([.int("page-height", pageHeight), .int("n-pages", frames)])
        let resized = try tagged.fitted(width: box.width, height: box.height)
        guard resized.height % max(1, frames) == 0 else {
            throw VipsError(operation: .resize, message: "\(frames) frames do not divide \(resized.height) rows")
        }
        return resized
    }
}
