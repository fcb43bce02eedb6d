/*
 * family.h - the probe families (family/): each implements struct family
 * (elab.h) in its own file or folder, holding its pass-2 and pass-3
 * parts, and families.c lists them. What one family offers another is
 * declared here too (timer.profile is a perf event, a module with DWARF
 * is probed as a process is).
 */
#ifndef FAMILY_H
#define FAMILY_H

#include "translate.h"
#include "kcatalog.h"
#include "ubin.h"

/* The families, in the order pass 2 offers them a point, pass 3 writes
 * their runtime parts' STP_HAVE_*, and claim_target asks them. */
extern const struct family *const family_list[];
extern const struct family family_begin, family_never, family_timer, family_kernel,
	family_tracepoint, family_perf, family_hwbkpt, family_process,
	family_process_events, family_procfs, family_netfilter;

/* Each family's own variants (rprobe.kind). */
enum {
	RP_BEGIN, RP_END, RP_ERROR,	/* core.c: begin(N), end(N), error(N) */
	RP_NEVER,	/* core.c: never */
	RP_TIMER,	/* timer.c: timer.UNIT(N)[.randomize(M)], timer.hz(N) */
	RP_JIFFIES,	/* timer.jiffies(N)[.randomize(M)] */
	RP_PROFILE,	/* timer.profile.tick, timer.profile.freq.hz(N) */
	RP_KFUNC,	/* kernel.c: kernel.function, module().function: $vars from BTF */
	RP_KPROBE,	/* kprobe.function, kprobe.module().function: no $vars */
	RP_KSTATEMENT,	/* kernel/module().statement("f+off"), *.statement(A).absolute */
	RP_TRACEPOINT,	/* tracepoint.c: kernel.trace("sys:name") */
	RP_PERF,	/* perf.c: perf.type(T).config(C)[.sample(N)|.hz(F)], timer.profile */
	RP_HWBKPT,	/* hwbkpt.c: kernel.data("SYM"|ADDR)[.length(N)].write|.rw */
	RP_UPROBE,	/* process/: process("PATH").function/.statement/.mark */
	RP_UPROC,	/* process/events.c: process[("PATH")].begin/.end/... */
	RP_PROCFS,	/* procfs.c: procfs[("path")]....read | .write */
	RP_NETFILTER,	/* netfilter.c: netfilter.hook("H").pf("PF")[.priority("P")] */
};
enum { UP_BEGIN, UP_END, UP_THREAD_BEGIN, UP_THREAD_END, UP_SYSCALL, UP_SYSCALL_RETURN };

/* ---- kernel.c ---- */
/* The width (bytes, 0: not a register value) and sign of a kernel type. */
int kernel_type_width(struct session *s, const char *type, bool *is_signed);
extern const char kernel_dwarf_needed[];
/* May kernel function f of vmlinux b be probed (the blacklists)? */
bool kernel_dwarf_allowed(struct session *s, struct resolver *r, struct ubin *b,
			  const struct ufunc *f, bool ret);

/* ---- process/: process("PATH") and module("M") with DWARF ---- */
void process_statement(struct resolver *r, struct ubin *b, const struct pp_comp *k,
		       bool nearest);
void process_functions(struct resolver *r, struct ubin *b, const struct pp_comp *fn,
		       const struct pp_comp *k);

/* ---- netfilter.c ---- */
/* The C values of a point's hook, family and priority (NULL: 0) into rp;
 * else the error (4.8's text). */
const char *nf_resolve(struct session *s, const char *hook, const char *pf,
		       const char *prio, struct rprobe *rp);
const struct kcat_arg *nf_args(struct session *s, int *n);

#endif /* FAMILY_H */
