// zlib, for PNG: CRC-32 of every chunk and inflate for the compressed text chunks (zTXt,
// compressed iTXt). Only VidorientPhoto uses it.
#include <zlib.h>

// inflateInit is a macro that passes the library version and the struct size; Swift cannot call it.
static inline int vidorient_inflate_init(z_stream *stream) {
    return inflateInit(stream);
}
