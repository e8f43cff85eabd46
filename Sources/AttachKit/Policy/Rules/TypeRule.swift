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
        if case .undecodable = subject.structure {
            // No conversion can start from what nothing here decodes (IntegrityRule says why).
            return [Diagnostic(.unsupportedType, what, fix: "none here: its \(info.kind.rawValue) cannot be decoded here")]
        }
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
            if let codec = info.codec, Profile.allows(profile.audio.codecs, codec: codec), codec == .aac || codec == .alac,
               Playability.sound(codec, profile: info.audioProfile, in: .m4a) == .plays {
                return "remux \(info.container.rawValue.uppercased())→M4A (no re-encode)"
            }
            return "transcode \(info.codec.map { Fix.name($0, profile: info.audioProfile) } ?? "audio")→AAC (M4A)"
        case .video:
            // What `prepare` copies into MP4 (``Playability``), when the profile allows it.
            let videoOK = info.codec.map { Profile.allows(profile.video.videoCodecs, codec: $0) } ?? false
                && Playability.video(info) == .copyable
            // Sound nothing here decodes (``MediaInfo/undecodableStreams``) is left out, not converted.
            let soundLeftOut = info.undecodableReasons(of: .audio) != nil
            let without = soundLeftOut ? ", without the \(info.audioCodec.map { Fix.name($0) } ?? "") sound (it cannot be decoded here)" : ""
            let audioOK = soundLeftOut || info.audioCodec.map {
                Profile.allows(profile.video.audioCodecs, codec: $0) && Playability.sound($0, profile: info.audioProfile, in: .mp4) == .plays
            } ?? true
            if videoOK && audioOK { return "remux \(info.container.rawValue.uppercased())→MP4 (no re-encode)\(without)" }
            if videoOK { return "remux the picture into MP4 (no re-encode), transcode the sound→AAC" }
            return soundLeftOut ? "transcode to H.264 in MP4\(without)" : "transcode to H.264 + AAC in MP4"
        case .unknown:
            return "replace with a supported file"
        }
    }
}

/// Codecs inside an allowed container must be ones AVFoundation plays (a VP9 track in an `.mp4`
/// is allowed by type, yet the user sees nothing), in a variant it decodes (``Playability``:
/// H.264 High 10 or 4:2:2, HEVC 4:4:4, a 12-bit JPEG are `unsupported-codec-profile`). The fixes
/// say what `prepare` does, from the same decisions.
struct CodecRule: ValidationRule {
    func check(_ subject: ValidationSubject, against profile: Profile) -> [Diagnostic] {
        let info = subject.info
        guard let type = info.uniformType else { return [] }
        // Nothing here decodes it: IntegrityRule names the codec, and no transcode can be offered.
        if case .undecodable = subject.structure { return [] }
        switch info.kind {
        case .image:
            guard Profile.allows(profile.image.types, type), let reason = Playability.picture(info) else { return [] }
            return [Diagnostic(.unsupportedCodecProfile, reason, fix: "re-encode to 8-bit \(Fix.imageTarget(info))")]
        case .audio:
            guard Profile.allows(profile.audio.types, type), let codec = info.codec else { return [] }
            let found = sound(codec, info.audioProfile, in: info.container, allowed: profile.audio.codecs, profile: profile,
                              fix: "transcode \(Fix.name(codec, profile: info.audioProfile))→AAC (M4A)")
            return found.isEmpty ? sampleEntry(codec, tag: info.codecTag, in: info.container, fix: "remux into M4A (no re-encode)") : found
        case .video:
            guard Profile.allows(profile.video.types, type) else { return [] }
            return movie(info, profile: profile)
        case .unknown:
            return []
        }
    }

    private func movie(_ info: MediaInfo, profile: Profile) -> [Diagnostic] {
        var out: [Diagnostic] = []
        let verdict = Playability.video(info)
        if let codec = info.codec, codec != .unidentified, !Profile.allows(profile.video.videoCodecs, codec: codec) {
            out.append(Diagnostic(.unsupportedCodec, "video codec \(codec) is not allowed by profile \(profile.name)",
                                  fix: "transcode \(Fix.name(codec))→H.264"))
        } else if case .unsupportedVariant(let reason) = verdict {
            // Dolby Vision without a base layer is refused by prepare too (ToneMapper): no conversion to offer.
            let fix = info.hdr?.format == .dolbyVision
                ? "attach an HDR10, HLG or SDR version (Dolby Vision without a compatible base layer cannot be converted here)"
                : "transcode to 8-bit 4:2:0 H.264"
            out.append(Diagnostic(.unsupportedCodecProfile, reason, fix: fix))
        } else if let codec = info.codec {
            out += sampleEntry(codec, tag: info.codecTag, in: info.container, fix: "remux into MP4 (no re-encode)")
        }
        if let codec = info.audioCodec, info.undecodableReasons(of: .audio) == nil {
            // The sound alone fails, yet `prepare` writes MP4 and re-encodes a picture it cannot
            // copy there: the fix says so (an MPEG-2 program stream under `apple`).
            let picture = verdict == .transcodedWhenRewritten && out.isEmpty ? info.codec.map { " and \(Fix.name($0))→H.264 in MP4" } ?? "" : ""
            let found = sound(codec, info.audioProfile, in: info.container, allowed: profile.video.audioCodecs, profile: profile,
                              fix: "transcode \(Fix.name(codec, profile: info.audioProfile))→AAC\(picture)", inMovie: true)
            out += found.isEmpty ? sampleEntry(codec, tag: info.audioCodecTag, in: info.container, fix: "remux into MP4 (no re-encode)") : found
        }
        return out
    }

    /// The profile's codec list first, then whether AVFoundation plays the codec in this container.
    private func sound(_ codec: Codec, _ codecProfile: Int?, in container: Container, allowed: [String], profile: Profile, fix: String,
                       inMovie: Bool = false) -> [Diagnostic] {
        let which = inMovie ? "audio codec \(codec) in the movie" : "audio codec \(codec)"
        if codec != .unidentified, !Profile.allows(allowed, codec: codec) {
            return [Diagnostic(.unsupportedCodec, "\(which) is not allowed by profile \(profile.name)", fix: fix)]
        }
        if case .unsupported(let reason) = Playability.sound(codec, profile: codecProfile, in: container) {
            return [Diagnostic(.unsupportedCodec, reason, fix: fix)]
        }
        return []
    }

    /// A codec `prepare` copies, stored under a sample entry type iOS does not read it from
    /// (``Playability/sampleEntry(codec:tag:in:)``): the stream copy writes the right one.
    private func sampleEntry(_ codec: Codec, tag: String?, in container: Container, fix: String) -> [Diagnostic] {
        Playability.sampleEntry(codec: codec, tag: tag, in: container).map { [Diagnostic(.unsupportedCodec, $0, fix: fix)] } ?? []
    }
}
