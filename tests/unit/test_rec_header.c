/* tests/unit/test_rec_header.c: the record header reader (formats/rec_header.h) on good
 * and malformed headers, and docs/records.md's record table against struct gc_iter_rec
 * (every field's offset, size and type, read from the doc). */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "fsutil.h"
#include "formats/rec_header.h"
#include "formats/records.h"

static gc_rc parse(const char *s, struct gc_rec_header *h, gc_err *e)
{
	return gc_rec_header_parse(s, strlen(s), h, e);
}

#define FULL "{\"producer\": \"pytorch-ddp-hook 1\", \"method\": \"powersgd\", " \
	"\"params\": \"rank=2\", \"workload\": \"pytorch\", \"model\": \"mlp-tiny\", " \
	"\"world\": 2, \"rank\": 1, \"backend\": \"gloo\", \"batch\": 16"

static void test_full(void)
{
	struct gc_rec_header h;
	gc_err e;

	CHECKF(!parse(FULL ", \"versions\": {\"torch\": \"1.13.1\"}, \"x\": [1, -2.5e3, "
		      "true, null, {\"a\": \"\\u00e9\\ud83d\\ude00\"}]}", &h, &e), "%s", e.msg);
	CHECK(!gc_rec_header_require(&h, &e));
	CHECK(!strcmp(h.producer, "pytorch-ddp-hook 1"));
	CHECK(!strcmp(h.method, "powersgd") && !strcmp(h.params, "rank=2"));
	CHECK(h.world == 2 && h.rank == 1 && h.batch == 16);
	CHECK(!strcmp(h.backend, "gloo") && !strcmp(h.model, "mlp-tiny"));
}

/* every escape is decoded into the field: the one-letter ones, \u in 1 to 3 bytes of
 * UTF-8 and a surrogate pair in 4 */
static void test_escapes(void)
{
	struct gc_rec_header h;
	gc_err e;

	CHECKF(!parse("{\"host\": \"a\\\"\\\\\\/\\b\\f\\n\\r\\t\\u0041\\u00e9\\u20AC"
		      "\\ud83d\\ude00\"}", &h, &e), "%s", e.msg);
	CHECK_STR(h.host, "a\"\\/\b\f\n\r\tA\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80");
}

/* a gcbench-worker header names its producer by "format" and versions.gcbench */
static void test_worker_header(void)
{
	struct gc_rec_header h;
	gc_err e;

	CHECKF(!parse("{\"format\": \"gcbench-worker\", \"method\": \"syncsgd\", \"params\": \"\", "
		      "\"workload\": \"replay\", \"model\": \"resnet50\", \"world\": 4, \"rank\": 0, "
		      "\"backend\": \"mpi\", \"batch\": 32, \"versions\": {\"mpi\": \"Open MPI "
		      "v4.1.4\", \"nccl\": null, \"gcbench\": \"abc123\"}}", &h, &e), "%s", e.msg);
	CHECKF(!strcmp(h.producer, "gcbench-worker abc123"), "producer '%s'", h.producer);
	CHECK(!gc_rec_header_require(&h, &e));
	CHECK(!parse("{\"format\": \"other\"}", &h, &e));
	CHECK(!(h.have & GC_RECH_PRODUCER));
}

static void test_required(void)
{
	struct gc_rec_header h;
	gc_err e;

	CHECK(!parse("{\"method\": \"x\"}", &h, &e));
	CHECK(gc_rec_header_require(&h, &e) == GC_E_FORMAT);
	CHECKF(strstr(e.msg, "\"producer\""), "%s", e.msg);
	CHECK(!parse(FULL "}", &h, &e) && !gc_rec_header_require(&h, &e));
	CHECK(!parse("{\"producer\": \"p\", \"method\": \"m\", \"params\": \"\", \"workload\": "
		     "\"w\", \"model\": \"m\", \"world\": 2, \"rank\": 2, \"backend\": \"b\", "
		     "\"batch\": 1}", &h, &e));
	CHECK(gc_rec_header_require(&h, &e) == GC_E_FORMAT);
	CHECKF(strstr(e.msg, "rank 2 is not below world 2"), "%s", e.msg);
}

static void test_malformed(void)
{
	static const char *const bad[] = {
		"", "[]", "{", "{\"a\"}", "{\"a\": }", "{\"a\": 1,}", "{\"a\": 1} x",
		"{\"a\": 01}", "{\"a\": 1.}", "{\"a\": -}", "{\"a\": tru}", "{\"a\": \"\\x\"}",
		"{\"a\": \"\\u0000\"}", "{\"a\": \"\\ud800\"}", "{\"a\": \"\x01\"}",
		"{\"a\": \"abc}", "{\"world\": \"2\"}", "{\"world\": 0}", "{\"world\": 1.5}",
		"{\"rank\": -1}", "{\"batch\": 99999999999999999999}", "{\"method\": 3}",
		"{\"method\": \"a\", \"method\": \"a\"}", "{\"a\": NaN}", "{\"a\": [1 2]}",
		"{\"a\" 1}", "{'a': 1}", "{\"a\": \"\\udc00\"}", "{\"a\": \"\\ud800\\u0041\"}",
		"{\"a\": \"\\ud800\\n\"}", "{\"a\": \"\\ud83d\\ude0\"}", "{\"a\": \"\\u12G4\"}",
	};
	struct gc_rec_header h;
	gc_err e;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		CHECKF(parse(bad[i], &h, &e) == GC_E_FORMAT, "accepted %s", bad[i]);
		CHECKF(strstr(e.msg, "record header"), "%s", e.msg);
		CHECK(h.have == 0 && h.world == -1);
	}
}

static void test_limits(void)
{
	char deep[300], longs[400];
	struct gc_rec_header h;
	gc_err e;
	size_t k = 0;

	for (int i = 0; i < 70; i++)
		deep[k++] = '[';
	deep[k] = 0;
	char *doc = malloc(500);
	CHECK(doc);
	snprintf(doc, 500, "{\"a\": %s", deep);
	for (int i = 0; i < 70; i++)
		strcat(doc, "]");
	strcat(doc, "}");
	CHECK(parse(doc, &h, &e) == GC_E_FORMAT);
	CHECKF(strstr(e.msg, "deeper than 64"), "%s", e.msg);
	free(doc);
	memset(longs, 'm', 100);
	longs[100] = 0;
	char txt[600];
	snprintf(txt, sizeof(txt), "{\"method\": \"%s\"}", longs);
	CHECK(parse(txt, &h, &e) == GC_E_FORMAT);
	CHECKF(strstr(e.msg, "\"method\" is longer than 63 bytes"), "%s", e.msg);
	/* a long unknown key is skipped, not refused */
	snprintf(txt, sizeof(txt), "{\"%s\": 1, \"world\": 3}", longs);
	CHECKF(!parse(txt, &h, &e), "%s", e.msg);
	CHECK(h.world == 3);
}

/* a csv: model and a replay:csv: workload carry a path (gcbench-worker writes it) */
static void test_long_paths(void)
{
	static struct gc_rec_header h;
	static char path[5000], txt[11000];
	gc_err e;

	memset(path, 'd', 300);
	path[300] = 0;
	snprintf(txt, sizeof(txt), "{\"workload\": \"replay:csv:/%s/m.csv\", \"model\": \"csv:/%s/m.csv\"}",
		 path, path);
	CHECKF(!parse(txt, &h, &e), "%s", e.msg);
	CHECK(strlen(h.workload) == strlen("replay:csv:/") + 300 + strlen("/m.csv"));
	CHECK(!strncmp(h.model, "csv:/ddd", 8));
	memset(path, 'd', 4990);
	path[4990] = 0;
	snprintf(txt, sizeof(txt), "{\"workload\": \"replay:csv:/%s\"}", path);
	CHECK(parse(txt, &h, &e) == GC_E_FORMAT);
	CHECKF(strstr(e.msg, "\"workload\" is longer than 4095 bytes"), "%s", e.msg);
}

/* the table of docs/records.md, "The record (128 bytes)" */
struct fld { const char *name; size_t off, size; const char *type; };
#define F(n, t) { #n, offsetof(struct gc_iter_rec, n), sizeof(((struct gc_iter_rec *)0)->n), t }
static const struct fld fields[] = {
	F(rank, "u32"), F(iter, "u32"), F(warmup, "u32"), F(flags, "u32"),
	F(t_forward, "f64"), F(t_backward, "f64"), F(t_encode, "f64"), F(t_decode, "f64"),
	F(t_comm, "f64"), F(t_exposed, "f64"), F(t_optimizer, "f64"), F(t_iter, "f64"),
	F(t_iter_gpu, "f64"), F(loss, "f64"), F(bytes_sent, "u64"), F(bytes_recv, "u64"),
	F(val_loss, "f64"), F(val_acc, "f32"), F(t_eval, "f32"),
};
#undef F
#define NF (sizeof(fields) / sizeof(fields[0]))

/* cells of a markdown table row "| a | b | ..." into c (up to max), trimmed */
static int cells(char *line, char **c, int max)
{
	int n = 0;
	char *p = line, *bar;

	if (*p != '|')
		return 0;
	p++;
	while (n < max && (bar = strchr(p, '|'))) {
		*bar = 0;
		while (*p == ' ')
			p++;
		for (char *end = bar - 1; end >= p && *end == ' '; end--)
			*end = 0;
		c[n++] = p;
		p = bar + 1;
	}
	return n;
}

static void test_doc_table(void)
{
	unsigned char *txt;
	size_t len, covered = 0;
	int seen[NF] = { 0 }, rows = 0;
	gc_err e;

	if (gc_read_whole("docs/records.md", NULL, 0, &txt, &len, &e))
		SKIP("docs/records.md not found (run from the repository root)");
	char *sec = strstr((char *)txt, "## The record (128 bytes)");
	CHECK(sec);
	char *end = strstr(sec + 3, "\n## ");
	if (end)
		*end = 0;
	for (char *line = strtok(sec, "\n"); line; line = strtok(NULL, "\n")) {
		char *c[6];
		if (cells(line, c, 6) != 6 || c[0][0] < '0' || c[0][0] > '9')
			continue;
		rows++;
		size_t i;
		for (i = 0; i < NF && strcmp(fields[i].name, c[3]); i++)
			;
		CHECKF(i < NF, "docs/records.md names a field '%s' the struct lacks", c[3]);
		CHECKF(!seen[i], "field '%s' twice in docs/records.md", c[3]);
		seen[i] = 1;
		CHECKF((size_t)atol(c[0]) == fields[i].off, "%s: doc offset %s, struct %zu", c[3],
		       c[0], fields[i].off);
		CHECKF((size_t)atol(c[1]) == fields[i].size, "%s: doc size %s, struct %zu", c[3],
		       c[1], fields[i].size);
		CHECKF(!strcmp(c[2], fields[i].type), "%s: doc type %s, struct %s", c[3], c[2],
		       fields[i].type);
		covered += fields[i].size;
	}
	free(txt);
	CHECKF(rows == (int)NF, "docs/records.md has %d field rows, the struct %zu", rows, NF);
	CHECKF(covered == sizeof(struct gc_iter_rec), "the doc's fields cover %zu of %zu bytes",
	       covered, sizeof(struct gc_iter_rec));
}

/* the sizes the table's types stand for, and that the struct has no hole */
static void test_struct_packed(void)
{
	size_t next = 0;

	for (size_t i = 0; i < NF; i++) {
		size_t want = fields[i].type[1] == '3' ? 4 : 8;
		CHECKF(fields[i].size == want, "%s is %zu bytes", fields[i].name, fields[i].size);
		CHECKF(fields[i].off == next, "%s at %zu, after a hole at %zu", fields[i].name,
		       fields[i].off, next);
		next += fields[i].size;
	}
	CHECK(next == 128);
}

int main(void)
{
	gct_suite = "rec_header";
	GCT_RUN(test_full);
	GCT_RUN(test_worker_header);
	GCT_RUN(test_escapes);
	GCT_RUN(test_required);
	GCT_RUN(test_malformed);
	GCT_RUN(test_limits);
	GCT_RUN(test_long_paths);
	GCT_RUN(test_doc_table);
	GCT_RUN(test_struct_packed);
	return gct_finish();
}
