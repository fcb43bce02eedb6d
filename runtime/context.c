/* SPDX-License-Identifier: GPL-2.0 */
/*
 * context.c - probe entry and exit: the per-CPU context, re-entrancy,
 * error reporting and the error/skip limits; arithmetic and string
 * helpers used by handlers.
 */
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <linux/ptrace.h>
#include <linux/kallsyms.h>

struct stp_context **stp_contexts;	/* nr_cpu_ids entries (stp_runtime.h) */
static atomic_t stp_error_count = ATOMIC_INIT(0);
static atomic_t stp_skipped_count = ATOMIC_INIT(0);
static atomic_t stp_reentrant_count = ATOMIC_INIT(0);

static void stp_request_exit(void);

/* Queue "PREFIX: text\n" (newline added if missing); any context. */
static __printf(2, 0) void stp_vmsg(const char *prefix, const char *fmt,
				    va_list ap)
{
	char buf[MAXSTRINGLEN + 64];
	int n;

	n = scnprintf(buf, sizeof(buf), "%s", prefix);
	n += vscnprintf(buf + n, sizeof(buf) - n, fmt, ap);
	if (n && buf[n - 1] != '\n' && n < sizeof(buf) - 1)
		buf[n++] = '\n';
	stp_ctl_queue(STP_MSG_OOB, buf, n);
}

void stp_error_msg(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	stp_vmsg("ERROR: ", fmt, ap);
	va_end(ap);
}

void stp_warn_msg(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	stp_vmsg("WARNING: ", fmt, ap);
	va_end(ap);
}

static atomic_t stp_system_dropped = ATOMIC_INIT(0);

/* system(cmd): stapio runs cmd; any context but NMI, no wakeup (the
 * control timer wakes stapio). A full queue drops it; 4.8's warning
 * follows once there is room (stp_system_warn()). */
void stp_system(const char *cmd)
{
	if (stp_ctl_queue(STP_MSG_SYSTEM, cmd, strnlen(cmd, MAXSTRINGLEN - 1) + 1))
		atomic_set(&stp_system_dropped, 1);
}

/* switch_file(): what this CPU printed so far goes to the current output
 * file, the rest to the next one; a marker record in the output's
 * sequence tells stapio where (it ignores it without -o). */
void stp_switch_file(void)
{
	stp_print_flush_this_cpu();
	stp_relay_put(STP_TRACE_SWITCH, NULL, 0);
}

/* Control timer and session end: report dropped system() commands. */
static void stp_system_warn(void)
{
	static const char msg[] = "WARNING: too many pending (system) messages\n";

	if (atomic_read(&stp_system_dropped) &&
	    !stp_ctl_queue(STP_MSG_OOB, msg, sizeof(msg) - 1))
		atomic_set(&stp_system_dropped, 0);
}

/* A handler set c->last_error: report it; too many errors end the run.
 * With --suppress-handler-errors (STAP_SUPPRESS_HANDLER_ERRORS) the error
 * only ends its handler: it is counted for the final warning, not
 * reported, and MAXERRORS is not enforced. */
static void stp_report_error(struct stp_context *c)
{
#ifdef STAP_SUPPRESS_HANDLER_ERRORS
	atomic_inc(&stp_error_count);
	return;
#endif
	if (c->last_stmt && c->last_stmt[0])
		stp_error_msg("%s near %s", c->last_error, c->last_stmt);
	else
		stp_error_msg("%s", c->last_error);
	if (atomic_inc_return(&stp_error_count) > MAXERRORS)
		stp_request_exit();
}

/* STP_CALL_FRAME past MAXNESTING: the error, at the callee's definition. */
noinline __cold void stp_call_deep(struct stp_context *c, unsigned int def)
{
	c->last_error = "MAXNESTING exceeded";
	c->last_stmt = stp_locs[def];
}

/* STP_CALL's callee failed: name the place if it did not (see
 * stp_runtime.h); a MAXACTION error then still bypasses try/catch, whose
 * catch passes it on. */
noinline __cold void stp_call_failed(struct stp_context *c, unsigned int at,
					    unsigned int def)
{
	if (c->last_stmt)
		return;
	if (c->last_error == stp_msg_maxaction || c->last_error == stp_msg_no_overload)
		c->last_stmt = stp_locs[at];
	else
		c->last_stmt = stp_locs[def];
}

static void stp_check_skipped(void)
{
	static atomic_t reported = ATOMIC_INIT(0);

#ifdef STAP_SUPPRESS_HANDLER_ERRORS
	return;		/* MAXSKIPPED is not enforced either */
#endif
	if (atomic_read(&stp_skipped_count) <= MAXSKIPPED)
		return;
	if (atomic_cmpxchg(&reported, 0, 1))
		return;
	stp_error_msg("Skipped too many probes, check MAXSKIPPED or try again with stap -t for more details.");
	stp_request_exit();
}

#ifdef STP_PRIVILEGE_STAPUSR
static kuid_t stp_uid;		/* who loaded the module (stp_context_init) */

bool stp_is_myproc(void)
{
	return uid_eq(current_euid(), stp_uid);
}

/* The probes that run in a user's process: only in the loader's own. */
static bool stp_probe_not_mine(const struct stp_probe *p)
{
	return p->kind >= STP_PROBE_UPROBE && p->kind <= STP_PROBE_SYSCALL_RETURN &&
	       !stp_is_myproc();
}
#else
static bool stp_probe_not_mine(const struct stp_probe *p)
{
	(void)p;
	return false;
}
#endif

/* Run one handler on this CPU's context. Any context; never sleeps.
 * regs and args: a kernel probe's registers and raw arguments, or NULL;
 * uaddr: a process probe's address; ret_from and entry_data: a
 * kretprobe's function and @entry values; pd: a procfs probe's $value, or
 * NULL. False when the handler raised an error (or did not run). */
static bool stp_run_probe_full(const struct stp_probe *p,
			       void (*handler)(struct stp_context *c),
			       struct pt_regs *regs, const unsigned long *args,
			       unsigned long uaddr, unsigned long ret_from,
			       void *entry_data, struct stp_procfs_data *pd)
{
	struct stp_context *c;
	bool ok = false;
	u64 start;

	if (stp_probe_not_mine(p))
		return false;
	preempt_disable();
	c = stp_contexts[smp_processor_id()];
	if (atomic_cmpxchg(&c->busy, 0, 1)) {
#ifdef STP_TIMING	/* as 4.8's INTERRUPTIBLE mode: counted with -t only */
		atomic_inc(&stp_reentrant_count);
#endif
		goto out;
	}
	c->probe_point = p->pp;
	c->probe_name = p->pn;
	c->last_error = NULL;
	c->last_stmt = NULL;
	c->actionremaining = MAXACTION_INTERRUPTIBLE;
	c->nesting = 0;
	c->probe = p;
	c->regs = regs;
	c->sregs = NULL;
	c->sregs_compat = false;
	c->args = args;
	c->uaddr = uaddr;
	c->ret_from = ret_from;
	c->entry_data = entry_data;
	c->nbt = -1;
	c->procfs = pd;
	start = stp_timing_start();
	handler(c);
	stp_timing_add(p, start);
	if (unlikely(c->last_error == stp_msg_aborted))
		c->last_error = NULL;
	ok = !c->last_error;
	if (unlikely(c->last_error))
		stp_report_error(c);
	c->procfs = NULL;
	stp_check_skipped();
	stp_print_flush_this_cpu();
	atomic_set(&c->busy, 0);
out:
	preempt_enable();
	return ok;
}

static void stp_run_probe_kctx(const struct stp_probe *p,
			       void (*handler)(struct stp_context *c),
			       struct pt_regs *regs, const unsigned long *args,
			       unsigned long ret_from, void *entry_data)
{
	stp_run_probe_full(p, handler, regs, args, 0, ret_from, entry_data, NULL);
}

static void stp_run_probe_uctx(const struct stp_probe *p, struct pt_regs *regs,
			       const unsigned long *args, unsigned long uaddr)
{
	stp_run_probe_full(p, p->handler, regs, args, uaddr, 0, NULL, NULL);
}

static void stp_run_probe_ctx(const struct stp_probe *p, struct pt_regs *regs,
			      const unsigned long *args)
{
	stp_run_probe_full(p, p->handler, regs, args, 0, 0, NULL, NULL);
}

static bool stp_run_probe_data(const struct stp_probe *p,
			       struct stp_procfs_data *d)
{
	return stp_run_probe_full(p, p->handler, NULL, NULL, 0, 0, NULL, d);
}

static void stp_run_probe(const struct stp_probe *p)
{
	stp_run_probe_ctx(p, NULL, NULL);
}

/* A struct passed in argument registers: the address of a copy of its
 * bytes (the translator keeps it within the six argument registers). */
static int64_t stp_targ_copy(struct stp_context *c, const struct stp_targ *t)
{
	int n = t->width & ~STP_TARG_OBJ;
	void *o;

	if (t->src < 0 || n > 16 || t->src + (n + 7) / 8 > 6) {
		c->last_error = "target variable not available here";
		return 0;
	}
	o = stp_uobj(c);
	memcpy(o, &c->args[t->src], n);
	return (int64_t)(uintptr_t)o;
}

static int64_t stp_targ_value(struct stp_context *c, const struct stp_targ *t)
{
	unsigned long v;

	if (!t || t->src == STP_TARG_NONE) {
		c->last_error = "target variable not available here";
		return 0;
	}
	if (t->src == STP_TARG_GET) {
		if (!t->get || !c->regs) {
			c->last_error = "target variable not available here";
			return 0;
		}
		v = (unsigned long)t->get(c);
	} else if (t->src == STP_TARG_RETURN) {
		if (!c->regs) {
			c->last_error = "$return not available here";
			return 0;
		}
		v = regs_return_value(c->regs);
	} else {
		if (!c->args) {
			c->last_error = "target variable not available here";
			return 0;
		}
		if (t->width & STP_TARG_OBJ)
			return stp_targ_copy(c, t);
		v = c->args[t->src];
	}
	switch (t->width) {
	case 1:
		return t->is_signed ? (int64_t)(s8)v : (int64_t)(u8)v;
	case 2:
		return t->is_signed ? (int64_t)(s16)v : (int64_t)(u16)v;
	case 4:
		return t->is_signed ? (int64_t)(s32)v : (int64_t)(u32)v;
	default:
		return (int64_t)v;
	}
}

int64_t stp_target(struct stp_context *c, int k)
{
	return stp_targ_value(c, c->probe && c->probe->targs ?
			      &c->probe->targs[k] : NULL);
}

/* " a=0x1 b=0xffffff9c" of the list p (no leading space when first). */
static void stp_pretty_list(struct stp_context *c, struct stp_sink *sk,
			    const struct stp_parm *p, bool *first)
{
	static const struct stp_spec hex = { 'x', STP_F_ALT, -1, -1 };
	u64 v;

	for (; p && p->name; p++) {
		if (!*first)
			stp_emit_lit(sk, " ", 1);
		*first = false;
		stp_emit_lit(sk, p->name, strlen(p->name));
		stp_emit_lit(sk, "=", 1);
		if (p->t.src == STP_TARG_NONE || p->t.src == STP_TARG_AGG ||
		    p->t.src == STP_TARG_ARRAY) {
			stp_emit_lit(sk, p->t.src == STP_TARG_AGG ? "{...}" :
				     p->t.src == STP_TARG_ARRAY ? "[...]" : "?",
				     p->t.src == STP_TARG_NONE ? 1 : 5);
			continue;
		}
		c->last_error = NULL;
		v = (u64)stp_targ_value(c, &p->t);
		if (c->last_error) {
			stp_emit_lit(sk, "?", 1);
			continue;
		}
		if (p->t.width < 8)
			v &= (1ULL << (p->t.width * 8)) - 1;
		stp_emit_long(sk, (int64_t)v, &hex);
	}
}

/* $var = v in guru mode: the register of parameter K at a function's
 * entry (and the copy later reads see), or rax for $return. */
void stp_target_set(struct stp_context *c, int k, int64_t v)
{
	const struct stp_targ *t = c->probe && c->probe->targs ?
				   &c->probe->targs[k] : NULL;

	if (t && t->src == STP_TARG_GET && t->set && c->regs) {
		t->set(c, v);	/* a process probe's variable, by its location */
		return;
	}
	if (t && c->args && c->probe->kind == STP_PROBE_NETFILTER && t->src == 5) {
		/* $verdict: the hook's own argument array (netfilter.c) */
		((unsigned long *)c->args)[t->src] = v;
		return;
	}
	if (!t || !c->regs || t->src == STP_TARG_NONE || t->src == STP_TARG_GET ||
	    (t->src >= 0 && (!c->args || (c->probe->kind != STP_PROBE_KPROBE &&
					  c->probe->kind != STP_PROBE_UPROBE)))) {
		c->last_error = "target variable not writable here";
		return;
	}
#ifdef CONFIG_X86_64
	switch (t->src) {
	case STP_TARG_RETURN: c->regs->ax = v; return;
	case 0: c->regs->di = v; break;
	case 1: c->regs->si = v; break;
	case 2: c->regs->dx = v; break;
	case 3: c->regs->cx = v; break;
	case 4: c->regs->r8 = v; break;
	case 5: c->regs->r9 = v; break;
	default:
		c->last_error = "target variable not writable here";
		return;
	}
	((unsigned long *)c->args)[t->src] = v;
#else
	c->last_error = "target variable not writable here";
#endif
}

/* "a=0x1 b=0xffffff9c": each value in hex at its type's width, "?" when
 * it cannot be read; $$return is "return=0x...". Modes: 0 $$parms,
 * 1 $$return, 2 $$locals, 3 $$vars, 4 $$name, 5 $$provider. */
void stp_target_pretty(struct stp_context *c, char *dst, int mode)
{
	static const struct stp_spec hex = { 'x', STP_F_ALT, -1, -1 };
	const struct stp_probe *pr = c->probe;
	const char *err = c->last_error;
	struct stp_sink sk;
	bool first = true;
	u64 v;

	stp_sink_string(&sk, dst);
	if (!pr)
		return;
	if (mode == 4 || mode == 5) {
		const char *t = !stp_probe_is_uprobe(pr) ? NULL :
				mode == 4 ? pr->sdt_name : pr->sdt_provider;

		if (t)
			stp_emit_lit(&sk, t, strlen(t));
		return;
	}
	if (mode == 1) {
		struct stp_targ t = { STP_TARG_RETURN, 8, 0 };

		if (pr->kind != STP_PROBE_KRETPROBE && pr->kind != STP_PROBE_URETPROBE)
			return;
		v = (u64)stp_targ_value(c, &t);
		stp_emit_lit(&sk, "return=", 7);
		stp_emit_long(&sk, (int64_t)v, &hex);
		c->last_error = err;
		return;
	}
	if (mode == 3 && pr->vars)
		stp_pretty_list(c, &sk, pr->vars, &first);
	if (mode != 2 && !(mode == 3 && pr->vars))
		stp_pretty_list(c, &sk, pr->parms, &first);
	if (mode >= 2 && !(mode == 3 && pr->vars))
		stp_pretty_list(c, &sk, pr->locals, &first);
	c->last_error = err;
}

int64_t stp_div(struct stp_context *c, int64_t a, int64_t b)
{
	if (unlikely(b == 0)) {
		c->last_error = "division by 0";
		return 0;
	}
	if (unlikely(b == -1))
		return (int64_t)(0 - (u64)a);	/* INT64_MIN / -1 wraps */
	return div64_s64(a, b);
}

int64_t stp_mod(struct stp_context *c, int64_t a, int64_t b)
{
	s64 q;

	if (unlikely(b == 0)) {
		c->last_error = "division by 0";
		return 0;
	}
	if (unlikely(b == -1))
		return 0;
	q = div64_s64(a, b);
	return a - q * b;
}

void stp_str_copy(char *dst, const char *src)
{
	strscpy(dst, src, MAXSTRINGLEN);
}

/* src may be dst itself (`s .= s`): its length is taken before copying */
void stp_str_cat(char *dst, const char *src)
{
	size_t n = strnlen(dst, MAXSTRINGLEN - 1);
	size_t m = strnlen(src, MAXSTRINGLEN - 1 - n);

	memmove(dst + n, src, m);
	dst[n + m] = '\0';
}

static int stp_context_init(void)
{
	unsigned int cpu;
	struct stp_context *c;

#ifdef STP_PRIVILEGE_STAPUSR
	stp_uid = current_uid();	/* init_module(2)'s caller: staprun's user */
#endif
	stp_contexts = kcalloc(nr_cpu_ids, sizeof(*stp_contexts), GFP_KERNEL);
	if (!stp_contexts)
		return -ENOMEM;
	for_each_possible_cpu(cpu) {
		c = kzalloc(sizeof(*c), GFP_KERNEL);
		if (!c)
			return -ENOMEM;
		stp_contexts[cpu] = c;
		c->locals = kvzalloc(STP_LOCALS_SIZE, GFP_KERNEL);
		c->sym_buf = kmalloc(KSYM_SYMBOL_LEN, GFP_KERNEL);
		if (!c->locals || !c->sym_buf)
			return -ENOMEM;
	}
	return 0;
}

static void stp_context_exit(void)
{
	unsigned int cpu;

	if (!stp_contexts)
		return;
	for_each_possible_cpu(cpu) {
		if (stp_contexts[cpu]) {
			kvfree(stp_contexts[cpu]->locals);
			kfree(stp_contexts[cpu]->sym_buf);
		}
		kfree(stp_contexts[cpu]);
	}
	kfree(stp_contexts);
	stp_contexts = NULL;
}
