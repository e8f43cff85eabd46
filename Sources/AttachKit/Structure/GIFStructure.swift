/// GIF layout: the `GIF87a`/`GIF89a` header, a logical screen with a non-zero width and height,
/// the global colour table, then extension blocks and images (descriptor, local colour table, LZW
/// code size, data sub-blocks) up to the trailer byte `0x3B`.
///
/// An image whose left or top edge lies outside the logical screen is corrupt (decoders size
/// their canvas from it: the classic GIF decompression bomb). The file ending before the trailer
/// is truncated, and so is an image whose LZW data give fewer pixels than its width × height
/// (``GIFLZWCount``: the blocks can be whole while the data in them stop early). Bytes after the
/// trailer are ignored.
enum GIFStructure {
    /// - Parameter maxPixels: images larger than this are not counted: the pixel cap refuses them
    ///   (`over-cap`, from every verb) before their data matter.
    static func check(_ reader: borrowing FileReader, maxPixels: Int64 = SafetyLimits().maxPixels) -> StructureVerdict {
        var images = 0
        return walk(reader, images: &images, countingUpTo: maxPixels)
    }

    /// The logical screen (the canvas every frame is drawn on, and what a GIF decoder allocates:
    /// ImageIO, browsers and FFmpeg size the picture by it), from the header; `nil` without a
    /// GIF header. libnsgif, libvips' decoder, takes a screen over 2048 px on either side for
    /// a mistake and composes only the first frame's extent (``DecoderLimits/gifScreenEdge``),
    /// so the size libvips reports is not always the canvas.
    static func screen(_ reader: borrowing FileReader) -> (width: Int, height: Int)? {
        let header = reader.read(at: 0, count: 10)
        guard header.count == 10, header.matches("GIF87a", at: 0) || header.matches("GIF89a", at: 0) else { return nil }
        return (Int(header.le16(6)), Int(header.le16(8)))
    }

    /// Images (frames) in the file, counted by walking its blocks: exact where libnsgif stops
    /// counting (it gives up after 4096 frames). `nil` when the structure is broken before the end.
    static func frameCount(_ reader: borrowing FileReader) -> Int? {
        var images = 0
        return walk(reader, images: &images, countingUpTo: 0) == .intact ? images : nil
    }

    /// - Parameter countingUpTo: also count the pixels in the LZW data (``GIFLZWCount``) of each
    ///   image at most this large (0: none).
    private static func walk(_ reader: borrowing FileReader, images: inout Int, countingUpTo maxPixels: Int64) -> StructureVerdict {
        var window = ByteWindow()
        let header = window.bytes(at: 0, count: 13, in: reader)
        guard header.matches("GIF87a", at: 0) || header.matches("GIF89a", at: 0) else {
            return .corrupt(reason: "no GIF87a/GIF89a signature at byte 0")
        }
        guard header.count == 13 else {
            return .corrupt(reason: "the logical screen descriptor is cut off: the file has \(reader.size) bytes (truncated)")
        }
        let screenWidth = header.le16(6), screenHeight = header.le16(8)
        guard screenWidth > 0, screenHeight > 0 else {
            return .corrupt(reason: "the logical screen is \(screenWidth)x\(screenHeight): a zero width or height")
        }
        var position: Int64 = 13 + colourTableSize(flags: header.u8(10))
        guard position <= reader.size else {
            return .corrupt(reason: "the global colour table needs \(position - 13) bytes from byte 13 but the file ends at byte \(reader.size) (truncated)")
        }
        images = 0
        while true {
            guard let introducer = window.byte(at: position, in: reader) else {
                return .corrupt(reason: "no GIF trailer (0x3B): the file ends at byte \(reader.size) after \(images) image(s) (truncated)")
            }
            switch introducer {
            case 0x3B:
                return images > 0 ? .intact : .corrupt(reason: "the GIF holds no image (trailer at byte \(position))")
            case 0x21:
                let blockStart = position
                position += 2  // introducer and label
                guard let end = skipSubBlocks(reader, from: position, window: &window) else {
                    return .corrupt(reason: "extension block at byte \(blockStart) runs past the end of the file (truncated)")
                }
                position = end
            case 0x2C:
                let descriptorStart = position
                let descriptor = window.bytes(at: position, count: 10, in: reader)
                guard descriptor.count == 10 else {
                    return .corrupt(reason: "image descriptor at byte \(position) is cut off by the end of the file (truncated)")
                }
                let left = descriptor.le16(1), top = descriptor.le16(3)
                let width = descriptor.le16(5), height = descriptor.le16(7)
                guard left < screenWidth, top < screenHeight else {
                    return .corrupt(reason: "image \(images + 1) at byte \(position) is placed at (\(left),\(top)) with size \(width)x\(height), outside the \(screenWidth)x\(screenHeight) logical screen")
                }
                position += 10 + colourTableSize(flags: descriptor.u8(9))
                guard let codeSize = window.byte(at: position, in: reader) else {
                    return .corrupt(reason: "image \(images + 1) at byte \(descriptorStart) has no image data: the file ends at byte \(reader.size) (truncated)")
                }
                // GIF89a §22: a monochrome image's code size is 2 too ("minimum code size of 2"); a
                // code size of 1 decodes to nothing in FFmpeg and to a blank picture in libnsgif.
                guard (2...12).contains(codeSize) else {
                    return .corrupt(reason: "image \(images + 1) at byte \(descriptorStart) has an invalid LZW code size \(codeSize)")
                }
                let area = Int(width) * Int(height)
                var count = Int64(area) <= maxPixels ? GIFLZWCount(codeSize: Int(codeSize)) : nil
                guard let end = skipSubBlocks(reader, from: position + 1, window: &window, reading: { count?.read($0, enough: area) }) else {
                    return .corrupt(reason: "image data of image \(images + 1) (from byte \(position)) runs past the end of the file at byte \(reader.size) (truncated)")
                }
                if let count, count.pixels < area {
                    return .corrupt(reason: "the LZW data of image \(images + 1) (from byte \(position)) give \(count.pixels) of its \(width)x\(height) = \(area) pixels (truncated image data)")
                }
                position = end
                images += 1
            default:
                return .corrupt(reason: "unexpected byte 0x\(String(introducer, radix: 16)) at byte \(position) where a block should start")
            }
        }
    }

    /// Bytes of a colour table announced by a packed-fields byte (bit 7: present; bits 0-2: size).
    private static func colourTableSize(flags: UInt32) -> Int64 {
        guard flags & 0x80 != 0 else { return 0 }
        return 3 << (Int64(flags & 0x07) + 1)
    }

    /// Skips a chain of data sub-blocks (a length byte, then that many bytes) ended by a zero
    /// length; returns the offset after the terminator, `nil` when the file ends first.
    /// `reading`, when given, gets each sub-block's bytes in order.
    private static func skipSubBlocks(_ reader: borrowing FileReader, from offset: Int64, window: inout ByteWindow,
                                      reading: (([UInt8]) -> Void)? = nil) -> Int64? {
        var position = offset
        while true {
            guard let length = window.byte(at: position, in: reader) else { return nil }
            position += 1
            if length == 0 { return position }
            if let reading { reading(window.bytes(at: position, count: Int(length), in: reader)) }
            position += Int64(length)
            guard position <= reader.size else { return nil }
        }
    }
}
