/*
 * kernel.c - the kernel function family, through the kernel's DWARF
 * when its debuginfo is installed (kernel_dwarf(): as a module with DWARF,
 * by process/), else without debuginfo:
 * kernel.function("P"), module("M").function("P") (each [.call |
 * .return[.maxactive(N)]]), kprobe[.module("M")].function("P"),
 * kernel.statement("F[+OFF]"), module("M").statement(...) and
 * *.statement(ADDR).absolute. Functions are resolved by name against the
 * kernel's BTF (kcatalog.h), the modules' BTF (kmodule.c) and, for
 * kprobe.function, the symbol map; a module with DWARF is probed through
 * it instead, as a process is (process/). The runtime's kprobes.c
 * registers them.
 *
 * Target variables of kernel.function: the parameters, from the BTF
 * prototype, read from the argument registers (x86_64: six at most), and
 * $return. Functions on the probe path itself are blacklisted: skipped
 * silently under a wildcard, an error when named exactly (guru mode
 * lifts the blacklist).
 */
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "family.h"

#define MAX_REG_ARGS 6
/* kprobe.function: no target variables */
#define KPROBE_FLAGS (RF_WRITABLE | RF_ENTRY | RF_KRETPROBE)

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

const char kernel_dwarf_needed[] =
	"needs the kernel's DWARF debuginfo, which this version does not read "
	"(kernel functions are resolved by name from BTF)";

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
		rp_fail(r, loc, "cannot probe '%s': it is blacklisted (%s); guru mode (-g) lifts the blacklist",
		     name, why);
	return false;
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
	if (pp_take(&c, "call", -1)) {
		f->call = true;
	} else if (pp_take(&c, "return", -1)) {
		f->ret = true;
		m = pp_take(&c, "maxactive", N_NUM);
		if (m && m->arg->num < 0) {
			rp_fail(r, m->arg->loc, "maxactive value must not be negative");
			return false;
		}
		if (m)
			f->maxactive = m->arg->num;
	}
	for (int i = 0; c && f->kind == RP_KFUNC && dwarf_only[i]; i++) {
		if (!strcmp(c->name, dwarf_only[i]))
			rp_fail(r, r->pp->loc, "'.%s' %s", c->name, kernel_dwarf_needed);
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
	rp = rp_add(r, &family_kernel, f->kind, f->family, arena_printf(s->arena, "%s%s%s", base,
		 f->kind == RP_KFUNC && !f->ret ? ".call" : asked, ma));
	rp->label = arena_printf(s->arena, "%s%s%s%s", base, asked, ma, rp->marks);
	rp->module = mod;
	rp->symbol = name;
	rp->ret = f->ret;
	rp->maxactive = f->maxactive;
	if (f->kind == RP_KPROBE) {
		rp->flags = KPROBE_FLAGS;
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
	if (!n && f->kind == RP_KPROBE && !pp_is_glob(f->glob) &&
	    strchr(f->glob, '.')) {
		if (allowed(r, f->glob, f->ret, false, f->loc, false))
			add_function(r, f, NULL, f->glob);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		if (allowed(r, names[i], f->ret, pp_is_glob(f->glob), f->loc,
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

	if (n < 0 && !pp_is_glob(f->glob)) {
		if (allowed(r, f->glob, f->ret, false, f->loc, f->kind == RP_KFUNC))
			add_function(r, f, mod, f->glob);
		return;
	}
	for (long i = 0; i < n; i++) {
		if (allowed(r, names[i], f->ret, pp_is_glob(f->glob), f->loc,
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
		rp_fail(r, f->loc, "cannot resolve '%s': a source file or line (FUNCTION@FILE:LINE) %s",
		     pp_to_string(r->s, r->pp), kernel_dwarf_needed);
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
	struct rprobe *rp;

	if (!pp_take(&rest, "absolute", -1) || rest)
		return;
	if (!r->s->guru) {
		rp_fail(r, r->pp->loc, "%s(ADDRESS).absolute needs guru mode (-g)", family);
		return;
	}
	rp = rp_add(r, &family_kernel, RP_KSTATEMENT, family, pp_to_string(r->s, r->pp));
	rp->flags = 0;
	rp->address = c->arg->num;
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
		rp_fail(r, c->arg->loc, "cannot resolve '%s': a source file or line (FUNCTION@FILE:LINE) %s",
		     pp_to_string(r->s, r->pp), kernel_dwarf_needed);
		return;
	}
	name = plus ? arena_strndup(r->s->arena, spec, (size_t)(plus - spec)) : spec;
	if (plus)
		off = strtoll(plus + 1, &end, 0);
	if (!*name || pp_is_glob(spec) || (plus && (!plus[1] || *end || off < 0))) {
		rp_fail(r, c->arg->loc, "%s takes \"FUNCTION\" or \"FUNCTION+OFFSET\", without wildcards",
		     family);
		return;
	}
	if (!allowed(r, name, false, false, c->arg->loc, true))
		return;
	rp = rp_add(r, &family_kernel, RP_KSTATEMENT, family, pp_to_string(r->s, r->pp));
	rp->flags = 0;
	rp->module = mod;
	rp->symbol = name;
	rp->offset = off;
}

/* ---- through the kernel's DWARF -------------------------------------------------- */

/*
 * May kernel function f (vmlinux DWARF) be probed: the blacklists by
 * name, and 4.8's by file and section (guru mode lifts them)? When r is
 * given (not -l/-L), a function left out says why in 4.8's words, at the
 * probe (each text once, repeats counted: diag_warn()).
 */
bool kernel_dwarf_allowed(struct session *s, struct resolver *r, struct ubin *b,
			  const struct ufunc *f, bool ret)
{
	const char *by_name, *why;

	if (s->guru)
		return true;
	by_name = blacklisted(s, f->name, ret, true);
	if (!ubin_is_vmlinux(b))	/* a module: its functions' names and files */
		why = kdwarf_file_blacklisted(f->file) ? KDWARF_BL_FILE : NULL;
	else
		why = kdwarf_blacklisted(s, b, f);
	if (!by_name && !why)
		return true;
	if (!r || s->listing)
		return false;
	if (why == KDWARF_BL_SECTION)
		diag_warn(s, r->probe->loc, "function %s is in blocklisted section", f->name);
	else if (by_name)
		diag_warn(s, r->probe->loc, "function %s is blocklisted", f->name);
	else if (why == KDWARF_BL_FILE)
		diag_warn(s, r->probe->loc, "function %s is in blocklisted file", f->name);
	return false;
}

/*
 * kernel.function("P")[suffixes] | kernel.statement("F@FILE...")[.nearest]
 * through the kernel's DWARF when its debuginfo is installed, as 4.8 with
 * it; false when it is not (or for what only the BTF path takes:
 * .maxactive, a statement without a file), for today's BTF resolution.
 */
static bool kernel_dwarf(struct resolver *r, const struct pp_comp *fn,
			 const struct pp_comp *rest, bool stmt)
{
	const char *why, *spec = fn->arg->str, *at = strchr(spec, '@'), *file = NULL;
	const char *glob = at ? arena_strndup(r->s->arena, spec, (size_t)(at - spec)) : spec;
	struct ubin *b;

	if (stmt && !at)
		return false;
	for (const struct pp_comp *x = rest; x; x = x->next)
		if (!strcmp(x->name, "maxactive"))
			return false;
	b = kdwarf_kernel(r->s, &why);
	if (why) {
		rp_fail(r, fn->arg->loc, "%s", why);
		return true;
	}
	if (!b)
		return false;
	if (at)
		file = arena_strndup(r->s->arena, at + 1, strcspn(at + 1, ":+"));
	kdwarf_prepare(r->s, b, glob, file);
	if (stmt)
		process_statement(r, b, fn, rest != NULL);
	else
		process_functions(r, b, fn, rest);
	return true;
}

/* ---- the kernel families ------------------------------------------------------------ */

/* kernel.function("P")[suffixes] | kernel.statement("F+OFF") |
 * kernel.statement(ADDR).absolute (kernel.trace and kernel.data are
 * tracepoint.c's and hwbkpt.c's) */
static void resolve_kernel(struct resolver *r, const struct pp_comp *c)
{
	const struct pp_comp *k = c->next, *fn;
	struct fn_spec f = { .kind = RP_KFUNC, .family = "kernel.function" };

	if (c->arg || !k)
		return;
	if ((fn = pp_take(&k, "function", N_STR))) {
		if (kernel_dwarf(r, fn, k, false))
			return;
		f.glob = fn->arg->str;
		f.loc = fn->arg->loc;
		resolve_functions(r, &f, k);
	} else if (pp_take(&k, "function", N_NUM)) {
		rp_fail(r, r->pp->loc, "kernel.function(ADDRESS) %s", kernel_dwarf_needed);
	} else if (!strcmp(k->name, "statement") && k->arg && k->arg->kind == N_STR) {
		if ((!k->next || (!strcmp(k->next->name, "nearest") && !k->next->arg &&
				  !k->next->next)) && kernel_dwarf(r, k, k->next, true))
			return;
		resolve_statement(r, NULL, k, "kernel.statement");
	} else if (!strcmp(k->name, "statement") && k->arg) {
		statement_absolute(r, k, "kernel.statement");
	}
}

/*
 * module("GLOB").function("P[@FILE]")[suffixes]: in each module GLOB
 * matches, as module("M") of that module: through its DWARF (its debug
 * .ko) when it has one, as 4.8 names them
 * (module("9pnet").function("F@FILE:N")), else through its BTF. When GLOB
 * matches many modules, only those defining a function P names are opened:
 * as their DWARF's index of names says (kmodidx.c: inlined functions too),
 * else their BTF (4.8 reads every module's DWARF: minutes and gigabytes
 * for "*"; the index costs that once).
 */
#define MODULE_GLOB_ALL_DWARF 16

/* May module mod define a function glob matches? */
static bool module_may_define(struct resolver *r, const char *mod, const char *glob)
{
	const char *path = kmod_path(r->s, mod), **names;
	int d = path ? kmodidx_defines(r->s, path, glob) : -1;

	return d > 0 || (d < 0 && kmod_match_functions(r->s, mod, glob, &names) != 0);
}

static void module_glob_functions(struct resolver *r, const struct fn_spec *f,
				  const struct pp_comp *fn)
{
	const char *spec = fn->arg->str, *at = strchr(spec, '@');
	const char *glob = at ? arena_strndup(r->s->arena, spec, (size_t)(at - spec)) : spec;
	const char **mods, **names;
	size_t n = kmod_match_modules(r->s, f->module, &mods), ndwarf = 0;
	struct ubin **bins = arena_alloc(r->s->arena, sizeof(*bins) * (n + 1));
	struct fn_spec g = *f;

	for (size_t i = 0; i < n; i++) {
		bins[i] = NULL;
		if (n > MODULE_GLOB_ALL_DWARF && !module_may_define(r, mods[i], glob))
			continue;
		ndwarf += (bins[i] = kdwarf_module(r->s, mods[i])) != NULL;
	}
	g.glob = spec;
	g.loc = fn->arg->loc;
	if (!ndwarf) {		/* no module's DWARF: their BTF, as before */
		resolve_functions(r, &g, fn->next);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		if (bins[i]) {
			process_functions(r, bins[i], fn, fn->next);
		} else if (n <= MODULE_GLOB_ALL_DWARF ||
			   kmod_match_functions(r->s, mods[i], glob, &names) != 0) {
			g.module = mods[i];
			resolve_functions(r, &g, fn->next);
		}
	}
}

/* module("M").function("P")[suffixes] | module("M").statement("F+OFF") */
static void resolve_module(struct resolver *r, const struct pp_comp *c)
{
	const struct pp_comp *k = c->next, *fn;
	struct fn_spec f = { .kind = RP_KFUNC, .family = "module.function" };
	struct ubin *b;

	if (!c->arg || c->arg->kind != N_STR || !k)
		return;
	f.module = c->arg->str;
	if (pp_is_glob(f.module) && k->arg && k->arg->kind == N_STR &&
	    !strcmp(k->name, "function")) {
		module_glob_functions(r, &f, k);
		return;
	}
	if (!pp_is_glob(f.module) && (b = kdwarf_module(r->s, f.module))) {
		if ((fn = pp_take(&k, "function", N_STR)))	/* its DWARF, as a process's */
			process_functions(r, b, fn, k);
		else if ((fn = pp_take(&k, "statement", N_STR)) && !k)
			process_statement(r, b, fn, false);
		return;
	}
	if ((fn = pp_take(&k, "function", N_STR))) {
		f.glob = fn->arg->str;
		f.loc = fn->arg->loc;
		resolve_functions(r, &f, k);
	} else if (!strcmp(k->name, "statement") && k->arg && k->arg->kind == N_STR) {
		if (!pp_is_glob(f.module))
			resolve_statement(r, f.module, k, "module.statement");
		else
			rp_fail(r, c->arg->loc, "module.statement takes one module, without wildcards");
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
	if ((m = pp_take(&k, "module", N_STR))) {
		f.module = m->arg->str;
		f.family = "kprobe.module";
	}
	if ((fn = pp_take(&k, "function", N_STR))) {
		f.glob = fn->arg->str;
		f.loc = fn->arg->loc;
		resolve_functions(r, &f, k);
	} else if (!m && !strcmp(k->name, "statement") && k->arg &&
		   k->arg->kind == N_NUM) {
		statement_absolute(r, k, "kprobe.statement");
	}
}

/* ---- target variables -------------------------------------------------------- */

int kernel_type_width(struct session *s, const char *type, bool *is_signed)
{
	struct kcatalog *kc = kernel_catalog(s);

	*is_signed = false;
	if (!kc)
		return strchr(type, '*') ? 8 : 0;
	return kcat_type_width(kc, type, is_signed);
}

/* The size of a struct or union parameter passed in registers, else 0. */
static int agg_size(struct session *s, const char *type)
{
	struct kcatalog *kc = kernel_catalog(s);

	return kc ? kcat_type_agg_size(kc, type) : 0;
}

/* The argument register after a parameter of `type` in `slot`: a 16-byte
 * aggregate takes two, or none when only one is left (it goes on the stack
 * and later parameters still use the registers); after one of unknown
 * size, the registers of later parameters are unknown. */
static int next_slot(struct session *s, const char *type, int slot)
{
	struct kcatalog *kc = kernel_catalog(s);
	int regs = kc ? kcat_type_regs(kc, type) : (strchr(type, '*') ? 1 : 0);

	if (!regs)
		return MAX_REG_ARGS + 1;
	if (slot + regs > MAX_REG_ARGS)
		return regs == 2 ? slot : slot + 1;
	return slot + regs;
}

/* Where $name comes from in r. */
static struct targ kernel_targ(struct session *s, const struct rprobe *r,
			       const char *name)
{
	struct targ t = { .src = -1 };
	int slot = 0;

	if (r->kind == RP_KSTATEMENT) {
		t.why = "it is not a kernel.function or kernel.trace probe";
		return t;
	}
	if (r->kind == RP_KPROBE) {
		t.why = "kprobe.function probes have no target variables (no debuginfo)";
		return t;
	}
	if (!strcmp(name, "return")) {
		if (!r->ret) {
			t.why = "only .return probes have $return";
			return t;
		}
		if (!r->ret_type || !strcmp(r->ret_type, "void")) {
			t.why = "the function returns void";
			return t;
		}
		t.width = kernel_type_width(s, r->ret_type, &t.is_signed);
		if (!t.width) {
			t.why = arena_printf(s->arena, "its return type '%s' is not a register value",
					     r->ret_type);
			return t;
		}
		t.src = -2;
		return t;
	}
	if (!r->args && !r->nargs) {
		t.why = "its prototype is not in the kernel's BTF";
		return t;
	}
	for (int i = 0; i < r->nargs; i++) {
		bool sg;
		int w = kernel_type_width(s, r->args[i].type, &sg);
		int agg = agg_size(s, r->args[i].type);

		if (strcmp(r->args[i].name, name)) {
			slot = next_slot(s, r->args[i].type, slot);
			continue;
		}
		if (agg && slot + (agg + 7) / 8 <= MAX_REG_ARGS) {
			t.src = slot;	/* a copy of its registers, by address */
			t.width = STP_TARG_OBJ | agg;
			return t;
		}
		if (!w) {
			t.why = arena_printf(s->arena, "its type '%s' is not a register value",
					     r->args[i].type);
			return t;
		}
		if (slot >= MAX_REG_ARGS) {
			t.why = "only the first six parameters (in registers) can be read";
			return t;
		}
		t.src = slot;
		t.width = w;
		t.is_signed = sg;
		return t;
	}
	t.why = "no such parameter";
	return t;
}

/* Is $name at r the address of a copy of a struct passed in registers? */
static bool kernel_targ_lvalue(struct session *s, const struct rprobe *r, const char *name)
{
	return r->kind == RP_KFUNC && (kernel_targ(s, r, name).width & STP_TARG_OBJ);
}

/* ---- pass 3 ---------------------------------------------------------------------- */

/* A kprobe or kretprobe on "module:function" (or the function), with
 * the arrays of its target variables. */
static void emit_kernel(struct gen *g, struct strbuf *code, const struct rprobe *r, int id)
{
	struct session *s = g->s;
	const char *fields;

	if (!r->symbol || r->offset) {
		diag_error(s, r->point->loc, "%s probes are not supported by this version yet",
			   r->family);
		return;
	}
	fields = tr_targ_arrays(g, code, r, id, r->kind == RP_KFUNC);
	if (r->ret && r->probe->entry_size)
		fields = arena_printf(s->arena, "%s, .entry_handler = probe_%d_entry, "
				      ".entry_size = %s", fields, r->probe->index,
				      r->probe->entry_size);
	/* module("M").function(): the probe follows M (kprobes.c) */
	if (r->module && r->kind == RP_KFUNC)
		fields = arena_printf(s->arena, "%s, .kmodule = %s", fields, tr_cstr(g, r->module));
	/* kprobe.function("F"), the syscall tapsets' points: one macro */
	if (!r->module && !strcmp(r->pp, arena_printf(s->arena, "kprobe.function(\"%s\")",
						      r->symbol))) {
		int targs;
		char end;

		/* ... and most rows are all macro: STP_KP(N, "F"), or
		 * STP_KPT(N, "F", K) with the target variables stp_targs_K */
		if (r->maxactive < 0 && !strcmp(tr_optional(r), "true") && !*fields) {
			tr_table_macro(g, "KPROBES", arena_printf(s->arena, "%s(%d, %s)",
				       r->ret ? "STP_KRP" : "STP_KP", r->probe->index,
				       tr_cstr(g, r->symbol)));
			return;
		}
		if (r->maxactive < 0 && !strcmp(tr_optional(r), "true") &&
		    sscanf(fields, ", .targs = stp_targs_%d%c", &targs, &end) == 1) {
			tr_table_macro(g, "KPROBES", arena_printf(s->arena, "%s(%d, %s, %d)",
				       r->ret ? "STP_KRPT" : "STP_KPT", r->probe->index,
				       tr_cstr(g, r->symbol), targs));
			return;
		}
		tr_table_row(g, "KPROBES", "%s, .handler = probe_%d, STP_KFUNC(%s), "
			     ".maxactive = %lld, .optional = %s%s",
			     r->ret ? "STP_PROBE_KRETPROBE" : "STP_PROBE_KPROBE",
			     r->probe->index, tr_cstr(g, r->symbol),
			     (long long)(r->maxactive >= 0 ? r->maxactive : -1),
			     tr_optional(r), fields);
		return;
	}
	tr_table_row(g, "KPROBES", "%s, .handler = probe_%d, .pp = %s, .symbol = %s, "
		     ".func = %s, .maxactive = %lld, .optional = %s%s",
		  r->ret ? "STP_PROBE_KRETPROBE" : "STP_PROBE_KPROBE",
		  r->probe->index, tr_cstr(g, r->pp),
		  tr_cstr(g, r->module ? arena_printf(s->arena, "%s:%s", r->module, r->symbol) :
			  r->symbol),
		  tr_cstr(g, r->symbol), (long long)(r->maxactive >= 0 ? r->maxactive : -1),
		  tr_optional(r), fields);
}

static const char *const kernel_roots[] = { "kernel", "module", "kprobe", NULL };
static const char *const kernel_shapes[] = {
	"kernel.function.call", "kernel.function.return.maxactive", "kernel.statement",
	"module.function.call", "module.function.return.maxactive", "module.statement",
	"kprobe.function.call", "kprobe.function.return.maxactive",
	"kprobe.module.function.call", "kprobe.module.function.return.maxactive",
	"kprobe.statement", NULL
};

/* The dispatch of the three roots. */
static void resolve_kernel_family(struct resolver *r, const struct pp_comp *c)
{
	if (!strcmp(c->name, "kernel"))
		resolve_kernel(r, c);
	else if (!strcmp(c->name, "module"))
		resolve_module(r, c);
	else
		resolve_kprobe(r, c);
}

const struct family family_kernel = {
	.name = "kernel.function",
	.roots = kernel_roots,
	.shapes = kernel_shapes,
	.flags = RF_PARMS | RF_RETURN | RF_WRITABLE | RF_ENTRY | RF_KRETPROBE,
	.runtime = "KPROBES",
	.resolve = resolve_kernel_family,
	.targ = kernel_targ,
	.targ_lvalue = kernel_targ_lvalue,
	.emit = emit_kernel,
};
