/// How `prepare` decodes an output whose bytes were copied without being decoded (passthrough,
/// rename, stream copy) before handing it back. Either way every packet of every copied audio and
/// video stream goes through its decoder (up to ``PrepareOptions/verifySeconds`` of video), a
/// decode error or a concealed frame is `corrupt`, and the decoded length and pixel format are
/// checked against the header; images are decoded by libvips in full either way. In both modes an
/// H.264/HEVC video decoded whole is cut at its IDR pictures and the segments decoded at once, each
/// by a single-threaded decoder, on the job's threads (``DecoderBudget/segmentThreads``): the
/// verdict is one decoder's.
public enum VerifyMode: String, Sendable, CaseIterable {
    /// The default: decoders skip what only changes how the pictures look, not whether the
    /// bitstream decodes: in-loop deblocking and SAO (`skip_loop_filter`) and, where the decoder
    /// honours it, the inverse transform (`skip_idct`). The entropy decoding, where damage
    /// shows, is never skipped. Single-threaded decoders, as ``full`` (see ``DeepCheck/fastDecoding``).
    case fast
    /// As `validate --deep`: every decoding step, single-threaded decoders.
    case full
}
