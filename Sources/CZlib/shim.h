// zlib (Debian's zlib1g-dev) for gzip content coding: answers compressed once per cache entry,
// origin answers decoded before they are parsed or stored.
#ifndef CZLIB_SHIM_H
#define CZLIB_SHIM_H

#include <zlib.h>

// deflateInit2 and inflateInit2 are function-like macros (they pass the library's version and
// the stream's size), which Swift does not import.
static inline int CZlib_deflateInit2(z_streamp stream, int level, int windowBits, int memLevel, int strategy) {
    return deflateInit2(stream, level, Z_DEFLATED, windowBits, memLevel, strategy);
}

static inline int CZlib_inflateInit2(z_streamp stream, int windowBits) {
    return inflateInit2(stream, windowBits);
}

#endif
