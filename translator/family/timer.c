/*
 * timer.c - the timer family: timer.UNIT(N)[.randomize(M)] and
 * timer.hz(N) (an hrtimer), timer.jiffies(N)[.randomize(M)], and
 * timer.profile, which is a perf cpu-clock event on every CPU
 * (perf.c's), as upstream makes it where the kernel has no tick hook.
 * The runtime's session.c arms them after the begin probes.
 */
#include <string.h>

#include "family.h"

/* Upstream's bounds: hrtimers from 100 us to a day, jiffies to a million. */
#define HRTIMER_MIN_NS 100000LL
#define HRTIMER_MAX_NS (86400LL * 1000000000LL)
#define JIFFIES_MAX 1000000LL

/* timer.UNIT(N)[.randomize(M)]: an hrtimer every N units, +-M. */
static void timer_hr(struct resolver *r, const struct pp_comp *u,
		     const struct pp_comp *rnd)
{
	static const struct { const char *name; int64_t ns; } units[] = {
		{ "s", 1000000000 }, { "sec", 1000000000 },
		{ "ms", 1000000 }, { "msec", 1000000 },
		{ "us", 1000 }, { "usec", 1000 }, { "ns", 1 }, { "nsec", 1 },
		{ NULL, 0 }
	};
	int64_t v = u->arg->num, lo, hi, m = rnd ? rnd->arg->num : 0;
	struct rprobe *rp;
	int i;

	for (i = 0; units[i].name && strcmp(units[i].name, u->name); i++)
		;
	if (!units[i].name)
		return;
	lo = HRTIMER_MIN_NS / units[i].ns > 1 ? HRTIMER_MIN_NS / units[i].ns : 1;
	hi = HRTIMER_MAX_NS / units[i].ns;
	if (v < lo || v > hi) {
		rp_fail(r, u->arg->loc, "interval value out of range (%lld, %lld)",
		     (long long)lo, (long long)hi);
		return;
	}
	if (m < 0 || m > v) {
		rp_fail(r, rnd->arg->loc, "randomization value out of range");
		return;
	}
	rp = rp_add(r, &family_timer, RP_TIMER, m ? "timer.randomize" : "timer",
		 pp_to_string(r->s, r->pp));
	rp->period_ns = v * units[i].ns;
	rp->randomize = m * units[i].ns;
}

/* timer.hz(N): an hrtimer N times a second (no randomize). */
static void timer_hz(struct resolver *r, const struct pp_comp *u)
{
	int64_t v = u->arg->num;

	if (v <= 0) {
		rp_fail(r, u->arg->loc, "frequency must be greater than 0");
		return;
	}
	if (1000000000LL / v < HRTIMER_MIN_NS) {
		rp_fail(r, u->arg->loc, "interval value out of range (%lld, %lld)",
		     HRTIMER_MIN_NS, HRTIMER_MAX_NS);
		return;
	}
	rp_add(r, &family_timer, RP_TIMER, "timer", pp_to_string(r->s, r->pp))->period_ns =
		1000000000LL / v;
}

/* timer.jiffies(N)[.randomize(M)]: a timer_list every N jiffies, +-M. */
static void timer_jiffies(struct resolver *r, const struct pp_comp *u,
			  const struct pp_comp *rnd)
{
	int64_t v = u->arg->num, m = rnd ? rnd->arg->num : 0;
	struct rprobe *rp;

	if (v < 1 || v > JIFFIES_MAX) {
		rp_fail(r, u->arg->loc, "invalid interval for jiffies timer");
		return;
	}
	if (m < 0 || m > v) {
		rp_fail(r, rnd->arg->loc, "invalid randomize for jiffies timer");
		return;
	}
	rp = rp_add(r, &family_timer, RP_JIFFIES, "timer.jiffies", pp_to_string(r->s, r->pp));
	rp->jiffies = v;
	rp->randomize = m;
}

/*
 * timer.profile: every CPU at each tick (upstream's tapset alias falls
 * back to a perf cpu-clock event where the tick hook is gone);
 * timer.profile.tick: the tick hook itself (register_timer_hook, gone
 * since Linux 5.x); timer.profile.freq.hz(N): every CPU N times a second.
 */
static void resolve_profile(struct resolver *r, const struct pp_comp *u)
{
	const struct pp_comp *c = u->next, *hz;
	struct kcatalog *kc;
	struct rprobe *rp;

	if (u->arg)
		return;
	if (!c) {
		/* as upstream on kernels without the timer hook: a cpu-clock
		 * perf event on every CPU, every millisecond of its time */
		rp = rp_add(r, &family_perf, RP_PERF, "timer.profile", "perf.type(1).config(0).sample(1000000)");
		if (!r->probe->points->next)
			rp->from = rp->pp;	/* 4.8's -p2 shows the point it became */
		rp->label = arena_printf(r->s->arena, "timer.profile%s", rp->marks);	/* -l */
		rp->perf_type = 1;
		rp->perf_period = 1000000;
	} else if (pp_take(&c, "tick", -1) && !c) {
		kc = kernel_catalog(r->s);
		if (!kc)
			r->failed = true;
		else if (!kcat_has_function(kc, "register_timer_hook"))
			rp_fail(r, r->pp->loc, "profiling timer support (register_timer_hook) not found in kernel!");
		else
			rp_add(r, &family_timer, RP_PROFILE, "timer.profile", "timer.profile.tick");
	} else if (pp_take(&c, "freq", -1) && (hz = pp_take(&c, "hz", N_NUM)) && !c) {
		if (hz->arg->num <= 0)
			rp_fail(r, hz->arg->loc, "frequency must be greater than 0");
		else if (hz->arg->num > 1000000000LL)
			rp_fail(r, hz->arg->loc, "frequency out of range (1, 1000000000)");
		else
			rp_add(r, &family_timer, RP_PROFILE, "timer.profile",
			    pp_to_string(r->s, r->pp))->period_ns =
				1000000000LL / hz->arg->num;
	}
}

/* timer.UNIT(N)[.randomize(M)] | timer.jiffies(N)[.randomize(M)] |
 * timer.hz(N) | timer.profile... */
static void resolve_timer(struct resolver *r, const struct pp_comp *c)
{
	const struct pp_comp *u = c->next, *rnd;

	if (c->arg || !u)
		return;
	if (!strcmp(u->name, "profile")) {
		resolve_profile(r, u);
		return;
	}
	if (!u->arg || u->arg->kind != N_NUM)
		return;
	rnd = u->next;
	if (rnd && (strcmp(rnd->name, "randomize") || !rnd->arg ||
		    rnd->arg->kind != N_NUM || rnd->next))
		return;
	if (!strcmp(u->name, "jiffies"))
		timer_jiffies(r, u, rnd);
	else if (!strcmp(u->name, "hz") && !rnd)
		timer_hz(r, u);
	else
		timer_hr(r, u, rnd);
}

/* Once per point as written (a wildcard resolves to many). */
static bool first_of_point(struct gen *g, const struct rprobe *r)
{
	for (const struct rprobe *q = g->s->rprobes; q && q != r; q = q->next)
		if (q->fam == r->fam && q->kind == r->kind && q->point == r->point)
			return false;
	return true;
}

static void emit_timer(struct gen *g, struct strbuf *code, const struct rprobe *r, int id)
{
	(void)code;
	(void)id;
	if (r->kind == RP_PROFILE) {	/* timer.profile.tick, .freq.hz(N) */
		if (first_of_point(g, r))
			diag_error(g->s, r->point->loc, "%s probes are not supported by this version yet",
				   r->family);
		return;
	}
	if (r->kind == RP_JIFFIES)	/* an hrtimer of N jiffies, converted with the kernel's HZ */
		tr_table_row(g, "TIMERS", "STP_PROBE_TIMER, .handler = probe_%d, .pp = %s, "
			     ".jiffies = %lldULL, .randomize = %lldULL", r->probe->index,
			     tr_cstr(g, r->pp), (long long)r->jiffies, (long long)r->randomize);
	else
		tr_table_row(g, "TIMERS", "STP_PROBE_TIMER, .handler = probe_%d, .pp = %s, .order = 0, "
			     ".period_ns = %lldULL, .randomize = %lldULL", r->probe->index,
			     tr_cstr(g, r->pp), (long long)r->period_ns, (long long)r->randomize);
}

static const char *const timer_roots[] = { "timer", NULL };
static const char *const timer_shapes[] = {
	"timer.s.randomize", "timer.sec.randomize", "timer.ms.randomize",
	"timer.msec.randomize", "timer.us.randomize", "timer.usec.randomize",
	"timer.ns.randomize", "timer.nsec.randomize", "timer.hz",
	"timer.jiffies.randomize", "timer.profile", NULL
};

/* --privilege=stapusr: every timer but timer.profile (4.8) */
static bool timer_unprivileged(const struct pp_comp *c)
{
	return !c->next || strcmp(c->next->name, "profile");
}

const struct family family_timer = {
	.name = "timer",
	.roots = timer_roots,
	.shapes = timer_shapes,
	.resolve = resolve_timer,
	.unprivileged = timer_unprivileged,
	.emit = emit_timer,
	.runtime = "TIMERS",
};
