// zlib, for its CRC-32 (crc32_z). Already mapped in every process: libpng and libvips link it.
#ifndef ATTACHKIT_CZLIB_SHIM_H
#define ATTACHKIT_CZLIB_SHIM_H

#include <zlib.h>

#endif
