#ifndef VIDORIENT_CSQLITE_SHIM_H
#define VIDORIENT_CSQLITE_SHIM_H

#include <stddef.h>
#include <sqlite3.h>

// SQLite is opened on first use (SQLiteLoader.c), not linked. Opens it the first time; 0 when it is
// there, else -1 with the reason in `error` ("SQLite is not installed (...)").
int vo_sqlite_load(char *error, size_t length);

/// SQLITE_TRANSIENT is a cast of -1 to a function pointer, a macro Swift cannot import: SQLite
/// copies the bytes before the call returns, so Swift's temporary buffers are safe to pass.
static inline int vidorient_sqlite3_bind_blob_transient(sqlite3_stmt *statement, int index, const void *bytes, int count) {
    return sqlite3_bind_blob(statement, index, bytes, count, SQLITE_TRANSIENT);
}

static inline int vidorient_sqlite3_bind_text_transient(sqlite3_stmt *statement, int index, const char *text, int count) {
    return sqlite3_bind_text(statement, index, text, count, SQLITE_TRANSIENT);
}

#endif
