/* db/engine.c: the SQLite version (engine.h). */
#include "engine.h"

#include <sqlite3.h>

const char *gc_db_engine_version(void)
{
	return sqlite3_libversion();
}
