/// One output stream being made from one input stream while a clip is written: it takes the
/// input's packets in file order and writes its own packets into the muxer.
protocol ClipStage: AnyObject {
    /// The input stream it reads.
    var inputIndex: Int { get }
    /// The output stream it writes, once ``attach(to:)`` added it.
    var outputIndex: Int { get }
    /// `true` once the stage has everything it needs (past the window's end).
    var finished: Bool { get }
    /// What it wrote.
    var tally: StreamTally { get }

    /// Adds the stage's stream to the output (before the header is written).
    func attach(to output: borrowing AVOutput, input: borrowing AVInput) throws(PrepareError)
    /// Learns the output stream's time base (after the header is written).
    func ready(output: borrowing AVOutput)
    /// Writes what the stage has before any packet is read (cover art). Default: nothing.
    func begin(output: borrowing AVOutput, input: borrowing AVInput) throws(PrepareError)
    /// Takes one packet of ``inputIndex``.
    func accept(_ packet: borrowing AVPacketBuffer, output: borrowing AVOutput) throws(PrepareError)
    /// Writes what it still holds (decoder and encoder delay) at the end of the input or window.
    func finish(output: borrowing AVOutput) throws(PrepareError)
}

extension ClipStage {
    func begin(output: borrowing AVOutput, input: borrowing AVInput) throws(PrepareError) {}

    /// Writes `packet` (timestamps already in the output stream's time base) and counts it.
    func mux(_ packet: borrowing AVPacketBuffer, output: borrowing AVOutput, timeBase: Rational,
             tally: inout StreamTally) throws(PrepareError) {
        // Every packet muxed has a time: encoders stamp theirs, copies keep only timed packets.
        let time = timeBase.seconds(packet.timestamp ?? 0)
        tally.add(bytes: packet.byteCount, at: time, duration: timeBase.seconds(packet.duration))
        do {
            try output.write(packet)
        } catch {
            throw ClipErrors.processing("writing the output", error)
        }
    }
}

/// Maps FFmpeg failures onto preparation errors: decoding failures mean the input's data is
/// broken, anything else is a processing failure of `step`.
enum ClipErrors {
    static func decoding(_ error: FFmpegError, stream: Int, codec: String, at time: Double?) -> PrepareError {
        let place = time.map { " near \(ClipText.seconds($0))" } ?? ""
        return .corrupt(reason: "stream \(stream) (\(codec)) does not decode\(place): \(error.message)")
    }

    /// A kept frame the decoder flagged as damaged or concealed: the input is corrupt (the same
    /// verdict `validate --deep` gives), never encoded as if it were whole.
    static func concealed(stream: Int, codec: String, at time: Double?) -> PrepareError {
        let place = time.map { " near \(ClipText.seconds($0))" } ?? ""
        return .corrupt(reason: "stream \(stream) (\(codec)) decoded with errors\(place) (concealed)")
    }

    /// A failure of `step` that is not the input's: a full disk, a quota or an I/O error while
    /// writing is `write-failed`, as for images (``OutputError/system(operation:path:reason:)``);
    /// anything else `processing-failed`.
    static func processing(_ step: String, _ error: FFmpegError) -> PrepareError {
        if [SystemError.noSpace, .quotaExceeded, .fileTooLarge, .ioError].contains(where: { error.code == -$0.code }) {
            return .output(.system(operation: "write", path: "the output (\(step))", reason: error.message))
        }
        return .processing(step: step, reason: error.description)
    }

    /// Runs a decoding step of `stream`: an FFmpeg failure is the input not decoding near `time`
    /// (corrupt), a ``PrepareError`` passes through, anything else is a processing failure of `step`.
    static func decoding(stream: Int, codec: String, at time: Double?, step: String,
                         _ body: () throws -> Void) throws(PrepareError) {
        do {
            try body()
        } catch let error as FFmpegError {
            throw decoding(error, stream: stream, codec: codec, at: time)
        } catch let error as PrepareError {
            throw error
        } catch {
            throw .processing(step: step, reason: "\(error)")
        }
    }

    /// Opens the decoder of `what` (`"the h264 video"`), by which call failed: FFmpeg having no
    /// decoder for the codec is unsupported; a decoder that refuses the stream (its parameters)
    /// means the input is damaged; anything else (an option it does not know) is a processing failure.
    static func openingDecoder(_ what: String, _ body: () throws(FFmpegError) -> AVDecoder) throws(PrepareError) -> AVDecoder {
        do {
            return try body()
        } catch {
            switch error.operation {
            case .findDecoder: throw .unsupported(reason: "FFmpeg cannot decode \(what): \(error.message)")
            case .openDecoder: throw .corrupt(reason: "the decoder refuses \(what): \(error.message)")
            default: throw processing("opening the decoder of \(what)", error)
            }
        }
    }

    /// Runs an FFmpeg set-up call, reporting its failure as a processing failure of `step`.
    static func attempt<T: ~Copyable>(_ step: String, _ body: () throws(FFmpegError) -> T) throws(PrepareError) -> T {
        do {
            return try body()
        } catch {
            throw processing(step, error)
        }
    }
}
