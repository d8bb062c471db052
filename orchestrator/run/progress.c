#include "progress.h"

#include <stdio.h>
#include <string.h>

#include "strutil.h"
#include "timing.h"

void gc_format_duration(double s, char *buf, size_t n)
{
	long t = (long)(s + 0.5);
	if (s < 0)
		snprintf(buf, n, "?");
	else if (t < 60)
		snprintf(buf, n, "%lds", t);
	else if (t < 3600)
		snprintf(buf, n, "%ldm%02lds", t / 60, t % 60);
	else
		snprintf(buf, n, "%ldh%02ldm", t / 3600, (t % 3600) / 60);
}

void gc_progress_init(gc_progress *p, size_t total, size_t skipped)
{
	memset(p, 0, sizeof(*p));
	p->total = total;
	p->skipped = skipped;
	p->done = skipped;
}

static void print_line(const gc_progress *p, const char *what)
{
	char eta[32] = "?";
	size_t left = p->total > p->done ? p->total - p->done : 0;

	if (p->timed)
		gc_format_duration(p->spent_s / (double)p->timed * (double)left, eta, sizeof(eta));
	fprintf(stderr, "[%zu/%zu %3.0f%%, %zu failed, eta %s] %s: %s\n",
		p->done + 1 > p->total ? p->total : p->done + 1, p->total,
		p->total ? 100.0 * (double)p->done / (double)p->total : 100.0, p->failed, eta,
		p->label, what);
	fflush(stderr);
}

void gc_progress_start(gc_progress *p, const char *label)
{
	gc_strlcpy(p->label, label, sizeof(p->label));
	p->point_t0 = gc_now_ns();
	print_line(p, "starting");
}

void gc_progress_step(gc_progress *p, const char *what)
{
	print_line(p, what);
}

void gc_progress_end(gc_progress *p, int ok, const char *outcome)
{
	char d[32];
	double s = (double)(gc_now_ns() - p->point_t0) * 1e-9;

	p->spent_s += s;
	p->timed++;
	if (!ok)
		p->failed++;
	gc_format_duration(s, d, sizeof(d));
	fprintf(stderr, "[%zu/%zu] %s: %s in %s\n", p->done + 1, p->total, p->label, outcome, d);
	p->done++;
	fflush(stderr);
}
