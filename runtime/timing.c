/* SPDX-License-Identifier: GPL-2.0 */
/*
 * timing.c - stap -t (STP_TIMING): how often each probe ran and the cycles
 * its handler took, counted per CPU and reported after the end probes, in
 * the script's output, as SystemTap 4.8's "probe hit report". Without
 * STP_TIMING these compile to nothing. The translator writes each table
 * entry's source location in stp_probe_locs[].
 */
#ifdef STP_TIMING
#include <linux/percpu.h>
#include <linux/timex.h>

struct stp_timing {
	u64 count, min, max, sum, sumsq;
};

static struct stp_timing __percpu *stp_timings;	/* STP_NPROBES per CPU */

static int stp_timing_init(void)
{
	stp_timings = __alloc_percpu(sizeof(struct stp_timing) * STP_NPROBES,
				     __alignof__(struct stp_timing));
	return stp_timings ? 0 : -ENOMEM;
}

static void stp_timing_exit(void)
{
	free_percpu(stp_timings);
	stp_timings = NULL;
}

static inline u64 stp_timing_start(void)
{
	return get_cycles();
}

/* p's handler ran from `start`; probe context, preemption off. */
static void stp_timing_add(const struct stp_probe *p, u64 start)
{
	u64 cycles = get_cycles() - start;
	struct stp_timing *t;

	if (!stp_timings || p < stp_probes || p >= stp_probes + STP_NPROBES)
		return;
	t = this_cpu_ptr(stp_timings) + (p - stp_probes);
	if (!t->count || cycles < t->min)
		t->min = cycles;
	if (cycles > t->max)
		t->max = cycles;
	t->count++;
	t->sum += cycles;
	t->sumsq += cycles * cycles;
}

/* One probe's counts over every CPU. */
static void stp_timing_total(int i, struct stp_timing *all)
{
	int cpu;

	memset(all, 0, sizeof(*all));
	for_each_possible_cpu(cpu) {
		const struct stp_timing *t = per_cpu_ptr(stp_timings, cpu) + i;

		if (!t->count)
			continue;
		if (!all->count || t->min < all->min)
			all->min = t->min;
		all->max = max(all->max, t->max);
		all->count += t->count;
		all->sum += t->sum;
		all->sumsq += t->sumsq;
	}
}

/* After the end probes; process context. */
static void stp_timing_report(void)
{
	static char line[512];
	struct stp_sink s;
	int i;

	if (!stp_timings)
		return;
	preempt_disable();
	stp_sink_print_all(&s);
	stp_emit_lit(&s, "----- probe hit report: \n", 25);
	for (i = 0; i < STP_NPROBES; i++) {
		const struct stp_probe *p = &stp_probes[i];
		struct stp_timing t;
		u64 avg, var = 0;

		stp_timing_total(i, &t);
		if (!t.count)
			continue;
		avg = div64_u64(t.sum, t.count);
		if (t.count > 1 && t.sumsq > avg * t.sum)
			var = div64_u64(t.sumsq - avg * t.sum, t.count - 1);
		snprintf(line, sizeof(line), "%s, (%s), hits: %llu, cycles: %llumin/%lluavg/%llumax, variance: %llu, from: %s, index: %d\n",
			 p->pp, stp_probe_locs[i] ? stp_probe_locs[i] : "?", t.count, t.min, avg, t.max, var,
			 p->pn ? p->pn : p->pp, i);
		stp_emit_lit(&s, line, strlen(line));
	}
	stp_emit_lit(&s, "----- refresh report:\n", 22);
	stp_print_flush_this_cpu();
	preempt_enable();
}
#else
static int stp_timing_init(void) { return 0; }
static void stp_timing_exit(void) { }
static inline u64 stp_timing_start(void) { return 0; }
static inline void stp_timing_add(const struct stp_probe *p, u64 start) { }
static void stp_timing_report(void) { }
#endif
