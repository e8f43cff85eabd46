import Foundation
import Testing
@testable import AttachKit

/// Issue 18: no file that shows nothing is handed back as a valid attachment. Files without a
/// sample are `corrupt` ("no samples"), encrypted media is `encrypted`, codecs and item types the
/// decoders here lack are `unsupported` (never `corrupt`), from every verb, in the library and
/// through `serve`; WAVE data that is not linear PCM is never passed through as `.wav`; and the
/// duration cap is held against the work (a trim of a 4.4-hour file is allowed, a whole decode not).
@Suite("Nothing to show: no samples, encrypted, undecodable codecs, non-PCM WAVE, caps on the work", .serialized)
struct NothingToShowTests {
    /// What every verb says about one fixture of TestMedia/malformed (generate.sh, "issue 18").
    struct Refusal: Sendable, CustomStringConvertible {
        let file: String
        /// The code of `prepare` and `thumbnail` (and of `probe` when ``probe`` says so).
        let code: String
        /// The error diagnostic `validate --deep` gives.
        let diagnostic: String
        /// What the prepare message says.
        let words: String
        /// Whether the header probe already refuses it (a picture libheif cannot read, encryption
        /// the box tree declares).
        var probe = false

        var path: String { TestEnvironment.fixture("malformed/" + file) }
        var description: String { file }
    }

    static let noSamples = "no samples"
    static let drm = "DRM-protected media cannot play in a notification"
    static let notHere = "cannot be verified or converted here"

    static let refusals: [Refusal] = [
        Refusal(file: "mp4_init_segment_video.mp4", code: "corrupt", diagnostic: "corrupt", words: noSamples),
        Refusal(file: "m4a_init_segment_audio.m4a", code: "corrupt", diagnostic: "corrupt", words: noSamples),
        Refusal(file: "mp4_init_segment_declares_30s.mp4", code: "corrupt", diagnostic: "corrupt", words: noSamples),
        Refusal(file: "aiff_ssnd_empty.aif", code: "corrupt", diagnostic: "corrupt", words: noSamples),
        Refusal(file: "wav_data_empty.wav", code: "corrupt", diagnostic: "corrupt", words: noSamples),
        Refusal(file: "mp4_encrypted_cenc_160x120.mp4", code: "encrypted", diagnostic: "encrypted", words: drm, probe: true),
        Refusal(file: "mp4_encrypted_cbcs_encv_160x120.mp4", code: "encrypted", diagnostic: "encrypted", words: drm, probe: true),
        Refusal(file: "m4a_xhe_aac_object_type_42.m4a", code: "unsupported", diagnostic: "unsupported-codec", words: "xHE-AAC"),
        Refusal(file: "mp4_vvc1_sample_entry.mp4", code: "unsupported", diagnostic: "unsupported-codec", words: "VVC"),
        Refusal(file: "m4a_iamf_sample_entry.m4a", code: "unsupported", diagnostic: "unsupported-codec", words: "IAMF"),
        Refusal(file: "opus_channel_mapping_family_3.opus", code: "unsupported", diagnostic: "unsupported-codec", words: "opus audio"),
        Refusal(file: "heic_unci_item.heic", code: "unsupported", diagnostic: "unsupported-codec", words: "'unci'", probe: true),
    ]

    @Test("each file that shows nothing: the same refusal from probe, validate --deep, prepare and thumbnail, in the library and through serve; nothing written",
          .timeLimit(.minutes(5)))
    func refusedEverywhere() throws {
        // Given the issue 18 fixtures
        let out = TestEnvironment.temporaryFolder("nothing-to-show")
        // When every verb meets each, in the library and through serve
        let library = try Self.refusals.map { try ErrorAgreementTests.library($0.path, out: out) }
        #expect(InputWalker.filesIncludingHidden(under: out.path).isEmpty, "written: \(InputWalker.filesIncludingHidden(under: out.path))")
        let served = try ErrorAgreementTests.serve(Self.refusals.map(\.path), out: out)
        // Then each says the refusal, never ok, and serve agrees with the library
        for (index, refusal) in Self.refusals.enumerated() {
            let outcome = library[index]
            let comment = Comment(rawValue: "\(refusal.file): \(outcome)")
            #expect(outcome.probe == (refusal.probe ? refusal.code : nil), comment)
            #expect(outcome.deep.contains(refusal.diagnostic), comment)
            #expect(!outcome.deep.contains("corrupt") || refusal.code == "corrupt", "a decoder AttachKit lacks is not corruption: \(comment)")
            #expect(outcome.prepare == refusal.code, comment)
            #expect(outcome.thumbnail == refusal.code, comment)
            #expect(served[index] == outcome, "\(refusal.file): library \(outcome), serve \(served[index])")
            ErrorAgreementTests.checkVerbsAgree(outcome, refusal.file)
        }
        #expect(InputWalker.filesIncludingHidden(under: out.path).isEmpty, "serve wrote \(InputWalker.filesIncludingHidden(under: out.path))")
    }

    @Test("the prepare message says why: no samples, DRM, or the codec that cannot be decoded here", arguments: refusals)
    func messages(refusal: Refusal) throws {
        let outcome = try AVPrepare.run(refusal.path, scope: TestEnvironment.testMedia)
        let error = try #require(outcome.report.error, "\(refusal.file) was prepared")
        #expect(error.code.rawValue == refusal.code)
        #expect(error.message.contains(refusal.words), "\(error.message)")
        if refusal.code == "unsupported" { #expect(error.message.contains(Self.notHere), "\(error.message)") }
        #expect(outcome.files.isEmpty, "left \(outcome.files)")
        #expect(!outcome.report.ok)
    }

    @Test("a fragmented MP4 with its fragments is real media: validated and prepared")
    func fragmentedWithFragments() throws {
        let path = TestEnvironment.fixture("video/mp4_fragmented_h264_160x120_2s.mp4")
        let report = try Through.validate(path, scope: TestEnvironment.testMedia, profile: .ios, deep: true)
        #expect(report.ok, "\(report.errors.map(\.message))")
        let outcome = try AVPrepare.run(path, scope: TestEnvironment.testMedia)
        #expect(outcome.report.ok, "\(String(describing: outcome.report.error))")
        #expect(outcome.files.count == 1)
    }

    @Test("a deep check that decodes no frame at all says no samples (an MPEG-TS whose audio PID carries no packet)")
    func deepCheckFindsNoFrame() throws {
        // Given an MPEG-TS that keeps only its PAT and PMT (the PMT still declares AAC audio)
        let folder = TestEnvironment.temporaryFolder("no-pes")
        let source = try Data(contentsOf: URL(fileURLWithPath: TestEnvironment.fixture("video/ts_h264_aac_320x240_2s.ts")))
        let packets = stride(from: 0, to: source.count - 187, by: 188).map { source.subdata(in: $0..<$0 + 188) }
        let tables = packets.filter { packet in
            let pid = Int(packet[packet.startIndex + 1] & 0x1F) << 8 | Int(packet[packet.startIndex + 2])
            return pid == 0 || pid == 0x1000
        }
        let path = folder.appendingPathComponent("ts_tables_only.ts")
        try Data(tables.joined()).write(to: path)
        guard let info = try? Through.probe(path.path, scope: folder), info.kind != .unknown else { return }  // probe refuses it: refused anyway
        // When it is checked in depth
        let report = try Through.validate(path.path, scope: folder, profile: .apple, deep: true)
        // Then nothing decodes, so it is corrupt with no samples; and prepare never says ok
        #expect(report.errors.contains { $0.code == .corrupt && $0.message.contains(Self.noSamples) }, "\(report.diagnostics.map(\.message))")
        #expect(try AVPrepare.run(path.path, scope: folder).report.ok == false)
    }

    @Test("a 'pssh' box alone marks a movie encrypted")
    func psshAlone() throws {
        let folder = TestEnvironment.temporaryFolder("pssh")
        var bytes = try Data(contentsOf: URL(fileURLWithPath: TestEnvironment.fixture("video/mp4_h264_aac_320x240_2s.mp4")))
        let body: [UInt8] = [0, 0, 0, 0] + [UInt8](repeating: 0xAB, count: 16) + [0, 0, 0, 0]
        bytes.append(contentsOf: [0, 0, 0, UInt8(8 + body.count)] + Array("pssh".utf8) + body)
        let path = folder.appendingPathComponent("pssh.mp4")
        try bytes.write(to: path)
        let report = try Through.validate(path.path, scope: folder, profile: .ios)
        #expect(report.errors.map(\.code) == [.encrypted], "\(report.diagnostics.map(\.message))")
    }

    // MARK: WAVE data that is not linear PCM

    static let waveFormats: [(file: String, output: String)] = [
        ("wav_mp3_8k_mono_1s.wav", "mp3"), ("wav_adpcm_ms_8k_mono_1s.wav", "m4a"), ("wav_adpcm_ima_8k_mono_1s.wav", "m4a"),
        ("wav_alaw_8k_mono_1s.wav", "m4a"), ("wav_mulaw_8k_mono_1s.wav", "m4a"),
    ]

    @Test("WAVE data that is not linear PCM: validate says unsupported-codec and prepare converts it (MP3 copied to .mp3, the rest to AAC), never a .wav",
          arguments: waveFormats.map(\.file), ["apple", "ios"])
    func waveFormat(file: String, profile: String) throws {
        let path = TestEnvironment.fixture("audio/" + file)
        let expected = try #require(Self.waveFormats.first { $0.file == file }?.output)
        let report = try Through.validate(path, scope: TestEnvironment.testMedia, profile: Profile.builtIn[profile]!)
        #expect(!report.ok && report.errors.contains { $0.code == .unsupportedCodec }, "\(report.diagnostics.map(\.message))")
        let outcome = try AVPrepare.run(path, scope: TestEnvironment.testMedia, profile: Profile.builtIn[profile]!)
        let output = try #require(outcome.report.output, "\(file): \(String(describing: outcome.report.error))")
        #expect(PathResolver.fileExtension(output) == expected, "\(output)")
        #expect(outcome.report.action != .passthrough)
    }

    @Test("linear PCM WAVE is still handed over as it is")
    func linearPCM() throws {
        let path = TestEnvironment.fixture("audio/wav_s16le_16k_mono_5s.wav")
        #expect(try Through.validate(path, scope: TestEnvironment.testMedia, profile: .apple).ok)
        #expect(try AVPrepare.run(path, scope: TestEnvironment.testMedia, profile: .apple).report.action == .passthrough)
    }

    // MARK: Caps on the work

    static let audiobook = TestEnvironment.fixture("audio/m4a_audiobook_declares_4h24m.m4a")

    @Test("a 4.4-hour audiobook trimmed to 30 s is prepared (a stream copy of its start); a whole decode of it is over the cap")
    func capsOnTheWork() throws {
        // Given a file whose header declares 4.4 hours, over the 4-hour cap
        let info = try Through.probe(Self.audiobook, scope: TestEnvironment.testMedia)
        #expect((info.duration ?? 0) > SafetyLimits().maxDuration)
        // When it is prepared for ios (30 s), it is trimmed: a stream copy of its start
        let trimmed = try AVPrepare.run(Self.audiobook, scope: TestEnvironment.testMedia, profile: .ios)
        #expect(trimmed.report.ok, "\(String(describing: trimmed.report.error))")
        #expect(trimmed.report.actions.contains(.trimmed))
        #expect((trimmed.report.after?.duration ?? .infinity) <= 30.5)
        // ...but what would read it whole is refused before decoding: a deep check, a prepare keeping all of it
        let deep = try Through.validate(Self.audiobook, scope: TestEnvironment.testMedia, profile: .ios, deep: true)
        #expect(deep.errors.contains { $0.code == .overCap && $0.message.contains("maxDuration") })
        let whole = try AVPrepare.run(Self.audiobook, scope: TestEnvironment.testMedia, profile: .apple)
        #expect(whole.report.error?.code == .overCap, "\(String(describing: whole.report.error))")
        #expect(whole.files.isEmpty)
    }

    @Test("the duration cap counts what the work reads: the whole file, a window, or one picture")
    func workSpan() {
        var info = MediaInfo(path: "book.m4a", bytes: 1000, kind: .audio, container: .m4a)
        info.duration = 4.4 * 3600
        let limits = SafetyLimits()
        #expect(limits.violation(for: info)?.cap == "maxDuration")
        #expect(limits.violation(for: info, span: .window(audio: 30, video: nil)) == nil)
        #expect(limits.violation(for: info, span: .window(audio: nil, video: 30))?.cap == "maxDuration")
        #expect(limits.violation(for: info, span: .picture) == nil)
        #expect(WorkSpan.window(audio: 30, video: nil).seconds(of: info) == 30)
    }

    @Test("encrypted: its own code, final for a batch, exit status 1, HTTP 415 like unsupported")
    func encryptedCode() {
        #expect(ErrorCode.encrypted.rawValue == "encrypted")
        #expect(!ErrorCode.encrypted.isRetryable)
        #expect(ErrorCode.encrypted.exitStatus == 1)
        #expect(ErrorCode.encrypted.httpStatus == 415)
        #expect(PrepareError(StructureVerdict.encrypted(reason: "x"))?.code == .encrypted)
        #expect(PrepareError(StructureVerdict.undecodable(reason: "x"))?.code == .unsupported)
    }
}
