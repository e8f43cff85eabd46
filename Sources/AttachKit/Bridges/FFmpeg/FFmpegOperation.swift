/// The FFmpeg call (or step of AttachKit's around one) that failed: how failures are classified,
/// never by message text. The raw value is the name messages show.
enum FFmpegOperation: String, Sendable, Equatable, CaseIterable {
    /// `dlopen` of FFmpeg's libraries (``FFmpegLibrary``): this machine cannot run FFmpeg at all
    /// (the input may be fine).
    case loadLibrary = "load FFmpeg"
    /// `avformat_open_input`: the file is not readable or not in the demuxer's format (or the
    /// named demuxer, or a stream the caller needs, does not exist).
    case openInput = "open"
    /// `avformat_find_stream_info`: no usable stream parameters (or no stream of the kind needed).
    case streamInfo = "stream info"
    /// `av_read_frame`: demuxing failed.
    case readPacket = "read packet"
    /// `avformat_seek_file`.
    case seek
    /// `av_packet_ref` of a stream's attached picture: the stream carries none.
    case attachedPicture = "attached picture"
    /// `avcodec_find_decoder`: no such stream, or FFmpeg has no decoder for its codec (the input
    /// may be fine: this build cannot read it).
    case findDecoder = "decoder"
    /// `avcodec_open2` (or `avcodec_parameters_to_context`) of a decoder: it refused the stream's
    /// parameters or an option value, or the frame size is over the `max_pixels` it would be given.
    case openDecoder = "open decoder"
    /// Options left over after a call took the ones it knows: a name it does not know.
    case options
    /// `avcodec_send_packet` / `avcodec_receive_frame`: the data does not decode (also a frame the
    /// decoder flags as damaged, or a stream that decodes to no frame).
    case decode
    /// `av_packet_alloc`.
    case packetAlloc = "packet"
    /// `av_frame_alloc`.
    case frameAlloc = "frame"
    /// `av_audio_fifo_*`: buffering resampled audio.
    case audioFIFO = "audio fifo"
    /// `avcodec_find_encoder_by_name`: FFmpeg has no such encoder.
    case findEncoder = "encoder"
    /// `avcodec_open2` of an encoder: it refused the parameters or an option value.
    case openEncoder = "open encoder"
    /// `avcodec_send_frame` / `avcodec_receive_packet`.
    case encode
    /// `av_guess_format` / `avformat_alloc_output_context2`: no such muxer.
    case openMuxer = "muxer"
    /// `avio_open2`: the output file cannot be created.
    case openOutput = "open output"
    /// `avformat_new_stream` and the copy of its parameters.
    case addStream = "add stream"
    /// `avformat_write_header`.
    case writeHeader = "write header"
    /// `av_interleaved_write_frame` (I/O error, disk full, timestamps out of order).
    case writePacket = "write packet"
    /// `av_write_trailer`.
    case writeTrailer = "write trailer"
    /// `avio_closep` of the output.
    case closeOutput = "close output"
    /// Setting up libswresample (a rate or channel count it cannot take).
    case openResampler = "resampler"
    /// `swr_convert_frame` (and rebuilding the context when the source changes).
    case resample
    /// Setting up libswscale (a size it cannot take).
    case openScaler = "scaler"
    /// `sws_scale_frame` (and the context and buffers it needs).
    case scale
    /// Building a libavfilter graph (`avfilter_graph_parse_ptr`, `avfilter_graph_config`): a filter
    /// missing from this FFmpeg, or one that refuses the frames' size or format.
    case openFilter = "filter graph"
    /// `av_buffersrc_add_frame_flags` / `av_buffersink_get_frame`: filtering a frame failed.
    case filter
}
