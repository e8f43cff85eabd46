import CFFmpeg

/// A libavfilter graph with one video input (`buffer`) and one output (`buffersink`), built from a
/// filter description such as `"zscale=t=linear,format=gbrpf32le,..."`, with exactly one owner;
/// the graph and every filter in it are freed when the value goes away (also when building fails
/// part-way). The graph runs on the calling thread (`nb_threads` 1).
///
/// Usage: ``push(_:)`` a frame, then ``pull(into:)`` until ``DecodeStep/needsInput``; at the end
/// ``pushEndOfStream()`` and pull until ``DecodeStep/endOfStream``. Every frame pushed must have
/// the ``Input`` shape the graph was built for (build a new graph when it changes).
struct AVVideoFilter: ~Copyable {
    private let graph: UnsafeMutablePointer<AVFilterGraph>
    private let source: UnsafeMutablePointer<AVFilterContext>
    private let sink: UnsafeMutablePointer<AVFilterContext>

    /// The frames the graph takes.
    struct Input: Sendable, Equatable {
        var width: Int32
        var height: Int32
        /// `AVPixelFormat` raw value.
        var format: Int32
        /// Sample aspect ratio of the stored pixels; a zero or negative term counts as square.
        var sampleAspect = Rational(1, 1)
        /// Units of the frames' timestamps. Default 1/1 (timestamps pass through unused).
        var timeBase = Rational(1, 1)

        /// Whether both sides are whole chroma samples (always for 4:4:4 and RGB; even sides for
        /// 4:2:0). zimg (`zscale`) refuses a frame for which this is `false`.
        var wholeChroma: Bool {
            guard let descriptor = av_pix_fmt_desc_get(AVPixelFormat(rawValue: format)) else { return true }
            let across = Int32(1) << Int32(descriptor.pointee.log2_chroma_w), down = Int32(1) << Int32(descriptor.pointee.log2_chroma_h)
            return width % across == 0 && height % down == 0
        }

        /// The shape of `frame`.
        init(_ frame: borrowing AVFrameBuffer) {
            width = frame.pointer.pointee.width
            height = frame.pointer.pointee.height
            format = frame.pointer.pointee.format
            let sar = frame.pointer.pointee.sample_aspect_ratio
            if sar.num > 0, sar.den > 0 { sampleAspect = Rational(Int(sar.num), Int(sar.den)) }
        }
    }

    /// Builds `description` between a `buffer` source taking `input` and a `buffersink`.
    /// - Throws: ``FFmpegError`` tagged ``FFmpegOperation/loadLibrary`` (libavfilter cannot be
    ///   opened) or ``FFmpegOperation/openFilter`` (a filter this FFmpeg lacks, an option it does not
    ///   know, a format it cannot take, or no memory).
    init(_ description: String, input: Input) throws(FFmpegError) {
        try FFmpegLibrary.requireFilters()
        guard input.width > 0, input.height > 0, let formatName = av_get_pix_fmt_name(AVPixelFormat(rawValue: input.format)) else {
            throw FFmpegError(operation: .openFilter, message: "the frames have no picture to filter")
        }
        guard let graph = avfilter_graph_alloc() else { throw FFmpegError(operation: .openFilter, code: ak_averror(ENOMEM)) }
        graph.pointee.nb_threads = 1
        var built: (UnsafeMutablePointer<AVFilterContext>, UnsafeMutablePointer<AVFilterContext>)?
        defer { if built == nil { Self.free(graph) } }
        let aspect = input.sampleAspect.numerator > 0 && input.sampleAspect.denominator > 0 ? input.sampleAspect : Rational(1, 1)
        let arguments = "video_size=\(input.width)x\(input.height):pix_fmt=\(String(cString: formatName))"
            + ":time_base=\(input.timeBase.numerator)/\(input.timeBase.denominator)"
            + ":pixel_aspect=\(aspect.numerator)/\(aspect.denominator)"
        let source = try Self.filter("buffer", named: "in", arguments: arguments, in: graph)
        let sink = try Self.filter("buffersink", named: "out", arguments: nil, in: graph)
        try Self.link(description, from: source, to: sink, in: graph)
        let configured = avfilter_graph_config(graph, nil)
        guard configured >= 0 else { throw FFmpegError(operation: .openFilter, code: configured) }
        built = (source, sink)
        self.graph = graph
        self.source = source
        self.sink = sink
    }

    deinit { Self.free(graph) }

    /// Gives `frame` to the graph; the frame is left as it was (its buffers are referenced, not taken).
    /// - Throws: ``FFmpegError`` tagged ``FFmpegOperation/filter``.
    func push(_ frame: borrowing AVFrameBuffer) throws(FFmpegError) {
        let status = av_buffersrc_add_frame_flags(source, frame.pointer, Int32(AV_BUFFERSRC_FLAG_KEEP_REF))
        guard status >= 0 else { throw FFmpegError(operation: .filter, code: status) }
    }

    /// Tells the graph no frame follows, so it gives out what it still holds.
    /// - Throws: ``FFmpegError`` tagged ``FFmpegOperation/filter``.
    func pushEndOfStream() throws(FFmpegError) {
        let status = av_buffersrc_add_frame_flags(source, nil, 0)
        guard status >= 0 else { throw FFmpegError(operation: .filter, code: status) }
    }

    /// Takes the graph's next output frame into `frame` (whose previous buffers are released).
    /// - Returns: ``DecodeStep/frame``, ``DecodeStep/needsInput`` (push more first) or
    ///   ``DecodeStep/endOfStream`` (after ``pushEndOfStream()``, nothing is left).
    /// - Throws: ``FFmpegError`` tagged ``FFmpegOperation/filter``.
    func pull(into frame: borrowing AVFrameBuffer) throws(FFmpegError) -> DecodeStep {
        frame.unref()
        let status = av_buffersink_get_frame(sink, frame.pointer)
        if status >= 0 { return .frame }
        if status == FFmpegError.tryAgain { return .needsInput }
        if status == FFmpegError.endOfFile { return .endOfStream }
        throw FFmpegError(operation: .filter, code: status)
    }

    /// Creates filter `kind` in `graph` (which owns it from then on).
    private static func filter(_ kind: String, named name: String, arguments: String?,
                               in graph: UnsafeMutablePointer<AVFilterGraph>) throws(FFmpegError) -> UnsafeMutablePointer<AVFilterContext> {
        guard let definition = avfilter_get_by_name(kind) else {
            throw FFmpegError(operation: .openFilter, message: "libavfilter has no filter \(kind)")
        }
        var context: UnsafeMutablePointer<AVFilterContext>?
        let status = avfilter_graph_create_filter(&context, definition, name, arguments, nil, graph)
        guard status >= 0, let context else { throw FFmpegError(operation: .openFilter, code: status) }
        return context
    }

    /// Parses `description` into `graph`, its open input fed by `source` and its open output
    /// feeding `sink` (`avfilter_graph_parse_ptr`; the in/out lists are freed on every path).
    private static func link(_ description: String, from source: UnsafeMutablePointer<AVFilterContext>,
                             to sink: UnsafeMutablePointer<AVFilterContext>,
                             in graph: UnsafeMutablePointer<AVFilterGraph>) throws(FFmpegError) {
        var outputs = avfilter_inout_alloc()
        var inputs = avfilter_inout_alloc()
        defer {
            avfilter_inout_free(&outputs)
            avfilter_inout_free(&inputs)
        }
        guard let open = outputs, let close = inputs else { throw FFmpegError(operation: .openFilter, code: ak_averror(ENOMEM)) }
        // The description's unlabelled input is the source's output "in"; its output, the sink's
        // input "out" (the names are the lists' own: avfilter_inout_free frees them).
        open.pointee.name = av_strdup("in")
        open.pointee.filter_ctx = source
        close.pointee.name = av_strdup("out")
        close.pointee.filter_ctx = sink
        guard open.pointee.name != nil, close.pointee.name != nil else {
            throw FFmpegError(operation: .openFilter, code: ak_averror(ENOMEM))
        }
        let status = avfilter_graph_parse_ptr(graph, description, &inputs, &outputs, nil)
        guard status >= 0 else { throw FFmpegError(operation: .openFilter, code: status) }
    }

    private static func free(_ graph: UnsafeMutablePointer<AVFilterGraph>) {
        var doomed: UnsafeMutablePointer<AVFilterGraph>? = graph
        avfilter_graph_free(&doomed)
    }
}
