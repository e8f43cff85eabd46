/// Inflates the image data of a PNG, still or animated, frame by frame: the bytes its `IDAT` or
/// `fdAT` data inflate to are counted against what its size needs (a filter byte and the packed
/// pixels of every row, per Adam7 pass when interlaced), and each zlib stream must reach its end
/// with a matching Adler-32. FFmpeg's APNG decoder shows a frame with its missing rows left from the
/// frame before, without an error (a frame holding a third of its rows passed `validate --deep`
/// and was handed back); libvips reads PNGs with libpng told to ignore Adler-32, so data altered
/// under a recomputed chunk CRC passed as intact.
///
/// Frames larger than the pixel cap are not counted (the caps refuse them from the header). The
/// frames must also all be there: the `fcTL` and `fdAT` sequence numbers run 0, 1, 2... without a
/// gap, a repeat or a reordering (APNG §"Chunk sequence numbers"), and there are at least as many
/// frames as `acTL` declares (the checks Pillow's APNG reader makes; FFmpeg's shows what it finds).
struct PNGFrameRows {
    /// Bits per pixel: bit depth × channels of the colour type.
    let bitsPerPixel: Int
    let interlaced: Bool

    /// `nil` when `ihdr` (the 13 bytes of the `IHDR` chunk's data) has a colour type PNG does not define.
    init?(ihdr: [UInt8]) {
        guard ihdr.count == 13 else { return nil }
        let channels: Int
        switch ihdr[9] {
        case 0, 3: channels = 1
        case 2: channels = 3
        case 4: channels = 2
        case 6: channels = 4
        default: return nil
        }
        bitsPerPixel = Int(ihdr[8]) * channels
        interlaced = ihdr[12] == 1
    }

    /// Bytes the inflated data of a `width × height` frame hold.
    func expectedBytes(width: Int64, height: Int64) -> Int64 {
        func rows(_ w: Int64, _ h: Int64) -> Int64 {
            guard w > 0, h > 0 else { return 0 }
            return h * (1 + (w * Int64(bitsPerPixel) + 7) / 8)
        }
        guard interlaced else { return rows(width, height) }
        // Adam7: (first column, first row, column step, row step) of the seven passes.
        let passes: [(Int64, Int64, Int64, Int64)] = [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4),
                                                      (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]
        return passes.reduce(0) { total, pass in
            total + rows((width - pass.0 + pass.2 - 1) / pass.2, (height - pass.1 + pass.3 - 1) / pass.3)
        }
    }

    /// Walks the chunks of a PNG whose layout ``PNGChunks/walk(_:verifyCRC:)`` found whole and
    /// inflates each frame's data.
    /// - Returns: ``StructureVerdict/corrupt(reason:)`` naming the first frame whose data give
    ///   fewer bytes than its rows need, do not inflate, or stop before their stream's end and
    ///   checksum; ``StructureVerdict/intact`` otherwise.
    /// - Parameter declaredFrames: `acTL`'s `num_frames`; 0 for a still PNG.
    static func check(_ reader: borrowing FileReader, declaredFrames: Int, maxPixels: Int64) -> StructureVerdict {
        guard let layout = PNGFrameRows(ihdr: reader.read(at: 16, count: 13)) else { return .intact }
        let ihdr = reader.read(at: 16, count: 13)
        var frame = FrameCount(number: 0, width: Int64(ihdr.be32(0)), height: Int64(ihdr.be32(4)), layout: layout, maxPixels: maxPixels, animated: declaredFrames > 0)
        var frames = 0
        var sequence: UInt32 = 0
        var offset: Int64 = 8
        while offset + 12 <= reader.size {
            let header = reader.read(at: offset, count: 8)
            let length = Int64(header.be32(0))
            let type = header.ascii(4, 4)
            // Without acTL a PNG is a still picture and decoders ignore fcTL and fdAT chunks.
            if declaredFrames > 0, type == "fcTL" || type == "fdAT" {
                let number = reader.read(at: offset + 8, count: 4).be32(0)
                guard number == sequence else {
                    return .corrupt(reason: "the \(type) chunk at byte \(offset) has sequence number \(number) where \(sequence) comes next: a frame's chunks are missing, repeated or out of order")
                }
                sequence += 1
            }
            switch type {
            case "fcTL" where declaredFrames > 0:
                if let problem = frame.problem() { return .corrupt(reason: problem) }
                frames += 1
                let control = reader.read(at: offset + 8, count: 12)
                frame = FrameCount(number: frames, width: Int64(control.be32(4)), height: Int64(control.be32(8)), layout: layout, maxPixels: maxPixels, animated: declaredFrames > 0)
            case "IDAT", "fdAT" where declaredFrames > 0:  // the where is fdAT's alone
                let skip: Int64 = type == "fdAT" ? 4 : 0
                var position = offset + 8 + skip
                let end = offset + 8 + length
                while position < end, !frame.done {
                    let piece = reader.read(at: position, count: Int(min(end - position, 1 << 16)))
                    guard !piece.isEmpty else { break }
                    frame.feed(piece)
                    position += Int64(piece.count)
                }
            case "IEND":
                if let problem = frame.problem() { return .corrupt(reason: problem) }
                return frames < declaredFrames
                    ? .corrupt(reason: "the APNG declares \(declaredFrames) frames (acTL) but holds \(frames): frames are missing") : .intact
            default: break
            }
            offset += 12 + length
        }
        return frame.problem().map { .corrupt(reason: $0) } ?? .intact
    }

    /// One frame's data as they are inflated: frame 0 is the `IDAT` image when no `fcTL` comes
    /// before it (the default image, not part of the animation).
    private struct FrameCount: ~Copyable {
        let number: Int
        let width: Int64
        let height: Int64
        let expected: Int64
        var counter: InflatedLength?
        /// Bytes inflated so far.
        var count: Int64 = 0
        var sawData = false
        var failure: String?

        let animated: Bool

        init(number: Int, width: Int64, height: Int64, layout: PNGFrameRows, maxPixels: Int64, animated: Bool) {
            self.number = number
            self.animated = animated
            self.width = width
            self.height = height
            expected = layout.expectedBytes(width: width, height: height)
            counter = width * height <= maxPixels ? try? InflatedLength() : nil
        }

        /// True once nothing more is to be learnt from the frame's data: it failed, is not counted,
        /// or its stream ended.
        var done: Bool { failure != nil || counter == nil || ended }
        var ended = false

        mutating func feed(_ bytes: [UInt8]) {
            sawData = true
            guard var running = counter.take() else { return }
            do {
                try running.feed(bytes, enough: .max)
            } catch {
                failure = error.message
            }
            count = running.count
            ended = running.ended
            counter = consume running
        }

        /// What is wrong with the frame's data, once they are all fed.
        func problem() -> String? {
            let what = animated ? (number == 0 ? "the default image (IDAT) of the APNG" : "frame \(number) of the APNG") : "the image data (IDAT)"
            if let failure { return "the compressed data of \(what) do not inflate (zlib: \(failure))" }
            if number > 0, !sawData { return "\(what) has no image data (no fdAT chunk after its fcTL)" }
            guard sawData, counter != nil else { return nil }
            if count < expected {
                return "\(what) (\(width)x\(height)) has \(count) of the \(expected) bytes its rows need: rows are missing (truncated image data)"
            }
            return ended ? nil : "the compressed data of \(what) stop before their end and Adler-32 checksum"
        }
    }
}
