import CFFmpeg

/// Packets held back in arrival order, each a new reference to the data of the packet it was
/// made from (`av_packet_ref`); every one is freed on ``drain(into:_:)`` or when the queue goes
/// away. A stage that must see the next timed packet before it can time the ones between holds
/// them here.
final class AVPacketQueue {
    private var packets: [UnsafeMutablePointer<AVPacket>] = []

    init() {}

    deinit {
        for packet in packets {
            var doomed: UnsafeMutablePointer<AVPacket>? = packet
            av_packet_free(&doomed)
        }
    }

    /// Packets held.
    var count: Int { packets.count }

    /// Holds a new reference to `packet`.
    /// - Throws: ``FFmpegError`` tagged ``FFmpegOperation/packetAlloc`` when FFmpeg cannot make it.
    func append(_ packet: borrowing AVPacketBuffer) throws(FFmpegError) {
        guard let held = av_packet_alloc() else { throw FFmpegError(operation: .packetAlloc, code: ak_averror(ENOMEM)) }
        let status = av_packet_ref(held, packet.pointer)
        guard status >= 0 else {
            var doomed: UnsafeMutablePointer<AVPacket>? = held
            av_packet_free(&doomed)
            throw FFmpegError(operation: .packetAlloc, code: status)
        }
        packets.append(held)
    }

    /// Hands every packet held, in order, to `body` through `buffer` (its data moved in; the
    /// buffer is unreferenced after each), then empties the queue, also when `body` throws.
    func drain<E: Error>(into buffer: borrowing AVPacketBuffer, _ body: (Int, borrowing AVPacketBuffer) throws(E) -> Void) throws(E) {
        let held = packets
        packets = []
        defer {
            for packet in held {
                var doomed: UnsafeMutablePointer<AVPacket>? = packet
                av_packet_free(&doomed)
            }
        }
        for (index, packet) in held.enumerated() {
            buffer.unref()
            av_packet_move_ref(buffer.pointer, packet)
            defer { buffer.unref() }
            try body(index, buffer)
        }
    }
}
