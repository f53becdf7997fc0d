#ifndef MEDIAEXPORT_CZLIB_SHIM_H
#define MEDIAEXPORT_CZLIB_SHIM_H
#include <zlib.h>
/* inflateInit2 is a macro Swift cannot import: it passes the library's version and the stream's size for a check. */
static inline int cz_inflate_init_raw(z_streamp stream) { return inflateInit2(stream, -15); }
#endif
