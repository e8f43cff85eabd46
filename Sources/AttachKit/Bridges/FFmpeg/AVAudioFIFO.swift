import CFFmpeg

/// An `AVAudioFifo` with exactly one owner, freed when the value goes away: collects resampled
/// audio so an encoder with a fixed frame size (AAC: 1024 samples) gets exactly that many.
struct AVAudioFIFO: ~Copyable {
    private let fifo: OpaquePointer
    let sampleFormat: AVSampleFormat
    let channels: Int
    let sampleRate: Int

    /// - Throws: ``FFmpegError`` tagged ``FFmpegOperation/audioFIFO`` when FFmpeg cannot allocate it.
    init(sampleFormat: SampleFormat, channels: Int, sampleRate: Int) throws(FFmpegError) {
        try FFmpegLibrary.require()
        guard let fifo = av_audio_fifo_alloc(sampleFormat.av, Int32(channels), 4096) else {
            throw FFmpegError(operation: .audioFIFO, code: ak_averror(ENOMEM))
        }
        self.fifo = fifo
        self.sampleFormat = sampleFormat.av
        self.channels = channels
        self.sampleRate = sampleRate
    }

    deinit { av_audio_fifo_free(fifo) }

    /// Samples per channel waiting.
    var count: Int { Int(av_audio_fifo_size(fifo)) }

    /// Appends every sample of `frame` (same format and channel count as the FIFO).
    /// - Throws: ``FFmpegError`` tagged ``FFmpegOperation/audioFIFO``.
    func append(_ frame: borrowing AVFrameBuffer) throws(FFmpegError) {
        guard frame.pointer.pointee.nb_samples > 0 else { return }
        let written = ak_audio_fifo_write_frame(fifo, frame.pointer)
        guard written >= 0 else { throw FFmpegError(operation: .audioFIFO, code: written) }
    }

    /// Drops the first `samples` samples (audio before a trim start).
    func discard(_ samples: Int) {
        guard samples > 0 else { return }
        av_audio_fifo_drain(fifo, Int32(min(samples, count)))
    }

    /// Moves up to `samples` samples into `frame` (its previous buffers released).
    /// - Returns: the samples moved (0 when empty).
    /// - Throws: ``FFmpegError`` tagged ``FFmpegOperation/audioFIFO``.
    func take(_ samples: Int, into frame: borrowing AVFrameBuffer) throws(FFmpegError) -> Int {
        let n = min(samples, count)
        guard n > 0 else { return 0 }
        frame.unref()
        let out = frame.pointer
        out.pointee.nb_samples = Int32(n)
        out.pointee.format = sampleFormat.rawValue
        out.pointee.sample_rate = Int32(sampleRate)
        av_channel_layout_default(&out.pointee.ch_layout, Int32(channels))
        let allocated = av_frame_get_buffer(out, 0)
        guard allocated >= 0 else { throw FFmpegError(operation: .audioFIFO, code: allocated) }
        let read = ak_audio_fifo_read_frame(fifo, out, Int32(n))
        guard read >= 0 else { throw FFmpegError(operation: .audioFIFO, code: read) }
        return Int(read)
    }
}
