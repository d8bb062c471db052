#include "log.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *log_prog = "gcbench";
static enum gc_log_level log_lvl = GC_LOG_INFO;

void gc_log_init(const char *prog, enum gc_log_level level)
{
	const char *dbg = getenv("GCBENCH_DEBUG");
	if (prog)
		log_prog = prog;
	log_lvl = level;
	if (dbg && *dbg && strcmp(dbg, "0"))
		log_lvl = GC_LOG_DEBUG;
}

enum gc_log_level gc_log_level(void)
{
	return log_lvl;
}

void gc_log(enum gc_log_level lvl, const char *fmt, ...)
{
	static const char *const tag[] = { "error: ", "warning: ", "", "debug: " };
	char line[2048];
	va_list ap;

	if (lvl > log_lvl)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	/* one write per line so concurrent ranks do not interleave mid-line */
	fprintf(stderr, "%s: %s%s\n", log_prog, tag[lvl], line);
}
