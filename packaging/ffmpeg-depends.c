// Not part of attachkit. scripts/package.sh links this stub against the FFmpeg libraries the
// loader opens with dlopen (Sources/CFFmpegLoader), so that dpkg-shlibdeps computes the package and
// minimum version of each from the functions the loader resolves, as it does for the libraries the
// binary links. The list is the loader's own (FFmpegFunctions.h): a function added there is
// accounted for here too.
#include "../Sources/CFFmpeg/shim.h"
#include "../Sources/CFFmpegLoader/FFmpegFunctions.h"

#define AK_ADDRESS(library, result, function, parameters, arguments) (const void *)function,
#define AK_VOID_ADDRESS(library, function, parameters, arguments) (const void *)function,

/// Every function the loader resolves, so the stub refers to each one.
const void *const ak_ffmpeg_functions[] = {AK_FFMPEG_FUNCTIONS(AK_ADDRESS, AK_VOID_ADDRESS)};
