/// The libavformat demuxer that reads each container, and the container each demuxer reads, from
/// ``FormatTable``.
enum Demuxers {
    /// The demuxer for a container AttachKit sniffed, `nil` for containers libavformat does not read.
    static func name(for container: Container) -> String? {
        container.facts?.demuxer
    }

    /// The container for a demuxer libavformat's own detection chose; `nil` for demuxers of formats
    /// that are not attachment media (subtitles, playlists, SVG...), which are refused, and for
    /// demuxers that read several unrelated formats (`iff`: DSD audio and pictures).
    static func container(forDemuxer demuxer: String) -> Container? {
        guard !ambiguous.contains(demuxer), let facts = FormatTable.facts(forDemuxer: demuxer), facts.kind != .unknown else { return nil }
        return facts.container
    }

    private static let ambiguous: Set<String> = ["iff", "mov"]
}
