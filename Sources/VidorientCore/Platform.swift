// The C library, imported once for the whole package: every target imports VidorientCore, and
// with it the system calls, `errno` and the maths functions. Linux only (glibc, or musl for a
// static build); the project builds nowhere else.
#if canImport(Glibc)
@_exported @preconcurrency public import Glibc
#elseif canImport(Musl)
@_exported @preconcurrency public import Musl
#endif
