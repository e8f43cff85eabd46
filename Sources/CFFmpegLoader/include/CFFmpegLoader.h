// Loads FFmpeg's libraries with dlopen on first use, so a process that never touches audio or
// video never maps them (see "How FFmpeg is loaded" in README.md). No policy lives here.
#ifndef ATTACHKIT_CFFMPEG_LOADER_H
#define ATTACHKIT_CFFMPEG_LOADER_H

/// Opens libavutil, libswresample, libswscale, libavcodec and libavformat (the sonames of the
/// headers AttachKit was compiled against, e.g. `libavformat.so.59`) and resolves every function
/// AttachKit calls in them. Runs once per process, from whichever thread asks first; later calls
/// return the first call's answer at once. `ATTACHKIT_FFMPEG_LIBDIR`, when set, is the folder the
/// libraries are opened from instead of the dynamic linker's search path.
/// Returns NULL when FFmpeg is ready, else a message naming the library that failed, its Debian
/// package and `dlerror()`'s reason (static storage, valid for the life of the process).
const char *ak_ffmpeg_load(void);

/// ak_ffmpeg_load(), then libavfilter (`libavfilter.so.8`) and the functions AttachKit calls in it:
/// only work that needs a filter graph (HDR tone mapping) maps libavfilter and the many libraries
/// it depends on. Same once-per-process behaviour, folder and answer as ak_ffmpeg_load().
const char *ak_ffmpeg_load_filters(void);

/// One library of the loader's list.
struct ak_ffmpeg_library_info {
    /// `libavformat`
    const char *name;
    /// The soname opened, from the headers compiled against: `libavformat.so.59`.
    const char *soname;
    /// The Debian package that ships it: `libavformat59`.
    const char *package;
    /// The function that reports the library's version: `avformat_version`.
    const char *version_function;
};

/// Library `index` of the loader's list, in the order it opens them (each one's dependencies first:
/// libavutil, libswresample, libswscale, libavcodec, libavformat, then libavfilter); NULL past the
/// end. Loads nothing. scripts/package.sh links its dependency check against this same list.
const struct ak_ffmpeg_library_info *ak_ffmpeg_library(int index);

/// The version of library `index` as the library itself reported it when opened
/// (`avformat_version()`: major << 16 | minor << 8 | micro); 0 when it is not loaded. Ask after
/// ak_ffmpeg_load() (ak_ffmpeg_load_filters() for libavfilter) has returned.
unsigned ak_ffmpeg_library_version(int index);

#endif
