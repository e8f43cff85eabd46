import CFFmpeg

/// Pictures libvips cannot read (BMP, whose only libvips loader is the blocked ImageMagick one;
/// 12-bit JPEG; JPEG XL, JPEG 2000 and PNM while libvips' loaders are untrusted; QOI, PSD, ICO/CUR;
/// HEIF and AVIF image sequences; the frames of an APNG: ``FormatTable`` names the reader) decoded through libavformat/libavcodec into 8-bit RGBA rows that
/// `VipsImage.fromPixels` takes over. Each frame is scaled to its target size as it is decoded, so
/// no full-size frame is kept.
enum FFmpegPictureReader {
    /// What was decoded: the kept frames' RGBA rows stacked top to bottom.
    struct Pictures: Sendable {
        /// `width × height × 4 × frames` bytes, frames stacked.
        var pixels: [UInt8]
        /// Size of one (scaled) frame.
        var width: Int
        var height: Int
        /// Size of the frames in the file.
        var sourceWidth: Int
        var sourceHeight: Int
        /// Display time of each kept frame in milliseconds: its own plus that of the dropped frames
        /// that followed it, so the total duration is kept.
        var delays: [Int]
        /// Frames decoded (kept or not).
        var decodedFrames: Int

        var frames: Int { delays.count }
    }

    /// Decodes the first picture stream of `path`.
    /// - Parameters:
    ///   - demuxer: libavformat's demuxer (`bmp_pipe`, `jpeg_pipe`, `mov`, `apng`...).
    ///   - keep: whether to keep frame `index` (0-based); frames not kept are decoded (later frames
    ///     may depend on them) but not stored. Default: every frame.
    ///   - maxFrames: stop after decoding this many frames. Default 1 (a still).
    ///   - maxPixels: refuse frames larger than this (checked on the stream header, and by
    ///     libavcodec's `max_pixels` before it allocates).
    ///   - size: the scaled size for a frame of the given source size.
    /// - Throws: ``FFmpegError`` tagged ``FFmpegOperation/openInput``, ``FFmpegOperation/findDecoder``
    ///   (no decoder for the codec, or a BMP header FFmpeg's decoder does not take: ``BMPHeader/ffmpegRefusal``), ``FFmpegOperation/openDecoder`` (the decoder refused, or the
    ///   frame is over `maxPixels`), ``FFmpegOperation/decode`` (also for frames the decoder flags
    ///   as damaged), ``FFmpegOperation/readPacket`` or ``FFmpegOperation/scale``.
    static func decode(path: String, demuxer: String, keep: @escaping (Int) -> Bool = { _ in true }, maxFrames: Int = 1,
                       maxPixels: Int64, size: (Int, Int) -> (width: Int, height: Int)) throws(FFmpegError) -> Pictures {
        if demuxer == "bmp_pipe", let reader = try? FileReader(path: path), let refusal = BMPHeader(reader.read(at: 0, count: 54))?.ffmpegRefusal {
            throw FFmpegError(operation: .findDecoder, message: refusal)
        }
        let input = try AVInput(path: path, demuxer: demuxer)
        guard let stream = input.streams.first(where: { $0.kind == .video && !$0.isAttachedPicture }) else {
            throw FFmpegError(operation: .openInput, message: "no picture stream")
        }
        guard stream.width > 0, stream.height > 0, Int64(stream.width) * Int64(stream.height) <= maxPixels else {
            throw FFmpegError(operation: .openDecoder, message: "picture size \(stream.width)×\(stream.height) is not decodable within \(maxPixels) pixels")
        }
        input.discardAllStreams(except: [stream.index])
        let target = size(stream.width, stream.height)
        var session = Session(
            decoder: try AVDecoder(input: input, streamIndex: stream.index, options: DecoderBudget.singleThread(maxPixels: maxPixels).decoderOptions(for: stream.codec, still: true)),
            scaler: try AVScaler(width: target.width, height: target.height, format: .rgba, filter: .areaFullChroma),
            frame: try AVFrameBuffer(), scaled: try AVFrameBuffer(), keep: keep, maxFrames: maxFrames,
            collector: Collector(width: target.width, height: target.height, source: (stream.width, stream.height)))
        let packet = try AVPacketBuffer()
        reading: while try input.read(into: packet) {
            defer { packet.unref() }
            guard packet.streamIndex == stream.index else { continue }
            while try session.decoder.send(packet) == .outputPending {
                if try session.drain() { break reading }
            }
            if try session.drain() { break reading }
        }
        if session.collector.decoded < maxFrames {
            _ = try session.decoder.sendEndOfStream()
            _ = try session.drain()
        }
        guard session.collector.decoded > 0, !session.collector.pixels.isEmpty else {
            throw FFmpegError(operation: .decode, message: "no frame decodes")
        }
        return session.collector.pictures(frameRate: stream.frameRate)
    }

    /// One decode: the decoder, the RGBA scaler and what has been gathered so far.
    private struct Session: ~Copyable {
        let decoder: AVDecoder
        var scaler: AVScaler
        let frame: AVFrameBuffer
        let scaled: AVFrameBuffer
        let keep: (Int) -> Bool
        let maxFrames: Int
        var collector: Collector

        /// Receives every frame the decoder has ready; `true` once `maxFrames` frames are decoded.
        mutating func drain() throws(FFmpegError) -> Bool {
            while collector.decoded < maxFrames, try decoder.receive(into: frame) == .frame {
                defer { frame.unref() }
                if frame.hasDecodeErrors {
                    throw FFmpegError(operation: .decode, message: "frame \(collector.decoded + 1) decoded with errors")
                }
                let kept = keep(collector.decoded)
                collector.noteTiming(frame, timeBase: decoder.timeBase, kept: kept)
                if kept {
                    try scaler.scale(frame, into: scaled)
                    collector.appendRows(of: scaled)
                }
            }
            return collector.decoded >= maxFrames
        }
    }

    /// Gathers rows and timings while frames arrive.
    private struct Collector {
        var pixels: [UInt8] = []
        let width: Int
        let height: Int
        let source: (Int, Int)
        var decoded = 0
        /// Per decoded frame: start time (ms, when known), packet duration (ms) and whether it is kept.
        var timings: [(start: Double?, duration: Double, kept: Bool)] = []

        init(width: Int, height: Int, source: (Int, Int)) {
            self.width = width
            self.height = height
            self.source = source
        }

        mutating func noteTiming(_ frame: borrowing AVFrameBuffer, timeBase: Rational, kept: Bool) {
            decoded += 1
            let unit = timeBase.denominator > 0 ? timeBase.value * 1000 : 0
            timings.append((frame.timestamp.map { Double($0) * unit }, Double(frame.packetDuration) * unit, kept))
        }

        /// Copies the RGBA rows of `frame` (scaled to width×height) without the line padding.
        mutating func appendRows(of frame: borrowing AVFrameBuffer) {
            frame.appendPackedRows(to: &pixels, rowBytes: width * 4, rows: height)
        }

        /// Durations from the gaps between start times (the last frame: its packet duration, else
        /// the frame rate, else the previous gap), dropped frames' time added to the kept frame before.
        func pictures(frameRate: Double?) -> Pictures {
            var durations: [Double] = []
            for (index, timing) in timings.enumerated() {
                if index + 1 < timings.count, let start = timing.start, let next = timings[index + 1].start, next > start {
                    durations.append(next - start)
                } else if timing.duration > 0 {
                    durations.append(timing.duration)
                } else if let frameRate, frameRate > 0 {
                    durations.append(1000 / frameRate)
                } else {
                    durations.append(durations.last ?? 100)
                }
            }
            var delays: [Double] = []
            var leading = 0.0
            for (index, timing) in timings.enumerated() {
                if timing.kept {
                    delays.append(durations[index] + leading)
                    leading = 0
                } else if delays.isEmpty {
                    leading += durations[index]
                } else {
                    delays[delays.count - 1] += durations[index]
                }
            }
            return Pictures(pixels: pixels, width: width, height: height, sourceWidth: source.0, sourceHeight: source.1,
                            delays: delays.map(Self.delay), decodedFrames: decoded)
        }

        /// A frame delay in whole milliseconds, clamped to what a GIF can store (16-bit
        /// centiseconds: 0...655,350 ms). Timestamps come from the file, so a gap may be anything.
        static func delay(_ milliseconds: Double) -> Int {
            milliseconds.clampedInteger(in: 0...655_350)
        }
    }
}
