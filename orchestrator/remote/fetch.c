/* A run's record files in one round trip (orchestrator/remote/fetch.h). */
#include "fetch.h"

#include <stdint.h>
#include <string.h>

#define FETCH_TAG "gcbench-file "
#define FETCH_NAME_MAX 255

static const char script[] =
	"cd -- \"$1\" || exit 1\n"
	"for f in records-r*; do\n"
	"  [ -f \"$f\" ] || continue\n"
	"  n=$(wc -c < \"$f\") || exit 1\n"
	"  printf 'gcbench-file %s %s\\n' $n \"$f\" && cat -- \"$f\" || exit 1\n"
	"done\n";

void gc_fetch_argv(const char *dir, const char *argv[5])
{
	argv[0] = "sh";
	argv[1] = "-c";
	argv[2] = script;
	argv[3] = "sh";   /* $0 */
	argv[4] = dir;    /* $1 */
}

static int name_ok(const char *s, size_t n)
{
	size_t i;

	if (n < 10 || n > FETCH_NAME_MAX || strncmp(s, "records-r", 9))
		return 0;
	for (i = 0; i < n; i++) {
		char ch = s[i];
		if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
		      (ch >= '0' && ch <= '9') || ch == '.' || ch == '_' || ch == '-'))
			return 0;
	}
	return 1;
}

/* "SIZE NAME\n" at p (len bytes left): the size, the name and the header's length. */
static int header(const char *p, size_t len, uint64_t *size, const char **name, size_t *nlen,
		  size_t *hlen)
{
	const char *nl = memchr(p, '\n', len < 300 ? len : 300), *q = p;
	uint64_t v = 0;

	if (!nl)
		return -1;
	if (q == nl || *q < '0' || *q > '9')
		return -1;
	for (; q < nl && *q >= '0' && *q <= '9'; q++) {
		if (v > (UINT64_MAX - 9) / 10)
			return -1;
		v = v * 10 + (uint64_t)(*q - '0');
	}
	if (q == nl || *q != ' ')
		return -1;
	q++;
	*name = q;
	*nlen = (size_t)(nl - q);
	*size = v;
	*hlen = (size_t)(nl - p) + 1;
	return name_ok(q, *nlen) ? 0 : -1;
}

gc_rc gc_fetch_parse(const char *buf, size_t len,
		     int (*fn)(const char *name, const char *data, size_t size, void *arg,
			       gc_err *e),
		     void *arg, gc_err *e)
{
	size_t off = 0, tl = strlen(FETCH_TAG);

	while (off < len) {
		char name[FETCH_NAME_MAX + 1];
		const char *nm;
		uint64_t size;
		size_t nlen, hlen;

		if (len - off < tl || memcmp(buf + off, FETCH_TAG, tl) ||
		    header(buf + off + tl, len - off - tl, &size, &nm, &nlen, &hlen))
			return gc_fail(e, GC_E_FORMAT, "the record files a node sent are not in "
				       "gcbench's form at byte %zu (a 'gcbench-file SIZE records-r...' "
				       "line was expected): is 'sh' on the node a POSIX shell?", off);
		off += tl + hlen;
		if (size > len - off)
			return gc_fail(e, GC_E_FORMAT, "record file '%.*s' a node sent is cut short: "
				       "%zu of %llu bytes (the output limit, or the connection ended)",
				       (int)nlen, nm, len - off, (unsigned long long)size);
		memcpy(name, nm, nlen);
		name[nlen] = 0;
		e->msg[0] = 0;
		if (fn(name, buf + off, (size_t)size, arg, e))
			return e->msg[0] ? GC_E_IO : gc_fail(e, GC_E_IO, "cannot keep record file "
							     "'%s'", name);
		off += (size_t)size;
	}
	return GC_OK;
}
