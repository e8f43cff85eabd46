// Thin shim over FFmpeg 5.1 for Swift: the macros Swift cannot import, as functions and constants.
// No policy lives here.
#ifndef ATTACHKIT_CFFMPEG_SHIM_H
#define ATTACHKIT_CFFMPEG_SHIM_H

#include <errno.h>
#include <libavformat/avformat.h>
#include <libavcodec/avcodec.h>
#include <libavutil/avutil.h>
#include <libavutil/display.h>
#include <libavutil/error.h>
#include <libavutil/imgutils.h>
#include <libavutil/opt.h>
#include <libavutil/channel_layout.h>
#include <libavutil/audio_fifo.h>
#include <libavutil/dovi_meta.h>
#include <libavutil/mastering_display_metadata.h>
#include <libswscale/swscale.h>
#include <libswresample/swresample.h>
#include <libavfilter/avfilter.h>
#include <libavfilter/buffersrc.h>
#include <libavfilter/buffersink.h>

/// AVERROR(e): FFmpeg's negative error code for a POSIX errno.
static inline int ak_averror(int posix_errno) { return AVERROR(posix_errno); }
/// AVERROR_EOF: end of stream / no more output.
static inline int ak_averror_eof(void) { return AVERROR_EOF; }
/// AVERROR(EAGAIN): the codec needs more input or has no output yet (normal flow, not an error).
static inline int ak_averror_eagain(void) { return AVERROR(EAGAIN); }
/// AVERROR_INVALIDDATA: invalid data found when processing input.
static inline int ak_averror_invaliddata(void) { return AVERROR_INVALIDDATA; }
/// AV_NOPTS_VALUE: "no timestamp".
static inline int64_t ak_nopts_value(void) { return AV_NOPTS_VALUE; }
/// AV_TIME_BASE: the internal time base of avformat durations (microseconds).
static inline int ak_time_base(void) { return AV_TIME_BASE; }

/// av_strerror into a caller-provided buffer; always NUL-terminates. A code FFmpeg has no text for
/// (a decoder's private return value) is described as what it means to a caller: the data was refused.
static inline void ak_strerror(int code, char *buffer, size_t size) {
    if (av_strerror(code, buffer, size) < 0) {
        snprintf(buffer, size, "the data was refused (FFmpeg error %d, which has no description)", code);
    }
}

// ---- Encoding, muxing and audio buffering ----

/// av_audio_fifo_write of every sample of `frame` (its `extended_data` planes), which Swift can only
/// pass as `void **` by rebinding pointers. Returns the samples written or a negative AVERROR.
static inline int ak_audio_fifo_write_frame(AVAudioFifo *fifo, const AVFrame *frame) {
    return av_audio_fifo_write(fifo, (void **)frame->extended_data, frame->nb_samples);
}

/// av_audio_fifo_read of `samples` samples into `frame`'s planes (already allocated for at least
/// that many samples). Returns the samples read or a negative AVERROR.
static inline int ak_audio_fifo_read_frame(AVAudioFifo *fifo, AVFrame *frame, int samples) {
    return av_audio_fifo_read(fifo, (void **)frame->extended_data, samples);
}

/// MKTAG(a, b, c, d): a FourCC as FFmpeg stores it in `codec_tag`.
static inline unsigned int ak_fourcc(char a, char b, char c, char d) { return MKTAG(a, b, c, d); }

#endif
