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
#include <libswscale/swscale.h>
#include <libswresample/swresample.h>

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

/// av_strerror into a caller-provided buffer; always NUL-terminates.
static inline void ak_strerror(int code, char *buffer, size_t size) {
    if (av_strerror(code, buffer, size) < 0) {
        snprintf(buffer, size, "FFmpeg error %d", code);
    }
}

#endif
