import Testing
@testable import AttachKit

/// Compares a probe result with a manifest row (the corpus' `manifest.tsv` or TestMedia's
/// `fixtures.tsv`, both measured with ffprobe/vipsheader), recording an issue per disagreement.
enum ProbeExpectations {
    static func check(_ info: MediaInfo, against row: CorpusRow, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(info.kind.rawValue == row.kind, "\(row.file): kind", sourceLocation: sourceLocation)
        let container = row.container.split(separator: " ").first.map(String.init) ?? row.container
        #expect(info.container.rawValue == container, "\(row.file): container", sourceLocation: sourceLocation)
        let codecs = row.codec.split(separator: "+").map(String.init)
        if let expected = codecs.first {
            #expect(info.codec?.rawValue == expected, "\(row.file): codec", sourceLocation: sourceLocation)
        }
        if row.kind == "video" {
            #expect(info.audioCodec?.rawValue == (codecs.count > 1 ? codecs[1] : nil), "\(row.file): audio codec", sourceLocation: sourceLocation)
        }
        if let width = row.width { #expect(info.width == width, "\(row.file): width", sourceLocation: sourceLocation) }
        if let height = row.height { #expect(info.height == height, "\(row.file): height", sourceLocation: sourceLocation) }
        if let frames = row.frames, let probed = info.frames {
            #expect(probed == frames, "\(row.file): frames", sourceLocation: sourceLocation)
        }
        if row.kind == "image", let frames = row.frames, frames > 1 {
            #expect(info.frames == frames, "\(row.file): animation frames", sourceLocation: sourceLocation)
        }
        if let declared = row.duration {
            // The manifest's duration is ffprobe's; where its note says a full decode gives another
            // ("decoded 10.71 s vs header 37.507 s": an MP3 estimated from its first frame), the
            // decoded one is the truth (the probe counts the frames).
            let duration = (row.container == "mp3" ? row.decodedDuration : nil) ?? declared
            let probed = try? #require(info.duration, "\(row.file): duration missing", sourceLocation: sourceLocation)
            if let probed { #expect(abs(probed - duration) <= 0.1, "\(row.file): duration \(probed) vs \(duration)", sourceLocation: sourceLocation) }
        }
    }
}

extension CorpusRow {
    /// The duration a full decode gave, from the note's "decoded 10.71 s vs header 37.507 s".
    var decodedDuration: Double? {
        guard let range = note.range(of: #"decoded [0-9.]+ s vs header"#, options: .regularExpression) else { return nil }
        return Double(note[range].dropFirst("decoded ".count).prefix { $0 != " " })
    }
}
