// Thin shim over libvips for Swift: fixed-arity wrappers for the variadic calls AttachKit uses.
// No policy lives here; every option value is chosen by the Swift caller.
#ifndef ATTACHKIT_CVIPS_SHIM_H
#define ATTACHKIT_CVIPS_SHIM_H

#include <vips/vips.h>

/// vips_avg: computing an average pulls every pixel through the decoder, which is how a full
/// decode check is done in constant memory.
static inline int ak_vips_avg(VipsImage *in, double *out) {
    return vips_avg(in, out, NULL);
}


/// vips_jpegsave_buffer(in, buffer, length, "Q", quality, "strip", strip, "optimize_coding",
/// optimize_coding, "interlace", interlace). The caller g_free()s *buffer.
static inline int ak_vips_jpegsave_buffer(VipsImage *in, void **buffer, size_t *length,
                                          int quality, int strip, int optimize_coding, int interlace) {
    return vips_jpegsave_buffer(in, buffer, length, "Q", quality, "strip", strip,
                                "optimize_coding", optimize_coding, "interlace", interlace, NULL);
}

// ---- Image preparation: shrink-on-load, pixel operations, savers ----

/// vips_thumbnail_source(source, out, width, "height", height, "size", size, "no_rotate",
/// no_rotate, "fail_on", fail_on, "option_string", options, ["export_profile", export_profile]):
/// opens the source and shrinks while loading (JPEG DCT scaling, WebP scaled decode, HEIF embedded
/// thumbnails) to fit inside width×height. `options` goes to the loader ("n=-1", "page=3");
/// `export_profile` may be NULL (no ICC transform requested).
static inline int ak_vips_thumbnail_source(VipsSource *source, VipsImage **out, int width, int height,
                                           int size, const char *options, const char *export_profile,
                                           int fail_on, int no_rotate) {
    if (export_profile) {
        return vips_thumbnail_source(source, out, width, "height", height, "size", (VipsSize) size,
                                     "no_rotate", no_rotate, "fail_on", (VipsFailOn) fail_on,
                                     "option_string", options, "export_profile", export_profile, NULL);
    }
    return vips_thumbnail_source(source, out, width, "height", height, "size", (VipsSize) size,
                                 "no_rotate", no_rotate, "fail_on", (VipsFailOn) fail_on,
                                 "option_string", options, NULL);
}

/// vips_thumbnail_image(in, out, width, "height", height, "size", size, "no_rotate", no_rotate,
/// ["export_profile", export_profile]): the same resize for an image already opened (no
/// shrink-on-load). `export_profile` may be NULL.
static inline int ak_vips_thumbnail_image(VipsImage *in, VipsImage **out, int width, int height, int size,
                                          const char *export_profile, int no_rotate) {
    if (export_profile) {
        return vips_thumbnail_image(in, out, width, "height", height, "size", (VipsSize) size,
                                    "no_rotate", no_rotate, "export_profile", export_profile, NULL);
    }
    return vips_thumbnail_image(in, out, width, "height", height, "size", (VipsSize) size,
                                "no_rotate", no_rotate, NULL);
}

/// vips_colourspace(in, out, space).
static inline int ak_vips_colourspace(VipsImage *in, VipsImage **out, int space) {
    return vips_colourspace(in, out, (VipsInterpretation) space, NULL);
}

/// vips_cast(in, out, format).
static inline int ak_vips_cast(VipsImage *in, VipsImage **out, int format) {
    return vips_cast(in, out, (VipsBandFormat) format, NULL);
}

/// vips_extract_band(in, out, band, "n", count).
static inline int ak_vips_extract_band(VipsImage *in, VipsImage **out, int band, int count) {
    return vips_extract_band(in, out, band, "n", count, NULL);
}

/// vips_extract_area(in, out, left, top, width, height).
static inline int ak_vips_extract_area(VipsImage *in, VipsImage **out, int left, int top, int width, int height) {
    return vips_extract_area(in, out, left, top, width, height, NULL);
}

/// vips_rot(in, out, angle): turns the image by a multiple of 90 degrees (exact, no resampling).
static inline int ak_vips_rot(VipsImage *in, VipsImage **out, int angle) {
    return vips_rot(in, out, (VipsAngle) angle, NULL);
}

/// vips_flatten(in, out, "background", [red, green, blue]): composites alpha over a colour.
static inline int ak_vips_flatten(VipsImage *in, VipsImage **out, double red, double green, double blue) {
    double values[3] = { red, green, blue };
    VipsArrayDouble *background = vips_array_double_new(values, 3);
    int status = vips_flatten(in, out, "background", background, NULL);
    vips_area_unref(VIPS_AREA(background));
    return status;
}

/// vips_arrayjoin(images, out, count, "across", across): tiles images (across = 1 stacks them).
static inline int ak_vips_arrayjoin(VipsImage **images, VipsImage **out, int count, int across) {
    return vips_arrayjoin(images, out, count, "across", across, NULL);
}

/// vips_copy(in, out): a new image sharing the pixels, whose metadata may then be changed.
static inline int ak_vips_copy(VipsImage *in, VipsImage **out) {
    return vips_copy(in, out, NULL);
}

/// vips_min(in, out).
static inline int ak_vips_min(VipsImage *in, double *out) {
    return vips_min(in, out, NULL);
}

/// vips_max(in, out).
static inline int ak_vips_max(VipsImage *in, double *out) {
    return vips_max(in, out, NULL);
}

/// vips_subtract(left, right, out).
static inline int ak_vips_subtract(VipsImage *left, VipsImage *right, VipsImage **out) {
    return vips_subtract(left, right, out, NULL);
}

/// vips_multiply(left, right, out).
static inline int ak_vips_multiply(VipsImage *left, VipsImage *right, VipsImage **out) {
    return vips_multiply(left, right, out, NULL);
}

/// vips_image_new_from_buffer(data, length, "", "access", access, "fail_on", fail_on): decodes an
/// encoded image held in memory (the caller keeps `data` alive as long as the image).
static inline VipsImage *ak_vips_open_buffer(const void *data, size_t length, int access, int fail_on) {
    return vips_image_new_from_buffer(data, length, "", "access", (VipsAccess) access,
                                      "fail_on", (VipsFailOn) fail_on, NULL);
}

/// vips_pngsave_buffer(in, buffer, length, "compression", compression, "strip", strip, "palette",
/// palette, "Q", quality, "bitdepth", bitdepth, "dither", dither, "effort", effort). With palette
/// set, libvips quantises to at most 2^bitdepth colours (libimagequant in this build). The caller
/// g_free()s *buffer.
static inline int ak_vips_pngsave_buffer(VipsImage *in, void **buffer, size_t *length, int compression,
                                         int strip, int palette, int quality, int bitdepth,
                                         double dither, int effort) {
    if (palette) {
        return vips_pngsave_buffer(in, buffer, length, "compression", compression, "strip", strip,
                                   "palette", TRUE, "Q", quality, "bitdepth", bitdepth,
                                   "dither", dither, "effort", effort, NULL);
    }
    return vips_pngsave_buffer(in, buffer, length, "compression", compression, "strip", strip, NULL);
}

/// vips_gifsave_buffer(in, buffer, length, "bitdepth", bitdepth, "dither", dither, "effort",
/// effort, "strip", strip, "interframe_maxerror", interframe_maxerror). Frames come from the
/// image's "page-height", delays from "delay", loop count from "loop". The caller g_free()s *buffer.
static inline int ak_vips_gifsave_buffer(VipsImage *in, void **buffer, size_t *length, int bitdepth,
                                         double dither, int effort, int strip, double interframe_maxerror) {
    return vips_gifsave_buffer(in, buffer, length, "bitdepth", bitdepth, "dither", dither,
                               "effort", effort, "strip", strip,
                               "interframe_maxerror", interframe_maxerror, NULL);
}

/// vips_heifsave_buffer(in, buffer, length, "Q", quality, "bitdepth", bitdepth, "compression",
/// compression, "effort", effort, "strip", strip). The caller g_free()s *buffer.
static inline int ak_vips_heifsave_buffer(VipsImage *in, void **buffer, size_t *length, int quality,
                                          int bitdepth, int compression, int effort, int strip) {
    return vips_heifsave_buffer(in, buffer, length, "Q", quality, "bitdepth", bitdepth,
                                "compression", (VipsForeignHeifCompression) compression,
                                "effort", effort, "strip", strip, NULL);
}

/// vips_image_new_from_source(source, options, "access", access, "fail_on", fail_on): reads the
/// header only; pixels are decoded on demand. `options` goes to the loader ("n=-1", "page=2").
static inline VipsImage *ak_vips_open_source(VipsSource *source, const char *options, int access, int fail_on) {
    return vips_image_new_from_source(source, options, "access", (VipsAccess) access,
                                      "fail_on", (VipsFailOn) fail_on, NULL);
}

#endif
