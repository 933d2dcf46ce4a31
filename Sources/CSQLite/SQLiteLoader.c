// SQLite on first use, as CLibHeif/LibHeifLoader.c does for libheif: each function Swift calls
// (include/SQLiteFunctions.h) is defined here under its own name and calls the real one, resolved
// from libsqlite3.so.0 the first time an audit cache is opened. Nothing else needs SQLite.

#include "shim.h"

// SQLite 3's soname has been libsqlite3.so.0 throughout.
_Static_assert(SQLITE_VERSION_NUMBER >= 3000000 && SQLITE_VERSION_NUMBER < 4000000, "SQLite's headers are not SQLite 3");

#define LIBRARY_TITLE "SQLite"
#define LIBRARY_SONAME "libsqlite3.so.0"
#define LIBRARY_FUNCTIONS "SQLiteFunctions.h"
#define LIBRARY_LOAD vo_sqlite_load
#include <LibraryLoader.inc>
