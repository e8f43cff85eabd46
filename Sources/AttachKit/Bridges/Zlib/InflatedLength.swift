import CZlib

/// Counts the bytes a zlib stream inflates to, fed in pieces, without keeping them (a 64 KiB
/// scratch buffer is reused): how an APNG frame's rows are counted (``PNGStructure``). Owns its
/// `z_stream`; freed when the value goes away.
struct InflatedLength: ~Copyable {
    /// Bytes inflated so far.
    private(set) var count: Int64 = 0
    /// Whether the stream's end (its Adler-32 checked) was reached.
    private(set) var ended = false
    private var stream: UnsafeMutablePointer<z_stream>
    private let scratch: UnsafeMutableBufferPointer<UInt8>

    /// Why a stream does not inflate.
    struct Failure: Error, Equatable {
        let message: String
    }

    /// - Throws: ``Failure`` when zlib cannot start a stream (out of memory).
    init() throws(Failure) {
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        scratch = .allocate(capacity: 1 << 16)
        guard attachkit_inflate_init(stream) == Z_OK else {
            stream.deallocate()
            scratch.deallocate()
            throw Failure(message: "zlib cannot start a stream")
        }
    }

    deinit {
        inflateEnd(stream)
        stream.deallocate()
        scratch.deallocate()
    }

    /// Inflates `bytes`, counting the output, until they are used up, the stream ends or `enough`
    /// bytes have come out.
    /// - Throws: ``Failure`` with zlib's message when the data are not a valid zlib stream.
    mutating func feed(_ bytes: [UInt8], enough: Int64) throws(Failure) {
        guard !ended, count < enough, !bytes.isEmpty else { return }
        let stream = self.stream, sink = scratch
        var input = bytes
        var status = Z_OK
        var produced: Int64 = 0
        let wanted = enough - count
        input.withUnsafeMutableBufferPointer { source in
            stream.pointee.next_in = source.baseAddress
            stream.pointee.avail_in = uInt(source.count)
            repeat {
                stream.pointee.next_out = sink.baseAddress
                stream.pointee.avail_out = uInt(sink.count)
                status = inflate(stream, Z_NO_FLUSH)
                produced += Int64(sink.count - Int(stream.pointee.avail_out))
            } while status == Z_OK && (stream.pointee.avail_in > 0 || stream.pointee.avail_out == 0) && produced < wanted
            stream.pointee.next_in = nil
            stream.pointee.next_out = nil
        }
        count += produced
        switch status {
        case Z_OK, Z_BUF_ERROR: return
        case Z_STREAM_END: ended = true
        default:
            let message = stream.pointee.msg.map { String(cString: $0) } ?? "error \(status)"
            throw Failure(message: message)
        }
    }
}
