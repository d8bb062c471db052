/* common/log.h: messages people can act on.
 *
 * gc_error("cannot cap '%s' on host '%s': %s", ...): lowercase, what failed first,
 * the subject quoted, the cause. Everything goes to stderr, prefixed by the program
 * name set with gc_log_init(); results go to stdout, never through here.
 */
#ifndef GC_LOG_H
#define GC_LOG_H

enum gc_log_level { GC_LOG_ERROR, GC_LOG_WARN, GC_LOG_INFO, GC_LOG_DEBUG };

/* Set the prefix (program name, e.g. "gcbench-netem") and the verbosity. The level
 * can also be raised with the environment variable GCBENCH_DEBUG=1. */
void gc_log_init(const char *prog, enum gc_log_level level);
enum gc_log_level gc_log_level(void);

void gc_log(enum gc_log_level lvl, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#define gc_error(...) gc_log(GC_LOG_ERROR, __VA_ARGS__)
#define gc_warn(...)  gc_log(GC_LOG_WARN, __VA_ARGS__)
#define gc_info(...)  gc_log(GC_LOG_INFO, __VA_ARGS__)
#define gc_debug(...) gc_log(GC_LOG_DEBUG, __VA_ARGS__)

#endif
