import Testing
@testable import AttachKit

/// The checksums the structure checks verify, against the catalogue's check value (the CRC of
/// the ASCII digits "123456789").
@Suite("Structure: checksums")
struct CRCTests {
    static let digits = Array("123456789".utf8)

    @Test("CRC-32 (zlib, PNG), in one piece and chained")
    func crc32() {
        #expect(CRC32.update(0, Self.digits) == 0xCBF4_3926)
        #expect(CRC32.update(CRC32.update(0, Self.digits.prefix(4)), Self.digits.dropFirst(4)) == 0xCBF4_3926)
        #expect(CRC32.update(0, [UInt8]()) == 0)
    }

    @Test("Ogg's CRC-32 (0x04C11DB7, unreflected, from 0) and FLAC's CRC-8 (SMBus) and CRC-16 (UMTS)")
    func unreflected() {
        #expect(OggCRC.checksum(Self.digits) == 0x89A1_897F)
        #expect(FLACCRC.crc8(Self.digits[...]) == 0xF4)
        #expect(FLACCRC.crc16(Self.digits[...]) == 0xFEE8)
    }

    @Test("MPEG-2's CRC-32 (0x04C11DB7, unreflected, from all ones: CRC-32/MPEG-2), and 0 over a section with its CRC")
    func mpeg2() {
        #expect(MPEG2CRC.checksum(Self.digits[...]) == 0x0376_E6E7)
        // The PAT ffmpeg writes (one program, number 1, PMT on PID 0x1000), its CRC included.
        let pat: [UInt8] = [0x00, 0xB0, 0x0D, 0x00, 0x01, 0xC1, 0x00, 0x00, 0x00, 0x01, 0xF0, 0x00, 0x2A, 0xB1, 0x04, 0xB2]
        #expect(MPEG2CRC.checksum(pat[...]) == 0)
    }
}
