/// An MP4/MOV whose every video track (or every audio track) is disabled in its `tkhd` flags:
/// AVFoundation plays no disabled track, so iOS shows a movie without its picture or sound, while
/// FFmpeg, and so every check here, reads those tracks as any other. A remux enables them
/// (libavformat's MP4 muxer enables the first track of each kind when none is marked default), so
/// `prepare` rewrites such a file instead of handing it back.
struct DisabledTrackRule: ValidationRule {
    func check(_ subject: ValidationSubject, against profile: Profile) -> [Diagnostic] {
        guard let disabled = subject.info.disabledMedia, !disabled.isEmpty else { return [] }
        let what = disabled.joined(separator: " and ")
        return [Diagnostic(.disabledTrack, "every \(what) track is disabled (tkhd flags): iOS plays no disabled track",
                           fix: "remux with the tracks enabled (prepare does; no re-encode)")]
    }
}
