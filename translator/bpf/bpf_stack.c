/*
 * bpf_stack.c - kernel backtraces and symbols for --runtime=bpf:
 * backtrace(), print_backtrace(), sprint_backtrace(), callers(n) and
 * stack(n) wherever the kernel hands the program a stack: kernel function
 * entry and .return probes (the kprobe's registers), kernel.trace points
 * (the tracepoint's caller), timer.profile and perf.* (the interrupted
 * context: none when it was user mode, as in the module runtime) and
 * uprobes (user mode: none). bpf_get_stack() unwinds with the kernel's
 * unwinder as runtime/sym.c does; at a kprobe's entry the first frame is
 * the probed address (bpf_get_func_ip), where the module runtime's
 * handler puts the ip, and a .return's print_backtrace() starts with
 * "Returning from:" the probed function. The loader names
 * print_backtrace()'s frames (staprun/stapbpf_sym.c); sprint_backtrace(),
 * symname(), symdata() and modname() (anywhere) are named in BPF, by the
 * kernel's sprint_symbol() through bpf_snprintf(); user_mode() and
 * addr() by the point's kind; user stacks are bpf_ustack.c's, user
 * symbols bpf_usym.c's. bpf_gen.c's
 * builtin() asks here first.
 */
#include <string.h>

#include "bpf.h"

enum { KS_NONE, KS_ENTRY, KS_RET, KS_TRACE, KS_PLAIN };

static bool is(const struct node *n, const char *name, int nparams)
{
	return !strcmp(n->op, name) && n->func->nparams == nparams;
}

bool bs_has(const struct func *f)
{
	static const struct { const char *name; int n; } fns[] = {
		{ "backtrace", 0 }, { "print_backtrace", 0 }, { "callers", 1 }, { "stack", 1 },
		{ "sprint_backtrace", 0 }, { "symname", 1 }, { "symdata", 1 }, { "modname", 1 },
		{ "user_mode", 0 }, { "addr", 0 },
	};

	for (size_t i = 0; i < sizeof(fns) / sizeof(fns[0]); i++)
		if (!strcmp(f->name, fns[i].name) && f->nparams == fns[i].n)
			return true;
	return bus_has(f) || bsy_has(f);
}

static int point_kind(const struct rprobe *r)
{
	if (bu_is_kprobe(r))
		return r->ret ? KS_RET : KS_ENTRY;
	if (!strcmp(r->family, "kernel.trace"))
		return KS_TRACE;
	if (bu_is_uprobe(r) || !strcmp(r->family, "perf") || !strcmp(r->family, "timer.profile"))
		return KS_PLAIN;
	return KS_NONE;
}

/* the kind of stack of the handler being written (its ctx at hand): that
 * of its point, or of all of its probe's points when they agree */
static int kstack_kind(struct bgen *g)
{
	int kind = KS_NONE;

	if (g->func || !g->probe || g->no_ctx || g->at_entry)
		return KS_NONE;
	if (g->rp)
		return point_kind(g->rp);
	for (const struct rprobe *r = g->s->rprobes; r; r = r->next) {
		int k;

		if (r->probe != g->probe)
			continue;
		k = point_kind(r);
		if (k == KS_NONE || (kind && k != kind))
			return KS_NONE;
		kind = k;
	}
	return kind;
}

bool bs_stack_here(struct bgen *g, const struct node *n)
{
	if (kstack_kind(g) != KS_NONE)
		return true;
	bg_unsupported(g, n, arena_printf(g->s->arena, "the function %s() outside the handler "
					  "of kernel function, kernel.trace, perf, "
					  "timer.profile or process probes (of one kind)", n->op));
	return false;
}

/* user_mode() at point r: 0 or 1, or -1 where the interrupted context's
 * registers tell (perf events, timer.profile), as the module runtime's
 * user_mode(regs) (no registers, as at begin, timers and tracepoints: 0) */
int bs_user_mode_of(const struct rprobe *r)
{
	if (bu_is_uprobe(r))
		return 1;
	return !strcmp(r->family, "perf") || !strcmp(r->family, "timer.profile") ? -1 : 0;
}

static const char *user_mode(struct bgen *g, struct node *n)
{
	int mode = -2;

	if (g->func || !g->probe || g->no_ctx || g->at_entry) {
		bg_unsupported(g, n, "the function user_mode() outside a probe's handler");
		return "0";
	}
	for (const struct rprobe *r = g->s->rprobes; r; r = r->next) {
		if (r->probe != g->probe || (g->rp && r != g->rp))
			continue;
		if (mode != -2 && bs_user_mode_of(r) != mode) {
			bg_unsupported(g, n, "the function user_mode() in a handler of points "
				       "of different kinds");
			return "0";
		}
		mode = bs_user_mode_of(r);
	}
	/* the registers' cs (struct pt_regs, x86-64), the perf event's first member */
	return mode == 1 ? "1L" : mode == -1 ? "(long)((((__u64 *)ctx)[17] & 3) != 0)" : "0L";
}

/* addr(): the registers' ip (pt_regs on x86-64, a perf event's first
 * member), at a kprobe's entry the probed address as in backtraces; 0
 * without registers (begin, timers, tracepoints) */
static const char *addr(struct bgen *g, struct node *n)
{
	const char *v = NULL;

	if (g->func || !g->probe || g->no_ctx || g->at_entry) {
		bg_unsupported(g, n, "the function addr() outside a probe's handler");
		return "0";
	}
	for (const struct rprobe *r = g->s->rprobes; r; r = r->next) {
		const char *here = "0L";

		if (r->probe != g->probe || (g->rp && r != g->rp))
			continue;
		if (bu_is_uprobe(r)) {
			here = NULL;
		} else if (bu_is_kprobe(r) && !r->ret) {
			g->need_kstack = true;
			here = "(long)stp_func_ip(ctx)";
		} else if (bu_is_kprobe(r) && g->fentry) {	/* fexit: no pt_regs */
			bg_unsupported(g, n, "the function addr() in an fexit program");
			return "0";
		} else if (bu_is_kprobe(r) || bs_user_mode_of(r) == -1) {
			here = "(long)((__u64 *)ctx)[16]";
		}
		if (!here || (v && strcmp(v, here))) {
			bg_unsupported(g, n, here ? "the function addr() in a handler of points of "
				       "different kinds" : "the function addr() in a process probe");
			return "0";
		}
		v = here;
	}
	return v ? v : "0L";
}

static const char *new_tmp(struct bgen *g)
{
	return arena_printf(g->s->arena, "t%d", g->ntmp++);
}

/* the frames into S->tmp (as __u64), their number in a new temporary */
static const char *frames(struct bgen *g, int kind)
{
	const char *k = new_tmp(g);

	bg_line(g, "long %s = stp_kstack(ctx, (__u64 *)S->tmp, %d, %d);", k, kind == KS_ENTRY,
		kind == KS_TRACE);
	return k;
}

/* callers(n) and stack(n) past the stack's end: the module runtime's
 * error, near the tapset function */
static void depth_error(struct bgen *g, const struct node *n, const char *depth)
{
	int loc = bg_msg(g, arena_printf(g->s->arena, " near identifier '%s' at %s", n->op,
					 loc_str(g->s, n->func->loc)));

	bg_line(g, "{");
	g->indent++;
	bg_line(g, "stp_depth_error(S, %d, %s);", loc, depth);
	bg_line(g, "goto %s;", bg_errlabel(g));
	g->indent--;
	bg_line(g, "}");
}

const char *bs_call(struct bgen *g, struct node *n)
{
	int kind;
	const char *t, *k, *d;

	if (!n->func->body || n->func->body->kind != N_EMBEDDED_STMT || !bs_has(n->func))
		return NULL;
	if (bus_has(n->func))	/* user stacks: bpf_ustack.c */
		return bus_call(g, n);
	if (bsy_has(n->func))	/* user symbols: bpf_usym.c */
		return bsy_call(g, n);
	if (is(n, "user_mode", 0))
		return user_mode(g, n);
	if (is(n, "addr", 0))
		return addr(g, n);
	if (is(n, "symname", 1) || is(n, "symdata", 1) || is(n, "modname", 1)) {
		d = bg_expr(g, n->args);
		g->need_ksym = true;
		t = new_tmp(g);
		bg_line(g, "char *%s = %s; long %s_n = 0;", t, bg_slot(g), t);
		if (n->op[0] == 'm') {
			bg_line(g, "if (stp_sym_put(S, %s, &%s_n, %s, 3) < 0)", t, t, d);
			bg_fail(g, arena_printf(g->s->arena, "Cannot determine kernel module name "
						"near identifier '%s' at %s", n->op,
						loc_str(g->s, n->func->loc)));
		} else {
			bg_line(g, "stp_sym_put(S, %s, &%s_n, %s, %d);", t, t, d, n->op[3] == 'd');
		}
		bg_line(g, "%s[%s_n & STP_MASK] = 0;", t, t);
		return t;
	}
	kind = kstack_kind(g);
	if (!bs_stack_here(g, n))
		return "0";
	g->need_hex = true;
	g->need_kstack = true;
	if (is(n, "print_backtrace", 0)) {
		bg_line(g, "stp_print_bt(ctx, %d, %d, %d);", kind == KS_ENTRY, kind == KS_RET,
			kind == KS_TRACE);
		return "0L";
	}
	d = n->args ? bg_expr(g, n->args) : NULL;	/* before the frames fill S->tmp */
	k = frames(g, kind);
	t = new_tmp(g);
	if (is(n, "stack", 1)) {
		bg_line(g, "if (%s < 0 || %s >= %s)", d, d, k);
		depth_error(g, n, d);
		bg_line(g, "long %s = ((__u64 *)S->tmp)[%s & (STP_MAXBT - 1)];", t, d);
		return t;
	}
	bg_line(g, "char *%s = %s;", t, bg_slot(g));
	if (is(n, "backtrace", 0)) {
		bg_line(g, "stp_bt_str(S, %s, %s, -1, 1);", t, k);
		return t;
	}
	if (is(n, "sprint_backtrace", 0)) {
		g->need_ksym = true;
		bg_line(g, "stp_bt_syms(S, %s, %s);", t, k);
		return t;
	}
	bg_line(g, "if (%s >= %s)", d, k);
	depth_error(g, n, d);
	bg_line(g, "stp_bt_str(S, %s, %s, %s, 0);", t, k, d);
	return t;
}

/*
 * stp_sym_put: at dst[*len] the kernel symbol at addr as runtime/sym.c's
 * stp_sym_emit() writes it (style 1, data: "name+0xoff/0xsize [module]";
 * 0 the name, 2 without the size, 3 the module), the hex address where
 * there is none (-1; modname() writes nothing then); from the kernel's own
 * sprint_symbol(), bpf_snprintf()'s %pS, "kernel" added for the kernel
 * itself. stp_bt_syms: sprint_backtrace()'s "name+0xoff [module]" lines.
 */
static void emit_ksym(struct strbuf *c)
{
	sb_puts(c, "static long (*stp_snprintf)(char *str, __u32 size, const char *fmt, "
		"__u64 *data, __u32 len) = (void *)165;\n"
		"static const char stp_fmt_sym[] STP_RODATA = \"%pS\";\n"
		"static const char stp_in_kernel[] STP_RODATA = \" [kernel]\";\n"
		"#define STP_SYMBUF 128\n"
		"/* the scan's state in the scratch, as the quoting's (see bpf_loop) */\n"
		"struct stp_symscan {\n\tlong out, k, n, plus, slash, sp;\n};\n"
		"struct stp_symctx {\n\tstruct stp_scratch *S;\n\tchar *dst;\n};\n"
		"#define STP_SYMST(S) ((struct stp_symscan *)((S)->tmp + STP_TMPLEN - STP_SYMBUF - 64))\n"
		"static long stp_sym_step(__u32 i, struct stp_symctx *c)\n{\n"
		"\tstruct stp_symscan *st = STP_SYMST(c->S);\n"
		"\tchar ch = c->S->tmp[STP_TMPLEN - STP_SYMBUF + (i & (STP_SYMBUF - 1))];\n\n"
		"\tif (i >= st->n)\n\t\treturn 1;\n"
		"\tif (ch == '+' && st->sp < 0) {\n\t\tst->plus = i;\n\t\tst->slash = -1;\n\t}\n"
		"\tif (ch == '/' && st->plus >= 0 && st->slash < 0)\n\t\tst->slash = i;\n"
		"\tif (ch == ' ' && st->slash >= 0 && st->sp < 0)\n\t\tst->sp = i;\n\treturn 0;\n}\n"
		"static __always_inline long stp_sym_put(struct stp_scratch *S, char *dst, "
		"long *len, __u64 addr, long style)\n{\n"
		"\tchar *b = S->tmp + STP_TMPLEN - STP_SYMBUF;\n"
		"\tstruct stp_symscan *st = STP_SYMST(S);\n"
		"\tstruct stp_symctx c = { S, dst };\n"
		"\tlong n = stp_snprintf(b, STP_SYMBUF, stp_fmt_sym, &addr, 8) - 1, plus, slash, sp;\n\n"
		"\tif (n <= 0 || n >= STP_SYMBUF)\n\t\treturn -1;\n"
		"\tst->n = n;\n\tst->plus = st->slash = st->sp = -1;\n"
		"\tbpf_loop(STP_SYMBUF, stp_sym_step, &c, 0);\n"
		"\tplus = st->plus;\n\tslash = st->slash;\n\tsp = st->sp;\n"
		"\tif (slash < 0) {\t/* no symbol: its hex address */\n"
		"\t\tif (style != 3)\n\t\t\tstp_putn(dst, len, b, n);\n\t\treturn -1;\n\t}\n"
		"\tif (!style) {\n\t\tstp_putn(dst, len, b, plus);\n\t\treturn 0;\n\t}\n"
		"\tif (style == 3 && sp >= 0)\t/* \" [module]\" */\n"
		"\t\tstp_putn(dst, len, b + ((sp + 2) & (STP_SYMBUF - 1)), n - sp - 3);\n"
		"\telse if (style == 3)\n\t\tstp_putn(dst, len, stp_in_kernel + 2, 6);\n"
		"\tif (style == 3)\n\t\treturn 0;\n"
		"\tstp_putn(dst, len, b, style == 2 ? slash : sp < 0 ? n : sp);\n"
		"\tif (sp >= 0)\n"
		"\t\tstp_putn(dst, len, b + (sp & (STP_SYMBUF - 1)), n - sp);\n"
		"\telse\n\t\tstp_putn(dst, len, stp_in_kernel, 9);\n\treturn 0;\n}\n");
}

/*
 * stp_kstack: MAXBACKTRACE (20, the module runtime's default) frames into
 * a; at a kprobe's entry the first is the probed address (bpf_get_stack()
 * has the ip past the int3); at a tracepoint, the tracepoint's caller
 * (past the program's frame and bpf_trace_run's). print_backtrace(): a
 * record of the addresses and, in a .return, the probed function (the
 * loader prints them); backtrace() and callers(): frames 0 to last (-1:
 * all) as %#x, separated (callers) or followed (backtrace) by a space.
 */
static void kstack_types(struct bgen *g, struct strbuf *c)
{
	if (g->need_ksym)
		emit_ksym(c);
	if (!g->need_kstack)
		return;
	sb_puts(c, "#define STP_REC_BT 0xffff0006u\n#define STP_MAXBT 32\n#define STP_NBT 20\n"
		"static long (*stp_get_stack)(void *ctx, void *buf, __u32 size, __u64 flags) = "
		"(void *)67;\n"
		"static __u64 (*stp_func_ip)(void *ctx) = (void *)173;\n"
		"static __always_inline long stp_kstack(void *ctx, __u64 *a, long entry, long tp)\n{\n"
		"\tlong k = stp_get_stack(ctx, a, STP_NBT * 8, tp ? 2 : 0);\n\n"
		"\tk = k > 0 ? (long)((__u64)k / 8) : 0;\n"
		"\tif (k && entry)\n\t\ta[0] = stp_func_ip(ctx);\n\treturn k;\n}\n"
		"static __always_inline void stp_print_bt(void *ctx, long entry, long ret, long tp)\n{\n"
		"\tstruct { __u32 id, n; __u64 from, a[STP_NBT]; } *r = "
		"bpf_ringbuf_reserve(&stp_rb, sizeof(*r), 0);\n\n"
		"\tif (!r)\n\t\treturn;\n\tr->id = STP_REC_BT;\n"
		"\tr->n = stp_kstack(ctx, r->a, entry, tp);\n"
		"\tr->from = ret ? stp_func_ip(ctx) : 0;\n"
		"\tbpf_ringbuf_submit(r, 0);\n}\n"
		"static __always_inline void stp_bt_str(struct stp_scratch *S, char *dst, long k, "
		"long last, long trail)\n{\n\t__u64 *a = (__u64 *)S->tmp;\n\tlong n = 0;\n\n"
		"\tfor (int i = 0; i < STP_NBT; i++) {\n"
		"\t\tif (i >= k || (last >= 0 && i > last) || n > STP_MAXSTR - 21)\n\t\t\tbreak;\n"
		"\t\tif (i && !trail)\n\t\t\tdst[n++ & STP_MASK] = ' ';\n"
		"\t\tn = stp_hex((struct stp_hexbuf *)dst, n, a[i]);\n"
		"\t\tif (trail)\n\t\t\tdst[n++ & STP_MASK] = ' ';\n\t}\n"
		"\tdst[n & STP_MASK] = 0;\n}\n");
	if (g->need_ksym)
		sb_puts(c, "static long stp_bt_sym_step(__u32 i, struct stp_symctx *c)\n{\n"
			"\tstruct stp_symscan *st = STP_SYMST(c->S);\n"
			"\tlong n = st->out;\n\n"
			"\tif (i >= st->k || i >= STP_NBT)\n\t\treturn 1;\n"
			"\tstp_sym_put(c->S, c->dst, &n, ((__u64 *)c->S->tmp)[i & (STP_MAXBT - 1)], 2);\n"
			"\tstp_put(c->dst, &n, '\\n');\n\tst->out = n;\n\treturn 0;\n}\n"
			"static __always_inline void stp_bt_syms(struct stp_scratch *S, char *dst, long k)\n"
			"{\n\tstruct stp_symscan *st = STP_SYMST(S);\n"
			"\tstruct stp_symctx c = { S, dst };\n\n"
			"\tst->out = 0;\n\tst->k = k;\n"
			"\tbpf_loop(STP_NBT, stp_bt_sym_step, &c, 0);\n"
			"\tdst[st->out & STP_MASK] = 0;\n}\n");
	bus_types(g, c);
	sb_puts(c, "static __always_inline void stp_depth_error(struct stp_scratch *S, long loc, "
		"long depth)\n{\n\tlong n = 0;\n\n");
	sb_puts(c, "\tS->err = 1;\n\tS->errloc = loc;\n");
	for (const char *p = "cannot unwind to depth "; *p; p++)
		sb_printf(c, "\tstp_put(S->errmsg, &n, '%c');\n", *p);
	sb_puts(c, "\tstp_sfmt_long(S->errmsg, &n, depth, 'd', 0, 0, -1);\n"
		"\tS->errmsg[n & STP_MASK] = 0;\n}\n");
}

void bs_types(struct bgen *g, struct strbuf *c)
{
	kstack_types(g, c);
	bsy_types(g, c);
}
