/// The content's type must be one the profile allows for its kind (Apple's table for `apple`).
/// iOS answers a type it does not take with 101, "unrecognized type".
struct TypeRule: ValidationRule {
    func check(_ subject: ValidationSubject, against profile: Profile) -> [Diagnostic] {
        let info = subject.info
        guard let type = info.uniformType else {
            return [Diagnostic(.unrecognizedType, "\(info.container) is not an attachment type iOS knows", fix: nil)]
        }
        guard info.kind != .unknown else { return [Diagnostic(.unrecognizedType, "no media content", fix: nil)] }
        guard !profile.allowsContent(info) else { return [] }
        let what = "\(info.kind.rawValue) type \(type.identifier) (\(info.container)) is not allowed by profile \(profile.name)"
        return [Diagnostic(.unsupportedType, what, fix: fix(for: info, profile: profile))]
    }

    /// Remux when only the container is wrong (the codecs are allowed), else transcode or convert;
    /// for a format `prepare` refuses (``FormatFacts/refusal``), why nothing here converts it.
    func fix(for info: MediaInfo, profile: Profile) -> String {
        if let refusal = info.container.facts?.refusal { return "none here: \(refusal)" }
        switch info.kind {
        case .image:
            return Fix.convertImage(info)
        case .audio:
            if let codec = info.codec, Profile.allows(profile.audio.codecs, codec: codec), codec == .aac || codec == .alac {
                return "remux \(info.container.rawValue.uppercased())→M4A (no re-encode)"
            }
            return "transcode \(info.codec.map(Fix.name) ?? "audio")→AAC (M4A)"
        case .video:
            let videoOK = info.codec.map { Profile.allows(profile.video.videoCodecs, codec: $0) } ?? false
            let audioOK = info.audioCodec.map { Profile.allows(profile.video.audioCodecs, codec: $0) } ?? true
            if videoOK && audioOK { return "remux \(info.container.rawValue.uppercased())→MP4 (no re-encode)" }
            return "transcode to H.264 + AAC in MP4"
        case .unknown:
            return "replace with a supported file"
        }
    }
}

/// Codecs inside an allowed container must be ones AVFoundation plays (a VP9 track in an `.mp4`
/// is allowed by type, yet the user sees nothing).
struct CodecRule: ValidationRule {
    func check(_ subject: ValidationSubject, against profile: Profile) -> [Diagnostic] {
        let info = subject.info
        guard let type = info.uniformType else { return [] }
        var out: [Diagnostic] = []
        switch info.kind {
        case .audio:
            guard Profile.allows(profile.audio.types, type), let codec = info.codec,
                  !Profile.allows(profile.audio.codecs, codec: codec) else { return [] }
            out.append(Diagnostic(.unsupportedCodec, "audio codec \(codec) is not allowed by profile \(profile.name)",
                                  fix: "transcode \(Fix.name(codec))→AAC (M4A)"))
        case .video:
            guard Profile.allows(profile.video.types, type) else { return [] }
            if let codec = info.codec, !Profile.allows(profile.video.videoCodecs, codec: codec) {
                out.append(Diagnostic(.unsupportedCodec, "video codec \(codec) is not allowed by profile \(profile.name)",
                                      fix: "transcode \(Fix.name(codec))→H.264"))
            }
            if let codec = info.audioCodec, !Profile.allows(profile.video.audioCodecs, codec: codec) {
                out.append(Diagnostic(.unsupportedCodec, "audio codec \(codec) in the movie is not allowed by profile \(profile.name)",
                                      fix: "transcode \(Fix.name(codec))→AAC"))
            }
        default:
            break
        }
        return out
    }
}
