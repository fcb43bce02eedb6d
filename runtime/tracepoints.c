/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tracepoints.c - kernel.trace("sys:name") probes through the kernel's
 * tracepoint API: each STP_PROBE_TRACEPOINT entry of stp_probes[] names
 * the struct tracepoint (found with for_each_kernel_tracepoint()) and a
 * generated callback `void cb(void *data, unsigned long a0, ...)` that
 * collects its raw arguments and calls stp_tracepoint_fire(data, args)
 * (data is the stp_probe). All arguments are register-sized on x86_64,
 * so the callback is ABI-compatible with the tracepoint's prototype;
 * stp_target() narrows each to its type's width.
 *
 * Registered at session start after the begin probes, unregistered at
 * stop before the end probes; tracepoint_synchronize_unregister() then
 * guarantees no callback of ours still runs.
 */
#include <linux/tracepoint.h>

struct stp_tp {
	struct tracepoint *tp;
	const struct stp_probe *probe;
	bool registered;
};

static struct stp_tp *stp_tps;
static unsigned int stp_ntps;

void stp_tracepoint_fire(void *data, const unsigned long *args)
{
	if (!stp_may_run(STP_PROBE_TRACEPOINT))
		return;
	stp_run_probe_ctx(data, NULL, args);
}

static void stp_tp_lookup(struct tracepoint *tp, void *priv)
{
	unsigned int i;

	(void)priv;
	for (i = 0; i < stp_ntps; i++)
		if (!stp_tps[i].tp && !strcmp(tp->name, stp_tps[i].probe->tp_name))
			stp_tps[i].tp = tp;
}

static void stp_tracepoints_register(void)
{
	unsigned int i;
	int rc;

	if (stp_tps)
		return;
	STP_PROBES_COLLECT(stp_tps, stp_ntps, BIT_ULL(STP_PROBE_TRACEPOINT),
			   "tracepoint probes");
	if (!stp_tps)
		return;
	for_each_kernel_tracepoint(stp_tp_lookup, NULL);
	for (i = 0; i < stp_ntps; i++) {
		struct stp_tp *t = &stp_tps[i];

		rc = t->tp ? tracepoint_probe_register(t->tp, t->probe->tp_func,
						       (void *)t->probe) : -ENOENT;
		if (rc) {
			if (!t->probe->optional)
				stp_warn_msg("probe %s registration error [man warning::pass5] (rc %d)",
					     t->probe->pp, rc);
			continue;
		}
		t->registered = true;
	}
}

static void stp_tracepoints_unregister(void)
{
	unsigned int i;
	bool any = false;

	for (i = 0; stp_tps && i < stp_ntps; i++) {
		struct stp_tp *t = &stp_tps[i];

		if (!t->registered)
			continue;
		tracepoint_probe_unregister(t->tp, t->probe->tp_func,
					    (void *)t->probe);
		t->registered = false;
		any = true;
	}
	if (any)
		tracepoint_synchronize_unregister();
}

static void stp_tracepoints_free(void)
{
	kvfree(stp_tps);
	stp_tps = NULL;
	stp_ntps = 0;
}

static const struct stp_family_ops stp_tracepoints_family = {
	.name = "tracepoints",
	.register_probes = stp_tracepoints_register,
	.unregister_probes = stp_tracepoints_unregister,
	.free = stp_tracepoints_free,
};
