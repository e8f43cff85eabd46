// zlib, for its CRC-32 (crc32_z) and inflate (an APNG frame's rows counted). Already mapped in
// every process: libpng and libvips link it.
#ifndef ATTACHKIT_CZLIB_SHIM_H
#define ATTACHKIT_CZLIB_SHIM_H

#include <zlib.h>

// inflateInit is a macro (it passes the header's version and the stream's size).
static inline int attachkit_inflate_init(z_stream *stream) { return inflateInit(stream); }

#endif
