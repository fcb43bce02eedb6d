/* SPDX-License-Identifier: GPL-2.0 */
/*
 * perf.c - perf.type(T).config(C)[.sample(N)|.hz(F)] probes (and
 * timer.profile, a cpu-clock event): one kernel perf event per online CPU
 * for each STP_PROBE_PERF entry of stp_probes[], whose overflow handler
 * runs the probe with the interrupted registers. Hardware events overflow
 * in NMI context: the handler only takes the CPU's context if it is free
 * (else the hit counts as skipped), and the control queue is only
 * try-locked there.
 *
 * Registered with the other kernel probes after the begin probes and
 * released before the end probes; perf_event_release_kernel() waits for
 * running handlers.
 */
#include <linux/perf_event.h>
#include <linux/cpumask.h>

struct stp_perf {
	const struct stp_probe *probe;
	struct perf_event **ev;		/* per CPU id, NULL when none */
};

static struct stp_perf *stp_perfs;
static unsigned int stp_nperfs;

static void stp_perf_overflow(struct perf_event *ev, struct perf_sample_data *data,
			      struct pt_regs *regs)
{
	(void)data;
	if (!stp_may_run(STP_PROBE_PERF))
		return;
	stp_run_probe_ctx(ev->overflow_handler_context, regs, NULL);
}

static int stp_perf_open(struct stp_perf *p, int cpu)
{
	const struct stp_probe *pr = p->probe;
	struct perf_event_attr attr = {
		.type = pr->perf_type,
		.size = sizeof(attr),
		.config = pr->perf_config,
		.sample_period = pr->perf_period,
		.freq = pr->perf_freq,
		.pinned = 1,
	};
	struct perf_event *ev;

	ev = perf_event_create_kernel_counter(&attr, cpu, NULL, stp_perf_overflow,
					      (void *)pr);
	if (IS_ERR(ev))
		return PTR_ERR(ev);
	p->ev[cpu] = ev;
	return 0;
}

static void stp_perf_register(void)
{
	unsigned int i;
	int cpu, rc;

	if (stp_perfs)
		return;
	STP_PROBES_COLLECT(stp_perfs, stp_nperfs, BIT_ULL(STP_PROBE_PERF), "perf probes");
	for (i = 0; i < stp_nperfs; i++) {
		struct stp_perf *p = &stp_perfs[i];

		p->ev = kcalloc(nr_cpu_ids, sizeof(*p->ev), GFP_KERNEL);
		if (!p->ev) {
			stp_error_msg("cannot allocate perf probe %s", p->probe->pp);
			continue;
		}
		cpus_read_lock();
		for_each_online_cpu(cpu) {
			rc = stp_perf_open(p, cpu);
			if (rc) {	/* an error, as 4.8: the script ends */
				stp_error_msg("probe %s registration error [man warning::pass5] (rc %d)",
					      p->probe->pp, rc);
				break;
			}
		}
		cpus_read_unlock();
	}
}

static void stp_perf_unregister(void)
{
	unsigned int i, cpu;

	for (i = 0; stp_perfs && i < stp_nperfs; i++) {
		struct stp_perf *p = &stp_perfs[i];

		for (cpu = 0; p->ev && cpu < nr_cpu_ids; cpu++) {
			if (!p->ev[cpu])
				continue;
			perf_event_release_kernel(p->ev[cpu]);
			p->ev[cpu] = NULL;
		}
	}
}

static void stp_perf_free(void)
{
	unsigned int i;

	for (i = 0; stp_perfs && i < stp_nperfs; i++)
		kfree(stp_perfs[i].ev);
	kvfree(stp_perfs);
	stp_perfs = NULL;
	stp_nperfs = 0;
}

static const struct stp_family_ops stp_perf_family = {
	.name = "perf",
	.register_probes = stp_perf_register,
	.unregister_probes = stp_perf_unregister,
	.free = stp_perf_free,
};
