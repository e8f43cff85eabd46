// Thin shim over libvips for Swift: fixed-arity wrappers for the variadic calls AttachKit uses.
// No policy lives here; every option value is chosen by the Swift caller.
#ifndef ATTACHKIT_CVIPS_SHIM_H
#define ATTACHKIT_CVIPS_SHIM_H

#include <vips/vips.h>

/// vips_image_new_from_file(path, "access", access, "fail_on", fail_on, "n", pages): reads the
/// header only; pixels are decoded later, on demand.
static inline VipsImage *ak_vips_open(const char *path, int access, int fail_on, int pages) {
    return vips_image_new_from_file(path, "access", (VipsAccess) access,
                                    "fail_on", (VipsFailOn) fail_on, "n", pages, NULL);
}

/// Same as ak_vips_open without the "n" option, for loaders that have no pages (JPEG, PNG, BMP...).
static inline VipsImage *ak_vips_open_single(const char *path, int access, int fail_on) {
    return vips_image_new_from_file(path, "access", (VipsAccess) access,
                                    "fail_on", (VipsFailOn) fail_on, NULL);
}

/// vips_avg: computing an average pulls every pixel through the decoder, which is how a full
/// decode check is done in constant memory.
static inline int ak_vips_avg(VipsImage *in, double *out) {
    return vips_avg(in, out, NULL);
}

/// The name of the loader libvips would pick for a file (e.g. "VipsForeignLoadJpegFile"), or NULL.
static inline const char *ak_vips_find_loader(const char *path) {
    return vips_foreign_find_load(path);
}

#endif
