#ifndef CFIXZLIB_SHIM_H
#define CFIXZLIB_SHIM_H
/* zlib, for gzip input. Our own module name, as for libxml2: the macOS SDK has a zlib module. */
#include <zlib.h>
#endif
