import Testing
@testable import AttachKit

/// JPEG, PNG, GIF, WebP, TIFF and BMP layout problems, one at a time.
@Suite("Structure: images")
struct StructureImageTests {
    // MARK: JPEG

    @Test("JPEG: a second image after EOI (Ultra HDR, MPF) is allowed")
    func jpegTrailingImage() {
        let bytes = SyntheticMedia.jpeg(trailer: SyntheticMedia.jpeg())
        #expect(SyntheticMedia.check(bytes, as: .jpeg) == .intact)
    }

    @Test("JPEG: a scan before the frame header is corrupt")
    func jpegScanBeforeFrame() {
        expectCorrupt(SyntheticMedia.jpeg(sofFirst: false), as: .jpeg, mentioning: "before any frame header")
    }

    @Test("JPEG: a segment longer than the file is corrupt")
    func jpegSegmentPastEnd() {
        var bytes = SyntheticMedia.jpeg()
        bytes.replaceSubrange(4..<6, with: SyntheticMedia.be16(0xFFF0))  // APP0 length
        expectCorrupt(bytes, as: .jpeg, mentioning: "APP0 at byte 2")
    }

    @Test("JPEG: no EOI after the entropy data is truncated")
    func jpegNoEOI() {
        expectCorrupt(Array(SyntheticMedia.jpeg().dropLast(2)), as: .jpeg, mentioning: "no EOI")
    }

    @Test("JPEG: stray bytes where a marker should be are corrupt")
    func jpegStrayBytes() {
        var bytes = SyntheticMedia.jpeg()
        bytes.insert(contentsOf: [0x00, 0x11], at: 20)  // right after APP0
        expectCorrupt(bytes, as: .jpeg, mentioning: "expected a JPEG marker at byte 20")
    }

    @Test("JPEG: a zero-width frame is corrupt")
    func jpegZeroWidth() {
        var bytes = SyntheticMedia.jpeg()
        let sof = bytes.firstRange(of: [0xFF, 0xC0])!.lowerBound
        bytes.replaceSubrange((sof + 7)..<(sof + 9), with: [0, 0])
        expectCorrupt(bytes, as: .jpeg, mentioning: "zero width")
    }

    // MARK: PNG

    @Test("PNG: a flipped CRC byte is corrupt")
    func pngFlippedCRC() {
        var bytes = SyntheticMedia.png()
        bytes[8 + 8 + 13] ^= 0x01  // first byte of the IHDR CRC
        expectCorrupt(bytes, as: .png, mentioning: "CRC mismatch in chunk IHDR")
    }

    @Test("PNG: a flipped data byte is corrupt")
    func pngFlippedData() {
        var bytes = SyntheticMedia.png()
        bytes[8 + 8 + 2] ^= 0x40  // inside IHDR's width
        expectCorrupt(bytes, as: .png, mentioning: "CRC mismatch")
    }

    @Test("PNG: no IEND is truncated")
    func pngNoIEND() {
        expectCorrupt(Array(SyntheticMedia.png().dropLast(12)), as: .png, mentioning: "no IEND")
    }

    // MARK: GIF

    @Test("GIF: a zero logical width or height is corrupt", arguments: [(0, 4), (4, 0)])
    func gifZeroScreen(width: Int, height: Int) {
        expectCorrupt(SyntheticMedia.gif(screenWidth: width, screenHeight: height), as: .gif, mentioning: "zero width or height")
    }

    @Test("GIF: an image placed outside the logical screen is corrupt", arguments: [(4, 0), (0, 4), (0, 65280)])
    func gifImageOutsideScreen(left: Int, top: Int) {
        expectCorrupt(SyntheticMedia.gif(left: left, top: top), as: .gif, mentioning: "outside the 4x4 logical screen")
    }

    @Test("GIF: no trailer is truncated")
    func gifNoTrailer() {
        expectCorrupt(Array(SyntheticMedia.gif().dropLast()), as: .gif, mentioning: "no GIF trailer")
    }

    @Test("GIF: garbage where a block should start is corrupt")
    func gifGarbageBlock() {
        var bytes = SyntheticMedia.gif()
        bytes.insert(0x99, at: bytes.count - 1)
        expectCorrupt(bytes, as: .gif, mentioning: "unexpected byte 0x99")
    }

    @Test("GIF: the 4x4 image's LZW data give its 16 pixels; cut to one byte they give 1, truncated though every block is whole")
    func gifShortImageData() {
        #expect(SyntheticMedia.check(SyntheticMedia.gif(), as: .gif) == .intact)
        var bytes = SyntheticMedia.gif()
        let data = bytes.count - 14  // [code size 2, length 10, 10 bytes, 0] before the trailer
        #expect(Array(bytes[data..<(data + 2)]) == [0x02, 0x0A])
        bytes.replaceSubrange(data..<(bytes.count - 1), with: [0x02, 0x01, 0x04, 0x00])  // a clear code, one pixel
        expectCorrupt(bytes, as: .gif, mentioning: "give 1 of its 4x4 = 16 pixels")
    }

    @Test("GIF: a trailer with no image is corrupt")
    func gifNoImage() {
        let bytes = Array(SyntheticMedia.gif().prefix(19)) + [0x3B]
        expectCorrupt(bytes, as: .gif, mentioning: "no image")
    }

    // MARK: WebP

    @Test("WebP: a chunk running past the RIFF is corrupt")
    func webpChunkPastEnd() {
        var bytes = SyntheticMedia.webp()
        bytes.replaceSubrange(16..<20, with: SyntheticMedia.le32(1000))
        expectCorrupt(bytes, as: .webp, mentioning: "chunk 'VP8L' at byte 12 claims 1000 bytes")
    }

    @Test("WebP: an extended file without image data is corrupt")
    func webpNoImage() {
        let bytes = SyntheticMedia.riff("WEBP", SyntheticMedia.riffChunk("VP8X", [UInt8](repeating: 0, count: 10)))
        expectCorrupt(bytes, as: .webp, mentioning: "without image data")
    }

    // MARK: TIFF

    @Test("TIFF: a strip past the end of the file is corrupt")
    func tiffStripPastEnd() {
        var bytes = SyntheticMedia.tiff()
        let stripCount = 10 + 8 * 12 + 8  // value field of the ninth entry (StripByteCounts)
        bytes.replaceSubrange(stripCount..<(stripCount + 4), with: SyntheticMedia.le32(5000))
        expectCorrupt(bytes, as: .tiff, mentioning: "strip 1 of 1 (5000 bytes at byte 122)")
    }

    @Test("TIFF: an IFD chain that loops is corrupt")
    func tiffLoop() {
        var bytes = SyntheticMedia.tiff()
        let next = 10 + 9 * 12
        bytes.replaceSubrange(next..<(next + 4), with: SyntheticMedia.le32(8))
        expectCorrupt(bytes, as: .tiff, mentioning: "loops")
    }

    @Test("TIFF: an IFD offset outside the file is corrupt")
    func tiffIFDOutside() {
        var bytes = SyntheticMedia.tiff()
        bytes.replaceSubrange(4..<8, with: SyntheticMedia.le32(0x7FFF_0000))
        expectCorrupt(bytes, as: .tiff, mentioning: "lies outside the file")
    }

    @Test("TIFF: an IFD0 without strips or tiles is corrupt")
    func tiffNoStrips() {
        var bytes = SyntheticMedia.tiff()
        let offsets = 10 + 5 * 12
        bytes.replaceSubrange(offsets..<(offsets + 2), with: SyntheticMedia.le16(300))  // StripOffsets -> another tag
        expectCorrupt(bytes, as: .tiff, mentioning: "neither strip nor tile offsets")
    }

    // MARK: BMP

    @Test("BMP: a negative or zero width is corrupt", arguments: [-127, 0])
    func bmpBadWidth(width: Int) {
        expectCorrupt(SyntheticMedia.bmp(width: width), as: .bmp, mentioning: "width must be")
    }

    @Test("BMP: pixel rows that do not fit in the file are truncated")
    func bmpRowsPastEnd() {
        expectCorrupt(SyntheticMedia.bmp(height: 100), as: .bmp, mentioning: "truncated")
    }

    @Test("BMP: a top-down (negative height) bitmap is fine")
    func bmpTopDown() {
        #expect(SyntheticMedia.check(SyntheticMedia.bmp(height: -2), as: .bmp) == .intact)
    }
}
