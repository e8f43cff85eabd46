/// How much work an input is expected to be beside the others of a batch, from what the plan can
/// know before anything is decoded: its size, weighted by what its first bytes say it is
/// (``FormatSniffer``; no header is parsed and no decoder runs in the batch's own process). Only
/// the order matters: ``BatchRunner/plan()`` starts the costliest first, so the long jobs start
/// early instead of leaving one core busy at the end while the others idle.
///
/// Bytes alone ordered a mixed folder of camera pictures and sound clips badly: a 166 KB animated
/// AVIF took 9.4 s and a 887 KB HEIC 7.9 s, while a 1.7 MB GIF took 0.8 s and a 1.8 MB FLAC
/// 0.3 s (seconds per megabyte, `--jobs 1`: HEIF/AVIF pictures 4–57, their sequences 7–57,
/// audio and video 0.2–9, JPEG, PNG and GIF 0.2–3). Simulated on those measured times,
/// `--jobs 2` finishes 1.94× faster than `--jobs 1` in this order against 1.78× by bytes
/// (2.00 with the real times known in advance).
enum InputCost {
    /// The weight of a byte of pictures coded with HEVC or AV1 (HEIC, HEIF, AVIF stills).
    static let codedPicture = 10.0
    /// The weight of a byte of a HEIF or AVIF sequence (`msf1`, `avis`): many such pictures.
    static let pictureSequence = 30.0
    /// The weight of a byte of WebP (often animated) and of audio or video other than PCM.
    static let compressedMedia = 4.0
    /// The weight of a byte of anything else (JPEG, PNG, GIF, TIFF, WAV, AIFF, what is not media).
    static let plain = 1.0

    /// The expected cost of the file at `path`, in weighted bytes; 0 when it cannot be read (its
    /// preparation then fails at once).
    static func of(path: String) -> Double {
        guard let reader = try? FileReader(path: path) else { return 0 }
        return Double(reader.size) * weight(of: reader)
    }

    /// The weight of a byte of `reader`'s format.
    static func weight(of reader: borrowing FileReader) -> Double {
        let sniffed = FormatSniffer.sniff(reader)
        if sniffed.container == .heifSequence { return pictureSequence }
        if sniffed.container.isHEIF {
            let brands = FormatSniffer.isoBrands(reader.read(at: 0, count: 64))
            return brands.contains("avis") || brands.contains("msf1") ? pictureSequence : codedPicture
        }
        if sniffed.container == .webp { return compressedMedia }
        if sniffed.family == .video, sniffed.container != .wav, sniffed.container != .aiff { return compressedMedia }
        return plain
    }
}
