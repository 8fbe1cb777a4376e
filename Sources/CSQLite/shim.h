// The system's sqlite3 (Debian: libsqlite3-dev) for the SQLite store, and its process-wide
// settings: `sqlite3_config` is variadic, which Swift cannot call, so an inline function calls it.
#ifndef PUSHMOCK_CSQLITE_SHIM_H
#define PUSHMOCK_CSQLITE_SHIM_H
#include <sqlite3.h>

/// Multi-thread mode (no mutex around each call on a connection: the SQLite store gives each
/// connection to one thread at a time) and no memory statistics (no global mutex around every
/// allocation). Only possible before SQLite is initialized: returns SQLITE_MISUSE afterwards,
/// and SQLite keeps its defaults.
static inline int pushmock_sqlite_configure(void) {
    int threading = sqlite3_config(SQLITE_CONFIG_MULTITHREAD);
    if (threading != SQLITE_OK) return threading;
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}
#endif
