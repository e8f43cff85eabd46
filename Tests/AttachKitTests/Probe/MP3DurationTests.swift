import Foundation
import Testing
@testable import AttachKit

/// A variable-bitrate MP3 without a Xing/VBRI header: libavformat (and players) estimate its length
/// from the first frame's bitrate; the probe counts its frames, and `prepare` remuxes it so the
/// copy carries a Xing header every reader times right (issue 29, from the differential run).
@Suite("MP3 duration: counted from the frames where the header gives none")
struct MP3DurationTests {
    @Test("a VBR MP3 without a Xing header: probed at its decoded length, prepared into a copy ffprobe times right")
    func vbrWithoutXing() throws {
        let folder = TestEnvironment.temporaryFolder("mp3-vbr")
        let path = folder.appendingPathComponent("vbr.mp3").path
        // A quiet second then a loud one: the first frame's bitrate is far below the rest's.
        let made = try TestEnvironment.run("ffmpeg", ["-v", "error", "-nostdin", "-y", "-f", "lavfi", "-i",
                                                      "aevalsrc=if(lt(t\\,3)\\,0\\,sin(440*2*PI*t)+0.5*random(0)):s=44100:d=6",
                                                      "-c:a", "libmp3lame", "-q:a", "0", "-write_xing", "0", "-id3v2_version", "0", path])
        try #require(made.status == 0, "ffmpeg: \(made.stderr)")
        let estimate = Double(try TestEnvironment.run("ffprobe", ["-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", path])
            .stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
        let info = try Through.probe(path, scope: folder)
        #expect(abs((info.duration ?? 0) - 6) < 0.1 && info.durationIsEstimate != true, "\(info.duration ?? -1) s")
        try #require(abs(estimate - 6) > 0.5, "the fixture is not misleading enough: ffprobe estimates \(estimate) s")
        let run = try TestEnvironment.runAttachKit(["prepare", "--json", "--out", folder.appendingPathComponent("out").path, path])
        let report = try JSONValue.parse(run.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        #expect(report["action"]?.stringValue == "remuxed", "\(run.stdout)")
        let output = try #require(report["output"]?.stringValue)
        let timed = Double(try TestEnvironment.run("ffprobe", ["-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", output])
            .stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
        #expect(abs(timed - 6) < 0.1, "ffprobe times the copy at \(timed) s")
    }
}
