/// Turns a failed libvips or FFmpeg call into a ``PrepareError``, by which call failed (never by
/// the message text: libvips' error buffer is global and may hold another thread's words).
enum ImageFailure {
    /// Opening or decoding the input failed: the data is damaged (fail-on-warning makes truncation
    /// an error); any other call is a processing failure of `step`.
    static func from(_ error: VipsError, step: String) -> PrepareError {
        let detail = error.message.isEmpty ? error.operation.rawValue + " failed" : error.message
        switch error.operation {
        case .load:
            return .corrupt(reason: "the image cannot be read: \(detail)")
        case .decode:
            return .corrupt(reason: "the image does not decode: \(detail)")
        case .start, .loadBuffer, .fromMemory, .jpegsave, .pngsave, .gifsave, .heifsave, .copy, .colourspace, .cast,
             .extractBand, .crop, .rotate, .flatten, .joinFrames, .resize, .min, .max, .avg, .compare:
            return .processing(step: step, reason: error.description)
        }
    }

    /// No decoder for the codec is unsupported; a file FFmpeg cannot open or decode, or whose
    /// decoder refuses it (a frame over its size cap), is damaged; anything else is a processing
    /// failure of `step`.
    static func from(_ error: FFmpegError, step: String) -> PrepareError {
        switch error.operation {
        case .findDecoder:
            return .unsupported(reason: "no decoder for this picture: \(error.message)")
        case .loadLibrary:
            // As the prober reports it for a file that needs FFmpeg: this machine cannot read it.
            return .probe(.unreadable(path: "", reason: error.message))
        case .openInput, .streamInfo, .readPacket, .decode, .openDecoder:
            return .corrupt(reason: "the image does not decode: \(error.message)")
        case .seek, .attachedPicture, .options, .packetAlloc, .frameAlloc, .audioFIFO, .findEncoder, .openEncoder, .encode,
             .openMuxer, .openOutput, .addStream, .writeHeader, .writePacket, .writeTrailer, .closeOutput, .openResampler,
             .resample, .openScaler, .scale, .openFilter, .filter:
            return .processing(step: step, reason: error.description)
        }
    }
}

extension ImageFailure {
    /// Runs libvips work for `step`, turning its error into a ``PrepareError``.
    static func vips<T: ~Copyable>(_ step: String, _ body: () throws(VipsError) -> T) throws(PrepareError) -> T {
        do { return try body() } catch { throw from(error, step: step) }
    }

    /// Runs FFmpeg work for `step`, turning its error into a ``PrepareError``.
    static func ffmpeg<T: ~Copyable>(_ step: String, _ body: () throws(FFmpegError) -> T) throws(PrepareError) -> T {
        do { return try body() } catch { throw from(error, step: step) }
    }
}
