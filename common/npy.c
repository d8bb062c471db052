#include "npy.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char npy_magic[6] = { '\x93', 'N', 'U', 'M', 'P', 'Y' };

/* Find the value text after 'key': in the header dict; NULL if absent. */
static const char *dict_value(const char *hdr, const char *key)
{
	char pat[32];
	const char *p;

	snprintf(pat, sizeof(pat), "'%s'", key);
	p = strstr(hdr, pat);
	if (!p)
		return NULL;
	p += strlen(pat);
	while (*p == ' ')
		p++;
	if (*p != ':')
		return NULL;
	p++;
	while (*p == ' ')
		p++;
	return p;
}

static gc_rc parse_shape(const char *p, gc_npy *out, gc_err *e)
{
	size_t numel = 1;
	int nd = 0;

	if (*p != '(')
		return gc_fail(e, GC_E_FORMAT, "shape is not a tuple");
	p++;
	for (;;) {
		char *end;
		unsigned long long v;

		while (*p == ' ' || *p == ',')
			p++;
		if (*p == ')')
			break;
		if (*p < '0' || *p > '9')
			return gc_fail(e, GC_E_FORMAT, "shape holds a non-integer");
		errno = 0;
		v = strtoull(p, &end, 10);
		if (errno || end == p)
			return gc_fail(e, GC_E_FORMAT, "shape dimension out of range");
		if (nd == GC_NPY_MAXDIM)
			return gc_fail(e, GC_E_FORMAT, "more than %d dimensions", GC_NPY_MAXDIM);
		if (v && numel > SIZE_MAX / sizeof(float) / v)
			return gc_fail(e, GC_E_FORMAT, "shape too large");
		numel *= (size_t)v;
		out->shape[nd++] = (size_t)v;
		p = end;
		while (*p == ' ')
			p++;
		if (*p != ',' && *p != ')')
			return gc_fail(e, GC_E_FORMAT, "shape tuple is malformed");
	}
	out->ndim = nd;
	out->numel = numel;
	return GC_OK;
}

/* d is "'CODE'...": a byte order (<>|=), a kind letter and 0 to 2 digits, copied into
 * out (8 bytes). Returns 1 if so. */
static int is_type_code(const char *d, char *out)
{
	size_t i = 1, n;

	if (d[0] != '\'')
		return 0;
	if (d[i] && strchr("<>|=", d[i]))
		i++;
	if (!((d[i] >= 'a' && d[i] <= 'z') || (d[i] >= 'A' && d[i] <= 'Z')))
		return 0;
	i++;
	for (n = 0; n < 2 && d[i] >= '0' && d[i] <= '9'; n++)
		i++;
	if (d[i] != '\'')
		return 0;
	memcpy(out, d + 1, i - 1);
	out[i - 1] = 0;
	return 1;
}

static gc_rc parse_header(const char *hdr, gc_npy *out, gc_err *e)
{
	const char *d = dict_value(hdr, "descr");
	const char *f = dict_value(hdr, "fortran_order");
	const char *s = dict_value(hdr, "shape");

	if (!d || !f || !s)
		return gc_fail(e, GC_E_FORMAT, "header lacks %s", !d ? "'descr'" : !f ? "'fortran_order'" : "'shape'");
	if (strncmp(d, "'<f4'", 5) != 0) {
		char found[8] = "";
		/* name the dtype only when it is a numpy type code ('<f8', '|u1'): the header
		 * of a file we cannot parse is untrusted and is never quoted */
		if (!is_type_code(d, found))
			return gc_fail(e, GC_E_FORMAT, "'descr' is not a numpy type code; expected "
				       "float32 ('<f4'): save the array with np.save(path, "
				       "arr.astype(np.float32))");
		return gc_fail(e, GC_E_FORMAT,
			       "dtype is '%s', expected float32 ('<f4'); convert with arr.astype(np.float32)",
			       found);
	}
	if (strncmp(f, "False", 5) != 0)
		return gc_fail(e, GC_E_FORMAT,
			       "array is in Fortran order; save np.ascontiguousarray(arr) instead");
	return parse_shape(s, out, e);
}

gc_rc gc_npy_parse(const void *buf, size_t len, gc_npy *out, gc_err *e)
{
	const unsigned char *b = buf;
	size_t hlen, off;
	char *hdr;
	gc_rc rc;

	memset(out, 0, sizeof(*out));
	if (len < 10 || memcmp(b, npy_magic, 6) != 0)
		return gc_fail(e, GC_E_FORMAT, "not a .npy file (no \\x93NUMPY magic)");
	if (b[6] == 1) {
		hlen = (size_t)b[8] | (size_t)b[9] << 8;
		off = 10;
	} else if (b[6] == 2 || b[6] == 3) {
		if (len < 12)
			return gc_fail(e, GC_E_FORMAT, "truncated header");
		hlen = (size_t)b[8] | (size_t)b[9] << 8 | (size_t)b[10] << 16 | (size_t)b[11] << 24;
		off = 12;
	} else {
		return gc_fail(e, GC_E_FORMAT, "unsupported .npy version %u.%u", b[6], b[7]);
	}
	if (hlen > len - off)
		return gc_fail(e, GC_E_FORMAT, "truncated header (%zu bytes announced, %zu present)",
			       hlen, len - off);
	hdr = malloc(hlen + 1);
	if (!hdr)
		return gc_fail(e, GC_E_NOMEM, "out of memory");
	memcpy(hdr, b + off, hlen);
	hdr[hlen] = 0;
	rc = parse_header(hdr, out, e);
	free(hdr);
	if (rc)
		return rc;
	off += hlen;
	if (len - off < out->numel * sizeof(float)) {
		rc = gc_fail(e, GC_E_FORMAT, "truncated data: shape needs %zu bytes, file has %zu",
			     out->numel * sizeof(float), len - off);
		memset(out, 0, sizeof(*out));
		return rc;
	}
	out->data = malloc(out->numel ? out->numel * sizeof(float) : 1);
	if (!out->data) {
		memset(out, 0, sizeof(*out));
		return gc_fail(e, GC_E_NOMEM, "out of memory");
	}
	memcpy(out->data, b + off, out->numel * sizeof(float));
	return GC_OK;
}

gc_rc gc_npy_read(const char *path, gc_npy *out, gc_err *e)
{
	FILE *f = fopen(path, "rb");
	unsigned char *buf = NULL;
	long sz;
	gc_rc rc;

	memset(out, 0, sizeof(*out));
	if (!f)
		return gc_fail(e, errno == ENOENT ? GC_E_NOTFOUND : GC_E_IO, "cannot open '%s': %s",
			       path, strerror(errno));
	if (fseek(f, 0, SEEK_END) || (sz = ftell(f)) < 0 || fseek(f, 0, SEEK_SET)) {
		rc = gc_fail(e, GC_E_IO, "cannot read '%s': %s", path, strerror(errno));
		goto out_close;
	}
	buf = malloc((size_t)sz + 1);
	if (!buf) {
		rc = gc_fail(e, GC_E_NOMEM, "cannot read '%s': out of memory", path);
		goto out_close;
	}
	if (fread(buf, 1, (size_t)sz, f) != (size_t)sz) {
		rc = gc_fail(e, GC_E_IO, "cannot read '%s': short read", path);
		goto out_free;
	}
	rc = gc_npy_parse(buf, (size_t)sz, out, e);
	if (rc && e) {
		char inner[GC_ERRLEN];
		snprintf(inner, sizeof(inner), "%s", e->msg);
		gc_fail(e, rc, "'%s': %s", path, inner);
	}
out_free:
	free(buf);
out_close:
	fclose(f);
	return rc;
}

gc_rc gc_npy_write(const char *path, const float *data, size_t numel, int ndim,
		   const size_t *shape, gc_err *e)
{
	char hdr[256], tmp[4096], dims[200] = "";
	size_t n = 1, dl = 0, hl;
	unsigned char pre[10];
	FILE *f;
	int i, ok;

	if (ndim < 0 || ndim > GC_NPY_MAXDIM)
		return gc_fail(e, GC_E_INVAL, "cannot write '%s': %d dimensions", path, ndim);
	for (i = 0; i < ndim; i++) {
		n *= shape[i];
		dl += (size_t)snprintf(dims + dl, sizeof(dims) - dl, "%zu%s", shape[i],
				       ndim == 1 ? "," : (i + 1 < ndim ? ", " : ""));
	}
	if (n != numel)
		return gc_fail(e, GC_E_INVAL, "cannot write '%s': shape has %zu elements, data %zu",
			       path, n, numel);
	hl = (size_t)snprintf(hdr, sizeof(hdr),
			      "{'descr': '<f4', 'fortran_order': False, 'shape': (%s), }", dims);
	while ((10 + hl + 1) % 64)
		hdr[hl++] = ' ';
	hdr[hl++] = '\n';
	memcpy(pre, npy_magic, 6);
	pre[6] = 1;
	pre[7] = 0;
	pre[8] = (unsigned char)(hl & 0xff);
	pre[9] = (unsigned char)(hl >> 8);
	snprintf(tmp, sizeof(tmp), "%s.tmp.%ld", path, (long)getpid());
	f = fopen(tmp, "wb");
	if (!f)
		return gc_fail(e, GC_E_IO, "cannot create '%s': %s", tmp, strerror(errno));
	ok = fwrite(pre, 1, 10, f) == 10 && fwrite(hdr, 1, hl, f) == hl &&
	     fwrite(data, sizeof(float), numel, f) == numel;
	if (fclose(f))
		ok = 0;
	if (!ok) {
		unlink(tmp);
		return gc_fail(e, GC_E_IO, "cannot write '%s': %s", tmp, strerror(errno));
	}
	if (rename(tmp, path)) {
		unlink(tmp);
		return gc_fail(e, GC_E_IO, "cannot rename '%s' to '%s': %s", tmp, path, strerror(errno));
	}
	return GC_OK;
}

void gc_npy_release(gc_npy *a)
{
	if (!a)
		return;
	free(a->data);
	memset(a, 0, sizeof(*a));
}
