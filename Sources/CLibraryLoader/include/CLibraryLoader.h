#ifndef VIDORIENT_CLIBRARYLOADER_H
#define VIDORIENT_CLIBRARYLOADER_H

#include <stddef.h>

// Opening the heavy C libraries (FFmpeg, libheif) when a file first needs them, not when the
// program starts. Each library's loader (CFFmpeg/FFmpegLoader.c, CLibHeif/LibHeifLoader.c) keeps
// its list of functions; this is the one place that finds and opens a library.
//
// VIDORIENT_LIBRARY_DIR, when set, names the directory to open the libraries from instead of the
// dynamic loader's search path (a private FFmpeg build of the same major version, or, in the
// tests, a directory that does not exist, to prove what works without FFmpeg).

// Opens `soname` (e.g. "libavformat.so.59") with RTLD_NOW | RTLD_LOCAL. On failure returns NULL
// and writes dlerror()'s one line into `error`.
void *vo_library_open(const char *soname, char *error, size_t length);

// The address of `name` in `library`; on failure NULL, with "<soname> has no <name>" in `error`.
void *vo_library_symbol(void *library, const char *soname, const char *name, char *error, size_t length);

// Opens one of vidorient's own libraries (the content engine), which ships beside the program:
// from VIDORIENT_LIBRARY_DIR when that is set, else from the program's own directory (a build
// folder), else from ../lib/vidorient beside it (an install), else by the loader's search path.
void *vo_library_open_private(const char *name, char *error, size_t length);

#endif
