// SQLite on first use, as CLibHeif/LibHeifLoader.c does for libheif: each function Swift calls
// (include/SQLiteFunctions.h) is defined here under its own name and calls the real one, resolved
// from libsqlite3.so.0 the first time an audit cache is opened. Nothing else needs SQLite.

#include "shim.h"

#include <CLibraryLoader.h>

// SQLite 3's soname has been libsqlite3.so.0 throughout.
_Static_assert(SQLITE_VERSION_NUMBER >= 3000000 && SQLITE_VERSION_NUMBER < 4000000, "SQLite's headers are not SQLite 3");

// SQLite counts the memory it allocates under one lock that every connection shares: the audit's
// workers, each reading the cache through its own connection, waited on it for most of their
// lookups (issue 32). vidorient reads no memory statistics, so the count is turned off, once, before
// SQLite initializes. sqlite3_config takes variable arguments, so it is found here, not in the table.
static void configure(void *library) {
    char reason[200];
    int (*config)(int, ...) = (int (*)(int, ...))vo_library_symbol(library, "libsqlite3.so.0", "sqlite3_config",
                                                                    reason, sizeof reason);
    if (config != NULL) (void)config(SQLITE_CONFIG_MEMSTATUS, 0);
}

#define LIBRARY_CONFIGURE configure
#define LIBRARY_TITLE "SQLite"
#define LIBRARY_SONAME "libsqlite3.so.0"
#define LIBRARY_FUNCTIONS "SQLiteFunctions.h"
#define LIBRARY_LOAD vo_sqlite_load
#include <LibraryLoader.inc>
