import Foundation
import Testing
@testable import AttachKit

/// Issue 29, class 4 (the right diagnosis) for MPEG transport streams. FFmpeg 5.1's MPEG-TS
/// reader guesses the codec of a stream type it does not know from the payload, so MPEG-H 3D
/// Audio, AC-4 or DTS-HD in a private stream were read as MP3 or MP2: `validate` advised
/// "transcode MP3→AAC" and `prepare` failed with "write header: Invalid argument". The PMT says
/// what each stream is: such a stream is named by it, refused from every verb as a codec that
/// cannot be decoded here (`unsupported-codec` / `unsupported`), and left out with a note where
/// other streams decode. And a data stream (SCTE-35 cues) that widens the container's span is not
/// media the deep check can miss: the declared span is the media's.
///
/// The files are made here: MP2 (or AAC, DTS) muxed by ffmpeg, the PMT then rewritten
/// (``TransportStreamEditor``). The payload stays what ffmpeg wrote, which is what a misread is:
/// the PMT says one codec, FFmpeg reads another.
@Suite("MPEG-TS: codecs from the PMT, data streams outside the declared span (issue 29)", .serialized)
struct TransportStreamDiagnosisTests {
    static let folder = TestEnvironment.temporaryFolder("ts-diagnosis")
    typealias Editor = TransportStreamEditor

    /// An MP2 transport stream of `seconds` with its PMT edited by `edit`, written as `name`.
    static func relabelled(_ name: String, seconds: Double = 1, _ edit: (inout Editor.Map) -> Void) throws -> String {
        let source = folder.appendingPathComponent("source-\(name)").path
        try Editor.mp2(seconds: seconds, to: source)
        let path = folder.appendingPathComponent(name).path
        try Editor.rewriteMap(try Data(contentsOf: URL(fileURLWithPath: source)), edit).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// The first stream's type and descriptors replaced.
    static func firstStream(_ type: UInt8, _ descriptors: [UInt8] = []) -> (inout Editor.Map) -> Void {
        { map in
            map.streams[0].streamType = type
            map.streams[0].descriptors = descriptors
        }
    }

    static func json(_ arguments: [String]) throws -> JSONValue {
        let run = try TestEnvironment.runAttachKit(arguments)
        return try JSONValue.parse(run.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    static func codes(_ report: JSONValue, severity: String? = nil) -> [String] {
        (report["diagnostics"]?.arrayValue ?? []).filter { $0["severity"]?.stringValue == severity }.compactMap { $0["code"]?.stringValue }
    }

    // MARK: The program tables

    @Test("the PAT and PMT are read from the first packets: stream types, registrations, DVB extension descriptors, a PMT over two packets; a PMT whose CRC fails is not taken")
    func programTables() throws {
        // Given a PMT of 2 packets (a stream with 180 bytes of descriptors), Blu-ray registered
        let path = try Self.relabelled("tables.ts") { map in
            map.programInfo = Editor.registration("HDMV")
            map.streams[0].streamType = 0x86
            map.streams[0].descriptors = Editor.dvbExtension(0x0E) + Editor.registration("DTS1")
            map.streams.append(.init(streamType: 0x2D, pid: 0x1FF0, descriptors: [UInt8]((0..<45).flatMap { _ in [0x52, 0x02, 0x00, 0x01] })))
        }
        // When the tables are read
        let read = TransportStreamPrograms.read(try FileReader(path: path))
        let programs = try #require(read)
        // Then both streams are there, as written
        #expect(programs.streams.map(\.pid) == [0x100, 0x1FF0])
        #expect(programs.streams.map(\.streamType) == [0x86, 0x2D])
        #expect(programs.streams[0].programRegistration == "HDMV")
        #expect(programs.streams[0].registration == "DTS1")
        #expect(programs.streams[0].dvbExtensions == [0x0E])
        #expect(programs.streams[1].descriptors.count == 45)
        #expect(DeclaredCodec(programs.streams[0])?.name == "DTS-HD Master Audio")
        #expect(DeclaredCodec(programs.streams[1])?.codec == "mpegh_3d_audio")

        // Given the same stream with one byte of every PMT's stream loop changed (its CRC no longer matches)
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let pmt = try #require(Editor.mapPID(Editor.packets(Data(bytes))))
        for start in stride(from: 0, to: bytes.count, by: 188) where Editor.pid(Array(bytes[start..<start + 188])) == pmt && bytes[start + 1] & 0x40 != 0 {
            bytes[start + 5 + 12 + 6] ^= 0x01  // the first stream's type: 0x86 → 0x87
        }
        let damaged = Self.folder.appendingPathComponent("tables-bad-crc.ts")
        try Data(bytes).write(to: damaged)
        // Then no program is read from it
        let none = TransportStreamPrograms.read(try FileReader(path: damaged.path))
        #expect(none == nil)
    }

    @Test("what the PMT declares: MPEG-H by stream type, registration or descriptor; AC-4; DTS-HD by Blu-ray type or DVB descriptor; SCTE-35's 0x86 outside Blu-ray is no codec")
    func declaredCodecs() {
        typealias Stream = TransportStreamPrograms.ElementaryStream
        typealias Descriptor = TransportStreamPrograms.Descriptor
        func declared(_ type: UInt8, _ descriptors: [Descriptor] = [], program: String? = nil) -> DeclaredCodec? {
            DeclaredCodec(Stream(pid: 0x100, streamType: type, descriptors: descriptors, programRegistration: program))
        }
        let registration = { (format: String) in Descriptor(tag: 0x05, body: Array(format.utf8)) }
        #expect(declared(0x2D).map { [$0.codec.rawValue, $0.decodable ? "decodable" : "not"] } == ["mpegh_3d_audio", "not"])
        #expect(declared(0x2E)?.name == "MPEG-H 3D Audio (auxiliary stream)")
        #expect(declared(0x06, [registration("mha1")])?.codec == "mpegh_3d_audio")
        #expect(declared(0x06, [Descriptor(tag: 0x3F, body: [0x08, 0x01])])?.codec == "mpegh_3d_audio")
        #expect(declared(0x06, [Descriptor(tag: 0x7F, body: [0x15, 0x00])]).map { [$0.codec.rawValue, $0.evidence] }
                == ["ac4", "stream type 0x06 with a DVB AC-4 descriptor"])
        #expect(declared(0x06, [registration("AC-4")])?.codec == "ac4")
        #expect(declared(0x06, [Descriptor(tag: 0x7F, body: [0x0E])]).map { [$0.name, $0.decodable ? "decodable" : "not"] } == ["DTS-HD", "decodable"])
        #expect(declared(0x85, program: "HDMV")?.name == "DTS-HD High Resolution Audio")
        #expect(declared(0x86, program: "HDMV")?.name == "DTS-HD Master Audio")
        #expect(declared(0x86) == nil, "0x86 outside Blu-ray is SCTE-35")
        #expect(declared(0x86, program: "CUEI") == nil)
        #expect(declared(0x06, [registration("DTS2")])?.readAs == ["dts"])
        #expect(declared(0x06, [Descriptor(tag: 0x6A, body: [0x00])])?.codec == "ac3")
        #expect(declared(0x87, [registration("EAC3")])?.readAs == ["eac3", "ac3"])
        #expect(declared(0x1B) == nil && declared(0x06) == nil && declared(0x15) == nil)

        // FFmpeg's reading held against it
        let mpegH = declared(0x2D)!, dtsHD = declared(0x06, [Descriptor(tag: 0x7F, body: [0x0E])])!
        #expect(mpegH.refusal(readAs: "mp3", pid: 0x100)
                == "MPEG-H 3D Audio (stream type 0x2D, PID 0x0100), which FFmpeg 5.1's MPEG-TS reader takes for mp3: FFmpeg 5.1 cannot decode it, so it cannot be verified or converted here")
        #expect(dtsHD.refusal(readAs: "dts", pid: 0x100) == nil, "DTS-HD read as DTS decodes")
        #expect(dtsHD.refusal(readAs: "mp3", pid: 0x100)?.contains("which FFmpeg 5.1's MPEG-TS reader takes for mp3") == true)
        #expect(dtsHD.refusal(readAs: .unidentified, pid: 0x100)?.contains("does not identify") == true)
    }

    // MARK: Refused from every verb

    struct Relabel: Sendable, CustomStringConvertible {
        let file: String
        let type: UInt8
        let descriptors: [UInt8]
        let codec: String
        let name: String
        /// The payload after each PES header zeroed: no prober of FFmpeg's knows it, so its reader
        /// leaves the stream of no known kind (as it may a real AC-4 or MPEG-H payload).
        var silenced = false
        var description: String { file }
        var readAs: String { silenced ? "which FFmpeg 5.1's MPEG-TS reader does not identify" : "which FFmpeg 5.1's MPEG-TS reader takes for mp2" }
    }

    /// `path` with every byte after the PES headers of PID 0x100 zeroed.
    static func silence(_ path: String) throws {
        var packets = Editor.packets(try Data(contentsOf: URL(fileURLWithPath: path)))
        for index in packets.indices where Editor.pid(packets[index]) == 0x100 && packets[index][3] & 0x10 != 0 {
            var start = 4 + (packets[index][3] & 0x20 != 0 ? 1 + Int(packets[index][4]) : 0)
            if packets[index][1] & 0x40 != 0 { start += 9 + Int(packets[index][start + 8]) }
            for byte in start..<188 { packets[index][byte] = 0 }
        }
        try Data(packets.joined()).write(to: URL(fileURLWithPath: path))
    }

    static let relabels: [Relabel] = [
        Relabel(file: "mpegh_type_2d.ts", type: 0x2D, descriptors: [], codec: "mpegh_3d_audio", name: "MPEG-H 3D Audio (stream type 0x2D, PID 0x0100)"),
        Relabel(file: "mpegh_mhm1.ts", type: 0x06, descriptors: Editor.registration("mhm1"), codec: "mpegh_3d_audio",
                name: "MPEG-H 3D Audio (stream type 0x06 with registration 'mhm1', PID 0x0100)"),
        Relabel(file: "ac4_dvb.ts", type: 0x06, descriptors: Editor.dvbExtension(0x15), codec: "ac4",
                name: "AC-4 (stream type 0x06 with a DVB AC-4 descriptor, PID 0x0100)"),
        Relabel(file: "dtshd_dvb_misread.ts", type: 0x06, descriptors: Editor.dvbExtension(0x0E), codec: "dts",
                name: "DTS-HD (stream type 0x06 with a DVB DTS-HD descriptor, PID 0x0100)"),
        Relabel(file: "ac4_unidentified.ts", type: 0x06, descriptors: Editor.dvbExtension(0x15), codec: "ac4",
                name: "AC-4 (stream type 0x06 with a DVB AC-4 descriptor, PID 0x0100)", silenced: true),
    ]

    @Test("MPEG-H (by stream type, by registration), AC-4 (read as MP2, or not identified at all) and a DTS-HD that FFmpeg takes for MP2: probe names the PMT's codec; validate (--deep), prepare and thumbnail refuse it as not decodable here, by name, in the library and through serve",
          .timeLimit(.minutes(5)))
    func refusedFromEveryVerb() throws {
        // Given audio-only streams whose PMT declares a codec FFmpeg reads as MP2
        let paths = try Self.relabels.map { relabel in
            let path = try Self.relabelled(relabel.file, Self.firstStream(relabel.type, relabel.descriptors))
            if relabel.silenced { try Self.silence(path) }
            return path
        }
        let out = Self.folder.appendingPathComponent("every-verb")
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        // When every verb meets each
        let library = try paths.map { try ErrorAgreementTests.library($0, out: out) }
        let served = try ErrorAgreementTests.serve(paths, out: out)
        for (index, relabel) in Self.relabels.enumerated() {
            let path = paths[index], outcome = library[index]
            let comment = Comment(rawValue: "\(relabel.file): \(outcome)")
            // Then probe reads it, naming the declared codec and why it cannot be decoded; FFmpeg's
            // misreading (its sample rate and channels) is not reported as the file's
            #expect(outcome.probe == nil && outcome.kind == "audio", comment)
            let probed = try Self.json(["probe", "--json", path])
            #expect(probed["codec"]?.stringValue == relabel.codec, "\(probed.serialized)")
            #expect(probed["sampleRate"] == nil && probed["channels"] == nil, "\(probed.serialized)")
            let stream = try #require(probed["undecodableStreams"]?.arrayValue?.first, "\(probed.serialized)")
            #expect(stream["id"]?.intValue == 0x100 && stream["codec"]?.stringValue == relabel.codec)
            #expect(stream["reason"]?.stringValue?.hasPrefix(relabel.name + ", " + relabel.readAs) == true,
                    "\(stream.serialized)")
            // validate --deep, prepare and thumbnail refuse it as not decodable here, never corrupt
            #expect(outcome.deep == ["unsupported-codec", "unsupported-type"], comment)
            #expect(outcome.prepare == "unsupported" && outcome.thumbnail == "unsupported", comment)
            #expect(served[index] == outcome, "\(relabel.file): library \(outcome), serve \(served[index])")
            ErrorAgreementTests.checkVerbsAgree(outcome, relabel.file)
            // and the messages name it; no fix offers a transcode of what nothing here decodes
            let validated = try Self.json(["validate", "--json", path])
            let diagnostics = validated["diagnostics"]?.arrayValue ?? []
            #expect(diagnostics.first?["message"]?.stringValue?.hasPrefix(relabel.name) == true, "\(validated.serialized)")
            #expect(!diagnostics.contains { $0["fix"]?.stringValue?.contains("transcode") == true }, "\(validated.serialized)")
            let prepared = try Self.json(["prepare", "--json", "--out", out.path, path])
            #expect(prepared["error"]?["message"]?.stringValue?.hasPrefix(relabel.name) == true, "\(prepared.serialized)")
        }
        #expect(InputWalker.filesIncludingHidden(under: out.path).isEmpty, "written: \(InputWalker.filesIncludingHidden(under: out.path))")
    }

    @Test("AAC the PMT declares MPEG-1 audio (0x03): FFmpeg feeds it to the MP3 decoder; validate --deep and prepare both say corrupt, with the decoder's reason, and nothing is written (the muxer's 'Invalid argument' was processing-failed)")
    func misdeclaredSoundIsCorruptFromEveryVerb() throws {
        let source = Self.folder.appendingPathComponent("aac-source.ts").path
        try Editor.mux(["-f", "lavfi", "-i", "sine=d=2", "-c:a", "aac", "-b:a", "64k"], to: source)
        let path = Self.folder.appendingPathComponent("aac-as-mp2.ts").path
        try Editor.rewriteMap(try Data(contentsOf: URL(fileURLWithPath: source))) { map in map.streams[0].streamType = 0x03 }
            .write(to: URL(fileURLWithPath: path))
        let validated = try Self.json(["validate", "--deep", "--json", path])
        let out = Self.folder.appendingPathComponent("misdeclared")
        let prepared = try Self.json(["prepare", "--json", "--out", out.path, path])
        #expect(Self.codes(validated).contains("corrupt"), "\(validated.serialized)")
        #expect(prepared["error"]?["code"]?.stringValue == "corrupt", "\(prepared.serialized)")
        #expect(prepared["error"]?["message"]?.stringValue?.contains("does not decode") == true, "\(prepared.serialized)")
        #expect(InputWalker.filesIncludingHidden(under: out.path).isEmpty)
    }

    // MARK: Kept where something else decodes

    @Test("a movie whose sound the PMT declares MPEG-H: validate warns, prepare copies the picture alone and says why; a second sound in AC-4 beside MP2: the MP2 is kept")
    func keepsWhatDecodes() throws {
        // Given the H.264 + AAC fixture with its AAC stream declared MPEG-H
        let movie = Self.folder.appendingPathComponent("movie_mpegh.ts").path
        let fixture = try Data(contentsOf: URL(fileURLWithPath: TestEnvironment.fixture("video/ts_h264_aac_320x240_2s.ts")))
        try Editor.rewriteMap(fixture) { map in
            guard let sound = map.streams.firstIndex(where: { $0.streamType == 0x0F }) else { return }
            map.streams[sound].streamType = 0x2D
        }.write(to: URL(fileURLWithPath: movie))
        // When it is validated and prepared
        let validated = try Self.json(["validate", "--deep", "--json", movie])
        let out = Self.folder.appendingPathComponent("kept").path
        let prepared = try Self.json(["prepare", "--json", "--out", out, movie])
        // Then validate warns of the sound (its only error is the container iOS does not take)...
        #expect(Self.codes(validated, severity: "warning") == ["unsupported-codec"], "\(validated.serialized)")
        #expect(Self.codes(validated) == ["unsupported-type"], "\(validated.serialized)")
        #expect(validated["diagnostics"]?.arrayValue?.last?["fix"]?.stringValue?.contains("without the MPEG-H 3D Audio sound") == true)
        // ...and prepare hands back the picture alone, noting the sound it left out
        #expect(prepared["ok"]?.boolValue == true, "\(prepared.serialized)")
        let notes = (prepared["notes"]?.arrayValue ?? []).compactMap(\.stringValue)
        #expect(notes.contains { $0.hasPrefix("dropped audio stream 1 (mpegh_3d_audio): MPEG-H 3D Audio (stream type 0x2D, PID 0x0101)") }, "\(notes)")
        let output = try FFprobeReport.of(try #require(prepared["output"]?.stringValue))
        #expect(output.streams.map(\.type) == ["video"] && output.video?.codec == "h264")

        // Given two sounds, MP2 then one the PMT declares AC-4
        let source = Self.folder.appendingPathComponent("two-sounds-source.ts").path
        try Editor.mux(["-f", "lavfi", "-i", "sine=f=440:r=48000:d=1", "-f", "lavfi", "-i", "sine=f=880:r=48000:d=1",
                        "-map", "0:a", "-map", "1:a", "-c:a", "mp2", "-b:a", "64k", "-ac", "1"], to: source)
        let sounds = Self.folder.appendingPathComponent("two-sounds.ts").path
        try Editor.rewriteMap(try Data(contentsOf: URL(fileURLWithPath: source))) { map in
            map.streams[1].streamType = 0x06
            map.streams[1].descriptors = Editor.dvbExtension(0x15)
        }.write(to: URL(fileURLWithPath: sounds))
        // When it is probed and prepared
        let probed = try Self.json(["probe", "--json", sounds])
        let kept = try Self.json(["prepare", "--json", "--out", out, sounds])
        // Then the MP2 is the sound, the AC-4 stream is named, and the output is the MP2 as AAC
        #expect(probed["codec"]?.stringValue == "mp2" && probed["sampleRate"]?.intValue == 48_000, "\(probed.serialized)")
        #expect(probed["undecodableStreams"]?.arrayValue?.compactMap { $0["codec"]?.stringValue } == ["ac4"])
        #expect(kept["ok"]?.boolValue == true, "\(kept.serialized)")
        let sound = try FFprobeReport.of(try #require(kept["output"]?.stringValue))
        #expect(sound.streams.map(\.codec) == ["aac"], "\(sound.streams.map(\.codec))")
        #expect(abs((sound.duration ?? 0) - 1) < 0.1, "\(String(describing: sound.duration))")
    }

    @Test("what FFmpeg reads as what the PMT says is not refused: DTS in a stream declared DTS-HD, MP2 declared MPEG audio")
    func readRightIsKept() throws {
        // Given DTS (ffmpeg's encoder) whose PMT says DTS-HD, and MP2 whose PMT says MPEG-2 audio
        let source = Self.folder.appendingPathComponent("dts-source.ts").path
        try Editor.mux(["-f", "lavfi", "-i", "sine=f=440:r=48000:d=0.3", "-c:a", "dca", "-strict", "-2", "-ac", "2"], to: source)
        let dts = Self.folder.appendingPathComponent("dts-as-dtshd.ts").path
        try Editor.rewriteMap(try Data(contentsOf: URL(fileURLWithPath: source)), Self.firstStream(0x06, Editor.dvbExtension(0x0E)))
            .write(to: URL(fileURLWithPath: dts))
        let mp2 = try Self.relabelled("mp2-as-mpeg2.ts", Self.firstStream(0x04))
        for (path, codec) in [(dts, "dts"), (mp2, "mp2")] {
            // When each is probed, validated in depth and prepared
            let probed = try Self.json(["probe", "--json", path])
            let validated = try Self.json(["validate", "--deep", "--json", path])
            let prepared = try Self.json(["prepare", "--json", "--out", Self.folder.appendingPathComponent("read-right").path, path])
            // Then nothing is refused
            #expect(probed["codec"]?.stringValue == codec && probed["undecodableStreams"] == nil, "\(probed.serialized)")
            #expect(Self.codes(validated) == ["unsupported-type"] && Self.codes(validated, severity: "warning").isEmpty, "\(validated.serialized)")
            #expect(prepared["ok"]?.boolValue == true, "\(prepared.serialized)")
        }
    }

    // MARK: Data streams and the declared span

    /// A 2 s MP2 stream with SCTE-35 cues 0.7 s before the sound and 0.9 s after it; what
    /// ffprobe says of the sound (start, end) and of the whole.
    static func withCues(_ name: String) throws -> (path: String, audioStart: Double, audioEnd: Double, container: Double) {
        let source = folder.appendingPathComponent("cues-source-\(name)").path
        try Editor.mp2(seconds: 2, to: source)
        let plain = try FFprobeReport.of(source)
        let audio = try #require(plain.audio)
        let start = try #require(audio.start), end = start + (try #require(audio.duration))
        let path = folder.appendingPathComponent(name).path
        try Editor.addingCues(try Data(contentsOf: URL(fileURLWithPath: source)), end: end, tail: 0.9).write(to: URL(fileURLWithPath: path))
        return (path, start, end, try #require(try FFprobeReport.of(path).duration))
    }

    @Test("SCTE-35 cues outside the sound: the container's span is wider (ffprobe), the declared duration is the sound's; validate --deep passes it, prepare leaves the cues out; with half its sound removed it is still corrupt")
    func cuesOutsideTheMedia() throws {
        // Given 2 s of sound with cues before and after it
        let cues = try Self.withCues("cues.ts")
        let report = try FFprobeReport.of(cues.path)
        #expect(report.streams.map(\.codec) == ["mp2", "scte_35"], "\(report.streams.map(\.codec))")
        #expect(cues.container > cues.audioEnd - cues.audioStart + 1, "the cues widen the container's span: \(cues)")
        // When it is probed, validated in depth and prepared
        let probed = try Self.json(["probe", "--json", cues.path])
        let validated = try Self.json(["validate", "--deep", "--json", cues.path])
        let prepared = try Self.json(["prepare", "--json", "--out", Self.folder.appendingPathComponent("cues").path, cues.path])
        // Then the duration is the sound's, nothing is missing, and the output is the sound alone
        let duration = try #require(probed["duration"]?.doubleValue)
        #expect(abs(duration - (cues.audioEnd - cues.audioStart)) < 0.002, "probe \(duration), ffprobe's sound \(cues)")
        #expect(Self.codes(validated) == ["unsupported-type"], "\(validated.serialized)")
        #expect(prepared["ok"]?.boolValue == true, "\(prepared.serialized)")
        #expect((prepared["notes"]?.arrayValue ?? []).contains { $0.stringValue == "dropped data stream 1 (scte_35)" }, "\(prepared.serialized)")
        let output = try FFprobeReport.of(try #require(prepared["output"]?.stringValue))
        #expect(output.streams.map(\.codec) == ["aac"] && abs((output.duration ?? 0) - 2) < 0.1, "\(String(describing: output.duration))")

        // Given the same stream with the sound's middle PES packets removed (a second of sound missing)
        let packets = Editor.packets(try Data(contentsOf: URL(fileURLWithPath: cues.path)))
        let starts = packets.indices.filter { Editor.pid(packets[$0]) == 0x100 && packets[$0][1] & 0x40 != 0 }
        let cut = starts[starts.count / 4]..<starts[starts.count * 3 / 4]
        let holed = Self.folder.appendingPathComponent("cues-holed.ts")
        try Data(packets.indices.filter { !cut.contains($0) || Editor.pid(packets[$0]) != 0x100 }.map { packets[$0] }.joined()).write(to: holed)
        // Then the deep check still finds the data missing
        let deep = try Self.json(["validate", "--deep", "--json", holed.path])
        let corrupt = (deep["diagnostics"]?.arrayValue ?? []).first { $0["code"]?.stringValue == "corrupt" }
        #expect(corrupt?["message"]?.stringValue?.hasSuffix("(data missing)") == true, "\(deep.serialized)")
    }
}
