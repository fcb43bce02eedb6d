/*
 * bpf_stack.c - kernel backtraces for --runtime=bpf: backtrace(),
 * print_backtrace(), callers(n) and stack(n) (so caller_addr()) wherever
 * the kernel hands the program a stack: kernel function entry and .return
 * probes (the kprobe's registers), kernel.trace points (the tracepoint's
 * caller), timer.profile and perf.* (the interrupted context: none when
 * it was user mode, as in the module runtime) and uprobes (user mode:
 * none). bpf_get_stack() unwinds with the kernel's unwinder as
 * runtime/sym.c does; at a kprobe's entry the first frame is the probed
 * address (bpf_get_func_ip), where the module runtime's handler puts the
 * ip, and a .return's print_backtrace() starts with "Returning from:" the
 * probed function. The loader names print_backtrace()'s frames
 * (staprun/stapbpf_sym.c). bpf_gen.c's builtin() asks here first.
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
	};

	for (size_t i = 0; i < sizeof(fns) / sizeof(fns[0]); i++)
		if (!strcmp(f->name, fns[i].name) && f->nparams == fns[i].n)
			return true;
	return false;
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
	kind = kstack_kind(g);
	if (kind == KS_NONE) {
		bg_unsupported(g, n, arena_printf(g->s->arena, "the function %s() outside the "
						  "handler of kernel function, kernel.trace, "
						  "perf, timer.profile or process probes "
						  "(of one kind)", n->op));
		return "0";
	}
	g->need_hex = true;
	g->need_kstack = true;
	if (is(n, "print_backtrace", 0)) {
		bg_line(g, "stp_print_bt(ctx, %d, %d, %d);", kind == KS_ENTRY, kind == KS_RET,
			kind == KS_TRACE);
		return "0L";
	}
	k = frames(g, kind);
	t = new_tmp(g);
	if (is(n, "stack", 1)) {
		d = bg_expr(g, n->args);
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
	d = bg_expr(g, n->args);
	bg_line(g, "if (%s >= %s)", d, k);
	depth_error(g, n, d);
	bg_line(g, "stp_bt_str(S, %s, %s, %s, 0);", t, k, d);
	return t;
}

/*
 * stp_kstack: MAXBACKTRACE (20, the module runtime's default) frames into
 * a; at a kprobe's entry the first is the probed address (bpf_get_stack()
 * has the ip past the int3); at a tracepoint, the tracepoint's caller
 * (past the program's frame and bpf_trace_run's). print_backtrace(): a record of the
 * addresses and, in a .return, the probed function (the loader prints
 * them); backtrace() and callers(): frames 0 to last (-1: all) as %#x,
 * separated (callers) or followed (backtrace) by a space.
 */
void bs_types(struct bgen *g, struct strbuf *c)
{
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
		"\tdst[n & STP_MASK] = 0;\n}\n"
		"static __always_inline void stp_depth_error(struct stp_scratch *S, long loc, "
		"long depth)\n{\n\tlong n = 0;\n\n");
	sb_puts(c, "\tS->err = 1;\n\tS->errloc = loc;\n");
	for (const char *p = "cannot unwind to depth "; *p; p++)
		sb_printf(c, "\tstp_put(S->errmsg, &n, '%c');\n", *p);
	sb_puts(c, "\tstp_sfmt_long(S->errmsg, &n, depth, 'd', 0, 0, -1);\n"
		"\tS->errmsg[n & STP_MASK] = 0;\n}\n");
}
