import Foundation
import Testing
@testable import AttachKit

/// The segment-parallel decode of a copied video (issue 33): a stream is cut only at IDR pictures
/// whose packet repeats every in-band parameter set, and the verdict is the sequential decode's.
@Suite struct SegmentDecodeTests {
    /// An `avcC` with 4-byte NAL lengths (no parameter sets needed by the splitter).
    static let avcC: [UInt8] = [1, 0x64, 0, 0x1F, 0xFF, 0xE0, 0]
    /// An `hvcC` (23 bytes, version 1) with 4-byte NAL lengths.
    static let hvcC: [UInt8] = [1] + [UInt8](repeating: 0, count: 20) + [0x03, 0]

    /// A length-prefixed packet of NAL units, each given by its header byte(s) and a little payload.
    static func packet(_ headers: [[UInt8]]) -> [UInt8] {
        headers.flatMap { header -> [UInt8] in
            let unit = header + [0x88, 0x84]
            return [0, 0, 0, UInt8(unit.count)] + unit
        }
    }

    static func cuts(_ splitter: inout IndependentSegments, _ packets: [[UInt8]]) -> [Bool] {
        packets.map { bytes in bytes.withUnsafeBufferPointer { splitter.startsSegment($0) } }
    }

    @Test("H.264 is cut at IDR pictures only, never at the first packet or a non-IDR I-slice")
    func h264IDROnly() throws {
        var splitter = try #require(IndependentSegments(codec: .h264, configuration: Self.avcC))
        let idr: [UInt8] = [0x65], slice: [UInt8] = [0x41], sei: [UInt8] = [0x06]
        #expect(Self.cuts(&splitter, [Self.packet([sei, idr]), Self.packet([slice]), Self.packet([slice]), Self.packet([idr]), Self.packet([slice])])
                == [false, false, false, true, false])
        #expect(IndependentSegments(codec: .vp9, configuration: []) == nil)
    }

    @Test("HEVC is cut at IDR_W_RADL and IDR_N_LP, never at a CRA (open GOP)")
    func hevcNotAtCRA() throws {
        var splitter = try #require(IndependentSegments(codec: .hevc, configuration: Self.hvcC))
        let idrRADL: [UInt8] = [19 << 1, 1], idrNLP: [UInt8] = [20 << 1, 1], cra: [UInt8] = [21 << 1, 1], trail: [UInt8] = [1 << 1, 1]
        #expect(Self.cuts(&splitter, [Self.packet([idrRADL]), Self.packet([trail]), Self.packet([cra]), Self.packet([trail]),
                                      Self.packet([idrNLP]), Self.packet([idrRADL])]) == [false, false, false, false, true, true])
    }

    @Test("after an in-band parameter set, an IDR is a cut only when its packet repeats every one seen (Annex B too)")
    func parameterSetsRepeated() throws {
        var splitter = try #require(IndependentSegments(codec: .h264, configuration: []))
        func annexB(_ units: [[UInt8]]) -> [UInt8] { units.flatMap { [0, 0, 0, 1] + $0 + [0x88, 0x84] } }
        let sps: [UInt8] = [0x67, 0x64], pps: [UInt8] = [0x68, 0xEE], otherPPS: [UInt8] = [0x68, 0xCE], idr: [UInt8] = [0x65], slice: [UInt8] = [0x41]
        #expect(Self.cuts(&splitter, [annexB([sps, pps, idr]), annexB([slice]), annexB([idr]), annexB([sps, pps, idr]), annexB([otherPPS, slice]),
                                      annexB([sps, pps, idr]), annexB([sps, pps, otherPPS, idr])])
                == [false, false, false, true, false, false, true])
        // A length that runs past its packet: no cut, then or later.
        var broken = try #require(IndependentSegments(codec: .h264, configuration: Self.avcC))
        #expect(Self.cuts(&broken, [Self.packet([[0x65]]), [0, 0, 0, 99, 0x65], Self.packet([[0x65]])]) == [false, false, false])
    }

    /// Runs the splitter over a file's video packets: (keyframes, cuts).
    static func segmentation(of path: String) throws -> (keyframes: Int, cuts: Int) {
        let input = try AVInput(path: path, demuxer: "mov")
        let stream = try #require(input.streams.first { $0.kind == .video })
        var splitter = try #require(IndependentSegments(codec: stream.codec, configuration: input.header(of: stream.index).configuration))
        let packet = try AVPacketBuffer()
        var keyframes = 0, cuts = 0
        while try input.read(into: packet) {
            defer { packet.unref() }
            guard packet.streamIndex == stream.index else { continue }
            if packet.isKeyframe { keyframes += 1 }
            if packet.withBytes({ splitter.startsSegment($0) }) { cuts += 1 }
        }
        return (keyframes, cuts)
    }

    @Test("an open-GOP source (x264 open_gop, x265 CRAs) is not cut at its recovery I-frames; a closed-GOP one is cut at each IDR")
    func openGOPNotCut() throws {
        let folder = TestEnvironment.temporaryFolder("segments-open-gop")
        defer { try? FileManager.default.removeItem(at: folder) }
        func make(_ name: String, _ codec: [String]) throws -> String {
            let path = folder.appendingPathComponent(name).path
            let run = try TestEnvironment.run("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=s=320x180:r=25:d=6", "-pix_fmt", "yuv420p"]
                                              + codec + [path])
            #expect(run.status == 0, "\(run.stderr)")
            return path
        }
        let open264 = try Self.segmentation(of: make("open.mp4", ["-c:v", "libx264", "-x264-params", "keyint=25:min-keyint=25:open_gop=1:scenecut=0", "-bf", "3"]))
        #expect(open264.keyframes > 1 && open264.cuts == 0, "\(open264)")
        let closed264 = try Self.segmentation(of: make("closed.mp4", ["-c:v", "libx264", "-g", "25", "-sc_threshold", "0"]))
        #expect(closed264.keyframes == 6 && closed264.cuts == 5, "\(closed264)")
        let open265 = try Self.segmentation(of: make("open.mov", ["-c:v", "libx265", "-x265-params", "log-level=error:keyint=25:min-keyint=25:open-gop=1:scenecut=0"]))
        #expect(open265.keyframes > 1 && open265.cuts == 0, "\(open265)")
    }

    @Test("damage in a later segment is refused with the sequential decode's exact reason, on 1, 2 and 3 threads, fast and full")
    func sameVerdictAsSequential() throws {
        // Given: the CABAC clip (a 2 s GOP) and its copy damaged in a B-frame after 6 s (segment 4)
        let folder = TestEnvironment.temporaryFolder("segments-verdict")
        defer { try? FileManager.default.removeItem(at: folder) }
        let (intact, damaged) = try VerifyModeTests.clips(in: folder)
        #expect(try Self.segmentation(of: damaged).cuts >= 3)
        for base in [DeepCheck.fastDecoding, DeepCheck.decoding] {
            for path in [intact, damaged] {
                let info = try Prober().probeWithSniff(path: path, displayPath: path).info
                func verdict(_ threads: Int) -> StructureVerdict {
                    var decoding = base
                    decoding.segmentThreads = threads
                    return DeepCheck.verify(path: path, info: info, maxDecodeBytes: SafetyLimits().maxDecodeBytes, videoBudget: nil,
                                            decoding: decoding).verdict
                }
                // When / Then: every thread count gives the one-decoder verdict, reason included
                let sequential = verdict(1)
                if path == intact {
                    #expect(sequential == .intact)
                } else if case .corrupt = sequential {} else {
                    Issue.record("the damaged clip is not refused: \(sequential)")
                }
                for threads in [2, 3] { #expect(verdict(threads) == sequential, "\(threads) threads") }
            }
        }
    }
}
