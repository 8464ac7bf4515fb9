#ifndef AUTHDECK_CSQLITE_SHIM_H
#define AUTHDECK_CSQLITE_SHIM_H
#include <sqlite3.h>

/// SQLITE_TRANSIENT is a macro that casts -1 to a function pointer; Swift cannot import it.
static inline sqlite3_destructor_type csqlite_transient(void) { return SQLITE_TRANSIENT; }

/// sqlite3_config is variadic, which Swift cannot call: memory statistics on (1) or off (0), before the first open.
static inline int csqlite_config_memstatus(int on) { return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, on); }

/// No page-cache block allocated up front (SQLite's default zeroes 20 pages at the first read); pages are allocated
/// one by one as they are read, as they are anyway once that block is used up.
static inline int csqlite_config_no_initial_page_cache(void) {
    return sqlite3_config(SQLITE_CONFIG_PAGECACHE, (void *)0, 0, 0);
}
#endif
