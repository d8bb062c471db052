/* netem/play.c: the trace player (see play.h). */
#include "play.h"

#include <errno.h>
#include <math.h>
#include <string.h>
#include <limits.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "pids.h"
#include "shape.h"
#include "state.h"

/* Where the player is in the trace and what it has seen. */
struct player {
	const struct gc_play_opts *o;
	struct gc_play_result *r;
	struct gc_shape_link *link;
	uint64_t start_ns;          /* CLOCK_REALTIME */
	uint64_t end_rel_us;        /* the deadline, from the start */
	size_t idx;                 /* the step in force */
	uint64_t rep;               /* how many times the trace has wrapped */
	uint64_t cur_bps;           /* the rate last put in place */
	uint64_t win;               /* the next window to write (ends at win + 1 s) */
	uint64_t last_bytes, last_drops, last_read_ns;
	unsigned long long owner_start;
	char state_path[PATH_MAX];  /* the link's state file, written by our set */
	ino_t state_ino;
	double late_sum_us;
	uint64_t n_timed;           /* changes whose lateness was measured */
};

static uint64_t real_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Sleep until CLOCK_REALTIME abs_ns; returns early on a signal (the caller looks). */
static void sleep_until(uint64_t abs_ns)
{
	struct timespec ts = { (time_t)(abs_ns / 1000000000ull), (long)(abs_ns % 1000000000ull) };

	clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME, &ts, NULL);
}

static uint64_t rel_us(const struct player *p)
{
	uint64_t now = real_ns();
	return now > p->start_ns ? (now - p->start_ns) / 1000 : 0;
}

/* The time (from the start) at which the step after the current one begins. */
static uint64_t next_change_us(const struct player *p)
{
	const struct gc_trace *t = p->o->trace;
	uint64_t base = p->rep * t->period_us;

	return base + (p->idx + 1 < t->n ? t->steps[p->idx + 1].t_us : t->period_us);
}

static gc_rc apply(struct player *p, uint64_t bps, gc_err *e)
{
	gc_rc rc;

	if (bps == p->cur_bps)
		return GC_OK;
	if ((rc = gc_shape_link_rate(p->link, bps, e)))
		return rc;
	p->cur_bps = bps;
	p->r->changes++;
	return GC_OK;
}

/* Step to the next change and put it in place; late = how long after its time. */
static gc_rc advance(struct player *p, gc_err *e)
{
	uint64_t due = next_change_us(p), now;
	gc_rc rc;

	if (++p->idx == p->o->trace->n) {
		p->idx = 0;
		p->rep++;
	}
	rc = apply(p, p->o->trace->steps[p->idx].rate_bps, e);
	now = rel_us(p);
	p->n_timed++;
	if (!rc && now > due) {
		int64_t late = (int64_t)(now - due);
		p->late_sum_us += (double)late;
		if (late > p->r->late_max_us)
			p->r->late_max_us = late;
	}
	return rc;
}

/* Put the step in force at now (from the start) in place at once, skipping the ones
 * missed (a player stopped for longer than a period, e.g. SIGSTOP). */
static gc_rc catch_up(struct player *p, uint64_t now, gc_err *e)
{
	const struct gc_trace *t = p->o->trace;

	p->idx = gc_trace_index_at(t, now);
	p->rep = now / t->period_us;
	return apply(p, t->steps[p->idx].rate_bps, e);
}

/* Read the counters at the end of window p->win and write its line. */
static gc_rc window(struct player *p, gc_err *e)
{
	const struct gc_trace *t = p->o->trace;
	struct gc_shape_info s;
	uint64_t now, k = p->win;
	double secs;
	gc_rc rc = gc_shape_link_read(p->link, &s, e);

	if (rc)
		return rc;
	now = real_ns();
	secs = (double)(now - p->last_read_ns) / 1e9;
	if (p->o->out)
		fprintf(p->o->out, "{\"window\":%llu,\"t_s\":%llu,\"phase_s\":%.6f,"
			"\"trace_mean_bps\":%.0f,\"rate_bps\":%llu,\"sent_bytes\":%llu,"
			"\"achieved_bps\":%.0f,\"drops\":%llu}\n", (unsigned long long)k,
			(unsigned long long)k + 1, gc_trace_phase_s(t, k * 1000000ull),
			gc_trace_mean(t, k * 1000000ull, (k + 1) * 1000000ull),
			(unsigned long long)s.rate_bps, (unsigned long long)(s.bytes - p->last_bytes),
			secs > 0 ? 8.0 * (double)(s.bytes - p->last_bytes) / secs : 0.0,
			(unsigned long long)(s.drops - p->last_drops));
	if (p->o->out)
		fflush(p->o->out);
	p->last_bytes = s.bytes;
	p->last_drops = s.drops;
	p->last_read_ns = now;
	p->win++;
	p->r->windows++;
	if (now > p->start_ns && (now - p->start_ns) / 1000 >= (p->win + 1) * 1000000ull)
		p->win = (now - p->start_ns) / 1000000000ull;   /* stopped: skip to now */
	return GC_OK;
}

static int owner_gone(const struct player *p)
{
	return p->o->owner && gc_proc_start_time(p->o->owner) != p->owner_start;
}

/* Someone else's set or clear replaced our state file (a new sweep took the link
 * after this player's controller died): "taken" or "cleared", else NULL. */
static const char *link_taken(const struct player *p)
{
	struct gc_netem_state st;
	struct stat sb;

	if (stat(p->state_path, &sb))
		return errno == ENOENT ? "cleared" : NULL;
	if (sb.st_ino == p->state_ino)
		return NULL;
	if (gc_state_read(p->state_path, &st, NULL) || st.owner != getpid())
		return "taken";
	return NULL;
}

static int stopped(struct player *p)
{
	const char *why;

	if (p->o->stop && *p->o->stop)
		return p->r->stopped = "signal", 1;
	if (owner_gone(p))
		return p->r->stopped = "owner", 1;
	if ((why = link_taken(p)))
		return p->r->stopped = why, 1;
	return 0;
}

/* The start: wait for the instant, put the first step in place, zero the counters. */
static gc_rc begin(struct player *p, gc_err *e)
{
	const struct gc_trace *t = p->o->trace;
	struct gc_shape_info s;
	uint64_t now;
	gc_rc rc;

	while (real_ns() < p->start_ns && !stopped(p))
		sleep_until(p->start_ns);
	if (p->r->stopped)
		return GC_OK;
	now = rel_us(p);
	p->idx = gc_trace_index_at(t, now);
	p->rep = now / t->period_us;
	if ((rc = apply(p, t->steps[p->idx].rate_bps, e)))
		return rc;
	p->r->start_lag_us = (int64_t)rel_us(p);
	p->win = now / 1000000ull;
	if ((rc = gc_shape_link_read(p->link, &s, e)))
		return rc;
	p->last_bytes = s.bytes;
	p->last_drops = s.drops;
	p->last_read_ns = real_ns();
	return GC_OK;
}

static gc_rc loop(struct player *p, gc_err *e)
{
	gc_rc rc = begin(p, e);

	while (!rc && !p->r->stopped) {
		uint64_t change = next_change_us(p), win = (p->win + 1) * 1000000ull;
		uint64_t next = change < win ? change : win, now;

		if (next > p->end_rel_us)
			next = p->end_rel_us;
		sleep_until(p->start_ns + next * 1000);
		if (stopped(p))
			break;
		now = rel_us(p);
		if (now >= p->end_rel_us) {
			p->r->stopped = "deadline";
			break;
		}
		if (now >= (p->win + 1) * 1000000ull)      /* the window first: its bytes */
			rc = window(p, e);                   /* ran at the rate it names */
		if (now >= next_change_us(p) + p->o->trace->period_us)
			rc = catch_up(p, now, e);      /* stopped for a whole period: jump */
		while (!rc && now >= next_change_us(p))
			rc = advance(p, e);
	}
	return rc;
}

static gc_rc remember_state(struct player *p, gc_err *e)
{
	struct stat sb;
	gc_rc rc = gc_state_path(p->o->dev, p->o->netns, p->state_path, sizeof(p->state_path), e);

	if (rc)
		return rc;
	if (stat(p->state_path, &sb))
		return gc_fail(e, GC_E_IO, "cannot read state file '%s': %s", p->state_path,
			       strerror(errno));
	p->state_ino = sb.st_ino;
	return GC_OK;
}

static double cpu_s(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
	       (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
}

static gc_rc check_opts(const struct gc_play_opts *o, gc_err *e)
{
	if (!o->trace || !o->trace->n)
		return gc_fail(e, GC_E_INVAL, "play needs a trace");
	if (!(o->duration_s > 0 && o->duration_s <= GC_PLAY_MAX_DURATION_S))
		return gc_fail(e, GC_E_INVAL, "the duration must lie in (0, 7 days]: the player "
			       "outlives nothing, so give the point's deadline");
	if (!(o->start_s >= 0 && o->start_s < 1e11))
		return gc_fail(e, GC_E_INVAL, "the start must be a time in seconds since the epoch");
	return GC_OK;
}

static void summary(const struct player *p, gc_rc rc)
{
	const struct gc_play_result *r = p->r;

	if (!p->o->out)
		return;
	fprintf(p->o->out, "{\"summary\":1,\"stopped\":\"%s\",\"rc\":%d,\"changes\":%llu,"
		"\"windows\":%llu,\"start_lag_us\":%lld,\"late_max_us\":%lld,"
		"\"late_mean_us\":%.1f,\"cpu_pct\":%.3f,\"wall_s\":%.3f}\n", r->stopped, (int)rc,
		(unsigned long long)r->changes, (unsigned long long)r->windows,
		(long long)r->start_lag_us, (long long)r->late_max_us, r->late_mean_us,
		r->cpu_pct, r->wall_s);
	fflush(p->o->out);
}

gc_rc gc_play_run(const struct gc_play_opts *o, struct gc_play_result *r, gc_err *e)
{
	struct gc_shape_req req;
	struct player p;
	uint64_t t0 = real_ns();
	double c0 = cpu_s();
	gc_err ce;
	gc_rc rc;

	memset(r, 0, sizeof(*r));
	memset(&p, 0, sizeof(p));
	r->stopped = "error";
	if ((rc = check_opts(o, e)))
		return rc;
	p.o = o;
	p.r = r;
	p.owner_start = o->owner ? gc_proc_start_time(o->owner) : 0;
	if (o->owner && !p.owner_start)
		return gc_fail(e, GC_E_INVAL, "owner process %d does not exist", (int)o->owner);
	p.start_ns = o->start_s > 0 ? (uint64_t)llround(o->start_s * 1e9) : t0;
	if (p.start_ns < t0 && t0 - p.start_ns > 1000000000ull * 3600)
		return gc_fail(e, GC_E_INVAL, "the start instant is more than an hour ago; give "
			       "a time to come (e.g. now + 2 s) so that every host starts together");
	p.end_rel_us = (uint64_t)llround(o->duration_s * 1e6);
	memset(&req, 0, sizeof(req));
	req.dev = o->dev;
	req.netns = o->netns;
	req.rate_bps = o->trace->max_bps;
	req.owner = getpid();
	req.htb = 1;                   /* a tbf's change refills its bucket: +1 burst each */
	if ((rc = gc_shape_set(&req, e)))
		return rc;
	p.cur_bps = o->trace->max_bps;
	r->stopped = NULL;
	rc = remember_state(&p, e);
	if (!rc)
		rc = gc_shape_link_open(o->dev, o->netns, &p.link, e);
	if (!rc)
		rc = loop(&p, e);
	gc_shape_link_close(p.link);     /* back in the caller's namespace */
	if (r->stopped && !strcmp(r->stopped, "taken"))
		;                            /* the link is another sweep's now: leave it */
	else if (gc_shape_clear(o->dev, o->netns, &ce) && !rc)
		rc = gc_fail(e, GC_E_NETLINK, "cannot restore '%s' after playing: %s", o->dev, ce.msg);
	if (rc || !r->stopped)
		r->stopped = "error";
	r->wall_s = (double)(real_ns() - t0) / 1e9;
	r->cpu_pct = r->wall_s > 0 ? 100.0 * (cpu_s() - c0) / r->wall_s : 0;
	r->late_mean_us = p.n_timed ? p.late_sum_us / (double)p.n_timed : 0;
	summary(&p, rc);
	return rc;
}
