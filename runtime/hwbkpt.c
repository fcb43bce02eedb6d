/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hwbkpt.c - kernel.data("SYMBOL").write|.rw and
 * kernel.data(ADDRESS)[.length(N)].write|.rw probes: a wide (every CPU)
 * hardware breakpoint per STP_PROBE_HWBKPT entry of stp_probes[], whose
 * handler runs the probe with the registers of the access (the
 * breakpoint fires after the accessing instruction).
 *
 * A symbol is looked up when the session starts: the kernel resolves it
 * for a kprobe on it (kallsyms, so KASLR and data symbols are fine), and
 * refuses the kprobe since it is not code; the address it found stays in
 * the kprobe. Registered with the other kernel probes after the begin
 * probes and released before the end probes. A breakpoint that cannot be
 * set (no such symbol, a length past 8 bytes, no free debug register) is
 * a warning (4.8's text for a symbol) and the run goes on. A length is
 * rounded up to 1, 2, 4 or 8 bytes.
 */
#include <linux/hw_breakpoint.h>
#include <linux/kprobes.h>

struct stp_hwbkpt {
	const struct stp_probe *probe;
	struct perf_event * __percpu *ev;
};

static struct stp_hwbkpt *stp_hwbkpts;
static unsigned int stp_nhwbkpts;

static void stp_hwbkpt_hit(struct perf_event *bp, struct perf_sample_data *data,
			   struct pt_regs *regs)
{
	(void)data;
	if (!stp_may_run(STP_PROBE_HWBKPT))
		return;
	stp_run_probe_ctx(bp->overflow_handler_context, regs, NULL);
}

/* The address of a kernel symbol (data too), 0 when there is none. */
static unsigned long stp_symbol_address(const char *name)
{
	struct kprobe kp = { .symbol_name = name };

	if (!register_kprobe(&kp)) {	/* a function: it was code after all */
		unregister_kprobe(&kp);
		return (unsigned long)kp.addr;
	}
	return (unsigned long)kp.addr;
}

#ifdef STP_RUNTIME_OBJ	/* the script's table, through stp_script */
#define STP_KSYMS_N stp_script.nksyms
#define STP_KSYMS_NAMES stp_script.ksym_names
#define STP_KSYMS_ADDRS stp_script.ksym_addrs
#elif defined(STP_NKSYMS)
static unsigned long stp_ksym_addrs[STP_NKSYMS];
#define STP_KSYMS_N STP_NKSYMS
#define STP_KSYMS_NAMES stp_ksym_names
#define STP_KSYMS_ADDRS stp_ksym_addrs
#endif

#ifdef STP_KSYMS_N
/* Session start, process context: the module symbols the translator's
 * getters read (a loaded module's static variables). */
static void stp_ksyms_resolve(void)
{
	int i;

	for (i = 0; i < STP_KSYMS_N; i++)
		STP_KSYMS_ADDRS[i] = stp_symbol_address(STP_KSYMS_NAMES[i]);
}

int64_t stp_ksym(struct stp_context *c, int i)
{
	if (i < 0 || i >= STP_KSYMS_N || !STP_KSYMS_ADDRS[i]) {
		c->last_error = "module symbol not found (is the module loaded?)";
		return 0;
	}
	return (int64_t)STP_KSYMS_ADDRS[i];
}
#else
static void stp_ksyms_resolve(void)
{
}

int64_t stp_ksym(struct stp_context *c, int i)
{
	(void)i;
	c->last_error = "module symbol not found";
	return 0;
}
#endif

/* .length(N): the next length the CPU can watch, as 4.8; -1 past 8. */
static int stp_hwbkpt_len(u64 n)
{
	if (n <= 1)
		return HW_BREAKPOINT_LEN_1;
	if (n <= 2)
		return HW_BREAKPOINT_LEN_2;
	if (n <= 4)
		return HW_BREAKPOINT_LEN_4;
#ifdef HW_BREAKPOINT_LEN_8
	if (n <= 8)
		return HW_BREAKPOINT_LEN_8;
#endif
	return -1;
}

static int stp_hwbkpt_open(struct stp_hwbkpt *h)
{
	const struct stp_probe *p = h->probe;
	struct perf_event_attr attr;
	unsigned long addr = p->symbol ? stp_symbol_address(p->symbol) :
					 (unsigned long)p->hw_addr;
	int len = stp_hwbkpt_len(p->hw_len);
	struct perf_event * __percpu *ev;

	if (!addr) {
		stp_warn_msg("Probe %s registration skipped: invalid symbol %s ",
			     p->pp, p->symbol);
		return 0;
	}
	if (len < 0)
		return -EINVAL;
	hw_breakpoint_init(&attr);
	attr.bp_addr = addr;
	attr.bp_len = len;
	attr.bp_type = p->hw_rw ? HW_BREAKPOINT_RW : HW_BREAKPOINT_W;
	ev = register_wide_hw_breakpoint(&attr, stp_hwbkpt_hit, (void *)p);
	if (IS_ERR((void __force *)ev))
		return PTR_ERR((void __force *)ev);
	h->ev = ev;
	return 0;
}

static void stp_hwbkpt_register(void)
{
	unsigned int i;
	int rc;

	if (stp_hwbkpts)
		return;
	STP_PROBES_COLLECT(stp_hwbkpts, stp_nhwbkpts, BIT_ULL(STP_PROBE_HWBKPT),
			   "hardware breakpoints");
	for (i = 0; i < stp_nhwbkpts; i++) {
		struct stp_hwbkpt *h = &stp_hwbkpts[i];

		rc = stp_hwbkpt_open(h);
		if (rc && !h->probe->optional)
			stp_warn_msg("probe %s registration error [man warning::pass5] (rc %d)",
				     h->probe->pp, rc);
	}
}

static void stp_hwbkpt_unregister(void)
{
	unsigned int i;

	for (i = 0; stp_hwbkpts && i < stp_nhwbkpts; i++) {
		if (!stp_hwbkpts[i].ev)
			continue;
		unregister_wide_hw_breakpoint(stp_hwbkpts[i].ev);
		stp_hwbkpts[i].ev = NULL;
	}
}

static void stp_hwbkpt_free(void)
{
	kvfree(stp_hwbkpts);
	stp_hwbkpts = NULL;
	stp_nhwbkpts = 0;
}

/* The module symbols (hwbkpt.c's getters): resolved first, before the
 * other families register. */
static const struct stp_family_ops stp_ksyms_family = {
	.name = "ksyms",
	.register_probes = stp_ksyms_resolve,
};

static const struct stp_family_ops stp_hwbkpt_family = {
	.name = "hwbkpt",
	.register_probes = stp_hwbkpt_register,
	.unregister_probes = stp_hwbkpt_unregister,
	.free = stp_hwbkpt_free,
};
