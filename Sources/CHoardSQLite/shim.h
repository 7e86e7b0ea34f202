#ifndef CHOARD_SQLITE_SHIM_H
#define CHOARD_SQLITE_SHIM_H
#include <sqlite3.h>
#endif
