/// libvips 8.14's JPEG loader makes libjpeg's warnings errors (`fail_on=warning`) only when it
/// starts a read: a warning raised during its last read of a picture is left in libvips' error
/// buffer ("VipsJpeg: Corrupt JPEG data: premature end of data segment") while the load
/// succeeds, and the rows libjpeg had no data for come out grey. That is the case of a picture
/// a few rows of blocks tall whose data run out (one read holds them all: 65500×4 declared over
/// 35 blocks of data), and of any JPEG whose data run out in the rows of the last read and end
/// with an EOI put back (a 1200×256 picture cut to 99 %): measured, with DCT shrink-on-load and
/// without.
///
/// So after libvips has decoded a JPEG without an error, ``check(_:)`` looks for libjpeg's text
/// in libvips' error buffer. That buffer is shared by every thread, so the text only says a
/// decode somewhere warned; when it is there, the JPEG's own entropy-coded data are decoded with
/// libjpeg-turbo at 1/8 scale (``JPEGEntropyScan``, about 3 ms per megapixel) and a warning
/// there is the verdict. A clean decode costs nothing more.
///
/// One gap is left, in one process running several jobs at once (`serve`, `http` and `batch`
/// in-process): every libvips load empties the shared buffer first, so another job's load that
/// starts between this job's last read and its check erases the hint. Worker processes (each
/// job alone in its process) do not have it.
enum JPEGLastReadCheck {
    /// libvips' prefix for what libjpeg reported.
    static let libjpegText = "VipsJpeg: "

    /// The reason a JPEG libvips just decoded without an error is corrupt, or `nil` when it is
    /// not. `bytes` (the whole JPEG file, or a camera raw's preview) is read only when libvips'
    /// error buffer mentions libjpeg; `nil` bytes (unreadable now) leave the verdict to libvips.
    static func check(_ bytes: () -> [UInt8]?) -> String? {
        guard VipsError.takeIfBufferMentions(libjpegText), let bytes = bytes() else { return nil }
        let scan: JPEGEntropyScan
        do {
            scan = try JPEGEntropyScan.scan(bytes)
        } catch {
            return "the image does not decode: libjpeg-turbo: \(error.message)"
        }
        guard scan.warnings > 0 else { return nil }
        return "the image does not decode: libjpeg-turbo: \(scan.firstWarning ?? "a warning")"
    }

    /// ``check(_:)`` for the JPEG file at `path`.
    static func check(path: String) -> String? {
        check {
            guard let reader = try? FileReader(path: path) else { return nil }
            return reader.read(at: 0, count: Int(reader.size))
        }
    }
}
