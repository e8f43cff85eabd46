import Foundation
import Testing
@testable import AttachKit

/// The libavcodec decoder owner: the send/receive/flush flow and its errors, on a small real MP4
/// from the corpus (skipped when the corpus is absent).
@Suite("Structure: AVDecoder", .needsCorpus)
struct StructureAVDecoderTests {
    /// H.264 320x180, 10 frames, plus AAC.
    static var moviePath: String { TestEnvironment.corpus!.appendingPathComponent("video/mp4_h264_aac_320x180_1s.mp4").path }

    @Test("send/receive decodes every frame, then reports the end of the stream")
    func decodesEveryFrame() throws {
        // Given the video stream of a 10-frame movie
        let input = try AVInput(path: Self.moviePath, demuxer: "mov")
        let video = try #require(input.streams.first { $0.kind == .video })
        input.discardAllStreams(except: [video.index])
        let decoder = try AVDecoder(input: input, streamIndex: video.index, options: ["threads": "1"])
        let packet = try AVPacketBuffer()
        let frame = try AVFrameBuffer()

        // When every packet is sent and every frame received
        var frames = 0
        var sawNeedsInput = false
        while try input.read(into: packet) {
            defer { packet.unref() }
            guard packet.streamIndex == video.index else { continue }
            #expect(try decoder.send(packet) == .accepted)
            loop: while true {
                switch try decoder.receive(into: frame) {
                case .frame: frames += 1
                case .needsInput: sawNeedsInput = true; break loop
                case .endOfStream: Issue.record("end of stream before the end of input"); break loop
                }
            }
        }
        #expect(try decoder.sendEndOfStream() == .accepted)
        var last = DecodeStep.frame
        while last == .frame {
            last = try decoder.receive(into: frame)
            if last == .frame { frames += 1 }
        }

        // Then all 10 frames came out, and the flow ended with endOfStream rather than an error
        #expect(frames == 10)
        #expect(sawNeedsInput)
        #expect(last == .endOfStream)
        #expect(try decoder.sendEndOfStream() == .endOfStream)

        // And after a flush the decoder takes input again
        decoder.flush()
        #expect(try decoder.receive(into: frame) == .needsInput)
    }

    @Test("an option the decoder does not know is an error, not a log line")
    func unknownOption() throws {
        let input = try AVInput(path: Self.moviePath, demuxer: "mov")
        #expect {
            _ = try AVDecoder(input: input, streamIndex: 0, options: ["threads": "1", "no_such_option": "1"])
        } throws: { error in
            guard let error = error as? FFmpegError else { return false }
            return error.operation == .options && error.message.contains("no_such_option") && !error.message.contains("threads")
        }
    }

    @Test("an option value FFmpeg refuses is an error")
    func invalidOptionValue() throws {
        let input = try AVInput(path: Self.moviePath, demuxer: "mov")
        #expect(throws: FFmpegError.self) {
            _ = try AVDecoder(input: input, streamIndex: 0, options: ["threads": "banana"])
        }
    }

    @Test("a stream index outside the input is an error", arguments: [-1, 99])
    func missingStream(index: Int) throws {
        let input = try AVInput(path: Self.moviePath, demuxer: "mov")
        #expect {
            _ = try AVDecoder(input: input, streamIndex: index)
        } throws: { error in
            (error as? FFmpegError)?.operation == .findDecoder
        }
    }
}
