/* db/engine.h: the database engine this build links (SQLite), as `gcbench env` reports
 * it (orchestrator/remote/env_probe.c). No other header needed: the probe of a host's versions
 * asks db/ instead of including the engine's own header. */
#ifndef GC_DB_ENGINE_H
#define GC_DB_ENGINE_H

/* The SQLite library version in use at run time ("3.40.1"). Static storage: never
 * NULL, never freed. */
const char *gc_db_engine_version(void);

#endif
