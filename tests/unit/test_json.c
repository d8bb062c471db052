/* tests/unit/test_json.c: the JSON writer (common/json.h). */
#include <math.h>
#include <stdint.h>

#include "harness.h"
#include "json.h"

static void test_escape(void)
{
	gc_buf b = GC_BUF_INIT;

	CHECK(gc_json_quote(&b, "q\"b\\s\n\x01\x1f\x7f \xc3\xa9/", 0) == GC_OK);
	CHECK_STR(b.p, "\"q\\\"b\\\\s\\u000a\\u0001\\u001f\\u007f \xc3\xa9/\"");
	gc_buf_release(&b);
	CHECK(gc_json_quote(&b, "a\nb\tc\r", GC_JSON_ESC_NL) == GC_OK);
	CHECK_STR(b.p, "\"a\\nb\\u0009c\\u000d\"");
	gc_buf_release(&b);
	CHECK(gc_json_quote(&b, "", 0) == GC_OK);
	CHECK_STR(b.p, "\"\"");
	gc_buf_release(&b);
}

/* Every byte below 0x20 comes out as \u00xx; none raw. */
static void test_escape_all_controls(void)
{
	gc_buf b = GC_BUF_INIT;
	char in[32], want[8];
	int c;

	for (c = 1; c < 32; c++)
		in[c - 1] = (char)c;
	in[31] = 0;
	CHECK(gc_json_quote(&b, in, 0) == GC_OK);
	CHECK_EQ_INT(b.len, 2 + 31 * 6);
	for (c = 1; c < 32; c++) {
		snprintf(want, sizeof(want), "\\u%04x", c);
		CHECK(!memcmp(b.p + 1 + (c - 1) * 6, want, 6));
	}
	for (size_t i = 0; i < b.len; i++)
		CHECK((unsigned char)b.p[i] >= 0x20);
	gc_buf_release(&b);
}

/* times: ISO 8601 UTC, whole seconds (fraction dropped); null when unknown */
static void test_time_field(void)
{
	gc_buf b = GC_BUF_INIT;
	gc_json j;

	gc_json_init(&j, &b, 0);
	gc_json_obj_open(&j);
	gc_json_time_field(&j, "started", 1764887440.75);
	gc_json_time_field(&j, "finished", 0);
	gc_json_time_field(&j, "epoch", 1);
	gc_json_obj_close(&j);
	CHECK_STR(b.p, "{\"started\":\"2025-12-04T22:30:40Z\",\"finished\":null,"
		  "\"epoch\":\"1970-01-01T00:00:01Z\"}");
	gc_buf_release(&b);
}

static void test_nesting(void)
{
	gc_buf b = GC_BUF_INIT;
	gc_json j;

	gc_json_init(&j, &b, 0);
	gc_json_obj_open(&j);
	gc_json_str_field(&j, "a", "x");
	gc_json_key(&j, "list");
	gc_json_arr_open(&j);
	gc_json_int(&j, 1);
	gc_json_obj_open(&j);
	gc_json_key(&j, "e");
	gc_json_arr_open(&j);
	gc_json_arr_close(&j);
	gc_json_key(&j, "o");
	gc_json_obj_open(&j);
	gc_json_obj_close(&j);
	gc_json_obj_close(&j);
	gc_json_null(&j);
	gc_json_bool(&j, 1);
	gc_json_bool(&j, 0);
	gc_json_arr_close(&j);
	gc_json_str_field(&j, "n", NULL);
	gc_json_obj_close(&j);
	CHECK(gc_json_finish(&j) == GC_OK);
	CHECK_STR(b.p, "{\"a\":\"x\",\"list\":[1,{\"e\":[],\"o\":{}},null,true,false],\"n\":null}");
	gc_buf_release(&b);
}

static void test_numbers(void)
{
	gc_buf b = GC_BUF_INIT;
	gc_json j;

	gc_json_init(&j, &b, 0);
	gc_json_arr_open(&j);
	gc_json_int(&j, INT64_MIN);
	gc_json_uint(&j, UINT64_MAX);
	gc_json_num(&j, 0.1);
	gc_json_numg(&j, 1.0 / 3, 6);
	gc_json_numg(&j, 123456789.0, 9);
	gc_json_fixed(&j, 1700000000.5, 3);
	gc_json_num(&j, NAN);
	gc_json_numg(&j, INFINITY, 6);
	gc_json_fixed(&j, -INFINITY, 3);
	gc_json_num(&j, -0.0);
	gc_json_arr_close(&j);
	CHECK(gc_json_finish(&j) == GC_OK);
	CHECK_STR(b.p, "[-9223372036854775808,18446744073709551615,0.10000000000000001,"
		  "0.333333,123456789,1700000000.500,null,null,null,-0]");
	gc_buf_release(&b);
}

/* Calls that do not fit where the writer stands write nothing and stick. */
static void test_misuse(void)
{
	gc_buf b = GC_BUF_INIT;
	gc_json j;

	gc_json_init(&j, &b, 0);
	CHECK(gc_json_finish(&j) == GC_E_STATE);        /* nothing written yet */
	gc_json_obj_open(&j);
	gc_json_int(&j, 1);                             /* a value without a key */
	CHECK(gc_json_finish(&j) == GC_E_STATE);
	gc_json_obj_close(&j);
	CHECK_STR(b.p, "{");
	gc_buf_release(&b);

	gc_json_init(&j, &b, 0);
	gc_json_arr_open(&j);
	gc_json_key(&j, "k");                           /* a key inside an array */
	CHECK(gc_json_finish(&j) == GC_E_STATE);
	gc_buf_release(&b);

	gc_json_init(&j, &b, 0);
	gc_json_obj_open(&j);
	gc_json_arr_close(&j);                          /* the wrong kind */
	CHECK(gc_json_finish(&j) == GC_E_STATE);
	gc_buf_release(&b);

	gc_json_init(&j, &b, 0);
	gc_json_int(&j, 1);
	CHECK(gc_json_finish(&j) == GC_OK);             /* one scalar is a document */
	gc_json_int(&j, 2);                             /* a second top-level value */
	CHECK(gc_json_finish(&j) == GC_E_STATE);
	CHECK_STR(b.p, "1");
	gc_buf_release(&b);

	gc_json_init(&j, &b, 0);
	gc_json_obj_open(&j);
	gc_json_key(&j, "k");                           /* its value never comes */
	gc_json_obj_close(&j);
	CHECK(gc_json_finish(&j) == GC_E_STATE);
	gc_buf_release(&b);
}

static void test_depth(void)
{
	gc_buf b = GC_BUF_INIT;
	gc_json j;
	int i;

	gc_json_init(&j, &b, 0);
	for (i = 0; i < GC_JSON_MAX_DEPTH; i++)
		gc_json_arr_open(&j);
	for (i = 0; i < GC_JSON_MAX_DEPTH; i++)
		gc_json_arr_close(&j);
	CHECK(gc_json_finish(&j) == GC_OK);
	CHECK_EQ_INT(b.len, 2 * GC_JSON_MAX_DEPTH);
	gc_buf_release(&b);

	gc_json_init(&j, &b, 0);
	for (i = 0; i <= GC_JSON_MAX_DEPTH; i++)
		gc_json_arr_open(&j);
	CHECK(gc_json_finish(&j) == GC_E_STATE);
	CHECK_EQ_INT(b.len, GC_JSON_MAX_DEPTH);
	gc_buf_release(&b);
}

/* A writer that appends after what the buffer holds; a buffer out of memory makes
 * finish say so. */
static void test_append_and_oom(void)
{
	gc_buf b = GC_BUF_INIT;
	gc_json j;

	gc_buf_puts(&b, "x=");
	gc_json_init(&j, &b, 0);
	gc_json_obj_open(&j);
	gc_json_num_field(&j, "v", 2.5);
	gc_json_numg_field(&j, "w", 2.0 / 3, 3);
	gc_json_int_field(&j, "i", -1);
	gc_json_uint_field(&j, "u", 7);
	gc_json_obj_close(&j);
	CHECK(gc_json_finish(&j) == GC_OK);
	CHECK_STR(b.p, "x={\"v\":2.5,\"w\":0.667,\"i\":-1,\"u\":7}");
	gc_buf_add(&b, "", SIZE_MAX);                   /* the buffer fails */
	CHECK(gc_json_finish(&j) == GC_E_NOMEM);
	CHECK(gc_json_quote(&b, "y", 0) == GC_E_NOMEM);
	gc_buf_release(&b);
}

/* A long document through many reallocations stays well-formed. */
static void test_growth(void)
{
	gc_buf b = GC_BUF_INIT;
	gc_json j;
	int i;

	gc_json_init(&j, &b, 0);
	gc_json_arr_open(&j);
	for (i = 0; i < 5000; i++)
		gc_json_str(&j, "\"x\"");
	gc_json_arr_close(&j);
	CHECK(gc_json_finish(&j) == GC_OK);
	CHECK_EQ_INT(b.len, 2 + 5000 * 8 - 1);      /* 7 bytes and a comma each */
	CHECK(!strncmp(b.p, "[\"\\\"x\\\"\",", 9));
	CHECK(!strcmp(b.p + b.len - 9, ",\"\\\"x\\\"\"]"));
	gc_buf_release(&b);
}

/* GC_JSON_SPACED alone: one line, a space after every comma and colon. */
static void test_spaced(void)
{
	gc_buf b = GC_BUF_INIT;
	gc_json j;

	gc_json_init(&j, &b, GC_JSON_SPACED);
	gc_json_obj_open(&j);
	gc_json_str_field(&j, "a", "x, y: z");
	gc_json_key(&j, "b");
	gc_json_arr_open(&j);
	gc_json_bool(&j, 1);
	gc_json_null(&j);
	gc_json_obj_open(&j);
	gc_json_obj_close(&j);
	gc_json_arr_close(&j);
	gc_json_obj_close(&j);
	CHECK(gc_json_finish(&j) == GC_OK);
	CHECK_STR(b.p, "{\"a\": \"x, y: z\", \"b\": [true, null, {}]}");
	gc_buf_release(&b);
}

/* Line breaks where the caller puts them: the comma ends the line, items are indented
 * two spaces per level, a closing bracket one level less; the layout of
 * gcbench whatif --json. */
static void test_newline(void)
{
	gc_buf b = GC_BUF_INIT;
	gc_json j;
	int i;

	gc_json_init(&j, &b, GC_JSON_SPACED);
	gc_json_obj_open(&j);
	gc_json_int_field(&j, "n", 2);
	gc_json_key(&j, "points");
	gc_json_arr_open(&j);
	for (i = 0; i < 2; i++) {
		gc_json_newline(&j);
		gc_json_newline(&j);                   /* twice: still one break */
		gc_json_obj_open(&j);
		gc_json_int_field(&j, "i", i);
		gc_json_str_field(&j, "m", "k");
		gc_json_obj_close(&j);
	}
	gc_json_newline(&j);
	gc_json_arr_close(&j);
	gc_json_newline(&j);
	gc_json_key(&j, "s");
	gc_json_newline(&j);                           /* between a key and its value */
	gc_json_obj_open(&j);
	gc_json_newline(&j);
	gc_json_obj_close(&j);
	gc_json_newline(&j);
	gc_json_obj_close(&j);
	CHECK(gc_json_finish(&j) == GC_OK);
	CHECK_STR(b.p, "{\"n\": 2, \"points\": [\n"
		  "    {\"i\": 0, \"m\": \"k\"},\n"
		  "    {\"i\": 1, \"m\": \"k\"}\n"
		  "  ],\n"
		  "  \"s\":\n"
		  "  {\n"
		  "  }\n"
		  "}");
	gc_buf_release(&b);

	gc_json_init(&j, &b, 0);                       /* compact, and at the top */
	gc_json_newline(&j);
	gc_json_arr_open(&j);
	gc_json_int(&j, 1);
	gc_json_newline(&j);
	gc_json_int(&j, 2);
	gc_json_arr_close(&j);
	CHECK(gc_json_finish(&j) == GC_OK);
	CHECK_STR(b.p, "\n[1,\n  2]");
	gc_buf_release(&b);
}

int main(void)
{
	GCT_SUITE("json");
	GCT_RUN(test_escape);
	GCT_RUN(test_escape_all_controls);
	GCT_RUN(test_nesting);
	GCT_RUN(test_numbers);
	GCT_RUN(test_misuse);
	GCT_RUN(test_depth);
	GCT_RUN(test_append_and_oom);
	GCT_RUN(test_growth);
	GCT_RUN(test_spaced);
	GCT_RUN(test_time_field);
	GCT_RUN(test_newline);
	return gct_finish();
}
