import Testing
@testable import AttachKit

/// Each rule on hand-made probe results: the verdict, the stable code, and the proposed fix.
@Suite("Validation rules")
struct ValidationRuleTests {
    static func image(_ container: Container, _ codec: Codec, _ width: Int, _ height: Int, bytes: Int64 = 100_000,
                      frames: Int = 1, orientation: Int? = nil, alpha: Bool = false) -> MediaInfo {
        var info = MediaInfo(path: "x", bytes: bytes, kind: .image, container: container)
        info.codec = codec
        info.width = width
        info.height = height
        info.frames = frames
        info.orientation = orientation
        info.hasAlpha = alpha
        return info
    }

    static func video(_ container: Container, _ codec: Codec, audio: Codec? = .aac, width: Int = 1280, height: Int = 720,
                      duration: Double = 10, bytes: Int64 = 2_000_000, rotation: Int = 0) -> MediaInfo {
        var info = MediaInfo(path: "x", bytes: bytes, kind: .video, container: container)
        info.codec = codec
        info.audioCodec = audio
        info.width = width
        info.height = height
        info.duration = duration
        info.rotation = rotation
        return info
    }

    static func audio(_ container: Container, _ codec: Codec, duration: Double = 5, bytes: Int64 = 100_000) -> MediaInfo {
        var info = MediaInfo(path: "x", bytes: bytes, kind: .audio, container: container)
        info.codec = codec
        info.duration = duration
        return info
    }

    static func codes(_ info: MediaInfo, _ ext: String, _ profile: Profile) -> [String] {
        Validator(profile: profile).diagnostics(for: info, fileExtension: ext).filter { $0.severity == .error }.map(\.code.rawValue)
    }

    @Test("a small JPEG named .jpg passes both profiles")
    func goodJPEG() {
        let info = Self.image(.jpeg, .jpeg, 1024, 768)
        #expect(Self.codes(info, "jpg", .apple).isEmpty)
        #expect(Self.codes(info, "JPEG", .ios).isEmpty)
    }

    @Test("WebP is refused by both profiles with a conversion fix")
    func webp() {
        let info = Self.image(.webp, .webp, 800, 600, alpha: true)
        let diagnostics = Validator(profile: .ios).diagnostics(for: info, fileExtension: "webp")
        #expect(diagnostics.first?.code == .unsupportedType)
        #expect(diagnostics.first?.fix == "convert WEBP→PNG (JPEG if its alpha channel is fully opaque)")
        #expect(diagnostics.first?.code.iosErrorCode == 101)
        #expect(Self.codes(info, "webp", .apple) == ["unsupported-type"])
    }

    @Test("HEIC: allowed by ios, refused by apple")
    func heic() {
        let info = Self.image(.heic, .hevc, 1024, 768)
        #expect(Self.codes(info, "heic", .ios).isEmpty)
        #expect(Self.codes(info, "heic", .apple) == ["unsupported-type"])
    }

    @Test("a JPEG named .png is an extension mismatch with a rename fix")
    func wrongExtension() {
        let diagnostics = Validator(profile: .ios).diagnostics(for: Self.image(.jpeg, .jpeg, 100, 100), fileExtension: "png")
        #expect(diagnostics.map(\.code) == [.extensionMismatch])
        #expect(diagnostics.first?.fix?.hasPrefix("rename to .jpg") == true)
        #expect(Self.codes(Self.image(.jpeg, .jpeg, 100, 100), "", .ios) == ["missing-extension"])
        #expect(Self.codes(Self.image(.jpeg, .jpeg, 100, 100), "dat", .ios) == ["extension-mismatch"])
    }

    @Test("related types share extensions: M4V bytes named .mp4, AIFF-C named .aif, audio MP4 named .m4a")
    func conformingExtensions() {
        #expect(Self.codes(Self.video(.m4v, .h264), "mp4", .ios).isEmpty)
        #expect(Self.codes(Self.audio(.aifc, "pcm_s16be"), "aif", .apple).isEmpty)
        #expect(Self.codes(Self.audio(.mp4, .aac), "m4a", .apple).isEmpty)
    }

    @Test("pixel caps under ios: long edge, pixels, decoded size; none under apple")
    func pixelCaps() {
        let big = Self.image(.jpeg, .jpeg, 4032, 3024)
        let diagnostics = Validator(profile: .ios).diagnostics(for: big, fileExtension: "jpg")
        #expect(diagnostics.map(\.code) == [.dimensionsTooLarge, .tooManyPixels, .decodedSizeTooLarge])
        #expect(diagnostics.first?.fix == "downscale to 2048 px")
        #expect(Self.codes(big, "jpg", .apple).isEmpty)
    }

    @Test("orientation counts: a 1000×2100 portrait stored landscape is over the long-edge cap either way")
    func orientedDimensions() {
        let portrait = Self.image(.jpeg, .jpeg, 2100, 1000, orientation: 6)
        #expect(portrait.displayWidth == 1000 && portrait.displayHeight == 2100)
        #expect(Self.codes(portrait, "jpg", .ios).first == "dimensions-too-large")
    }

    @Test("byte limits per kind map to iOS error 102; the recommended size only warns")
    func sizes() {
        let huge = Self.image(.jpeg, .jpeg, 1000, 1000, bytes: 12_000_000)
        #expect(Self.codes(huge, "jpg", .apple) == ["file-too-large"])
        let medium = Self.image(.jpeg, .jpeg, 1000, 1000, bytes: 2_000_000)
        let diagnostics = Validator(profile: .ios).diagnostics(for: medium, fileExtension: "jpg")
        #expect(diagnostics.map(\.code) == [.largerThanRecommended])
        #expect(diagnostics.first?.severity == .warning)
        #expect(Self.codes(Self.audio(.wav, "pcm_s16le", duration: 20, bytes: 6_000_000), "wav", .apple) == ["file-too-large"])
        #expect(Self.codes(Self.video(.mp4, .h264, bytes: 60_000_000), "mp4", .apple) == ["file-too-large"])
    }

    @Test("video: HEVC in MP4 passes, VP9 in MP4 needs a transcode, MOV needs a remux, WebM is refused")
    func videoCodecs() {
        #expect(Self.codes(Self.video(.mp4, .hevc), "mp4", .ios).isEmpty)
        let vp9 = Validator(profile: .ios).diagnostics(for: Self.video(.mp4, .vp9, audio: .opus), fileExtension: "mp4")
        #expect(vp9.map(\.code) == [.unsupportedCodec, .unsupportedCodec])
        #expect(vp9.first?.fix == "transcode VP9→H.264")
        let mov = Validator(profile: .ios).diagnostics(for: Self.video(.mov, .h264), fileExtension: "mov")
        #expect(mov.map(\.code) == [.unsupportedType])
        #expect(mov.first?.fix == "remux MOV→MP4 (no re-encode)")
        #expect(Self.codes(Self.video(.webm, .vp9, audio: .opus), "webm", .apple) == ["unsupported-type"])
        #expect(Self.codes(Self.video(.mpegPS, .mpeg2video, audio: "mp2"), "mpg", .apple) == ["unsupported-codec"])
    }

    @Test("duration caps: a 40 s WAV is too long under ios (trim fix), fine under apple")
    func durations() {
        let long = Self.audio(.wav, "pcm_s16le", duration: 40, bytes: 640_000)
        let diagnostics = Validator(profile: .ios).diagnostics(for: long, fileExtension: "wav")
        #expect(diagnostics.map(\.code) == [.durationTooLong])
        #expect(diagnostics.first?.fix == "trim to 30 s")
        #expect(Self.codes(long, "wav", .apple).isEmpty)
        #expect(Self.codes(Self.video(.mp4, .h264, duration: 45), "mp4", .ios) == ["duration-too-long"])
    }

    @Test("audio: Opus in Ogg is refused; FLAC gets a transcode fix; ALAC in M4A passes")
    func audioCodecs() {
        #expect(Self.codes(Self.audio(.ogg, .opus), "opus", .ios) == ["unsupported-type"])
        let flac = Validator(profile: .ios).diagnostics(for: Self.audio(.flac, .flac), fileExtension: "flac")
        #expect(flac.first?.fix == "transcode FLAC→AAC (M4A)")
        #expect(Self.codes(Self.audio(.m4a, .alac), "m4a", .ios).isEmpty)
    }

    @Test("animation frames over the cap")
    func frames() {
        let gif = Self.image(.gif, .gif, 320, 240, frames: 500)
        #expect(Self.codes(gif, "gif", .ios) == ["too-many-frames"])
        #expect(Self.codes(gif, "gif", .apple).isEmpty)
    }

    @Test("too many attachments in one request (ios: 4; apple: no documented limit)")
    func attachments() {
        #expect(Validator(profile: .ios).requestDiagnostics(attachmentCount: 5).map(\.code) == [.tooManyAttachments])
        #expect(Validator(profile: .ios).requestDiagnostics(attachmentCount: 4).isEmpty)
        #expect(Validator(profile: .apple).requestDiagnostics(attachmentCount: 50).isEmpty)
    }

    @Test("a corrupt structure is reported as iOS error 105")
    func corrupt() {
        let subject = ValidationSubject(info: Self.image(.jpeg, .jpeg, 10, 10), fileExtension: "jpg", structure: .corrupt(reason: "no EOI"))
        let diagnostics = IntegrityRule().check(subject, against: .ios)
        #expect(diagnostics.map(\.code) == [.corrupt])
        #expect(diagnostics.first?.code.iosErrorCode == 105)
    }
}
