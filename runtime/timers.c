/* SPDX-License-Identifier: GPL-2.0 */
/*
 * timers.c - timer.ms/us/ns/s/hz(N)[.randomize(M)] and timer.jiffies(N)
 * probes: an hrtimer per STP_PROBE_TIMER entry of stp_probes[], set up
 * at module load, armed last once the session runs (after the procfs
 * files) and cancelled first when it stops. A period is never shorter
 * than STP_MIN_TIMER_NS.
 */
#include <linux/hrtimer.h>

struct stp_timer {
	struct hrtimer hr;
	const struct stp_probe *probe;
	ktime_t period;
	u64 randomize;		/* ns: each period is period +- up to this */
};

/* The next period of t: .randomize(M) adds a uniform -M..+M to each. */
static ktime_t stp_timer_next(const struct stp_timer *t)
{
	u64 r;

	if (!t->randomize)
		return t->period;
	r = ((u64)get_random_u32() * (2 * t->randomize + 1)) >> 32;
	return ktime_add_ns(t->period, r) - t->randomize;
}

static struct stp_timer *stp_timers;
static unsigned int stp_ntimers;

static enum hrtimer_restart stp_hrtimer_fn(struct hrtimer *hr)
{
	struct stp_timer *t = container_of(hr, struct stp_timer, hr);

	if (!stp_may_run(STP_PROBE_TIMER))
		return HRTIMER_NORESTART;
	stp_run_probe(t->probe);
	hrtimer_forward_now(hr, stp_timer_next(t));
	return HRTIMER_RESTART;
}

/* Module load: the timers, not armed yet. */
static int stp_timers_init(void)
{
	unsigned int i;

	STP_PROBES_COLLECT(stp_timers, stp_ntimers, BIT_ULL(STP_PROBE_TIMER), NULL);
	if (!stp_timers && stp_probes_count(BIT_ULL(STP_PROBE_TIMER)))
		return -ENOMEM;
	for (i = 0; i < stp_ntimers; i++) {
		struct stp_timer *t = &stp_timers[i];
		const struct stp_probe *p = t->probe;

		if (p->jiffies) {	/* timer.jiffies(N): the kernel's HZ */
			t->period = ns_to_ktime(jiffies_to_nsecs(p->jiffies));
			t->randomize = jiffies_to_nsecs(p->randomize);
		} else {
			t->period = ns_to_ktime(max_t(u64, p->period_ns, STP_MIN_TIMER_NS));
			t->randomize = p->randomize;
		}
		/* the period never goes below the minimum */
		if (t->randomize && ktime_to_ns(t->period) - (s64)t->randomize < STP_MIN_TIMER_NS)
			t->randomize = ktime_to_ns(t->period) > STP_MIN_TIMER_NS ?
				       ktime_to_ns(t->period) - STP_MIN_TIMER_NS : 0;
		stp_hrtimer_setup(&t->hr, stp_hrtimer_fn);
	}
	return 0;
}

/* Once the session runs, after the procfs files. */
static void stp_timers_start(void)
{
	unsigned int i;

	for (i = 0; i < stp_ntimers; i++)
		hrtimer_start(&stp_timers[i].hr, stp_timer_next(&stp_timers[i]),
			      HRTIMER_MODE_REL);
}

/* Session stop (first) and unload: hrtimer_cancel() waits for a
 * running handler. */
static void stp_timers_cancel(void)
{
	unsigned int i;

	for (i = 0; i < stp_ntimers; i++)
		hrtimer_cancel(&stp_timers[i].hr);
}

static void stp_timers_free(void)
{
	kvfree(stp_timers);
	stp_timers = NULL;
	stp_ntimers = 0;
}

static const struct stp_family_ops stp_timers_family = {
	.name = "timers",
	.init = stp_timers_init,
	.start = stp_timers_start,
	.unregister_probes = stp_timers_cancel,
	.free = stp_timers_free,
};
