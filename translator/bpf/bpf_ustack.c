/*
 * bpf_ustack.c - user stacks for --runtime=bpf, as far as BPF can have
 * them: ubacktrace(), __ucallers() (ucallers(n)), __ustack_at()
 * (ustack(n)) and uaddr() from bpf_get_stack(BPF_F_USER_STACK) in the
 * handler of kernel function, kernel.trace, perf, timer.profile and
 * process probes, in the module runtime's formats (hex addresses,
 * MAXBACKTRACE = 20 frames). The kernel walks the user stack by frame
 * pointers, where the module runtime unwinds with .eh_frame: the frames
 * agree in code built with frame pointers (-fno-omit-frame-pointer, -O0),
 * not past a function built without them. At a process().function()
 * uprobe (the function's first instruction, before its frame is made)
 * the caller's return address, at the stack pointer, is put after the
 * probed address, where the frame-pointer walk of a kernel before 6.12
 * misses it. The
 * symbolic ones (print_ubacktrace(), print_ubacktrace_brief(),
 * sprint_ubacktrace()) are bpf_usym.c's over the same frames
 * (bsy_stack()). bpf_stack.c's bs_call() asks here (bus_call()).
 */
#include <string.h>

#include "bpf.h"

static const struct { const char *name; int n; } fns[] = {
	{ "ubacktrace", 0 }, { "__ucallers", 1 }, { "__ustack_at", 1 }, { "uaddr", 0 },
	{ "ucallers", 1 }, { "ustack", 1 },	/* script functions: bus_script() */
	{ "print_ubacktrace", 0 }, { "print_ubacktrace_brief", 0 },	/* bpf_usym.c's */
	{ "sprint_ubacktrace", 0 },
};

bool bus_has(const struct func *f)
{
	for (size_t i = 0; i < sizeof(fns) / sizeof(fns[0]); i++)
		if (!strcmp(f->name, fns[i].name) && f->nparams == fns[i].n)
			return true;
	return false;
}

/* is the handler being written that of uprobes at a function's entry
 * only (1), of none (0), or of points of other kinds (-1) */
static int at_uentry(struct bgen *g)
{
	int k = -2;

	for (const struct rprobe *r = g->s->rprobes; r; r = r->next) {
		int here;

		if (r->probe != g->probe || (g->rp && r != g->rp))
			continue;
		here = bu_is_uprobe(r) && !r->ret;
		if (k != -2 && here != k)
			return -1;
		k = here;
	}
	return k == 1;
}

static const char *new_tmp(struct bgen *g)
{
	return arena_printf(g->s->arena, "t%d", g->ntmp++);
}

const char *bus_call(struct bgen *g, struct node *n)
{
	const char *d = NULL, *k, *t;
	int entry;

	const char *op = !strcmp(n->op, "ucallers") ? "__ucallers" :
			 !strcmp(n->op, "ustack") ? "__ustack_at" : n->op;

	if (!bus_has(n->func) || !n->func->body ||
	    (n->func->body->kind != N_EMBEDDED_STMT && op == n->op))
		return NULL;
	if (!bs_stack_here(g, n))
		return "0";
	entry = at_uentry(g);
	if (entry < 0) {
		bg_unsupported(g, n, arena_printf(g->s->arena, "the function %s() in a handler "
						  "of process function probes and others", n->op));
		return "0";
	}
	g->need_hex = true;
	g->need_kstack = true;	/* bpf_stack.c's stp_bt_str() */
	if ((t = bsy_stack(g, n, entry)))
		return t;
	if (n->args)
		d = bg_expr(g, n->args);	/* before the frames fill S->tmp */
	k = new_tmp(g);
	bg_line(g, "long %s = stp_ustack(ctx, (__u64 *)S->tmp, %d);", k, entry);
	t = new_tmp(g);
	if (!strcmp(op, "uaddr")) {
		bg_line(g, "long %s = %s ? ((__u64 *)S->tmp)[0] : 0;", t, k);
		return t;
	}
	if (!strcmp(op, "__ustack_at")) {
		bg_line(g, "long %s = %s < 0 || %s >= %s ? -1 : "
			"((__u64 *)S->tmp)[%s & (STP_MAXBT - 1)];", t, d, d, k, d);
		return t;
	}
	bg_line(g, "char *%s = %s;", t, bg_slot(g));
	if (!strcmp(op, "ubacktrace")) {
		bg_line(g, "stp_bt_str(S, %s, %s, -1, 1);", t, k);
		return t;
	}
	/* __ucallers(n): frames 0 to n (-1: all), "" past the stack's end */
	bg_line(g, "%s[0] = 0;", t);
	bg_line(g, "if (%s > 0 && %s < %s)", k, d, k);
	bg_line(g, "\tstp_bt_str(S, %s, %s, %s, 0);", t, k, d);
	return t;
}

/* ucallers(n) and ustack(n), the tapset's script functions over
 * __ucallers() and __ustack_at(), written in the handler (which has the
 * ctx): the value, or the error "reached end of stack before unwinding to
 * level n" raised as their error() raises it; NULL for other calls */
const char *bus_script(struct bgen *g, struct node *n)
{
	struct node *f = n->func ? n->func->body : NULL;
	const char *v, *d, *bad;

	if (!f || f->kind == N_EMBEDDED_STMT || !bus_has(n->func) || !n->args)
		return NULL;
	v = bus_call(g, n);
	if (!strcmp(v, "0"))
		return v;
	d = arena_printf(g->s->arena, "%s_d", v);
	bad = !strcmp(n->op, "ustack") ? arena_printf(g->s->arena, "%s == -1", v) :
	      arena_printf(g->s->arena, "%s[0] == 0", v);
	bg_line(g, "long %s = %s;", d, bg_expr(g, n->args));
	bg_line(g, "if (%s) {", bad);
	bg_line(g, "\tstp_uend_error(S, %s);", d);
	bg_line(g, "\tgoto %s;", bg_errlabel(g));
	bg_line(g, "}");
	return v;
}

/* stp_ustack: the user stack's frames into a (STP_NBT at most); at a
 * function's entry the return address at the stack pointer after the
 * first */
void bus_types(struct bgen *g, struct strbuf *c)
{
	(void)g;
	sb_puts(c, "static __always_inline long stp_ustack(void *ctx, __u64 *a, long entry)\n{\n"
		"\tlong k = stp_get_stack(ctx, a, STP_NBT * 8, 256);\t/* BPF_F_USER_STACK */\n"
		"\t__u64 ret = 0;\n\n"
		"\tk = k > 0 ? (long)((__u64)k / 8) : 0;\n"
		"\tif (!k || !entry)\n\t\treturn k;\n"
		"\tif (stp_probe_read_user(&ret, 8, (void *)((__u64 *)ctx)[19]) < 0)\n"
		"\t\treturn k;\t/* regs->sp */\n"
		"\tif (k > 1 && a[1] == ret)\n\t\treturn k;\t/* the kernel has it (6.12 on) */\n"
		"\tfor (long i = STP_NBT - 1; i > 1; i--)\n\t\ta[i] = a[i - 1];\n"
		"\ta[1] = ret;\n\treturn k < STP_NBT ? k + 1 : STP_NBT;\n}\n");
	sb_puts(c, "static __always_inline void stp_uend_error(struct stp_scratch *S, long n)\n{\n"
		"\tlong len = 0;\n\n\tS->err = 1;\n\tS->errloc = -1;\n");
	for (const char *p = "reached end of stack before unwinding to level "; *p; p++)
		sb_printf(c, "\tstp_put(S->errmsg, &len, '%c');\n", *p);
	sb_puts(c, "\tstp_sfmt_long(S->errmsg, &len, n, 'd', 0, 0, -1);\n"
		"\tS->errmsg[len & STP_MASK] = 0;\n}\n");
}
