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

#endif
