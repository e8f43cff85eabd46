import Foundation
import Testing
@testable import AttachKit

/// Issue 11: a mutation campaign over TestMedia. Thousands of deterministic mutants of small
/// fixtures (bit flips, byte runs, truncations, length fields set to other values, splices,
/// chunks removed or duplicated) go through one `attachkit serve` as probe, deep validate and
/// prepare; no request may crash or exhaust its worker, every request is answered once, nothing
/// partial is left, inputs stay unchanged, and every output passes its own `validate --deep`.
@Suite("Mutation campaign", .serialized)
struct MutationCampaignTests {
    /// Mutants per run; `ATTACHKIT_MUTANTS=N` runs a longer campaign by hand (never fewer than 2,000).
    static let count = max(2_000, Int(ProcessInfo.processInfo.environment["ATTACHKIT_MUTANTS"] ?? "") ?? 2_100)
    static let seed: UInt64 = 0x0011_A77A
    /// The answers that mean the request broke its worker: contained by the isolation, still a bug.
    static let contained: Set<String> = ["crashed", "over-memory", "timed-out"]

    /// 39 small TestMedia fixtures (under 260 KB: stills, animations, audio, video, two malformed),
    /// weighted so the campaign stays within its time budget: a weight is a share of the mutants,
    /// and formats whose surviving mutants transcode get less (MPEG-PS is left out: its mutants
    /// mostly pass the structure check and transcode, a quarter of the run for one format).
    static let fixtures: [(path: String, weight: Int)] = [
        ("images/gif_static_320x240.gif", 3), ("images/gif_animated_320x240_24f.gif", 2), ("images/png_palette_400x300.png", 3),
        ("images/png_rgba_transparency_320x240.png", 1), ("images/png_16bit_rgb_320x240.png", 1),
        ("images/png_apng_animated_160x120.png", 2), ("images/jpeg_exif_orientation6_600x400.jpg", 3),
        ("images/jpeg_progressive_800x600.jpg", 2), ("images/jpeg_cmyk_400x300.jpg", 1), ("images/jpeg_greyscale_640x480.jpg", 1),
        ("images/jpeg_named_as.png", 1), ("images/jpeg_no_extension", 1), ("images/webp_alpha_320x240.webp", 2),
        ("images/webp_lossy_800x600.webp", 1), ("images/webp_animated_320x240.webp", 1), ("images/avif_800x600.avif", 2),
        ("images/heic_800x600.heic", 1), ("images/bmp_24bit_160x120.bmp", 2), ("images/tiff_lzw_320x240.tif", 1),
        ("audio/ogg_vorbis_5s.ogg", 2), ("audio/ogg_opus_5s.opus", 1), ("audio/aac_adts_5s.aac", 2),
        ("audio/m4a_aac_lc_5s.m4a", 2), ("audio/m4a_alac_22k_mono_5s.m4a", 1), ("audio/mp3_stereo_44k_5s.mp3", 2),
        ("audio/aiff_s16be_16k_mono_5s.aif", 2), ("audio/wav_s16le_16k_mono_5s.wav", 1), ("audio/flac_22k_5s.flac", 1),
        ("video/mp4_h264_aac_320x240_2s.mp4", 3), ("video/mov_h264_aac_320x240_2s.mov", 2), ("video/mkv_h264_aac_320x240_2s.mkv", 2),
        ("video/mp4_hevc_aac_320x240_2s.mp4", 2), ("video/mp4_av1_320x240_2s.mp4", 1), ("video/webm_vp9_opus_320x240_2s.webm", 1),
        ("video/ts_h264_aac_320x240_2s.ts", 1), ("video/avi_mpeg4_mp3_320x240_2s.avi", 1),
        ("video/mp4_h264_160x90_5fps_35s.mp4", 1), ("malformed/wav_data_claims_4gb.wav", 1), ("malformed/mp4_mdat_cut_half.mp4", 1),
    ]

    static func factory() throws -> MutantFactory { try MutantFactory(seed: seed, fixtures: fixtures) }

    @Test("the length-field finder walks every chunked fixture, and writing a field's own value changes nothing")
    func lengthFields() throws {
        let factory = try Self.factory()
        for (path, _) in Self.fixtures {
            let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: TestEnvironment.fixture(path))))
            let fields = factory.lengthFields(path)
            let chunked = !path.hasSuffix(".mp3") && !path.hasSuffix(".tif") && !path.hasSuffix("_no_extension")
            #expect(!chunked || fields.count >= 3, "\(path): \(fields.count) length fields")
            for field in fields.prefix(200) {
                #expect(MutantFactory.same(field.writing(field.value, into: bytes), bytes), "\(path): \(field.description)")
                #expect(field.span.upperBound <= bytes.count && field.offset + field.width <= bytes.count)
            }
        }
    }

    @Test("mutants are deterministic: the same index gives the same bytes and recipe")
    func deterministic() throws {
        let a = try Self.factory(), b = try Self.factory()
        for index in [0, 1, 17, 999, Self.count - 1] {
            #expect(MutantFactory.same(a.mutant(index).bytes, b.mutant(index).bytes))
            #expect(a.mutant(index).recipe == b.mutant(index).recipe)
        }
    }

    /// The three operations each mutant goes through, in request-id order (id = 3 × index + op).
    static let operations = ["probe", "validate", "prepare"]

    static func request(_ id: Int, _ op: String, _ path: String, _ options: [(String, JSONValue)]) -> String {
        JSONValue.object([("id", .number(Double(id))), ("op", .string(op)), ("path", .string(path)), ("options", .object(options))]).serialized
    }

    /// Serve's flags: two jobs, and a wall-clock limit per request so that a hang is answered
    /// `timed-out` (and counted) instead of stalling the campaign; the worker memory limit is the
    /// README's stated bound for any hostile input.
    static let serveArguments = ["--jobs", "2", "--worker-timeout", "20", "--worker-memory", "\(Int(HostileBounds.peakMB))MB"]

    @Test("2,100 mutants through one serve (probe, validate --deep, prepare): no crash, no hang, no leftover, outputs valid, inputs unchanged",
          .timeLimit(.minutes(max(5, count / 400))))
    func campaign() throws {
        let started = Date()
        let root = TestEnvironment.temporaryFolder("mutation")
        // ATTACHKIT_KEEP_MUTANTS=1 keeps the mutants and outputs for reproducing a finding by hand.
        let keep = ProcessInfo.processInfo.environment["ATTACHKIT_KEEP_MUTANTS"] != nil
        defer { if keep { print("mutation campaign: kept \(root.path)") } else { try? FileManager.default.removeItem(at: root) } }
        let media = try root.appendingPathComponent("media", isDirectory: true).creatingFolder()
        let out = try root.appendingPathComponent("out", isDirectory: true).creatingFolder()
        let mutants = try Self.writeMutants(into: media)
        let hashesBefore = try Self.hashes(media)
        let generated = Date().timeIntervalSince(started)

        var lines: [String] = []
        for (index, mutant) in mutants.enumerated() {
            let path = media.appendingPathComponent(mutant.fileName).path
            lines.append(Self.request(3 * index, "probe", path, []))
            lines.append(Self.request(3 * index + 1, "validate", path, [("deep", .bool(true))]))
            lines.append(Self.request(3 * index + 2, "prepare", path, [("out", .string(out.path))]))
        }
        // Watchdogs far above the measured 45–85 s (2,100 mutants, loaded 2 cores), scaled for longer runs.
        let scale = Double(mutants.count) / 2_100
        let run = try ServeRun.run(root: root.path, arguments: Self.serveArguments, lines: lines, timeout: 200 * scale)
        let tally = Self.check(run, mutants: mutants) { media.appendingPathComponent($0.fileName).path }

        let outputs = tally.outputs.sorted { $0.key < $1.key }
        let validation = try ServeRun.run(root: root.path, arguments: ["--jobs", "2"], lines: outputs.map { index, output in
            Self.request(index, "validate", output, [("profile", .string("ios")), ("deep", .bool(true))])
        }, timeout: 120 * scale)
        let invalid = Self.checkOutputs(validation, tally: tally, mutants: mutants)

        let written = Set(InputWalker.filesIncludingHidden(under: root.path).map { root.appendingPathComponent($0).path })
        #expect(written.filter { $0.hasSuffix(".tmp") }.isEmpty, "temporary files left: \(written.filter { $0.hasSuffix(".tmp") }.sorted())")
        let expected = Set(mutants.map { media.appendingPathComponent($0.fileName).path }).union(tally.outputs.values)
        let extra = written.subtracting(expected).filter { !$0.hasSuffix(".tmp") }
        #expect(extra.isEmpty, "files no successful prepare claims: \(extra.sorted().prefix(20))")
        #expect(try Self.hashes(media) == hashesBefore, "an input changed")

        let seconds = Date().timeIntervalSince(started)
        let operators = Dictionary(grouping: mutants) { String($0.recipe.prefix { $0 != ":" }) }
            .map { "\($0.key) \($0.value.count)" }.sorted().joined(separator: ", ")
        print("mutation campaign: \(mutants.count) mutants of \(Self.fixtures.count) fixtures (\(operators)), \(lines.count) requests in \(Int(run.seconds)) s "
              + "(+ \(outputs.count) output validations in \(Int(validation.seconds)) s, generation \(Int(generated)) s), total \(Int(seconds)) s; "
              + "answers: \(tally.summary); contained failures: \(tally.contained.count); invalid outputs: \(invalid); "
              + (run.log.split(separator: "\n").last { $0.contains("answered") }.map(String.init) ?? "serve printed no summary"))
    }

    /// The mutants, written into `folder` (their bytes are dropped once written).
    static func writeMutants(into folder: URL) throws -> [Mutant] {
        let factory = try factory()
        return try (0..<count).map { index in
            let mutant = factory.mutant(index)
            try Data(mutant.bytes).write(to: folder.appendingPathComponent(mutant.fileName))
            return Mutant(index: mutant.index, fixture: mutant.fixture, recipe: mutant.recipe, bytes: [])
        }
    }

    /// `sha256sum` of every file in `folder`, one line each, sorted by name.
    static func hashes(_ folder: URL) throws -> String {
        let result = try TestEnvironment.run("sh", ["-c", "cd \"$1\" && find . -type f -print0 | sort -z | xargs -0 sha256sum", "sh", folder.path])
        #expect(result.status == 0, "\(result.stderr)")
        return result.stdout
    }
}

/// What the campaign's serve run answered, counted by operation and code.
struct CampaignTally {
    var counts: [String: Int] = [:]
    /// Mutant index → the output a successful prepare wrote.
    var outputs: [Int: String] = [:]
    /// Mutant index → the headline action of its successful prepare.
    var actions: [Int: String] = [:]
    /// Requests that broke their worker: (mutant, op, code, message).
    var contained: [(Mutant, String, String, String)] = []

    var summary: String { counts.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ") }
}

extension MutationCampaignTests {
    /// Every request answered exactly once, serve exited 0 with a clean ledger, and no answer
    /// says a worker crashed or broke a limit.
    static func check(_ run: ServeRun, mutants: [Mutant], mediaPath: (Mutant) -> String) -> CampaignTally {
        #expect(!run.killedByWatchdog, "serve did not finish in time: \(run.answers.count) of \(mutants.count * 3) answered")
        #expect(run.status == 0, "serve exited \(run.status.map(String.init) ?? "by the watchdog"): \(run.log.suffix(2_000))")
        #expect(run.unparsable.isEmpty, "unparsable answers: \(run.unparsable.prefix(5))")
        #expect(run.log.contains("0 outstanding, 0 leaked"), "\(run.log.suffix(2_000))")
        var tally = CampaignTally()
        var seen = [Int](repeating: 0, count: mutants.count * 3)
        for answer in run.answers {
            guard let id = answer["id"]?.intValue, seen.indices.contains(id) else {
                Issue.record("an answer with an unknown id: \(answer.serialized.prefix(300))")
                continue
            }
            seen[id] += 1
            let mutant = mutants[id / 3], op = operations[id % 3]
            var code = answer["ok"] == .bool(true) ? "ok" : answer["error"]?["code"]?.stringValue ?? "no-code"
            if op == "validate", code == "ok" { code = answer["result"]?["ok"] == .bool(true) ? "pass" : "fail" }
            if op == "prepare", code == "ok" { code = answer["result"]?["action"]?.stringValue ?? "ok" }
            tally.counts["\(op) \(code)", default: 0] += 1
            if contained.contains(code) {
                let message = answer["error"]?["message"]?.stringValue ?? ""
                tally.contained.append((mutant, op, code, message))
            }
            if op == "prepare", answer["ok"] == .bool(true), let output = answer["result"]?["output"]?.stringValue {
                tally.outputs[mutant.index] = output
                tally.actions[mutant.index] = code
            }
        }
        let unanswered = seen.indices.filter { seen[$0] == 0 }, repeated = seen.indices.filter { seen[$0] > 1 }
        #expect(unanswered.isEmpty, "\(unanswered.count) requests unanswered, first: \(unanswered.prefix(10).map { describe(mutants[$0 / 3], operations[$0 % 3]) })")
        #expect(repeated.isEmpty, "requests answered more than once: \(repeated.prefix(10))")
        for (mutant, op, code, message) in tally.contained {
            let text = Comment(rawValue: "\(code) on \(describe(mutant, op)): \(message)")
            Issue.record(text)
        }
        return tally
    }

    /// Every output a prepare wrote passes `validate --deep` with the profile it was prepared for.
    static func checkOutputs(_ run: ServeRun, tally: CampaignTally, mutants: [Mutant]) -> Int {
        let outputs = tally.outputs
        #expect(run.status == 0 && !run.killedByWatchdog, "the output validation run failed: \(run.log.suffix(2_000))")
        #expect(run.answers.count == outputs.count, "\(run.answers.count) answers for \(outputs.count) outputs")
        var invalid = 0
        for answer in run.answers {
            guard let index = answer["id"]?.intValue, let output = outputs[index] else { continue }
            guard answer["ok"] != .bool(true) || answer["result"]?["ok"] != .bool(true) else { continue }
            invalid += 1
            let found = answer["result"]?["diagnostics"]?.arrayValue?.compactMap { $0["message"]?.stringValue } ?? []
            let error = answer["error"]?["message"]?.stringValue ?? ""
            let action = tally.actions[index] ?? "?"
            let text = "the \(action) output of \(describe(mutants[index], "prepare")) fails validate --deep: \(output): \(error) \(found)"
            Issue.record(Comment(rawValue: text))
        }
        return invalid
    }

    static func describe(_ mutant: Mutant, _ op: String) -> String {
        "\(op) of mutant \(mutant.index) (\(mutant.fileName), seed \(seed)) of \(mutant.fixture): \(mutant.recipe)"
    }
}

extension MutationCampaignTests {
    /// One mutant from the campaign's findings, rebuilt by hand: the fixture and what to do to it.
    struct Finding: Sendable, CustomStringConvertible {
        let fixture: String
        let recipe: String
        let action: String
        let mutate: @Sendable ([UInt8]) -> [UInt8]
        var description: String { "\(fixture): \(recipe)" }
    }

    static let copiedWithoutDecoding: [Finding] = [
        Finding(fixture: "images/jpeg_exif_orientation6_600x400.jpg", recipe: "DQT segment (bytes 107..<176) removed", action: "passthrough") {
            Array($0[..<107] + $0[176...])
        },
        Finding(fixture: "images/gif_static_320x240.gif", recipe: "bytes 1776..<1786 set to 0xFF", action: "passthrough") {
            var b = $0; for i in 1776..<1786 { b[i] = 0xFF }; return b
        },
        Finding(fixture: "images/png_palette_400x300.png", recipe: "last IDAT chunk (bytes 33650..<40964) removed", action: "passthrough") {
            Array($0[..<33650] + $0[40964...])
        },
        Finding(fixture: "video/mp4_h264_aac_320x240_2s.mp4", recipe: "bytes 3736..<3762 set to 0xFF", action: "passthrough") {
            var b = $0; for i in 3736..<3762 { b[i] = 0xFF }; return b
        },
        Finding(fixture: "video/mkv_h264_aac_320x240_2s.mkv", recipe: "bit 5 of byte 2140 flipped", action: "remuxed") {
            var b = $0; b[2140] ^= 1 << 5; return b
        },
        Finding(fixture: "audio/aac_adts_5s.aac", recipe: "bytes 2608..<2613 set to 0x00", action: "remuxed") {
            var b = $0; for i in 2608..<2613 { b[i] = 0 }; return b
        },
    ]

    /// Found by the campaign: passthrough, renamed and stream-copied outputs were handed back
    /// without being decoded. They are now decoded in full before they are handed back.
    @Test("damaged coded data that only a decoder notices is refused as corrupt or decodes, never copied through as valid",
          arguments: copiedWithoutDecoding)
    func copiedWithoutDecoding(_ finding: Finding) throws {
        // Given: a fixture damaged where only a decoder notices
        let root = TestEnvironment.temporaryFolder("mutation-finding")
        defer { try? FileManager.default.removeItem(at: root) }
        let input = root.appendingPathComponent(PathResolver.fileName(finding.fixture))
        let original = try [UInt8](Data(contentsOf: URL(fileURLWithPath: TestEnvironment.fixture(finding.fixture))))
        try Data(finding.mutate(original)).write(to: input)
        #expect(!(try Through.validate(input.path, scope: root, profile: .ios, deep: true)).diagnostics.filter { $0.code == .corrupt }.isEmpty,
                "validate --deep finds the input corrupt")

        // When: it is prepared
        let ledger = AccessLedger(scopes: [try AccessScope.folder(root.path)])
        let handle = try ledger.acquire(input.path)
        let out = try root.appendingPathComponent("out", isDirectory: true).creatingFolder()
        let report = Preparer(options: PrepareOptions(profile: .ios, outputFolder: out.path)).prepare(handle, ledger: ledger)
        handle.release()
        #expect(ledger.report.isClean)

        // Then: either refused as corrupt, or an output that decodes
        guard let output = report.output else {
            #expect(report.error?.code == "corrupt")
            return
        }
        let check = try Through.validate(output, scope: root, profile: .ios, deep: true)
        #expect(check.ok, "\(report.action?.rawValue ?? "?") output \(output): \(check.errors.map(\.message))")
    }
}

extension MutationCampaignTests {
    @Test("an MP4 without its mvhd box (degenerate display matrix) gets a verdict from probe and validate, never a signal",
          arguments: ["video/mp4_h264_aac_320x240_2s.mp4", "video/mov_h264_aac_320x240_2s.mov"])
    func missingMovieHeader(_ fixture: String) throws {
        // Given: the fixture with its mvhd box removed (the campaign's mutant 1274 did this to the AV1 MP4)
        let root = TestEnvironment.temporaryFolder("mutation-mvhd")
        defer { try? FileManager.default.removeItem(at: root) }
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: TestEnvironment.fixture(fixture))))
        let mvhd = try #require(LengthFieldFinder.fields(in: bytes).first { $0.format == "box mvhd" })
        let input = root.appendingPathComponent(PathResolver.fileName(fixture)).path
        try Data(bytes[..<mvhd.span.lowerBound] + bytes[mvhd.span.upperBound...]).write(to: URL(fileURLWithPath: input))

        // When: probed and validated by the CLI (in a child process: the bug kills the process)
        let probe = try TestEnvironment.runAttachKit(["probe", "--json", input])
        let validate = try TestEnvironment.runAttachKit(["validate", "--deep", "--json", input])

        // Then: each exits with a verdict (0 or 1), never a signal
        #expect(probe.status == 0 || probe.status == 1, "probe exit \(probe.status): \(probe.stderr.prefix(300))")
        #expect(validate.status == 0 || validate.status == 1, "validate exit \(validate.status): \(validate.stderr.prefix(300))")
    }
}
