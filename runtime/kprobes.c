/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kprobes.c - kernel.function() and kprobe.function() probes: kprobes and
 * kretprobes registered by symbol name ("func" or "module:func"), one per
 * STP_PROBE_KPROBE / STP_PROBE_KRETPROBE entry of stp_probes[].
 *
 * Registered when the session starts (after the begin probes), in bulk
 * with register_kprobes()/register_kretprobes(), a chunk at a time; when
 * a bulk call fails (it is all or nothing) each probe of its chunk is
 * registered on its own and every failure is a warning, and the session
 * goes on, as SystemTap 4.8 does. A fatal signal of the starting process
 * stops the registration between two chunks.
 * Unregistered when the session stops, before the end probes run, and at
 * the latest at module unload. A probe in a module read through its DWARF
 * (stp_probe.kmodule) follows that module, as in 4.8: if the module is not
 * loaded yet it is registered when it loads (module notifier, COMING), and
 * unregistered when it unloads (GOING), as often as that happens. Handlers run only while the session is
 * RUNNING, through the runtime's probe entry.
 *
 * Target variables: the entry handler passes the six argument registers
 * (x86_64: di si dx cx r8 r9) as the raw arguments; a kretprobe saves
 * them at entry in its instance data, and $return is regs->ax. A
 * .return probe that uses @entry(expr) has an entry handler
 * (stp_probe.entry_handler) that evaluates those expressions at entry into
 * the instance data after the arguments (entry_size bytes), where the
 * return handler reads them (c->entry_data).
 *
 * While a handler runs, regs->ip is the probed address (the kprobe sets it
 * one past the breakpoint), as in SystemTap 4.8: addr(), register("rip")
 * and backtraces start at the probe point.
 */
#include <linux/ftrace.h>
#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/ptrace.h>
#include <linux/sched/signal.h>
#include <linux/sort.h>
#include <linux/uaccess.h>
#include <linux/version.h>
#include <linux/vmalloc.h>
#include <asm/nops.h>

#ifndef KRETACTIVE
#define KRETACTIVE (max(15, 6 * (int)num_possible_cpus()))
#endif

struct stp_kprobe {
	union {
		struct kprobe kp;
		struct kretprobe rp;
	} u;
	const struct stp_probe *probe;
	bool ret;
	bool registered;
	bool fentry;	/* run by stp_kpf_ops, its kprobe unregistered */
	bool direct;	/* for stp_kpf_ops without any kprobe (stp_kpf_direct) */
	int rc;		/* of its own registration, when the bulk one failed */
};

static struct stp_kprobe *stp_kps;
static unsigned int stp_nkps;
/* probes of a module read through its DWARF (stp_probe.kmodule) follow
 * that module: registered when it loads, unregistered when it goes */
static DEFINE_MUTEX(stp_kmod_lock);
static bool stp_kmod_watching;

static int stp_kprobe_pre(struct kprobe *kp, struct pt_regs *regs)
{
	struct stp_kprobe *k = container_of(kp, struct stp_kprobe, u.kp);
	unsigned long args[STP_KP_NARGS];
	unsigned long ip = instruction_pointer(regs);

	if (!stp_may_run(STP_PROBE_KPROBE))
		return 0;
	stp_kp_save_args(regs, args);
	instruction_pointer_set(regs, (unsigned long)kp->addr);
	stp_run_probe_kctx(k->probe, k->probe->handler, regs, args, 0, NULL);
	instruction_pointer_set(regs, ip);
	return 0;
}

/*
 * Function-entry kprobes on an ftrace location (KPROBES_ON_FTRACE: most
 * kernel functions). The kernel arms and disarms each such kprobe with a
 * filter update of its own, a pass over every ftrace record: about 30 ms
 * a probe in the TCG guest, 40 s to arm 1,300 and 30 s to disarm them.
 * So they are registered disabled, which resolves and checks each as
 * before (the same errors, per probe), then handed to one ftrace_ops of
 * ours whose filter is set in one update (ftrace_set_filter_ips), and
 * their kprobes are unregistered in bulk. Its handler finds the probes
 * of an address in a sorted table and runs them in script order with the
 * registers a kprobe handler sees. Any failure leaves them kprobes.
 *
 * Return probes (kretprobes) on an ftrace location go the same way: each
 * is registered disabled, which sets up its rethook (the return
 * trampoline and its instances) without arming; the ftrace handler calls
 * the kretprobe's own pre-handler (the kernel's pre_handler_kretprobe,
 * what kprobe_ftrace_handler would call), which runs our entry handler and
 * hooks the return. They stay registered, disabled, so their rethooks live
 * until unregister_kretprobes(), which then has nothing to disarm.
 * Where the address can be checked without a kprobe (STP_KP_DIRECT), a
 * probe at a kernel function's start registers none at all: see
 * stp_kpf_direct(), and stp_kpr for return probes.
 */
#if defined(CONFIG_KPROBES_ON_FTRACE) && defined(CONFIG_DYNAMIC_FTRACE_WITH_REGS) && \
	LINUX_VERSION_CODE >= KERNEL_VERSION(5, 18, 0)
#define STP_KP_FTRACE 1
#if defined(CONFIG_X86_64) && defined(CONFIG_KALLSYMS) && \
	!defined(CONFIG_X86_KERNEL_IBT) && !defined(CONFIG_CFI_CLANG)
#define STP_KP_DIRECT 1	/* see stp_kpf_direct() */
static void stp_kpr_enter(struct stp_kprobe *k, struct pt_regs *regs);
static void stp_kpr_release(void);
#endif

struct stp_kpf {
	unsigned long addr;
	struct stp_kprobe *k;
};

static struct stp_kpf *stp_kpfs;	/* by address, then script order */
static unsigned int stp_nkpfs;
static bool stp_kpf_on;

static void notrace stp_kpf_handler(unsigned long ip, unsigned long parent_ip,
				    struct ftrace_ops *ops, struct ftrace_regs *fregs)
{
	struct pt_regs *regs = ftrace_get_regs(fregs);
	unsigned int lo = 0, hi = stp_nkpfs;
	int bit;

	if (!regs)
		return;
	bit = ftrace_test_recursion_trylock(ip, parent_ip);	/* no preemption */
	if (bit < 0)
		return;
	while (lo < hi) {	/* the first entry of ip */
		unsigned int mid = lo + (hi - lo) / 2;

		if (stp_kpfs[mid].addr < ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < stp_nkpfs && stp_kpfs[lo].addr == ip; lo++) {
		struct stp_kprobe *k = stp_kpfs[lo].k;

#ifdef STP_KP_DIRECT
		if (k->ret && k->direct)	/* through the shared kretprobe */
			stp_kpr_enter(k, regs);
		else
#endif
		if (k->ret)	/* pre_handler_kretprobe: entry, hook return */
			k->u.rp.kp.pre_handler(&k->u.rp.kp, regs);
		else
			stp_kprobe_pre(&k->u.kp, regs);
	}
	ftrace_test_recursion_unlock(bit);
}

static struct ftrace_ops stp_kpf_ops = {
	.func = stp_kpf_handler,
	.flags = FTRACE_OPS_FL_SAVE_REGS | FTRACE_OPS_FL_RECURSION,
};

static int stp_kpf_cmp(const void *a, const void *b)
{
	const struct stp_kpf *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->k < y->k ? -1 : x->k > y->k;
}

/* Only the kernel's own functions ("func", not "module:func"): a kprobe
 * follows its module's unload, an ftrace filter would outlive it. */
static bool stp_kpf_wanted(const struct stp_kprobe *k)
{
	const struct kprobe *kp = k->ret ? &k->u.rp.kp : &k->u.kp;

	if (k->direct)
		return true;
	return k->registered && !k->probe->kmodule &&
	       !strchr(k->probe->symbol, ':') && kprobe_disabled(kp) &&
	       (kp->flags & KPROBE_FLAG_FTRACE) &&
	       (!k->ret || kp->pre_handler);
}

/*
 * Entry probes on an ftrace location need no kprobe at all to go to
 * stp_kpf_ops, and registering one, even disabled, is what arming costs:
 * register_kprobe() checks that the address is not a jump label, a static
 * call or a BUG, each a pass over a whole kernel table (jump labels: about
 * 6,300 entries decoded, 12-16 ms a probe under TCG, 16 s for the 1,308
 * *_show functions). An ftrace location is none of those: it is the __fentry__
 * call, a function's first instruction. So an entry probe at a kernel
 * function's start (no offset, not a module's) is checked here the way
 * register_kprobe() checks it and goes straight to stp_kpf_ops when it is:
 *  - the address of its name as kprobes find it (kallsyms_lookup_name());
 *  - outside the kprobe blacklist, by the kernel's own test,
 *    within_kprobe_blacklist() (NOKPROBE_SYMBOL functions, the entry,
 *    kprobes, noinstr and irqentry text, and name.isra.N when name is
 *    listed): what register_kprobe() asks, at the same moment;
 *  - an ftrace location (ftrace_set_filter_ip() accepts it, on a scratch
 *    ftrace_ops) whose record is that very address (its first instruction
 *    is ftrace's nop or call: without IBT, __fentry__ is not moved).
 * Neither look-up is exported: their addresses come from kallsyms through
 * a kprobe (registered disabled, as hwbkpt.c finds symbols), checked with
 * sprint_symbol(), and their types from the kernel's own declarations
 * (typeof: a changed signature fails the build, not the run). Any other
 * probe, or any probe when something here is missing (IBT, which moves
 * the ftrace call after the endbr; kCFI, which checks indirect calls), is
 * a kprobe as before, refused with the same error; so is a direct probe
 * whose hook cannot be set up (stp_kpf_take()).
 */
#ifdef STP_KP_DIRECT

static typeof(kallsyms_lookup_name) *stp_kp_lookup;
static typeof(within_kprobe_blacklist) *stp_kp_blacklisted;

/* A kernel function's address, by a disabled kprobe; 0 if none. */
static unsigned long stp_kp_func(const char *name)
{
	struct kprobe kp = { .symbol_name = name, .flags = KPROBE_FLAG_DISABLED };
	char buf[KSYM_SYMBOL_LEN];
	size_t n = strlen(name);

	if (register_kprobe(&kp))
		return 0;
	unregister_kprobe(&kp);
	sprint_symbol(buf, (unsigned long)kp.addr);
	if (strncmp(buf, name, n) || strncmp(buf + n, "+0x0/", 5))
		return 0;
	return (unsigned long)kp.addr;
}

static bool stp_kp_direct_init(void)
{
	unsigned long a;

	if (stp_kp_lookup && stp_kp_blacklisted)
		return true;
	a = stp_kp_func("kallsyms_lookup_name");
	if (!a)
		return false;
	stp_kp_lookup = (typeof(stp_kp_lookup))a;
	a = stp_kp_lookup("within_kprobe_blacklist");
	if (!a)
		return false;
	stp_kp_blacklisted = (typeof(stp_kp_blacklisted))a;
	return true;
}

/* Return probes too (through stp_kpr), but for those with their own
 * .maxactive(N), and __switch_to (the kernel's kretprobe blacklist). */
static bool stp_kp_direct_candidate(const struct stp_kprobe *k)
{
	if (k->ret && (k->probe->maxactive >= 0 ||
		       !strcmp(k->probe->symbol, "__switch_to")))
		return false;
	return !k->probe->kmodule && !k->probe->koffset &&
	       !strchr(k->probe->symbol, ':');
}

/* ftrace's record is at addr itself: its first instruction is the
 * patched __fentry__ call, a nop or a call. */
static bool stp_kp_fentry_at(unsigned long addr)
{
	static const unsigned char nop[] = { BYTES_NOP5 };
	unsigned char insn[sizeof(nop)];

	if (copy_from_kernel_nofault(insn, (void *)addr, sizeof(insn)))
		return false;
	return insn[0] == 0xe8 || !memcmp(insn, nop, sizeof(nop));
}

/* Before registration: mark the entry probes that need no kprobe. */
static void stp_kpf_direct(void)
{
	struct ftrace_ops scratch = {};	/* its filter only, never registered */
	unsigned int i;

	for (i = 0; i < stp_nkps; i++)
		if (stp_kp_direct_candidate(&stp_kps[i]))
			break;
	if (i == stp_nkps || !stp_kp_direct_init())
		return;
	for (; i < stp_nkps; i++) {
		struct stp_kprobe *k = &stp_kps[i];
		unsigned long addr;

		if (!stp_kp_direct_candidate(k))
			continue;
		addr = stp_kp_lookup(k->probe->symbol);
		if (!addr || stp_kp_blacklisted(addr) ||
		    ftrace_set_filter_ip(&scratch, addr, 0, 1) ||
		    !stp_kp_fentry_at(addr))
			continue;
		k->direct = true;
		if (k->ret)
			k->u.rp.kp.addr = (kprobe_opcode_t *)addr;
		else
			k->u.kp.addr = (kprobe_opcode_t *)addr;
	}
	ftrace_free_filter(&scratch);
}

#endif /* STP_KP_DIRECT */

/* After the kprobes are registered, disabled: take those on an ftrace
 * location (their kprobes unregistered), and the direct ones. */
static void stp_kpf_take(void)
{
	unsigned long *addrs = NULL;
	void **v = NULL;
	unsigned int i, m, n = 0;

	for (i = 0; i < stp_nkps; i++)
		n += stp_kpf_wanted(&stp_kps[i]);
	if (!n)
		return;
	stp_kpfs = kvcalloc(n, sizeof(*stp_kpfs), GFP_KERNEL);
	addrs = kvcalloc(n, sizeof(*addrs), GFP_KERNEL);
	v = kvcalloc(n, sizeof(*v), GFP_KERNEL);
	if (!stp_kpfs || !addrs || !v)
		goto out;
	for (i = 0, n = 0; i < stp_nkps; i++)
		if (stp_kpf_wanted(&stp_kps[i])) {
			stp_kpfs[n].addr = (unsigned long)(stp_kps[i].ret ?
				stp_kps[i].u.rp.kp.addr : stp_kps[i].u.kp.addr);
			stp_kpfs[n++].k = &stp_kps[i];
		}
	sort(stp_kpfs, n, sizeof(*stp_kpfs), stp_kpf_cmp, NULL);
	for (i = 0; i < n; i++)
		addrs[i] = stp_kpfs[i].addr;
	stp_nkpfs = n;
	if (ftrace_set_filter_ips(&stp_kpf_ops, addrs, n, 0, 0) ||
	    register_ftrace_function(&stp_kpf_ops)) {
		ftrace_free_filter(&stp_kpf_ops);
		goto out;
	}
	stp_kpf_on = true;
	/* the entry kprobes go (disabled: no disarming); the kretprobes stay
	 * registered, disabled, for their rethooks */
	for (i = 0, m = 0; i < n; i++)
		if (!stp_kpfs[i].k->ret && !stp_kpfs[i].k->direct)
			v[m++] = &stp_kpfs[i].k->u.kp;
	if (m)
		unregister_kprobes((struct kprobe **)v, m);
	for (i = 0; i < n; i++) {
		struct stp_kprobe *k = stp_kpfs[i].k;

		k->fentry = true;
		if (k->ret)
			continue;
		k->registered = false;
		k->u.kp.addr = (kprobe_opcode_t *)stp_kpfs[i].addr;
	}
out:
	if (!stp_kpf_on) {
		kvfree(stp_kpfs);
		stp_kpfs = NULL;
		stp_nkpfs = 0;
	}
	kvfree(addrs);
	kvfree(v);
}

/* Session stop or unload: no handler of ours runs after this returns. */
static void stp_kpf_release(void)
{
	unsigned int i;

	if (stp_kpf_on) {
		unregister_ftrace_function(&stp_kpf_ops);
		ftrace_free_filter(&stp_kpf_ops);
		stp_kpf_on = false;
	}
#ifdef STP_KP_DIRECT
	stp_kpr_release();	/* after: nothing enters it any more */
#endif
	for (i = 0; i < stp_nkpfs; i++) {
		stp_kpfs[i].k->fentry = false;
		stp_kpfs[i].k->direct = false;
	}
	kvfree(stp_kpfs);
	stp_kpfs = NULL;
	stp_nkpfs = 0;
}
#endif /* STP_KP_FTRACE */

/* A kprobe registered disabled (STP_KP_FTRACE) until stp_kpf_take()
 * took it or it is enabled; module probes are armed at once. */
static unsigned int stp_kprobe_flags(const struct stp_probe *p)
{
#ifdef STP_KP_FTRACE
	if (!p->kmodule)
		return KPROBE_FLAG_DISABLED;
#endif
	return 0;
}

static struct stp_kprobe *stp_kretprobe_of(struct kretprobe_instance *ri)
{
	struct kretprobe *rp = get_kretprobe(ri);

	return rp ? container_of(rp, struct stp_kprobe, u.rp) : NULL;
}

/* At the entry of return probe k: the arguments into args, then the
 * values of its @entry expressions after them. */
static void stp_kretprobe_run_entry(struct stp_kprobe *k, unsigned long *args,
				    struct pt_regs *regs)
{
	unsigned long ip;

	stp_kp_save_args(regs, args);
	if (!k || !k->probe->entry_handler)
		return;
	memset(args + STP_KP_NARGS, 0, k->probe->entry_size);
	if (!stp_may_run(STP_PROBE_KRETPROBE))
		return;
	ip = instruction_pointer(regs);
	instruction_pointer_set(regs, (unsigned long)k->u.rp.kp.addr);
	stp_run_probe_kctx(k->probe, k->probe->entry_handler, regs, args, 0,
			   args + STP_KP_NARGS);
	instruction_pointer_set(regs, ip);
}

/* At its return, with what the entry saved in data. */
static void stp_kretprobe_run_ret(struct stp_kprobe *k, unsigned long *data,
				  struct pt_regs *regs)
{
	if (!k || !stp_may_run(STP_PROBE_KRETPROBE))
		return;
	stp_run_probe_kctx(k->probe, k->probe->handler, regs, data,
			   (unsigned long)k->u.rp.kp.addr, data + STP_KP_NARGS);
}

static int stp_kretprobe_entry(struct kretprobe_instance *ri,
			       struct pt_regs *regs)
{
	stp_kretprobe_run_entry(stp_kretprobe_of(ri), (unsigned long *)ri->data, regs);
	return 0;
}

/* A return probe that reads no parameter ($param, $$parms) and has no
 * @entry needs nothing done at entry: no entry handler, a cheaper hit. */
static kretprobe_handler_t stp_kretprobe_entry_of(const struct stp_probe *p)
{
	return p->targs || p->parms || p->entry_handler ? stp_kretprobe_entry : NULL;
}

static int stp_kretprobe_ret(struct kretprobe_instance *ri,
			     struct pt_regs *regs)
{
	stp_kretprobe_run_ret(stp_kretprobe_of(ri), (unsigned long *)ri->data, regs);
	return 0;
}

#ifdef STP_KP_DIRECT
/*
 * The direct return probes share one kretprobe, stp_kpr, for its rethook
 * (the return trampoline and a pool of instances): one registration
 * instead of one each. It is registered disabled on the first one's
 * address, an ftrace location, so that its pre-handler (the kernel's
 * pre_handler_kretprobe) hooks a return as from ftrace; stp_kpf_handler
 * calls it for each of them, with the probe on its CPU's stack, which
 * the entry handler stores first in the instance. Its instances are the
 * probes' maxactive together, up to the kernel's limit (a probe with its
 * own .maxactive keeps its kretprobe). When it cannot be had, the return
 * probes are kretprobes as before.
 */
static struct kretprobe stp_kpr;
static bool stp_kpr_on;
struct stp_kpr_stack {
	struct stp_kprobe *k[4];	/* an NMI may enter another meanwhile */
	unsigned int n;
};
static DEFINE_PER_CPU(struct stp_kpr_stack, stp_kpr_stack);

static void notrace stp_kpr_enter(struct stp_kprobe *k, struct pt_regs *regs)
{
	struct stp_kpr_stack *st = this_cpu_ptr(&stp_kpr_stack);
	unsigned int n = st->n;

	if (n >= ARRAY_SIZE(st->k))
		return;
	st->n = n + 1;	/* first: a nested entry takes the next slot */
	barrier();
	st->k[n] = k;
	barrier();
	stp_kpr.kp.pre_handler(&stp_kpr.kp, regs);
	barrier();
	st->n = n;
}

static int stp_kpr_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct stp_kpr_stack *st = this_cpu_ptr(&stp_kpr_stack);
	struct stp_kprobe *k = st->n ? st->k[st->n - 1] : NULL;

	*(struct stp_kprobe **)ri->data = k;
	if (!k)
		return 1;	/* no return hook */
	stp_kretprobe_run_entry(k, (unsigned long *)ri->data + 1, regs);
	return 0;
}

static int stp_kpr_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	stp_kretprobe_run_ret(*(struct stp_kprobe **)ri->data,
			      (unsigned long *)ri->data + 1, regs);
	return 0;
}

#ifndef KRETPROBE_MAXACTIVE_MAX
#define KRETPROBE_MAXACTIVE_MAX 4096
#endif

/* After stp_kpf_direct(), before the kretprobes are registered. */
static void stp_kpr_setup(void)
{
	struct stp_kprobe *first = NULL;
	unsigned int i, size = 0;
	unsigned long n = 0;
	int rc;

	for (i = 0; i < stp_nkps; i++) {
		struct stp_kprobe *k = &stp_kps[i];

		if (!k->ret || !k->direct)
			continue;
		first = first ? first : k;
		n += k->u.rp.maxactive;
		size = max(size, k->probe->entry_size);
	}
	if (!first)
		return;
	memset(&stp_kpr, 0, sizeof(stp_kpr));
	stp_kpr.kp.addr = first->u.rp.kp.addr;
	stp_kpr.kp.flags = KPROBE_FLAG_DISABLED;
	stp_kpr.entry_handler = stp_kpr_entry;
	stp_kpr.handler = stp_kpr_ret;
	stp_kpr.data_size = sizeof(void *) + STP_KP_NARGS * sizeof(unsigned long) + size;
	stp_kpr.maxactive = min_t(unsigned long, n, KRETPROBE_MAXACTIVE_MAX);
	rc = register_kretprobe(&stp_kpr);
	if (!rc && (stp_kpr.kp.flags & KPROBE_FLAG_FTRACE) && stp_kpr.kp.pre_handler) {
		stp_kpr_on = true;
		return;
	}
	if (!rc)
		unregister_kretprobe(&stp_kpr);
	for (i = 0; i < stp_nkps; i++)	/* kretprobes by name after all */
		if (stp_kps[i].ret && stp_kps[i].direct) {
			stp_kps[i].direct = false;
			stp_kps[i].u.rp.kp.addr = NULL;
		}
}

static void stp_kpr_release(void)
{
	if (stp_kpr_on)
		unregister_kretprobe(&stp_kpr);
	stp_kpr_on = false;
}
#endif /* STP_KP_DIRECT */

static void stp_kprobe_warn(const struct stp_kprobe *k, int rc)
{
	if (!k->probe->optional)
		stp_warn_msg("probe %s (%s+%u) registration error [man warning::pass5] (rc %d)",
			     k->probe->pp, k->probe->symbol, k->probe->koffset, rc);
}

/* One probe on its own (set up afresh: a failed or unregistered kprobe
 * keeps state); 0 or the kernel's error. */
static int stp_kprobe_register_one(struct stp_kprobe *k)
{
	int rc;

	if (k->ret) {
		memset(&k->u.rp, 0, sizeof(k->u.rp));
		k->u.rp.kp.symbol_name = k->probe->symbol;
		k->u.rp.kp.offset = k->probe->koffset;
		k->u.rp.entry_handler = stp_kretprobe_entry_of(k->probe);
		k->u.rp.handler = stp_kretprobe_ret;
		k->u.rp.data_size = STP_KP_NARGS * sizeof(unsigned long) +
				    k->probe->entry_size;
		k->u.rp.maxactive = k->probe->maxactive >= 0 ?
				    k->probe->maxactive : KRETACTIVE;
		k->u.rp.kp.flags = stp_kprobe_flags(k->probe);
		rc = register_kretprobe(&k->u.rp);
	} else {
		memset(&k->u.kp, 0, sizeof(k->u.kp));
		k->u.kp.symbol_name = k->probe->symbol;
		k->u.kp.offset = k->probe->koffset;
		k->u.kp.pre_handler = stp_kprobe_pre;
		k->u.kp.flags = stp_kprobe_flags(k->probe);
		rc = register_kprobe(&k->u.kp);
	}
	k->registered = !rc;
	return rc;
}

static void stp_kprobe_unregister_one(struct stp_kprobe *k)
{
	if (k->ret)
		unregister_kretprobe(&k->u.rp);
	else
		unregister_kprobe(&k->u.kp);
	k->registered = false;
}

/*
 * Probes per bulk call. Between two calls a fatal signal of the process
 * that starts the session (its stapio killed while a thousand probes
 * arm, which takes a minute under TCG) stops the registration: the rest
 * stays unregistered, the write returns, the process dies, and
 * `staprun -d` removes the module without waiting for probes nobody reads.
 */
#define STP_KP_CHUNK 64U

static void *stp_kprobe_ptr(struct stp_kprobe *k)
{
	return k->ret ? (void *)&k->u.rp : (void *)&k->u.kp;
}

/*
 * Register the kprobes (ret false) or kretprobes (ret true) of stp_kps,
 * last first: the kernel runs the probes of one address newest first, so
 * they run in script order at entry (and in reverse at return), as in 4.8.
 * In bulk (register_k*probes, STP_KP_CHUNK at a time); when a bulk call
 * fails (it is all or nothing) each probe of that chunk is registered on
 * its own, and every failure is a warning, in script order.
 */
static void stp_kprobes_register_kind(bool ret)
{
	void **v = kvcalloc(STP_KP_CHUNK, sizeof(*v), GFP_KERNEL);
	unsigned int i, start, end = stp_nkps, n;
	int rc;

	while (end > 0) {
		for (start = end, n = 0; start > 0 && n < STP_KP_CHUNK;)
			if (stp_kps[--start].ret == ret && !stp_kps[start].direct && v)
				v[n++] = stp_kprobe_ptr(&stp_kps[start]);
		rc = !v ? -ENOMEM : !n ? 0 :
		     ret ? register_kretprobes((struct kretprobe **)v, n) :
			   register_kprobes((struct kprobe **)v, n);
		for (i = end; i-- > start;) {
			struct stp_kprobe *k = &stp_kps[i];

			if (k->ret != ret || k->direct)
				continue;
			if (!rc)
				k->registered = true;
			else	/* one at a time, last first */
				k->rc = stp_kprobe_register_one(k);
		}
		end = start;
		if (fatal_signal_pending(current))
			break;
		cond_resched();
	}
	kvfree(v);
	/* a module probe's module may just not be loaded yet: no warning,
	 * it is registered when the module loads, as 4.8 does */
	for (i = 0; i < stp_nkps; i++)
		if (stp_kps[i].ret == ret && stp_kps[i].rc && !stp_kps[i].probe->kmodule)
			stp_kprobe_warn(&stp_kps[i], stp_kps[i].rc);
}

/* Module load and unload, process context (the module notifier chain). */
static int stp_kmod_notify(struct notifier_block *nb, unsigned long val, void *data)
{
	struct module *mod = data;
	unsigned int i;

	if (val != MODULE_STATE_COMING && val != MODULE_STATE_GOING)
		return NOTIFY_DONE;
	mutex_lock(&stp_kmod_lock);
	for (i = stp_nkps; stp_kps && i-- > 0;) {	/* last first, as above */
		struct stp_kprobe *k = &stp_kps[i];

		if (!k->probe->kmodule || strcmp(k->probe->kmodule, mod->name))
			continue;
		if (val == MODULE_STATE_COMING && !k->registered)
			stp_kprobe_register_one(k);
		else if (val == MODULE_STATE_GOING && k->registered)
			stp_kprobe_unregister_one(k);
	}
	mutex_unlock(&stp_kmod_lock);
	return NOTIFY_DONE;
}

static struct notifier_block stp_kmod_nb = { .notifier_call = stp_kmod_notify };

static void stp_kmod_watch(void)
{
	unsigned int i;

	for (i = 0; i < STP_NPROBES; i++)
		if ((stp_probes[i].kind == STP_PROBE_KPROBE ||
		     stp_probes[i].kind == STP_PROBE_KRETPROBE) && stp_probes[i].kmodule)
			break;
	if (i == STP_NPROBES || stp_kmod_watching)
		return;
	stp_kmod_watching = !register_module_notifier(&stp_kmod_nb);
}

static void stp_kmod_unwatch(void)
{
	if (stp_kmod_watching)	/* waits for a running callback */
		unregister_module_notifier(&stp_kmod_nb);
	stp_kmod_watching = false;
}

#ifdef STP_KP_DIRECT
/* After stp_kpf_take(): a direct probe it could not hook is a kprobe
 * after all (registered disabled, armed by the caller), last first. */
static void stp_kpf_undirect(void)
{
	unsigned int i;
	int rc;

	for (i = stp_nkps; i-- > 0;) {
		struct stp_kprobe *k = &stp_kps[i];

		if (!k->direct || k->fentry)
			continue;
		k->direct = false;
		rc = stp_kprobe_register_one(k);
		if (rc)
			stp_kprobe_warn(k, rc);
	}
}
#endif

/* Session start, process context. */
static void stp_kprobes_register(void)
{
	unsigned int i;

	if (stp_kps)
		return;
	STP_PROBES_COLLECT(stp_kps, stp_nkps,
			   BIT_ULL(STP_PROBE_KPROBE) | BIT_ULL(STP_PROBE_KRETPROBE),
			   "kprobes");
	if (!stp_kps)
		return;
	for (i = 0; i < stp_nkps; i++) {
		struct stp_kprobe *k = &stp_kps[i];
		const struct stp_probe *p = k->probe;

		if (p->kind == STP_PROBE_KPROBE) {
			k->u.kp.symbol_name = p->symbol;
			k->u.kp.offset = p->koffset;
			k->u.kp.pre_handler = stp_kprobe_pre;
			k->u.kp.flags = stp_kprobe_flags(p);
		} else {
			k->ret = true;
			k->u.rp.kp.symbol_name = p->symbol;
			k->u.rp.kp.offset = p->koffset;
			k->u.rp.entry_handler = stp_kretprobe_entry_of(p);
			k->u.rp.handler = stp_kretprobe_ret;
			k->u.rp.data_size = STP_KP_NARGS * sizeof(unsigned long) +
					    p->entry_size;
			k->u.rp.maxactive = p->maxactive >= 0 ? p->maxactive :
							       KRETACTIVE;
			k->u.rp.kp.flags = stp_kprobe_flags(p);
		}
	}
	stp_kmod_watch();	/* before: no module load goes unseen */
	mutex_lock(&stp_kmod_lock);
#ifdef STP_KP_DIRECT
	stp_kpf_direct();
	stp_kpr_setup();
#endif
	stp_kprobes_register_kind(false);
	stp_kprobes_register_kind(true);
#ifdef STP_KP_FTRACE
	stp_kpf_take();
#ifdef STP_KP_DIRECT
	stp_kpf_undirect();
#endif
	for (i = 0; i < stp_nkps; i++) {	/* the others: armed each */
		struct stp_kprobe *k = &stp_kps[i];
		struct kprobe *kp = k->ret ? &k->u.rp.kp : &k->u.kp;
		int rc;

		if (!k->registered || k->fentry || !kprobe_disabled(kp))
			continue;
		rc = enable_kprobe(kp);
		if (rc)
			stp_kprobe_warn(k, rc);
	}
#endif
	mutex_unlock(&stp_kmod_lock);
}

/* Session stop or module unload, process context: no handler of ours
 * runs after this returns (unregister_k*probes wait for running ones). */
static void stp_kprobes_unregister(void)
{
	void **v;
	unsigned int i, nk = 0, nr = 0;

	stp_kmod_unwatch();
#ifdef STP_KP_FTRACE
	stp_kpf_release();
#endif
	if (!stp_kps)
		return;
	v = kvcalloc(max(stp_nkps, 1U), sizeof(*v), GFP_KERNEL);
	if (!v) {	/* one by one: slower, same result */
		for (i = 0; i < stp_nkps; i++)
			if (stp_kps[i].registered)
				stp_kprobe_unregister_one(&stp_kps[i]);
		return;
	}
	for (i = 0; i < stp_nkps; i++)
		if (stp_kps[i].registered && !stp_kps[i].ret)
			v[nk++] = &stp_kps[i].u.kp;
	if (nk)
		unregister_kprobes((struct kprobe **)v, nk);
	for (i = 0; i < stp_nkps; i++)
		if (stp_kps[i].registered && stp_kps[i].ret)
			v[nr++] = &stp_kps[i].u.rp;
	if (nr)
		unregister_kretprobes((struct kretprobe **)v, nr);
	for (i = 0; i < stp_nkps; i++)
		stp_kps[i].registered = false;
	kvfree(v);
}

/* Module unload, after stp_kprobes_unregister(). */
static void stp_kprobes_free(void)
{
	kvfree(stp_kps);
	stp_kps = NULL;
	stp_nkps = 0;
}

static const struct stp_family_ops stp_kprobes_family = {
	.name = "kprobes",
	.register_probes = stp_kprobes_register,
	.unregister_probes = stp_kprobes_unregister,
	.free = stp_kprobes_free,
};
