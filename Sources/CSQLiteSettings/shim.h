// SQLite's process-wide settings (Debian: libsqlite3-dev). `sqlite3_config` is variadic, which
// Swift cannot call; these inline functions call it for the SQLite store.
#ifndef PUSHMOCK_CSQLITESETTINGS_SHIM_H
#define PUSHMOCK_CSQLITESETTINGS_SHIM_H
#include <sqlite3.h>

/// Multi-thread mode (no mutex around each call on a connection: GRDB already gives each
/// connection to one thread at a time) and no memory statistics (no global mutex around every
/// allocation). Only possible before SQLite is initialized: returns SQLITE_MISUSE afterwards,
/// and SQLite keeps its defaults.
static inline int pushmock_sqlite_configure(void) {
    int threading = sqlite3_config(SQLITE_CONFIG_MULTITHREAD);
    if (threading != SQLITE_OK) return threading;
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}
#endif
