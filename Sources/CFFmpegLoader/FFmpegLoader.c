// FFmpeg on first use: AttachKit does not link FFmpeg. Each FFmpeg function it calls (the list in
// FFmpegFunctions.h) is defined here under FFmpeg's own name, with FFmpeg's own prototype (the
// header's declaration makes the compiler check it), and forwards through a table of function
// pointers (typed `__typeof__(function) *`) that ak_ffmpeg_load() fills with dlsym (and
// ak_ffmpeg_load_filters() for libavfilter's). The forwarders are hidden, so the libraries FFmpeg
// loads never bind to them.
#define _GNU_SOURCE 1 // PATH_MAX
#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#if !__has_include(<libavformat/avformat.h>)
#error "FFmpeg's headers are missing: apt-get install libavformat-dev libavcodec-dev libavutil-dev libswscale-dev libswresample-dev libavfilter-dev"
#endif

#include "../CFFmpeg/shim.h"
#include "CFFmpegLoader.h"
#include "FFmpegFunctions.h"

/// FFmpeg's libraries in the order they are opened (each one's dependencies come before it). The
/// first five are opened together on first use (AK_CORE_COUNT); libavfilter, which maps many
/// libraries of its own (zimg, ...; ~0.4 s and ~13 MB here), only when a filter graph is first
/// needed (HDR tone mapping).
enum ak_ffmpeg_library { AK_AVUTIL, AK_SWRESAMPLE, AK_SWSCALE, AK_AVCODEC, AK_AVFORMAT, AK_AVFILTER, AK_LIBRARY_COUNT };
enum { AK_CORE_COUNT = AK_AVFILTER };

/// The library's name, the soname of the headers compiled against, its Debian package, and the
/// function that reports its version (`avutil_version`...).
#define AK_LIBRARY(name, major) \
    { "lib" #name, "lib" #name ".so." AV_STRINGIFY(major), "lib" #name AV_STRINGIFY(major), #name "_version" }
static const struct ak_ffmpeg_library_info ak_libraries[AK_LIBRARY_COUNT] = {
    [AK_AVUTIL] = AK_LIBRARY(avutil, LIBAVUTIL_VERSION_MAJOR),
    [AK_SWRESAMPLE] = AK_LIBRARY(swresample, LIBSWRESAMPLE_VERSION_MAJOR),
    [AK_SWSCALE] = AK_LIBRARY(swscale, LIBSWSCALE_VERSION_MAJOR),
    [AK_AVCODEC] = AK_LIBRARY(avcodec, LIBAVCODEC_VERSION_MAJOR),
    [AK_AVFORMAT] = AK_LIBRARY(avformat, LIBAVFORMAT_VERSION_MAJOR),
    [AK_AVFILTER] = AK_LIBRARY(avfilter, LIBAVFILTER_VERSION_MAJOR),
};

/// The resolved functions, filled once by ak_load().
static struct {
#define AK_FIELD(library, result, function, parameters, arguments) __typeof__(function) *function;
#define AK_VOID_FIELD(library, function, parameters, arguments) __typeof__(function) *function;
    AK_FFMPEG_FUNCTIONS(AK_FIELD, AK_VOID_FIELD)
} ak_table;

static pthread_once_t ak_once = PTHREAD_ONCE_INIT, ak_filter_once = PTHREAD_ONCE_INIT;
/// Empty when FFmpeg (libavfilter) is ready, else why it is not.
static char ak_failure[1024], ak_filter_failure[1024];
/// Each library's version as it reported it when opened; 0 until then.
static unsigned ak_versions[AK_LIBRARY_COUNT];

/// Opens library `index` into `handle`; on failure writes why into `failure` and returns 0.
static int ak_open(int index, void **handle, char *failure, size_t size) {
    const char *folder = getenv("ATTACHKIT_FFMPEG_LIBDIR");
    char path[PATH_MAX];
    if (folder != NULL && folder[0] != '\0') {
        snprintf(path, sizeof path, "%s/%s", folder, ak_libraries[index].soname);
    } else {
        snprintf(path, sizeof path, "%s", ak_libraries[index].soname);
    }
    *handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (*handle == NULL) {
        snprintf(failure, size, "FFmpeg's %s (%s, from Debian's %s package) cannot be loaded: %s",
                 ak_libraries[index].name, ak_libraries[index].soname, ak_libraries[index].package, dlerror());
        return 0;
    }
    unsigned (*version)(void) = (unsigned (*)(void))dlsym(*handle, ak_libraries[index].version_function);
    if (version == NULL) {
        snprintf(failure, size, "FFmpeg's %s (%s) has no function %s: another library?",
                 ak_libraries[index].name, ak_libraries[index].soname, ak_libraries[index].version_function);
        return 0;
    }
    ak_versions[index] = version();
    return 1;
}

/// Resolves `function` of `library` when the library is one of those being loaded (`first` up to
/// `last`, whose handles are in `handles`); on failure writes why into `failure` and returns.
#define AK_RESOLVE(library, function)                                                                      \
    if ((library) >= first && (library) < last) {                                                          \
        ak_table.function = (__typeof__(function) *)dlsym(handles[library], #function);                    \
        if (ak_table.function == NULL) {                                                                   \
            snprintf(failure, size, "FFmpeg's %s (%s) has no function %s: another version?",               \
                     ak_libraries[library].name, ak_libraries[library].soname, #function);                 \
            return;                                                                                        \
        }                                                                                                  \
    }
#define AK_RESOLVE_FUNCTION(library, result, function, parameters, arguments) AK_RESOLVE(library, function)
#define AK_RESOLVE_VOID(library, function, parameters, arguments) AK_RESOLVE(library, function)

/// Opens libraries `first` ..< `last` and resolves their functions.
static void ak_load_range(int first, int last, char *failure, size_t size) {
    void *handles[AK_LIBRARY_COUNT] = {0};
    for (int index = first; index < last; index++) {
        if (!ak_open(index, &handles[index], failure, size)) return;
    }
    AK_FFMPEG_FUNCTIONS(AK_RESOLVE_FUNCTION, AK_RESOLVE_VOID)
}

static void ak_load(void) { ak_load_range(0, AK_CORE_COUNT, ak_failure, sizeof ak_failure); }
static void ak_load_filter(void) { ak_load_range(AK_AVFILTER, AK_LIBRARY_COUNT, ak_filter_failure, sizeof ak_filter_failure); }

const char *ak_ffmpeg_load(void) {
    pthread_once(&ak_once, ak_load);
    return ak_failure[0] == '\0' ? NULL : ak_failure;
}

const char *ak_ffmpeg_load_filters(void) {
    const char *failure = ak_ffmpeg_load();
    if (failure != NULL) return failure;
    pthread_once(&ak_filter_once, ak_load_filter);
    return ak_filter_failure[0] == '\0' ? NULL : ak_filter_failure;
}

const struct ak_ffmpeg_library_info *ak_ffmpeg_library(int index) {
    return index >= 0 && index < AK_LIBRARY_COUNT ? &ak_libraries[index] : NULL;
}

unsigned ak_ffmpeg_library_version(int index) {
    return index >= 0 && index < AK_LIBRARY_COUNT ? ak_versions[index] : 0;
}

/// Every forwarder's first step. Swift checks ak_ffmpeg_load() (ak_ffmpeg_load_filters() for
/// libavfilter) before its first FFmpeg call (FFmpegLibrary.require, requireFilters), so a failure
/// here is a bug in AttachKit: say which call, then stop.
static inline void ak_ready(int library, const char *name) {
    const char *failure = library == AK_AVFILTER ? ak_ffmpeg_load_filters() : ak_ffmpeg_load();
    if (failure != NULL) {
        fprintf(stderr, "attachkit: internal error: %s called although FFmpeg is not loaded: %s\n", name, failure);
        abort();
    }
}

#define AK_FORWARD(library, result, function, parameters, arguments) \
    __attribute__((visibility("hidden"))) result function parameters { ak_ready(library, #function); return ak_table.function arguments; }
#define AK_FORWARD_VOID(library, function, parameters, arguments) \
    __attribute__((visibility("hidden"))) void function parameters { ak_ready(library, #function); ak_table.function arguments; }
AK_FFMPEG_FUNCTIONS(AK_FORWARD, AK_FORWARD_VOID)
