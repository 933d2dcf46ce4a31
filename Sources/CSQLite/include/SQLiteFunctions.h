// Every SQLite function vidorient calls, one line each, with the header's own prototype (see
// CFFmpeg/FFmpegFunctions.h: a missing line is a link error, a wrong one a conflicting-types error).
//
// FUNCTION(return type, name, (parameters), (arguments))
// VOID_FUNCTION(name, (parameters), (arguments))

FUNCTION(int, sqlite3_open_v2, (const char *filename, sqlite3 **ppDb, int flags, const char *zVfs), (filename, ppDb, flags, zVfs))
FUNCTION(int, sqlite3_close_v2, (sqlite3 *db), (db))
FUNCTION(int, sqlite3_busy_timeout, (sqlite3 *db, int ms), (db, ms))
FUNCTION(int, sqlite3_exec, (sqlite3 *db, const char *sql, int (*callback)(void *, int, char **, char **), void *argument, char **errmsg), (db, sql, callback, argument, errmsg))
FUNCTION(int, sqlite3_prepare_v2, (sqlite3 *db, const char *zSql, int nByte, sqlite3_stmt **ppStmt, const char **pzTail), (db, zSql, nByte, ppStmt, pzTail))
FUNCTION(int, sqlite3_step, (sqlite3_stmt *pStmt), (pStmt))
FUNCTION(int, sqlite3_reset, (sqlite3_stmt *pStmt), (pStmt))
FUNCTION(int, sqlite3_finalize, (sqlite3_stmt *pStmt), (pStmt))
FUNCTION(int, sqlite3_bind_blob, (sqlite3_stmt *statement, int index, const void *bytes, int n, void (*destructor)(void *)), (statement, index, bytes, n, destructor))
FUNCTION(int, sqlite3_bind_text, (sqlite3_stmt *statement, int index, const char *text, int n, void (*destructor)(void *)), (statement, index, text, n, destructor))
FUNCTION(int, sqlite3_bind_int64, (sqlite3_stmt *statement, int index, sqlite3_int64 value), (statement, index, value))
FUNCTION(sqlite3_int64, sqlite3_column_int64, (sqlite3_stmt *statement, int iCol), (statement, iCol))
FUNCTION(const unsigned char *, sqlite3_column_text, (sqlite3_stmt *statement, int iCol), (statement, iCol))
FUNCTION(const char *, sqlite3_errmsg, (sqlite3 *db), (db))
FUNCTION(const char *, sqlite3_errstr, (int code), (code))
