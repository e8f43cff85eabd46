/// A WAVE file (`.wav`, RF64) is handed over as it is only when its data is linear PCM (integer
/// or float): what its `fmt ` format tag says, as FFmpeg names it (`0x0001` → `pcm_s16le`...,
/// `0x0003` → `pcm_f32le`, `WAVE_FORMAT_EXTENSIBLE` by its sub-format).
///
/// Core Audio plays linear PCM in WAVE, and Apple lists IMA4, µ-law and A-law among the formats
/// iOS plays (Multimedia Programming Guide, "Using Audio": "Audio Playback and Recording
/// Formats"); that list is about the codec, not about each WAVE carriage, so the rule stays
/// conservative. Any other tag (0x55 MP3-in-WAVE, 0x02 MS ADPCM, 0x11 IMA ADPCM, 0x06 A-law,
/// 0x07 µ-law...) is an `unsupported-codec` error, so `prepare` never passes it through as `.wav`
/// unverified: MP3 data is copied into an `.mp3` (no re-encode), anything else is encoded to AAC
/// in M4A by the audio pipeline.
struct WAVEFormatRule: ValidationRule {
    /// FFmpeg's names for linear PCM (the only WAVE data handed over as it is).
    static let linearPCM: Set<Codec> = [
        "pcm_u8", "pcm_s8", "pcm_s16le", "pcm_s16be", "pcm_s24le", "pcm_s24be", "pcm_s32le", "pcm_s32be",
        "pcm_f32le", "pcm_f32be", "pcm_f64le", "pcm_f64be",
    ]

    func check(_ subject: ValidationSubject, against profile: Profile) -> [Diagnostic] {
        let info = subject.info
        // A codec the profile refuses anyway is CodecRule's finding (one finding per problem).
        guard info.kind == .audio, [.wav, .rf64].contains(info.container), let codec = info.codec,
              !Self.linearPCM.contains(codec), Profile.allows(profile.audio.codecs, codec: codec) else { return [] }
        let fix = codec == .mp3 ? "remux the MP3 stream into .mp3 (no re-encode)" : "transcode \(Fix.name(codec))→AAC (M4A)"
        return [Diagnostic(.unsupportedCodec, "WAVE data in \(codec), not linear PCM: only linear PCM is handed over in a .wav",
                           fix: fix)]
    }
}
