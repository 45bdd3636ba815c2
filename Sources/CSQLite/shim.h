// The one C header for SQLite. Only Sources/History/SQLiteConnection.swift imports
// CSQLite.
#include <sqlite3.h>

// SQLITE_TRANSIENT is a cast of -1 to a function pointer, which Swift cannot import: text bound
// through this is copied by SQLite before the call returns.
static inline int spotter_sqlite3_bind_text_copied(
    sqlite3_stmt *statement, int index, const char *text, int bytes) {
  return sqlite3_bind_text(statement, index, text, bytes, SQLITE_TRANSIENT);
}
