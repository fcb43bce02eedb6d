/*
 * probepoint.c - pass 2: one probe point, already through alias
 * expansion, to the concrete probes it names (struct rprobe), family by
 * family: begin/end/error(N), never, the timers (hrtimer units, jiffies,
 * profile), and the kernel families, resolved without debuginfo against
 * the kernel's BTF catalog (kcatalog.h) and the modules' BTF (kmodule.c):
 * kernel.function, module().function, kprobe.function,
 * kprobe.module().function, kernel.statement and kernel.trace; perf
 * events, procfs files and netfilter hooks (tr_netfilter.c).
 *
 * A wildcard yields one rprobe per match, in name order. Functions on the
 * probe path itself are blacklisted: skipped silently under a wildcard,
 * an error when named exactly (guru mode lifts the blacklist). A point
 * that names nothing is an error unless it is optional (? or !), and
 * under -l/-L nothing here is reported at all. The catalog is opened once
 * per session, on the first kernel probe point.
 */
#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kcatalog.h"
#include "family.h"
#include "udwarf.h"

struct resolver {
	struct session *s;
	struct probe *probe;
	struct probe_point *pp;
	bool quiet;		/* an optional point, or -l/-L: no errors */
	bool failed;		/* an error was found (reported unless quiet) */
	const char *from;	/* the probe's points as written */
	struct rprobe *head, **tail;
};

/* What a kernel function point asks for. */
struct fn_spec {
	int kind;		/* RP_KFUNC or RP_KPROBE */
	const char *family;	/* "kernel.function", "kprobe.module", ... */
	const char *module;	/* module pattern; NULL for the kernel */
	const char *glob;	/* function pattern */
	struct loc loc;
	bool call, ret;		/* .call, .return */
	int64_t maxactive;	/* .maxactive(N), or -1 */
};

static const char dwarf_needed[] =
	"needs the kernel's DWARF debuginfo, which this version does not read "
	"(kernel functions are resolved by name from BTF)";

/* ---- helpers -------------------------------------------------------------- */

static void fail(struct resolver *r, struct loc loc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void fail(struct resolver *r, struct loc loc, const char *fmt, ...)
{
	va_list ap, ap2;
	char *msg;
	int len;

	r->failed = true;
	if (r->quiet)
		return;
	va_start(ap, fmt);
	va_copy(ap2, ap);
	len = vsnprintf(NULL, 0, fmt, ap);
	msg = arena_alloc(r->s->arena, (size_t)len + 1);
	vsnprintf(msg, (size_t)len + 1, fmt, ap2);
	va_end(ap2);
	va_end(ap);
	diag_error(r->s, loc, "%s", msg);
}

/* *c when it is `name` with an argument of kind arg (N_NUM, N_STR, or -1
 * for none); *c then moves past it. NULL otherwise. */
static const struct pp_comp *take(const struct pp_comp **c, const char *name,
				  int arg)
{
	const struct pp_comp *k = *c;

	if (!k || strcmp(k->name, name))
		return NULL;
	if (arg < 0 ? k->arg != NULL : !k->arg || (int)k->arg->kind != arg)
		return NULL;
	*c = k->next;
	return k;
}

/* A glob, not one exact name? */
static bool has_wildcard(const char *p)
{
	return strpbrk(p, "*?[") != NULL;
}

/* The suffix mark of a point as written: "!" (sufficient), "?" or "". */
static const char *marks(const struct probe_point *pp)
{
	return pp->sufficient ? "!" : pp->optional && !pp->quiet_mark ? "?" : "";
}

/* The probe's points as written, for -p2's "<-": "a?,b". */
static const char *points_text(struct resolver *r)
{
	struct strbuf sb;
	const char *t;

	sb_init(&sb);
	for (struct probe_point *p = r->probe->points; p; p = p->next)
		sb_printf(&sb, "%s%s%s", p == r->probe->points ? "" : ",",
			  pp_to_string(r->s, p), marks(p));
	t = arena_strdup(r->s->arena, sb.buf ? sb.buf : "");
	sb_free(&sb);
	return t;
}

/* A new concrete probe at the end of r's list; pp is also its -l label. */
static struct rprobe *add(struct resolver *r, int kind, const char *family,
			  const char *pp)
{
	struct rprobe *rp = arena_alloc(r->s->arena, sizeof(*rp));

	if (!r->from)
		r->from = points_text(r);
	rp->probe = r->probe;
	rp->point = r->pp;
	rp->kind = kind;
	rp->family = family;
	rp->pp = pp;
	rp->marks = marks(r->pp);
	rp->label = arena_printf(r->s->arena, "%s%s", pp, rp->marks);
	rp->from = r->from;
	rp->maxactive = -1;
	*r->tail = rp;
	r->tail = &rp->next;
	return rp;
}

/* ---- the blacklist ---------------------------------------------------------- */

/*
 * Kernel functions a probe must never be put on: the code kprobes,
 * ftrace and the probe handler itself run through (a probe there
 * recurses or deadlocks), entry code that runs before the kernel's state
 * is consistent (noinstr: exception and interrupt entry, NMI, context
 * tracking, idle), and functions that never return (a .return probe
 * there leaks its kretprobe instance). BTF does not say which functions
 * are NOKPROBE_SYMBOL or in .noinstr.text, so these are name patterns.
 */
struct bl_entry {
	const char *glob;
	const char *why;
	bool ret_only;		/* only .return probes */
};

/*
 * SystemTap 4.8's own blacklist for kernel.function (its DWARF probes):
 * these are skipped there (an exact name is "no match"), so they are
 * refused for kernel.function and module().function here too; 4.8 has
 * none for kprobe.function (the kernel refuses its NOKPROBE functions
 * when the probe is registered). Its file and section entries need
 * DWARF and are left out.
 */
static const char *const bl_stap48[] = {
	"atomic_notifier_call_chain", "default_do_nmi", "__die", "die_nmi",
	"do_debug", "do_general_protection", "do_int3", "do_IRQ",
	"do_page_fault", "do_sparc64_fault", "do_trap", "dummy_nmi_callback",
	"flush_icache_range", "ia64_bad_break", "ia64_do_page_fault",
	"ia64_fault", "io_check_error", "mem_parity_error", "nmi_watchdog_tick",
	"notifier_call_chain", "oops_begin", "oops_end",
	"program_check_exception", "single_step_exception", "sync_regs",
	"unhandled_fault", "unknown_nmi_error", "xen_[gs]et_debugreg",
	"xen_irq_*", "xen_*_fl_direct*", "check_events",
	"xen_adjust_exception_frame", "xen_iret*", "xen_sysret64*",
	"test_ti_thread_flag*", "inat_get_opcode_attribute",
	"system_call_after_swapgs", "HYPERVISOR_[gs]et_debugreg",
	"HYPERVISOR_event_channel_op", "hash_64", "hash_ptr", "native_set_pte",
	"*raw_*_lock*", "*raw_*_unlock*", "*raw_*_trylock*", "*read_lock*",
	"*read_unlock*", "*read_trylock*", "*write_lock*", "*write_unlock*",
	"*write_trylock*", "*write_seqlock*", "*write_sequnlock*", "*spin_lock*",
	"*spin_unlock*", "*spin_trylock*", "*spin_is_locked*", "rwsem_*lock*",
	"*mutex_*lock*", "atomic_*", "atomic64_*", "get_bh", "put_bh", "*apic*",
	"*APIC*", "*softirq*", "*IRQ*", "*_intr*", "__delay", "*kernel_text*",
	"get_current", "current_*", "*exception_tables*", "*setup_rt_frame*",
	"*preempt_count*", "preempt_schedule", "__switch_to",
	"special_mapping_*", "*_pte_*", NULL
};

static const struct bl_entry blacklist[] = {
	{ "*kprobe*", "kprobes", false },
	{ "*rethook*", "kprobes", false },
	{ "text_poke*", "kprobes' text patching", false },
	{ "*int3*", "breakpoint handling", false },
	{ "notify_die", "breakpoint handling", false },
	{ "*notifier_call_chain", "breakpoint handling", false },
	{ "*ftrace*", "ftrace", false },
	{ "lock_acquire*", "lock debugging", false },
	{ "lock_release", "lock debugging", false },
	{ "lock_contended", "lock debugging", false },
	{ "lock_is_held*", "lock debugging", false },
	{ "*lockdep*", "lock debugging", false },
	{ "trace_hardirqs_*", "irq-flag tracing", false },
	{ "*preempt_count*", "preemption accounting", false },
	{ "preempt_schedule*", "preemption accounting", false },
	{ "exc_*", "exception entry", false },
	{ "asm_*", "exception entry", false },
	{ "do_trap", "exception entry", false },
	{ "do_error_trap", "exception entry", false },
	{ "oops_*", "exception entry", false },
	{ "__die*", "exception entry", false },
	{ "do_kern_addr_fault", "exception entry", false },
	{ "spurious_kernel_fault", "exception entry", false },
	{ "fixup_bad_iret", "exception entry", false },
	{ "sync_regs", "exception entry", false },
	{ "irqentry_*", "interrupt entry", false },
	{ "irq_enter*", "interrupt entry", false },
	{ "irq_exit*", "interrupt entry", false },
	{ "__irq_exit_rcu", "interrupt entry", false },
	{ "sysvec_*", "interrupt entry", false },
	{ "__sysvec_*", "interrupt entry", false },
	{ "*common_interrupt", "interrupt entry", false },
	{ "do_syscall_64", "system call entry", false },
	{ "do_*_syscall_32", "system call entry", false },
	{ "do_SYSENTER_32", "system call entry", false },
	{ "enter_from_user_mode", "system call entry", false },
	{ "exit_to_user_mode", "system call entry", false },
	{ "syscall_enter_from_user_mode*", "system call entry", false },
	{ "syscall_exit_to_user_mode*", "system call entry", false },
	{ "nmi_*", "NMI handling", false },
	{ "*_nmi", "NMI handling", false },
	{ "*_nmi_*", "NMI handling", false },
	{ "io_check_error", "NMI handling", false },
	{ "pci_serr_error", "NMI handling", false },
	{ "ct_*", "context tracking", false },
	{ "context_tracking_*", "context tracking", false },
	{ "rcu_irq_*", "context tracking", false },
	{ "rcu_dynticks_*", "context tracking", false },
	{ "rcu_eqs_*", "context tracking", false },
	{ "default_idle*", "CPU idle", false },
	{ "arch_cpu_idle*", "CPU idle", false },
	{ "*mwait_idle*", "CPU idle", false },
	{ "intel_idle*", "CPU idle", false },
	{ "*raw_spin_*", "a lock the probe handler takes", false },
	{ "*spin_lock*", "a lock the probe handler takes", false },
	{ "*spin_unlock*", "a lock the probe handler takes", false },
	{ "*spin_trylock*", "a lock the probe handler takes", false },
	{ "*_read_lock*", "a lock the probe handler takes", false },
	{ "*_read_unlock*", "a lock the probe handler takes", false },
	{ "*_write_lock*", "a lock the probe handler takes", false },
	{ "*_write_unlock*", "a lock the probe handler takes", false },
	{ "queued_*", "a lock the probe handler takes", false },
	{ "memcpy", "the runtime copies with it under its own locks", false },
	{ "__memcpy", "the runtime copies with it under its own locks", false },
	{ "memcpy_orig", "the runtime copies with it under its own locks", false },
	{ "memset", "the runtime copies with it under its own locks", false },
	{ "__memset", "the runtime copies with it under its own locks", false },
	{ "memset_orig", "the runtime copies with it under its own locks", false },
	{ "memmove", "the runtime copies with it under its own locks", false },
	{ "__memmove", "the runtime copies with it under its own locks", false },
	{ "debug_smp_processor_id", "preemption accounting", false },
	{ "check_preemption_disabled", "preemption accounting", false },
	{ "native_*", "low-level arch code", false },
	{ "__switch_to*", "task switching", false },
	{ "__sanitizer_*", "instrumentation hooks", false },
	{ "__asan_*", "instrumentation hooks", false },
	{ "*kasan_*", "instrumentation hooks", false },
	{ "*kcsan_*", "instrumentation hooks", false },
	{ "*kmsan_*", "instrumentation hooks", false },
	{ "__ubsan_*", "instrumentation hooks", false },
	{ "__tsan_*", "instrumentation hooks", false },
	{ "__stack_chk_fail", "instrumentation hooks", false },
	{ "do_exit", "it does not return", true },
	{ "do_group_exit", "it does not return", true },
	{ "make_task_dead", "it does not return", true },
	{ "do_task_dead", "it does not return", true },
	{ "kthread_exit", "it does not return", true },
	{ "kthread_complete_and_exit", "it does not return", true },
	{ "__module_put_and_kthread_exit", "it does not return", true },
	{ "*_sys_exit", "it does not return", true },
	{ "*_sys_exit_group", "it does not return", true },
	{ "panic", "it does not return", true },
	{ "cpu_startup_entry", "it does not return", true },
	{ "rest_init", "it does not return", true },
	{ "start_kernel", "it does not return", true },
	{ NULL, NULL, false }
};

/* Why function `name` must not be probed (by a kernel.function point
 * when kfunc), or NULL. */
static const char *blacklisted(struct session *s, const char *name, bool ret,
			       bool kfunc)
{
	if (s->guru)
		return NULL;
	for (const struct bl_entry *b = blacklist; b->glob; b++) {
		if ((ret || !b->ret_only) && !fnmatch(b->glob, name, 0))
			return b->why;
	}
	for (int i = 0; kfunc && bl_stap48[i]; i++) {
		if (!fnmatch(bl_stap48[i], name, 0))
			return "SystemTap 4.8's kernel.function blacklist";
	}
	return NULL;
}

/* May `name` be probed? Under a wildcard a blacklisted name is just
 * skipped; named exactly, it is an error. */
static bool allowed(struct resolver *r, const char *name, bool ret, bool wild,
		    struct loc loc, bool kfunc)
{
	const char *why = blacklisted(r->s, name, ret, kfunc);

	if (!why)
		return true;
	if (!wild)
		fail(r, loc, "cannot probe '%s': it is blacklisted (%s); guru mode (-g) lifts the blacklist",
		     name, why);
	return false;
}

/* ---- begin, end, error, never ------------------------------------------------ */

/* begin[(N)] | end[(N)] | error[(N)] */
static void resolve_been(struct resolver *r, const struct pp_comp *c)
{
	static const struct { const char *name; int kind; } been[] = {
		{ "begin", RP_BEGIN }, { "end", RP_END }, { "error", RP_ERROR },
		{ NULL, 0 }
	};
	struct rprobe *rp;

	if (c->next || (c->arg && c->arg->kind != N_NUM))
		return;
	for (int i = 0; been[i].name; i++) {
		if (strcmp(c->name, been[i].name))
			continue;
		rp = add(r, been[i].kind, been[i].name, pp_to_string(r->s, r->pp));
		rp->order = c->arg ? c->arg->num : 0;
	}
}

/* never */
static void resolve_never(struct resolver *r, const struct pp_comp *c)
{
	if (!c->next && !c->arg)
		add(r, RP_NEVER, "never", "never");
}

/* ---- timers ------------------------------------------------------------------- */

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
		fail(r, u->arg->loc, "interval value out of range (%lld, %lld)",
		     (long long)lo, (long long)hi);
		return;
	}
	if (m < 0 || m > v) {
		fail(r, rnd->arg->loc, "randomization value out of range");
		return;
	}
	rp = add(r, RP_TIMER, m ? "timer.randomize" : "timer",
		 pp_to_string(r->s, r->pp));
	rp->period_ns = v * units[i].ns;
	rp->randomize = m * units[i].ns;
}

/* timer.hz(N): an hrtimer N times a second (no randomize). */
static void timer_hz(struct resolver *r, const struct pp_comp *u)
{
	int64_t v = u->arg->num;

	if (v <= 0) {
		fail(r, u->arg->loc, "frequency must be greater than 0");
		return;
	}
	if (1000000000LL / v < HRTIMER_MIN_NS) {
		fail(r, u->arg->loc, "interval value out of range (%lld, %lld)",
		     HRTIMER_MIN_NS, HRTIMER_MAX_NS);
		return;
	}
	add(r, RP_TIMER, "timer", pp_to_string(r->s, r->pp))->period_ns =
		1000000000LL / v;
}

/* timer.jiffies(N)[.randomize(M)]: a timer_list every N jiffies, +-M. */
static void timer_jiffies(struct resolver *r, const struct pp_comp *u,
			  const struct pp_comp *rnd)
{
	int64_t v = u->arg->num, m = rnd ? rnd->arg->num : 0;
	struct rprobe *rp;

	if (v < 1 || v > JIFFIES_MAX) {
		fail(r, u->arg->loc, "invalid interval for jiffies timer");
		return;
	}
	if (m < 0 || m > v) {
		fail(r, rnd->arg->loc, "invalid randomize for jiffies timer");
		return;
	}
	rp = add(r, RP_JIFFIES, "timer.jiffies", pp_to_string(r->s, r->pp));
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
		rp = add(r, RP_PERF, "timer.profile", "perf.type(1).config(0).sample(1000000)");
		if (!r->probe->points->next)
			rp->from = rp->pp;	/* 4.8's -p2 shows the point it became */
		rp->label = arena_printf(r->s->arena, "timer.profile%s", rp->marks);	/* -l */
		rp->perf_type = 1;
		rp->perf_period = 1000000;
	} else if (take(&c, "tick", -1) && !c) {
		kc = kernel_catalog(r->s);
		if (!kc)
			r->failed = true;
		else if (!kcat_has_function(kc, "register_timer_hook"))
			fail(r, r->pp->loc, "profiling timer support (register_timer_hook) not found in kernel!");
		else
			add(r, RP_PROFILE, "timer.profile", "timer.profile.tick");
	} else if (take(&c, "freq", -1) && (hz = take(&c, "hz", N_NUM)) && !c) {
		if (hz->arg->num <= 0)
			fail(r, hz->arg->loc, "frequency must be greater than 0");
		else if (hz->arg->num > 1000000000LL)
			fail(r, hz->arg->loc, "frequency out of range (1, 1000000000)");
		else
			add(r, RP_PROFILE, "timer.profile",
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

/* ---- kernel and module functions ------------------------------------------------- */

/* [.call | .return[.maxactive(N)]]; false when anything else follows. */
static bool fn_suffixes(struct resolver *r, const struct pp_comp *c,
			struct fn_spec *f)
{
	static const char *const dwarf_only[] = {
		"inline", "label", "callee", "callees", "exported", NULL
	};
	const struct pp_comp *m;

	f->maxactive = -1;
	if (take(&c, "call", -1)) {
		f->call = true;
	} else if (take(&c, "return", -1)) {
		f->ret = true;
		m = take(&c, "maxactive", N_NUM);
		if (m && m->arg->num < 0) {
			fail(r, m->arg->loc, "maxactive value must not be negative");
			return false;
		}
		if (m)
			f->maxactive = m->arg->num;
	}
	for (int i = 0; c && f->kind == RP_KFUNC && dwarf_only[i]; i++) {
		if (!strcmp(c->name, dwarf_only[i]))
			fail(r, r->pp->loc, "'.%s' %s", c->name, dwarf_needed);
	}
	return !c;
}

/* "kernel.function(\"vfs_read\")", "kprobe.module(\"ext4\").function(...)" */
static const char *fn_base(struct session *s, const struct fn_spec *f,
			   const char *mod, const char *name)
{
	if (f->kind == RP_KPROBE)
		return mod ? arena_printf(s->arena, "kprobe.module(\"%s\").function(\"%s\")",
					  mod, name) :
			     arena_printf(s->arena, "kprobe.function(\"%s\")", name);
	return mod ? arena_printf(s->arena, "module(\"%s\").function(\"%s\")", mod, name) :
		     arena_printf(s->arena, "kernel.function(\"%s\")", name);
}

/* Prototype of a kernel or module function, for its $variables. */
static const struct kcat_func *fn_proto(struct session *s, const char *mod,
					const char *name)
{
	if (mod)
		return kmod_function(s, mod, name);
	return s->kcat ? kcat_function(s->kcat, name) : NULL;
}

/*
 * One probe on a function: kernel.function points print as upstream's
 * -p2 does (".call" made explicit), and as the user wrote them for -l;
 * kprobe points keep the user's form and add the symbol in a comment.
 */
static void add_function(struct resolver *r, const struct fn_spec *f,
			 const char *mod, const char *name)
{
	struct session *s = r->s;
	const char *base = fn_base(s, f, mod, name), *ma = "";
	const char *asked = f->call ? ".call" : f->ret ? ".return" : "";
	const struct kcat_func *proto;
	struct rprobe *rp;

	if (f->maxactive >= 0)
		ma = arena_printf(s->arena, ".maxactive(%lld)", (long long)f->maxactive);
	rp = add(r, f->kind, f->family, arena_printf(s->arena, "%s%s%s", base,
		 f->kind == RP_KFUNC && !f->ret ? ".call" : asked, ma));
	rp->label = arena_printf(s->arena, "%s%s%s%s", base, asked, ma, rp->marks);
	rp->module = mod;
	rp->symbol = name;
	rp->ret = f->ret;
	rp->maxactive = f->maxactive;
	if (f->kind == RP_KPROBE) {
		rp->note = mod ? arena_printf(s->arena, " /*  name = %s:%s*/", mod, name) :
			   arena_printf(s->arena, " /*  name = %s*/", name);
		return;
	}
	proto = fn_proto(s, mod, name);
	if (proto) {
		rp->ret_type = proto->ret;
		rp->ret_arg = &proto->retv;
		rp->args = proto->args;
		rp->nargs = proto->nargs;
	}
}

/* The union of the sorted names (*v)[0..n) and the symbol map's matching
 * glob (kprobe.function() also takes functions without BTF), into *v. */
static size_t merge_names(struct session *s, const char ***v, size_t n, const char *glob)
{
	const char **m, **out;
	size_t nm = ksymmap_match(s, glob, &m), i = 0, j = 0, k = 0;

	if (!nm)
		return n;
	out = arena_alloc(s->arena, (n + nm) * sizeof(*out));
	while (i < n || j < nm) {
		int c = i == n ? 1 : j == nm ? -1 : strcmp((*v)[i], m[j]);

		out[k++] = c <= 0 ? (*v)[i] : m[j];
		i += c <= 0;
		j += c >= 0;
	}
	*v = out;
	return k;
}

/* The kernel's functions f->glob matches, from the BTF catalog. */
static void kernel_functions(struct resolver *r, const struct fn_spec *f)
{
	struct kcatalog *kc = kernel_catalog(r->s);
	const char **names;
	size_t n;

	if (!kc) {
		r->failed = true;
		return;
	}
	n = kcat_match_functions(kc, f->glob, &names);
	if (f->kind == RP_KPROBE)	/* and the symbol map's, as 4.8 */
		n = merge_names(r->s, &names, n, f->glob);
	/* a compiler clone (name.isra.0, name.constprop.0, name.part.0) has
	 * no BTF: kprobe.function takes its exact name on trust, the kernel
	 * resolving it when the probe is registered */
	if (!n && f->kind == RP_KPROBE && !has_wildcard(f->glob) &&
	    strchr(f->glob, '.')) {
		if (allowed(r, f->glob, f->ret, false, f->loc, false))
			add_function(r, f, NULL, f->glob);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		if (allowed(r, names[i], f->ret, has_wildcard(f->glob), f->loc,
			    f->kind == RP_KFUNC))
			add_function(r, f, NULL, names[i]);
	}
}

/* A module whose BTF cannot be read: an exact name is taken on trust. */
static void module_functions(struct resolver *r, const struct fn_spec *f,
			     const char *mod)
{
	const char **names;
	long n = kmod_match_functions(r->s, mod, f->glob, &names);

	if (n < 0 && !has_wildcard(f->glob)) {
		if (allowed(r, f->glob, f->ret, false, f->loc, f->kind == RP_KFUNC))
			add_function(r, f, mod, f->glob);
		return;
	}
	for (long i = 0; i < n; i++) {
		if (allowed(r, names[i], f->ret, has_wildcard(f->glob), f->loc,
			    f->kind == RP_KFUNC))
			add_function(r, f, mod, names[i]);
	}
}

/* FUNCTION-PATTERN then its suffixes `rest`, in the kernel or in every
 * module f->module matches. */
static void resolve_functions(struct resolver *r, struct fn_spec *f,
			      const struct pp_comp *rest)
{
	const char **mods;
	size_t n;

	if (!fn_suffixes(r, rest, f))
		return;
	if (strpbrk(f->glob, "@:+")) {
		fail(r, f->loc, "cannot resolve '%s': a source file or line (FUNCTION@FILE:LINE) %s",
		     pp_to_string(r->s, r->pp), dwarf_needed);
		return;
	}
	if (!f->module) {
		kernel_functions(r, f);
		return;
	}
	n = kmod_match_modules(r->s, f->module, &mods);
	for (size_t i = 0; i < n; i++)
		module_functions(r, f, mods[i]);
}

/* ---- statements ------------------------------------------------------------------- */

/* STATEMENT(ADDRESS).absolute: a raw address, guru mode only. */
static void statement_absolute(struct resolver *r, const struct pp_comp *c,
			       const char *family)
{
	const struct pp_comp *rest = c->next;

	if (!take(&rest, "absolute", -1) || rest)
		return;
	if (!r->s->guru) {
		fail(r, r->pp->loc, "%s(ADDRESS).absolute needs guru mode (-g)", family);
		return;
	}
	add(r, RP_KSTATEMENT, family, pp_to_string(r->s, r->pp))->address = c->arg->num;
}

/*
 * kernel.statement("FUNCTION[+OFFSET]"), module("M").statement(...): taken
 * as written (without the function's code the offset cannot be checked);
 * FUNCTION@FILE:LINE needs DWARF.
 */
static void resolve_statement(struct resolver *r, const char *mod,
			      const struct pp_comp *c, const char *family)
{
	const char *spec = c->arg->str, *plus = strchr(spec, '+');
	char *end = NULL;
	int64_t off = 0;
	struct rprobe *rp;
	const char *name;

	if (c->next)
		return;
	if (strpbrk(spec, "@:")) {
		fail(r, c->arg->loc, "cannot resolve '%s': a source file or line (FUNCTION@FILE:LINE) %s",
		     pp_to_string(r->s, r->pp), dwarf_needed);
		return;
	}
	name = plus ? arena_strndup(r->s->arena, spec, (size_t)(plus - spec)) : spec;
	if (plus)
		off = strtoll(plus + 1, &end, 0);
	if (!*name || has_wildcard(spec) || (plus && (!plus[1] || *end || off < 0))) {
		fail(r, c->arg->loc, "%s takes \"FUNCTION\" or \"FUNCTION+OFFSET\", without wildcards",
		     family);
		return;
	}
	if (!allowed(r, name, false, false, c->arg->loc, true))
		return;
	rp = add(r, RP_KSTATEMENT, family, pp_to_string(r->s, r->pp));
	rp->module = mod;
	rp->symbol = name;
	rp->offset = off;
}

/* ---- tracepoints ------------------------------------------------------------------ */

/* kernel.trace("SYSTEM:NAME") or ("NAME"), wildcards in both parts. */
static void resolve_trace(struct resolver *r, const struct pp_comp *c)
{
	struct kcatalog *kc;
	const struct kcat_tracepoint **tps;
	size_t n;

	if (c->next)
		return;
	kc = kernel_catalog(r->s);
	if (!kc) {
		r->failed = true;
		return;
	}
	n = kcat_match_tracepoints(kc, c->arg->str, &tps);
	for (size_t i = 0; i < n; i++) {
		const struct kcat_tracepoint *tp = tps[i];
		struct rprobe *rp;

		rp = add(r, RP_TRACEPOINT, "kernel.trace", *tp->system ?
			 arena_printf(r->s->arena, "kernel.trace(\"%s:%s\")", tp->system, tp->name) :
			 arena_printf(r->s->arena, "kernel.trace(\"%s\")", tp->name));
		rp->tp_system = tp->system;
		rp->tp_name = tp->name;
		rp->args = tp->args;
		rp->nargs = tp->nargs;
	}
}

/* ---- hardware breakpoints --------------------------------------------------------- */

/* kernel.data("SYMBOL").write|.rw, kernel.data(ADDRESS)[.length(N)].write|.rw:
 * the symbol is looked up when the module starts, as 4.8 does. */
static void resolve_data(struct resolver *r, const struct pp_comp *c)
{
	const struct pp_comp *k = c->next, *len = NULL, *acc;
	struct rprobe *rp;
	const char *where;

	if (c->arg->kind == N_NUM)
		len = take(&k, "length", N_NUM);
	if (!(acc = take(&k, "write", -1)) && !(acc = take(&k, "rw", -1)))
		return;
	if (k)
		return;
	where = c->arg->kind == N_STR ?
		arena_printf(r->s->arena, "\"%s\"", c->arg->str) :
		arena_printf(r->s->arena, "0x%llx", (unsigned long long)c->arg->num);
	rp = add(r, RP_HWBKPT, "kernel.data", arena_printf(r->s->arena,
		 "kernel.data(%s).length(%lld).%s", where, len ? (long long)len->arg->num : 1LL,
		 acc->name));
	if (c->arg->kind == N_STR)
		rp->symbol = c->arg->str;
	else
		rp->address = c->arg->num;
	rp->hw_len = len ? len->arg->num : 1;
	rp->hw_rw = !strcmp(acc->name, "rw");
}

/* ---- the kernel families ------------------------------------------------------------ */

/* kernel.function("P")[suffixes] | kernel.statement("F+OFF") |
 * kernel.statement(ADDR).absolute | kernel.trace("SYS:NAME") */
static void resolve_kernel(struct resolver *r, const struct pp_comp *c)
{
	const struct pp_comp *k = c->next, *fn;
	struct fn_spec f = { .kind = RP_KFUNC, .family = "kernel.function" };

	if (c->arg || !k)
		return;
	if ((fn = take(&k, "function", N_STR))) {
		f.glob = fn->arg->str;
		f.loc = fn->arg->loc;
		resolve_functions(r, &f, k);
	} else if (take(&k, "function", N_NUM)) {
		fail(r, r->pp->loc, "kernel.function(ADDRESS) %s", dwarf_needed);
	} else if (!strcmp(k->name, "statement") && k->arg && k->arg->kind == N_STR) {
		resolve_statement(r, NULL, k, "kernel.statement");
	} else if (!strcmp(k->name, "statement") && k->arg) {
		statement_absolute(r, k, "kernel.statement");
	} else if (!strcmp(k->name, "trace") && k->arg && k->arg->kind == N_STR) {
		resolve_trace(r, k);
	} else if (!strcmp(k->name, "data") && k->arg) {
		resolve_data(r, k);
	}
}

/* module("M").function("P")[suffixes] | module("M").statement("F+OFF") */
static void process_statement(struct resolver *r, struct ubin *b, const struct pp_comp *k,
			      bool nearest);
static void process_functions(struct resolver *r, struct ubin *b, const struct pp_comp *fn,
			      const struct pp_comp *k);

static void resolve_module(struct resolver *r, const struct pp_comp *c)
{
	const struct pp_comp *k = c->next, *fn;
	struct fn_spec f = { .kind = RP_KFUNC, .family = "module.function" };
	struct ubin *b;

	if (!c->arg || c->arg->kind != N_STR || !k)
		return;
	f.module = c->arg->str;
	if (!has_wildcard(f.module) && (b = kdwarf_module(r->s, f.module))) {
		if ((fn = take(&k, "function", N_STR)))	/* its DWARF, as a process's */
			process_functions(r, b, fn, k);
		else if ((fn = take(&k, "statement", N_STR)) && !k)
			process_statement(r, b, fn, false);
		return;
	}
	if ((fn = take(&k, "function", N_STR))) {
		f.glob = fn->arg->str;
		f.loc = fn->arg->loc;
		resolve_functions(r, &f, k);
	} else if (!strcmp(k->name, "statement") && k->arg && k->arg->kind == N_STR) {
		if (!has_wildcard(f.module))
			resolve_statement(r, f.module, k, "module.statement");
		else
			fail(r, c->arg->loc, "module.statement takes one module, without wildcards");
	}
}

/* kprobe[.module("M")].function("P")[.call | .return[.maxactive(N)]] |
 * kprobe.statement(ADDR).absolute */
static void resolve_kprobe(struct resolver *r, const struct pp_comp *c)
{
	const struct pp_comp *k = c->next, *m, *fn;
	struct fn_spec f = { .kind = RP_KPROBE, .family = "kprobe.function" };

	if (c->arg || !k)
		return;
	if ((m = take(&k, "module", N_STR))) {
		f.module = m->arg->str;
		f.family = "kprobe.module";
	}
	if ((fn = take(&k, "function", N_STR))) {
		f.glob = fn->arg->str;
		f.loc = fn->arg->loc;
		resolve_functions(r, &f, k);
	} else if (!m && !strcmp(k->name, "statement") && k->arg &&
		   k->arg->kind == N_NUM) {
		statement_absolute(r, k, "kprobe.statement");
	}
}

/* ---- perf events ----------------------------------------------------------------- */

/* perf.type(T).config(C)[.sample(N) | .hz(F)]: a kernel perf event on
 * every CPU, the handler called every N events (default 1000000) or F
 * times a second. */
static void resolve_perf(struct resolver *r, const struct pp_comp *c)
{
	const struct pp_comp *k = c->next, *t, *cf, *n = NULL;
	struct rprobe *rp;
	bool freq = false;

	if (c->arg || !(t = take(&k, "type", N_NUM)) || !(cf = take(&k, "config", N_NUM)))
		return;
	if (k && (!strcmp(k->name, "process") || !strcmp(k->name, "counter"))) {
		fail(r, r->pp->loc, "perf.%s probes are not supported by this version yet",
		     k->name);
		return;
	}
	if ((n = take(&k, "sample", N_NUM)) == NULL && (n = take(&k, "hz", N_NUM)))
		freq = true;
	if (k)
		return;
	if (n && n->arg->num <= 0) {
		fail(r, n->arg->loc, "invalid perf %s %lld", freq ? "frequency" : "sample period",
		     (long long)n->arg->num);
		return;
	}
	rp = add(r, RP_PERF, "perf", arena_printf(r->s->arena,
		 "perf.type(%lld).config(%lld).sample(%lld)", (long long)t->arg->num,
		 (long long)cf->arg->num, n ? (long long)n->arg->num : 1000000LL));
	rp->label = arena_printf(r->s->arena, "%s%s", pp_to_string(r->s, r->pp),
				 rp->marks);	/* -l: as written, as 4.8 */
	rp->perf_type = t->arg->num;
	rp->perf_config = cf->arg->num;
	rp->perf_period = n ? n->arg->num : 1000000;
	rp->perf_freq = freq;
}

/* ---- process("PATH"): user space (uprobes.c, udwarf.c) -------------------------------- */

/* The lines of a .statement("FUNC@FILE...") spec: ":*" (all), ":A,B-C"
 * (lines and ranges) or "+N" (relative to the function's declaration). */
struct lspec {
	const char *fn, *file;
	bool all;
	int rel;		/* the N of "+N", else -1 */
	int n, first[16], last[16];
	bool ranged;		/* a "-" or "," in the lines */
};

/* ":A,B-C" into l; false if malformed */
static bool split_ranges(const char *p, struct lspec *l)
{
	char *end;

	do {
		if (l->n == 16 || *p < '0' || *p > '9')
			return false;
		l->first[l->n] = l->last[l->n] = (int)strtol(p, &end, 10);
		if (*end == '-' && end[1] >= '0' && end[1] <= '9') {
			l->last[l->n] = (int)strtol(end + 1, &end, 10);
			l->ranged = true;
		}
		if (l->first[l->n] <= 0 || l->last[l->n] < l->first[l->n])
			return false;
		l->n++;
		p = end + 1;
	} while (*end == ',');
	l->ranged |= l->n > 1;
	return !*end;
}

static bool split_statement(struct session *s, const char *spec, struct lspec *l)
{
	const char *at = strchr(spec, '@'), *sep = at ? strpbrk(at, ":+") : NULL;
	char *end;

	memset(l, 0, sizeof(*l));
	l->rel = -1;
	if (!at || !sep || sep == at + 1 || at == spec)
		return false;
	l->fn = arena_strndup(s->arena, spec, (size_t)(at - spec));
	l->file = arena_strndup(s->arena, at + 1, (size_t)(sep - at - 1));
	if (*sep == '+') {
		if (sep[1] < '0' || sep[1] > '9')
			return false;
		l->rel = (int)strtol(sep + 1, &end, 10);
		return !*end;
	}
	if (!strcmp(sep + 1, "*"))
		return l->all = true;
	return split_ranges(sep + 1, l);
}

static bool line_wanted(const struct lspec *l, const struct ufunc *f, int line)
{
	if (l->all)
		return true;
	if (l->rel >= 0)
		return line == f->line + l->rel;
	for (int i = 0; i < l->n; i++)
		if (line >= l->first[i] && line <= l->last[i])
			return true;
	return false;
}

/* A line chosen for a statement probe. */
struct lpick {
	const struct ufunc *f;
	int line, asked;	/* asked: .nearest's line, else line */
	uint64_t addr;
	size_t seq;
};

static int by_line(const void *a, const void *b)
{
	const struct lpick *x = a, *y = b;

	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* f's wanted lines into *picks, as 4.8: each at its lowest address in f,
 * dropped when an earlier one has that address. ":*" takes the lines from
 * the one in effect at f's entry (its last row there) on. */
static void pick_lines(struct resolver *r, struct ubin *b, const struct ufunc *f,
		       const struct lspec *l, struct lpick **picks, size_t *n, size_t *cap)
{
	struct uline_addr *ls;
	size_t nl = ubin_func_lines(r->s, b, f, l->file, &ls);
	int from = l->all ? ubin_line_at(b, f, f->entry) : 0;

	for (size_t i = 0; i < nl; i++) {
		bool dup = false;

		if (!line_wanted(l, f, ls[i].line))
			continue;
		if (ls[i].line < from)
			continue;
		for (size_t j = 0; j < *n && !dup; j++)
			dup = (*picks)[j].addr == ls[i].addr;
		if (dup)
			continue;
		if (*n == *cap) {
			struct lpick *p = arena_alloc(r->s->arena, (*cap * 2 + 16) * sizeof(*p));

			if (*n)
				memcpy(p, *picks, *n * sizeof(*p));
			*picks = p;
			*cap = *cap * 2 + 16;
		}
		(*picks)[*n] = (struct lpick){ f, ls[i].line, ls[i].line, ls[i].addr, *n };
		(*n)++;
	}
}

/* The probe of pick p in f; with .nearest, -l lists the line asked for */
static void statement_at(struct resolver *r, struct ubin *b, const struct ufunc *f,
			 const struct lpick *p, bool nearest)
{
	struct rprobe *rp = add(r, RP_UPROBE, ubin_is_kernel(b) ? "module.statement" :
				"process.statement", "");

	uprobe_fill_statement(r->s, rp, b, f,
			      arena_printf(r->s->arena, "%s@%s:%d", f->name, f->file, p->line),
			      p->addr);
	if (nearest)
		rp->label = arena_printf(r->s->arena, "process(\"%s\").statement(\"%s@%s:%d\").nearest%s",
					 ubin_path(b), f->name, f->file, p->asked, rp->marks);
}

/* .nearest of one line: f's picks at the line of the file with code
 * nearest to it (4.8), if that line is in f */
static void pick_nearest(struct resolver *r, struct ubin *b, const struct ufunc *f,
			 const struct lspec *l, struct lpick **picks, size_t *n, size_t *cap)
{
	struct lspec one = *l;
	int asked = l->rel >= 0 ? f->line + l->rel : l->first[0], near;
	size_t from = *n;

	if (!ubin_nearest_line(b, f, l->file, asked, &near))
		return;
	one.rel = -1;
	one.n = 1;
	one.first[0] = one.last[0] = near;
	pick_lines(r, b, f, &one, picks, n, cap);
	for (size_t i = from; i < *n; i++)
		(*picks)[i].asked = asked;
}

/* No code at the one line of l in the functions fs: 4.8's error, with
 * the nearest lines that have some (at most 5 lines away) to try. */
static void no_line_records(struct resolver *r, struct ubin *b, const struct lspec *l,
			    const struct ufunc **fs, size_t n)
{
	const struct ufunc *f = NULL;
	int line, below = 0, above = 0;

	for (size_t i = 0; i < n && !f; i++)
		if (fs[i]->die && ubin_file_matches(fs[i]->file, l->file))
			f = fs[i];
	if (!f || l->all || l->ranged)
		return;
	line = l->rel >= 0 ? f->line + l->rel : l->first[0];
	for (size_t i = 0; i < n; i++) {
		struct uline_addr *ls;
		size_t nl = fs[i]->die ? ubin_func_lines(r->s, b, fs[i], l->file, &ls) : 0;

		for (size_t j = 0; j < nl; j++) {
			if (ls[j].line < line && line - ls[j].line <= 5 && ls[j].line > below)
				below = ls[j].line;
			if (ls[j].line > line && ls[j].line - line <= 5 && (!above || ls[j].line < above))
				above = ls[j].line;
		}
	}
	fail(r, r->pp->loc, "no line records for %s:%d [man error::dwarf]%s", f->file, line,
	     below && above ? arena_printf(r->s->arena, " (try :%d or :%d)", below, above) :
	     below || above ? arena_printf(r->s->arena, " (try :%d)", below ? below : above) : "");
}

static void process_statement(struct resolver *r, struct ubin *b, const struct pp_comp *k,
			      bool nearest)
{
	const char *spec = k->arg->str;
	const struct ufunc **fs;
	struct lpick *picks = NULL;
	size_t n, np = 0, cap = 0;
	struct lspec l;
	bool one_near;

	if (!split_statement(r->s, spec, &l)) {
		fail(r, k->arg->loc, "%s().statement takes \"FUNCTION@FILE:LINES\" or \"FUNCTION@FILE+OFFSET\"",
		     ubin_is_kernel(b) ? "module" : "process");
		return;
	}
	one_near = nearest && !l.all && !l.ranged;
	n = ubin_match_funcs(b, l.fn, &fs);
	for (int inl = 0; inl < 2; inl++)	/* functions, then inlined instances */
		for (size_t i = 0; i < n; i++)
			if (fs[i]->die && fs[i]->inlined == inl && !one_near)
				pick_lines(r, b, fs[i], &l, &picks, &np, &cap);
			else if (fs[i]->die && fs[i]->inlined == inl)
				pick_nearest(r, b, fs[i], &l, &picks, &np, &cap);
	if (!np && !nearest)
		no_line_records(r, b, &l, fs, n);
	if (np > 1)
		qsort(picks, np, sizeof(*picks), by_line);
	for (size_t i = 0; i < np; i++) {
		statement_at(r, b, picks[i].f, &picks[i], nearest);
		/* as 4.8, also in the other matched functions holding it (an
		 * inlined instance and its caller) */
		for (size_t j = 0; j < n; j++)
			if (fs[j] != picks[i].f && fs[j]->die && fs[j]->entry <= picks[i].addr &&
			    picks[i].addr < fs[j]->end)
				statement_at(r, b, fs[j], &picks[i], nearest);
	}
}

/* "FUNC[@FILE[:LINE]]": the function glob, and the declaring file (NULL:
 * any) and line (0: none; 4.8 ignores it); false if malformed. */
static bool split_function(struct session *s, const char *spec, const char **glob,
			   const char **file, int *line)
{
	const char *at = strchr(spec, '@'), *colon = at ? strrchr(at, ':') : NULL;
	char *end = NULL;

	*glob = at ? arena_strndup(s->arena, spec, (size_t)(at - spec)) : spec;
	*file = NULL;
	*line = 0;
	if (at)
		*file = arena_strndup(s->arena, at + 1, colon ? (size_t)(colon - at - 1) :
				      strlen(at + 1));
	if (colon) {
		*line = (int)strtol(colon + 1, &end, 10);
		if (*end || *line <= 0)
			return false;
	}
	return !strpbrk(*glob, ":+");
}

/* Distinct names, in order: the inlined functions a .return skips. */
struct names {
	struct session *s;
	const char **v;
	size_t n;
};

static void note_inlined(struct names *l, const char *name, size_t max)
{
	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->v[i], name))
			return;
	if (!l->v)
		l->v = arena_alloc(l->s->arena, sizeof(*l->v) * (max + 1));
	l->v[l->n++] = name;
}

/* .label("GLOB") of f */
static void function_labels(struct resolver *r, struct ubin *b, const struct ufunc *f,
			    const char *glob)
{
	struct ulabel *ls;
	size_t n = ubin_labels(r->s, b, f, glob, &ls);

	for (size_t i = 0; i < n; i++)
		uprobe_fill_label(r->s, add(r, RP_UPROBE, "process.label", ""), b, f, &ls[i]);
}

/* .callee("GLOB")[.call] / .callees of f: a probe per function called,
 * for all its call sites in f */
static void function_callees(struct resolver *r, struct ubin *b, const struct ufunc *f,
			     const char *glob, bool call)
{
	struct ucall *cs;
	size_t n = ubin_calls(r->s, b, f, glob, &cs);

	for (size_t i = 0, j; i < n; i = j) {
		for (j = i + 1; j < n && cs[j].callee == cs[i].callee; j++)
			;
		uprobe_fill_callee(r->s, add(r, RP_UPROBE, "process.callee", ""), b, f, &cs[i],
				   j - i, call);
	}
}

/* .label(), .callee() or .callees of a function without DWARF: as 4.8,
 * a probe on its entry, listed as written. */
static void function_nodwarf(struct resolver *r, struct ubin *b, const struct ufunc *f,
			     int how, const char *glob, bool call)
{
	struct rprobe *rp = add(r, RP_UPROBE, "process.function", "");
	const char *sfx = how == 5 ? ".callees" :
		arena_printf(r->s->arena, how == 3 ? ".label(\"%s\")" : ".callee(\"%s\")%s",
			     glob, call ? ".call" : "");

	uprobe_fill_function(r->s, rp, b, f, call);
	uprobe_set_pn(rp, arena_printf(r->s->arena, "process(\"%s\").function(\"%s\")%s",
				       ubin_path(b), f->name, sfx));
	rp->label = arena_printf(r->s->arena, "%s%s", uprobe_pn(rp), rp->marks);
}

/* What follows .function(): 0 plain, 1 .call, 2 .return, 3 .label(L),
 * 4 .callee(G)[.call], 5 .callees[(1)], 6 .inline; -1 something else. */
static int function_suffix(const struct pp_comp *k, const char **glob, bool *call)
{
	const struct pp_comp *x;

	*glob = "*";
	*call = false;
	if (!k)
		return 0;
	if (take(&k, "call", -1))
		return k ? -1 : 1;
	if (take(&k, "return", -1))
		return k ? -1 : 2;
	if (take(&k, "inline", -1))
		return k ? -1 : 6;
	if ((x = take(&k, "label", N_STR))) {
		*glob = x->arg->str;
		return k ? -1 : 3;
	}
	if (take(&k, "callees", -1))
		return k ? -1 : 5;
	if ((x = take(&k, "callees", N_NUM)))	/* only depth 1 (as .callees) */
		return k || x->arg->num != 1 ? -1 : 5;
	if (!(x = take(&k, "callee", N_STR)))
		return -1;
	*glob = x->arg->str;
	*call = take(&k, "call", -1) != NULL;
	return k ? -1 : 4;
}

static void process_functions(struct resolver *r, struct ubin *b, const struct pp_comp *fn,
			      const struct pp_comp *k)
{
	const struct ufunc **fs;
	const char *glob, *file, *sub;
	size_t n;
	bool call, kernel = ubin_is_kernel(b);
	int how = function_suffix(k, &sub, &call), line;	/* line: ignored, as by 4.8 */
	struct names inlined = { r->s, NULL, 0 };

	if (how < 0)
		return;
	if (kernel && how >= 3 && how <= 5) {
		fail(r, r->pp->loc, "module().function().%s probes are not supported by this version yet",
		     how == 3 ? "label" : how == 4 ? "callee" : "callees");
		return;
	}
	if (!split_function(r->s, fn->arg->str, &glob, &file, &line)) {
		fail(r, fn->arg->loc, "%s().function takes \"FUNC[@FILE[:LINE]]\"",
		     kernel ? "module" : "process");
		return;
	}
	n = ubin_match_funcs(b, glob, &fs);
	for (size_t i = 0; i < n; i++) {
		if (how == 2 && fs[i]->inlined) {	/* an inlined copy never returns */
			note_inlined(&inlined, fs[i]->name, n);
			continue;
		}
		if ((how == 1 && fs[i]->inlined) || (how == 6 && !fs[i]->inlined))
			continue;
		if (file && (!fs[i]->file || !ubin_file_matches(fs[i]->file, file)))
			continue;
		if (how >= 3 && how <= 5 && !fs[i]->die)
			function_nodwarf(r, b, fs[i], how, sub, call);
		else if (how == 3)
			function_labels(r, b, fs[i], sub);
		else if (how == 4 || how == 5)
			function_callees(r, b, fs[i], sub, call);
		else	/* .inline is 3 to uprobe_fill_function */
			uprobe_fill_function(r->s, add(r, RP_UPROBE, kernel ? "module.function" :
						      "process.function", ""), b, fs[i],
					     how == 6 ? 3 : how);
	}
	if (inlined.n && kernel && !r->s->suppress_warnings) {	/* 4.8's words */
		fprintf(r->s->err, "WARNING: cannot probe .return of %zu inlined functions ",
			inlined.n);
		for (size_t i = 0; i < inlined.n; i++)
			fprintf(r->s->err, " %s", inlined.v[i]);
		fputc('\n', r->s->err);
	}
}

static void process_marks(struct resolver *r, struct ubin *b, const char *provider,
			  const struct pp_comp *m)
{
	const struct usdt **ms;
	size_t n;

	if (m->next)
		return;
	n = ubin_match_sdts(b, provider, m->arg->str, &ms);
	for (size_t i = 0; i < n; i++)
		uprobe_fill_mark(r->s, add(r, RP_UPROBE, "process.mark", ""), b, ms[i]);
}

/* .plt("GLOB") of b (.plt: all): a probe on each PLT entry whose function
 * matches. */
static void process_plts(struct resolver *r, struct ubin *b, const struct pp_comp *p)
{
	struct uplt *ps;
	size_t n;

	if (p->next) {
		if (!strcmp(p->next->name, "return") && !p->next->next)
			fail(r, r->pp->loc, "process return probes not available");
		return;
	}
	n = ubin_match_plts(r->s, b, p->arg ? p->arg->str : "*", &ps);
	for (size_t i = 0; i < n; i++)
		uprobe_fill_plt(r->s, add(r, RP_UPROBE, "process.plt", ""), b, &ps[i]);
}

/* [.thread].begin | [.thread].end of process or process(PATH); false when
 * k is something else. */
static bool process_event(struct resolver *r, const char *path, int64_t pid,
			  const struct pp_comp *k)
{
	static const char *const names[] = { ".begin", ".end", ".thread.begin", ".thread.end",
					     ".syscall", ".syscall.return" };
	bool thread = take(&k, "thread", -1) != NULL;
	int ev;
	struct rprobe *rp;

	if (!thread && take(&k, "syscall", -1))
		ev = take(&k, "return", -1) ? UP_SYSCALL_RETURN : UP_SYSCALL;
	else if (take(&k, "begin", -1))
		ev = thread ? UP_THREAD_BEGIN : UP_BEGIN;
	else if (take(&k, "end", -1))
		ev = thread ? UP_THREAD_END : UP_END;
	else
		return false;
	if (k)
		return true;
	rp = add(r, RP_UPROC, "process", path ?
		 arena_printf(r->s->arena, "process(\"%s\")%s", path, names[ev]) : pid ?
		 arena_printf(r->s->arena, "process(%lld)%s", (long long)pid, names[ev]) :
		 arena_printf(r->s->arena, "process%s", names[ev]));
	rp->proc_path = path;
	rp->proc_pid = pid;
	rp->proc_event = ev;
	rp->ret_type = "void";
	return true;
}

/* .statement(ADDRESS): as 4.8, a line-table row's address (link time)
 * inside a function with DWARF; pp() keeps the address. */
static void process_statement_addr(struct resolver *r, struct ubin *b, const struct pp_comp *k)
{
	uint64_t addr = (uint64_t)k->arg->num, prev;
	const struct ufunc **fs, *f = NULL;
	size_t n = ubin_match_funcs(b, "*", &fs);
	struct rprobe *rp;

	for (size_t i = 0; i < n && !f; i++)
		if (fs[i]->die && !fs[i]->inlined && fs[i]->entry <= addr && addr < fs[i]->end)
			f = fs[i];
	if (!f)
		return;
	if (!ubin_row_at(b, f, addr, &prev)) {
		fail(r, k->arg->loc, "address 0x%llx does not match the beginning of a statement (try 0x%llx)",
		     (unsigned long long)addr, (unsigned long long)prev);
		return;
	}
	rp = add(r, RP_UPROBE, "process.statement", "");
	uprobe_fill_statement(r->s, rp, b, f, "", addr);
	rp->pp = arena_printf(r->s->arena, "process(\"%s\").statement(0x%llx)", ubin_path(b),
			      (unsigned long long)addr);
	rp->label = arena_printf(r->s->arena, "%s%s", rp->pp, rp->marks);
}

/* .function(...) | .statement(...) | [.provider(P)].mark(M) of b */
static void process_in(struct resolver *r, struct ubin *b, const struct pp_comp *k)
{
	const struct pp_comp *x;

	if ((x = take(&k, "function", N_STR)))
		process_functions(r, b, x, k);
	else if ((x = take(&k, "statement", N_STR)) && (!k || (!k->arg && !k->next &&
							       !strcmp(k->name, "nearest"))))
		process_statement(r, b, x, k != NULL);
	else if (!x && (x = take(&k, "statement", N_NUM)) && !k)
		process_statement_addr(r, b, x);
	else if (!x && !strcmp(k->name, "plt") && (!k->arg || k->arg->kind == N_STR))
		process_plts(r, b, k);	/* .plt is .plt("*") */
	else if ((x = take(&k, "provider", N_STR)) && k && !strcmp(k->name, "mark") &&
		 k->arg && k->arg->kind == N_STR)
		process_marks(r, b, x->arg->str, k);
	else if (!x && !strcmp(k->name, "mark") && k->arg && k->arg->kind == N_STR)
		process_marks(r, b, NULL, k);
}

/* process("PATH").library("LIB")...: the points of the libraries PATH
 * needs that LIB (a glob, or a path) names; they are the library's own
 * points (pp() is process("LIBPATH")...), listed by -l as written. */
static void process_library(struct resolver *r, struct ubin *exe, const struct pp_comp *lib,
			    const struct pp_comp *k)
{
	const char **libs;
	size_t n = ubin_libraries(r->s, exe, lib->arg->str, &libs);

	if (!n) {
		fail(r, lib->arg->loc, "no library '%s' for %s", lib->arg->str, ubin_path(exe));
		return;
	}
	for (size_t i = 0; i < n; i++) {
		struct ubin *b = ubin_open(r->s, libs[i], lib->arg->loc);
		struct rprobe **from = r->tail;
		size_t skip = strlen(libs[i]) + strlen("process(\"\")");

		if (!b)
			continue;
		process_in(r, b, k);
		for (struct rprobe *rp = *from; rp; rp = rp->next)
			rp->label = arena_printf(r->s->arena, "process(\"%s\").library(\"%s\")%s",
						 ubin_path(exe), libs[i], rp->label + skip);
	}
}

/* process(PID)...: PID must be a process now, as 4.8 wants (kill(PID, 0));
 * its events are filtered by PID at run time, and its DWARF points are
 * those of the program it runs now (/proc/PID/exe), firing in every
 * process running it, as 4.8's; 4.8 has no .return nor .absolute there. */
static void resolve_process_pid(struct resolver *r, const struct node *arg,
				const struct pp_comp *k)
{
	int64_t pid = arg->num;
	struct rprobe **from = r->tail;
	char exe[PATH_MAX];
	ssize_t len;
	struct ubin *b;

	if (pid <= 0 || pid > INT_MAX || (kill((pid_t)pid, 0) && errno != EPERM)) {
		fail(r, r->pp->loc, "cannot probe pid %lld: %s", (long long)pid,
		     strerror(pid <= 0 || pid > INT_MAX ? ESRCH : errno));
		return;
	}
	if (process_event(r, NULL, pid, k))
		return;
	for (const struct pp_comp *x = k; x; x = x->next)
		if ((!strcmp(x->name, "return") || !strcmp(x->name, "absolute")) && !x->arg) {
			fail(r, r->pp->loc, "%s probes not available [man error::inode-uprobes]",
			     x->name[0] == 'r' ? "process return" : "absolute process");
			return;
		}
	len = readlink(arena_printf(r->s->arena, "/proc/%lld/exe", (long long)pid), exe,
		       sizeof(exe) - 1);
	if (len <= 0) {
		fail(r, r->pp->loc, "cannot find the executable of pid %lld", (long long)pid);
		return;
	}
	exe[len] = 0;
	b = ubin_open(r->s, arena_strdup(r->s->arena, exe), arg->loc);
	if (!b) {
		r->failed = true;
		return;
	}
	process_in(r, b, k);
	for (struct rprobe *rp = *from; rp; rp = rp->next)
		rp->proc_pid = pid;
}

/* process("PATH").function(...) | .statement(...) | [.provider(P)].mark(M)
 * | .library(LIB)... | [.thread].begin | [.thread].end;
 * process[.thread].begin | .end */
static void resolve_process(struct resolver *r, const struct pp_comp *c)
{
	const struct pp_comp *k = c->next, *x;
	const char *path;
	struct ubin *b;

	if (!c->arg && k) {
		process_event(r, NULL, 0, k);
		return;
	}
	if (c->arg && c->arg->kind == N_NUM && k) {
		resolve_process_pid(r, c->arg, k);
		return;
	}
	if (!c->arg || c->arg->kind != N_STR || !k)
		return;
	path = ubin_find(r->s, c->arg->str);
	if (!path)	/* no such program: "no match", as 4.8 says */
		return;
	if (process_event(r, path, 0, k))
		return;
	b = ubin_open(r->s, path, c->arg->loc);
	if (!b) {
		r->failed = true;
		return;
	}
	if ((x = take(&k, "library", N_STR)) && k)
		process_library(r, b, x, k);
	else if (!x)
		process_in(r, b, k);
}

/* ---- procfs ----------------------------------------------------------------------- */

/* A file under /proc/systemtap/MODULE: no leading or trailing '/', no
 * empty component. */
static bool procfs_path_ok(struct resolver *r, const char *path)
{
	if (path[0] == '/') {
		fail(r, r->pp->loc, "procfs path cannot start with a '/'");
		return false;
	}
	if (*path && path[strlen(path) - 1] == '/') {
		fail(r, r->pp->loc, "procfs path cannot end with a '/'");
		return false;
	}
	if (strstr(path, "//")) {
		fail(r, r->pp->loc, "procfs path component cannot be empty");
		return false;
	}
	return true;
}

/* procfs[("PATH")][.umask(N)].read[.maxsize(N)] | procfs[("PATH")][.umask(N)].write */
static void resolve_procfs(struct resolver *r, const struct pp_comp *c)
{
	const struct pp_comp *k = c->next, *um, *ms = NULL;
	const char *path = "command";
	bool write;
	struct rprobe *rp;

	if (c->arg && c->arg->kind != N_STR)
		return;
	if (c->arg)
		path = c->arg->str;
	um = take(&k, "umask", N_NUM);
	if (take(&k, "read", -1))
		write = false;
	else if (take(&k, "write", -1))
		write = true;
	else
		return;
	if (!write)
		ms = take(&k, "maxsize", N_NUM);
	if (k || !procfs_path_ok(r, path))
		return;
	if (ms && ms->arg->num <= 0) {
		fail(r, ms->arg->loc, "maxsize must be greater than 0");
		return;
	}
	rp = add(r, RP_PROCFS, "procfs", pp_to_string(r->s, r->pp));
	rp->procfs_path = path;
	rp->procfs_write = write;
	rp->procfs_umask = um ? um->arg->num & 0777 : -1;
	rp->procfs_maxsize = ms ? ms->arg->num : -1;
}

/* After resolution: one read probe per file, and no file that is also
 * a directory of another (procfs("a") with procfs("a/b")). */
void check_procfs_points(struct session *s)
{
	for (struct rprobe *a = s->rprobes; a; a = a->next) {
		if (a->kind != RP_PROCFS)
			continue;
		for (struct rprobe *b = a->next; b; b = b->next) {
			size_t n = strlen(a->procfs_path), m;

			if (b->kind != RP_PROCFS)
				continue;
			m = strlen(b->procfs_path);
			if (!a->procfs_write && !b->procfs_write &&
			    !strcmp(a->procfs_path, b->procfs_path)) {
				diag_plain(s, "only one read procfs probe can exist for procfs path \"%s\"",
					   a->procfs_path);
				return;
			}
			if ((n < m && !strncmp(a->procfs_path, b->procfs_path, n) &&
			     b->procfs_path[n] == '/') ||
			    (m < n && !strncmp(a->procfs_path, b->procfs_path, m) &&
			     a->procfs_path[m] == '/')) {
				diag_error(s, b->point->loc, "procfs path \"%s\" is both a file and a directory",
					   n < m ? a->procfs_path : b->procfs_path);
				return;
			}
		}
	}
}

/* ---- netfilter ------------------------------------------------------------------- */

/* netfilter.hook("H").pf("PF")[.priority("P")] | netfilter.pf("PF").hook("H")[...] */
static void resolve_netfilter(struct resolver *r, const struct pp_comp *c)
{
	const struct pp_comp *k = c->next, *h, *f, *q;
	struct rprobe tmp = { 0 }, *rp;
	const char *err;
	int n;

	if (c->arg)
		return;
	if ((h = take(&k, "hook", N_STR)))
		f = take(&k, "pf", N_STR);
	else if ((f = take(&k, "pf", N_STR)))
		h = take(&k, "hook", N_STR);
	if (!h || !f)
		return;
	q = take(&k, "priority", N_STR);
	if (k)
		return;
	err = nf_resolve(r->s, h->arg->str, f->arg->str, q ? q->arg->str : NULL, &tmp);
	if (err) {
		fail(r, r->pp->loc, "%s", err);
		return;
	}
	rp = add(r, RP_NETFILTER, "netfilter", pp_to_string(r->s, r->pp));
	rp->nf_hook = tmp.nf_hook;
	rp->nf_pf = tmp.nf_pf;
	rp->nf_priority = tmp.nf_priority;
	rp->args = nf_args(r->s, &n);
	rp->nargs = n;
}

/* ---- dispatch ----------------------------------------------------------------------- */

static const struct family {
	const char *name;
	void (*resolve)(struct resolver *r, const struct pp_comp *c);
} families[] = {
	{ "begin", resolve_been },
	{ "end", resolve_been },
	{ "error", resolve_been },
	{ "never", resolve_never },
	{ "timer", resolve_timer },
	{ "kernel", resolve_kernel },
	{ "module", resolve_module },
	{ "kprobe", resolve_kprobe },
	{ "perf", resolve_perf },
	{ "process", resolve_process },
	{ "procfs", resolve_procfs },
	{ "netfilter", resolve_netfilter },
	{ NULL, NULL }
};

/* Is `name` the first component of a built-in probe family? */
bool probe_family_known(const char *name)
{
	for (int i = 0; families[i].name; i++) {
		if (!strcmp(families[i].name, name))
			return true;
	}
	return false;
}

/* The component names of the built-in families, for wildcards in them
 * (`beg*`, `timer.s*(1)`, `kernel.tr*("x")`): a pattern component matches
 * the names found at its depth after the same concrete prefix. */
static const char *const builtin_shapes[] = {
	"begin", "end", "error", "never",
	"timer.s.randomize", "timer.sec.randomize", "timer.ms.randomize",
	"timer.msec.randomize", "timer.us.randomize", "timer.usec.randomize",
	"timer.ns.randomize", "timer.nsec.randomize", "timer.hz",
	"timer.jiffies.randomize", "timer.profile",
	"kernel.function.call", "kernel.function.return.maxactive",
	"kernel.statement", "kernel.trace",
	"kernel.data.length.write", "kernel.data.length.rw", "kernel.data.write",
	"kernel.data.rw",
	"module.function.call", "module.function.return.maxactive",
	"module.statement",
	"kprobe.function.call", "kprobe.function.return.maxactive",
	"kprobe.module.function.call", "kprobe.module.function.return.maxactive",
	"kprobe.statement",
	"perf.type.config.sample", "perf.type.config.hz",
	"process.function.call", "process.function.return", "process.function.label",
	"process.statement.nearest",
	"process.mark", "process.provider.mark", "process.begin", "process.end", "process.plt.return",
	"process.library.function.call", "process.library.function.return",
	"process.library.statement.nearest", "process.library.mark",
	"process.library.provider.mark",
	"process.thread.begin", "process.thread.end", "process.syscall.return",
	"procfs.umask.read.maxsize", "procfs.umask.write",
	"procfs.read.maxsize", "procfs.write",
	"netfilter.hook.pf.priority", "netfilter.pf.hook.priority",
	NULL
};

#define MAX_PP_DEPTH 8

/* Does shape s start with the names of comps[0..depth-1]? Then its name
 * at depth (NUL-terminated copy in buf), else NULL. */
static const char *shape_name_at(const char *s, struct pp_comp *const *comps,
				 int depth, char *buf, size_t size)
{
	for (int d = 0; d < depth; d++) {
		size_t n = strlen(comps[d]->name);

		if (strncmp(s, comps[d]->name, n) || s[n] != '.')
			return NULL;
		s += n + 1;
	}
	snprintf(buf, size, "%.*s", (int)strcspn(s, "."), s);
	return *buf ? buf : NULL;
}

static void resolve_concrete(struct resolver *r, struct pp_comp *const *comps,
			     int n);
static bool has_wild_names(const struct probe_point *pp);

/* Each concrete point the pattern from orig on names, after comps[0..d-1]. */
static void expand_names(struct resolver *r, const struct pp_comp *orig,
			 struct pp_comp **comps, int d)
{
	const char *seen[32];
	int nseen = 0;
	char buf[64];

	if (!orig) {
		resolve_concrete(r, comps, d);
		return;
	}
	if (d == MAX_PP_DEPTH)
		return;
	comps[d] = arena_alloc(r->s->arena, sizeof(*comps[d]));
	*comps[d] = *orig;
	if (!has_wildcard(orig->name)) {
		expand_names(r, orig->next, comps, d + 1);
		return;
	}
	for (int i = 0; builtin_shapes[i]; i++) {
		const char *name = shape_name_at(builtin_shapes[i], comps, d, buf, sizeof(buf));
		bool dup = false;

		for (int k = 0; name && k < nseen; k++)
			dup |= !strcmp(seen[k], name);
		if (!name || dup || nseen == 32 || fnmatch(orig->name, name, 0))
			continue;
		seen[nseen++] = arena_strdup(r->s->arena, name);
	}
	/* in name order, as upstream lists them */
	for (int i = 1; i < nseen; i++)
		for (int k = i; k > 0 && strcmp(seen[k - 1], seen[k]) > 0; k--) {
			const char *t = seen[k];

			seen[k] = seen[k - 1];
			seen[k - 1] = t;
		}
	for (int i = 0; i < nseen; i++) {
		comps[d] = arena_alloc(r->s->arena, sizeof(*comps[d]));
		*comps[d] = *orig;
		comps[d]->name = seen[i];
		expand_names(r, orig->next, comps, d + 1);
	}
}

/* One expansion of a wildcard point: resolved quietly, as an alternative. */
static void resolve_concrete(struct resolver *r, struct pp_comp *const *comps,
			     int n)
{
	struct probe_point *pp = arena_alloc(r->s->arena, sizeof(*pp)), *saved = r->pp;
	bool quiet = r->quiet, failed = r->failed;

	*pp = *saved;
	for (int i = 0; i < n; i++)
		comps[i]->next = i + 1 < n ? comps[i + 1] : NULL;
	pp->comps = comps[0];
	r->pp = pp;
	r->quiet = true;
	for (int i = 0; families[i].name; i++) {
		if (!strcmp(families[i].name, pp->comps->name))
			families[i].resolve(r, pp->comps);
	}
	r->pp = saved;
	r->quiet = quiet;
	r->failed = failed;
}

bool probe_point_has_wildcard(const struct probe_point *pp)
{
	return has_wild_names(pp);
}

static bool has_wild_names(const struct probe_point *pp)
{
	for (const struct pp_comp *c = pp->comps; c; c = c->next)
		if (has_wildcard(c->name))
			return true;
	return false;
}

/* Hand the point to its family by its first component. */
static void dispatch(struct resolver *r)
{
	struct pp_comp *comps[MAX_PP_DEPTH];

	if (has_wild_names(r->pp)) {
		expand_names(r, r->pp->comps, comps, 0);
		return;
	}
	for (int i = 0; families[i].name; i++) {
		if (!strcmp(families[i].name, r->pp->comps->name))
			families[i].resolve(r, r->pp->comps);
	}
}

/*
 * The concrete probes point pp of probe p names, as a list (NULL when
 * none; the error, if any, is reported here).
 */
struct rprobe *resolve_probe_point(struct session *s, struct probe *p,
				   struct probe_point *pp)
{
	struct resolver r = { .s = s, .probe = p, .pp = pp };

	r.quiet = pp->optional || s->listing;
	r.tail = &r.head;
	dispatch(&r);
	if (!r.head && !r.failed && !r.quiet &&
	    !elaborate_poisoned(s, pp->comps->name))	/* a broken tapset's alias */
		diag_error(s, pp->loc, "no match for probe point '%s'",
			   pp_to_string(s, pp));
	return r.head;
}

/* Whether pp names anything, reporting nothing: alias expansion asks, so
 * that an optional point that names nothing does not stop a `!` list. */
bool probe_point_matches(struct session *s, struct probe_point *pp)
{
	struct probe p = { .points = pp };
	struct resolver r = { .s = s, .probe = &p, .pp = pp, .quiet = true };

	r.tail = &r.head;
	dispatch(&r);
	return r.head != NULL;
}
