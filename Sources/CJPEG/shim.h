// libjpeg-turbo (Debian's libjpeg62-turbo-dev; libvips links the same library), for one question
// libvips cannot answer: where an arithmetic-coded scan's data ran out. Hitting a marker inside
// arithmetic-coded data is legal (T.81 D.2.6: the decoder reads zeros from there on, and encoders
// drop their final zero bytes), so libjpeg decodes a cut file to the end without a warning. The
// shim only runs the decoder and records what it saw; what counts as cut is decided in Swift.
#ifndef ATTACHKIT_CJPEG_SHIM_H
#define ATTACHKIT_CJPEG_SHIM_H

#include <stdio.h>
#include <string.h>
#include <setjmp.h>
#include <jpeglib.h>

/// What decoding an image's entropy-coded data saw.
typedef struct {
    /// 1 when libjpeg stopped with an error; `message` says which.
    int failed;
    /// 1 when a scan's data reached a marker while whole iMCU rows of that scan were left.
    int markerBeforeEnd;
    /// When `markerBeforeEnd`: iMCU rows of that scan decoded before the marker was seen...
    unsigned rowsBefore;
    /// ...and the rows after it (decoded from no data).
    unsigned rowsAfter;
    /// Bytes of that scan's data read up to the marker.
    unsigned long scanBytes;
    /// The error's text when `failed`.
    char message[JMSG_LENGTH_MAX];
    /// Warnings libjpeg raised (corrupt data it decoded past: a premature end of a scan's data,
    /// bytes that are not a marker...).
    unsigned warnings;
    /// The first warning's text when `warnings` > 0.
    char warning[JMSG_LENGTH_MAX];
} attachkit_jpeg_entropy_report;

struct attachkit_jpeg_error {
    struct jpeg_error_mgr base;
    jmp_buf escape;
    attachkit_jpeg_entropy_report *report;
};

struct attachkit_jpeg_progress {
    struct jpeg_progress_mgr base;
    attachkit_jpeg_entropy_report *report;
    const unsigned char *data;
    /// Where the current scan's data starts (the offset after its SOS segment).
    unsigned long scanStart;
    unsigned lastRow;
};

static void attachkit_jpeg_error_exit(j_common_ptr info) {
    longjmp(((struct attachkit_jpeg_error *)info->err)->escape, 1);
}

/// Counts warnings (level -1) and keeps the first one's text; trace messages are dropped.
static void attachkit_jpeg_count_warnings(j_common_ptr info, int level) {
    if (level >= 0) return;
    attachkit_jpeg_entropy_report *report = ((struct attachkit_jpeg_error *)info->err)->report;
    if (report->warnings++ == 0) (*info->err->format_message)(info, report->warning);
}

static void attachkit_jpeg_progress_monitor(j_common_ptr info) {
    j_decompress_ptr d = (j_decompress_ptr)info;
    struct attachkit_jpeg_progress *p = (struct attachkit_jpeg_progress *)info->progress;
    unsigned long offset = (unsigned long)(d->src->next_input_byte - p->data);
    if (d->input_iMCU_row < p->lastRow || (d->input_iMCU_row == 0 && d->unread_marker == 0)) p->scanStart = offset;
    p->lastRow = d->input_iMCU_row;
    if (d->unread_marker != 0 && !p->report->markerBeforeEnd && d->input_iMCU_row < d->total_iMCU_rows) {
        p->report->markerBeforeEnd = 1;
        p->report->rowsBefore = d->input_iMCU_row;
        p->report->rowsAfter = d->total_iMCU_rows - d->input_iMCU_row;
        p->report->scanBytes = offset > p->scanStart ? offset - p->scanStart : 0;
    }
}

/// Decodes the JPEG in `data` (`size` bytes) at 1/8 scale, every scan, and reports whether a
/// scan's entropy-coded data reached a marker with rows left, and the warnings libjpeg raised on
/// the way. An error stops the decode (`failed`).
static inline void attachkit_jpeg_scan_entropy(const unsigned char *data, unsigned long size,
                                               attachkit_jpeg_entropy_report *report) {
    struct jpeg_decompress_struct d;
    struct attachkit_jpeg_error error;
    struct attachkit_jpeg_progress progress;
    JSAMPARRAY row = NULL;
    memset(report, 0, sizeof *report);
    memset(&progress, 0, sizeof progress);
    d.err = jpeg_std_error(&error.base);
    error.base.error_exit = attachkit_jpeg_error_exit;
    error.base.emit_message = attachkit_jpeg_count_warnings;
    error.report = report;
    if (setjmp(error.escape)) {
        report->failed = 1;
        (*d.err->format_message)((j_common_ptr)&d, report->message);
        jpeg_destroy_decompress(&d);
        return;
    }
    jpeg_create_decompress(&d);
    progress.base.progress_monitor = attachkit_jpeg_progress_monitor;
    progress.report = report;
    progress.data = data;
    d.progress = &progress.base;
    jpeg_mem_src(&d, data, size);
    jpeg_read_header(&d, TRUE);
    d.scale_num = 1;
    d.scale_denom = 8;
    d.dct_method = JDCT_IFAST;
    d.do_fancy_upsampling = FALSE;
    progress.scanStart = (unsigned long)(d.src->next_input_byte - data);
    jpeg_start_decompress(&d);
    row = (*d.mem->alloc_sarray)((j_common_ptr)&d, JPOOL_IMAGE, d.output_width * d.output_components, 1);
    while (d.output_scanline < d.output_height) jpeg_read_scanlines(&d, row, 1);
    jpeg_finish_decompress(&d);
    jpeg_destroy_decompress(&d);
}

#endif
