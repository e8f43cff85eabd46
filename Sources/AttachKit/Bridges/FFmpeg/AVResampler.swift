import CFFmpeg

/// A libswresample context converting decoded audio to one sample rate, format and channel count,
/// with exactly one owner; freed when the value goes away. Rebuilt when the source's parameters
/// change between frames.
struct AVResampler: ~Copyable {
    private var context: OpaquePointer?
    private var source: (rate: Int32, format: Int32, channels: Int32) = (0, -1, 0)
    let sampleRate: Int
    let channels: Int
    let sampleFormat: AVSampleFormat

    /// - Throws: ``FFmpegError`` tagged ``FFmpegOperation/openResampler`` for a rate or channel count of zero or less.
    init(sampleRate: Int, channels: Int, sampleFormat: SampleFormat) throws(FFmpegError) {
        try FFmpegLibrary.require()
        guard sampleRate > 0, channels > 0 else {
            throw FFmpegError(operation: .openResampler, message: "cannot resample to \(sampleRate) Hz, \(channels) channel(s)")
        }
        self.sampleRate = sampleRate
        self.channels = channels
        self.sampleFormat = sampleFormat.av
    }

    deinit {
        var doomed = context
        if doomed != nil { swr_free(&doomed) }
    }

    /// Converts `frame` into `target`, whose previous buffers are released. `target` may come back
    /// with no samples (the resampler holds some back). Channels beyond the target's count are
    /// mixed down (an unordered layout is read in the default order for its channel count).
    /// - Throws: ``FFmpegError`` tagged ``FFmpegOperation/resample``.
    mutating func convert(_ frame: borrowing AVFrameBuffer, into target: borrowing AVFrameBuffer) throws(FFmpegError) {
        let out = prepare(target)
        let input = frame.pointer
        if context == nil || source != (input.pointee.sample_rate, input.pointee.format, input.pointee.ch_layout.nb_channels) {
            try rebuild(for: input)
        }
        // The frame's own layout may be unordered (WAV without a channel mask): read it in the
        // default order the resampler was built with.
        var original = AVChannelLayout()
        let swapped = input.pointee.ch_layout.order == AV_CHANNEL_ORDER_UNSPEC
        if swapped {
            original = input.pointee.ch_layout
            input.pointee.ch_layout = AVChannelLayout()
            av_channel_layout_default(&input.pointee.ch_layout, original.nb_channels)
        }
        let status = swr_convert_frame(context, out, input)
        if swapped {
            av_channel_layout_uninit(&input.pointee.ch_layout)
            input.pointee.ch_layout = original
        }
        guard status >= 0 else { throw FFmpegError(operation: .resample, code: status) }
    }

    /// Gives out, into `target`, the samples the resampler still holds at the end of the stream.
    /// - Throws: ``FFmpegError`` tagged ``FFmpegOperation/resample``.
    func flush(into target: borrowing AVFrameBuffer) throws(FFmpegError) {
        let out = prepare(target)
        guard let context else { return }
        let status = swr_convert_frame(context, out, nil)
        guard status >= 0 else { throw FFmpegError(operation: .resample, code: status) }
    }

    private func prepare(_ target: borrowing AVFrameBuffer) -> UnsafeMutablePointer<AVFrame> {
        target.unref()
        let out = target.pointer
        out.pointee.sample_rate = Int32(sampleRate)
        out.pointee.format = sampleFormat.rawValue
        av_channel_layout_default(&out.pointee.ch_layout, Int32(channels))
        return out
    }

    private mutating func rebuild(for input: UnsafeMutablePointer<AVFrame>) throws(FFmpegError) {
        if context != nil { swr_free(&context) }
        var inLayout = AVChannelLayout()
        if input.pointee.ch_layout.order == AV_CHANNEL_ORDER_UNSPEC {
            av_channel_layout_default(&inLayout, input.pointee.ch_layout.nb_channels)
        } else {
            let copied = av_channel_layout_copy(&inLayout, &input.pointee.ch_layout)
            guard copied >= 0 else { throw FFmpegError(operation: .resample, code: copied) }
        }
        defer { av_channel_layout_uninit(&inLayout) }
        var outLayout = AVChannelLayout()
        av_channel_layout_default(&outLayout, Int32(channels))
        defer { av_channel_layout_uninit(&outLayout) }
        var raw: OpaquePointer?
        let made = swr_alloc_set_opts2(&raw, &outLayout, sampleFormat, Int32(sampleRate),
                                       &inLayout, AVSampleFormat(rawValue: input.pointee.format), input.pointee.sample_rate, 0, nil)
        guard made >= 0, raw != nil else {
            if raw != nil { swr_free(&raw) }
            throw FFmpegError(operation: .resample, code: made < 0 ? made : ak_averror(ENOMEM))
        }
        let initialised = swr_init(raw)
        guard initialised >= 0 else {
            swr_free(&raw)
            throw FFmpegError(operation: .resample, code: initialised)
        }
        context = raw
        source = (input.pointee.sample_rate, input.pointee.format, input.pointee.ch_layout.nb_channels)
    }
}
