/*
 * bpf_tapfn.c - tapset functions whose module-runtime bodies are embedded
 * C, written for --runtime=bpf with the module runtime's results and
 * error messages: the user_string family (bpf_probe_read_user_str: the
 * same length limits and "user string copy fault -14 at 0x..." as
 * tapsets/linux/syscall_support.stp), ppid() and pexecname() (the current
 * task's real_parent, its offsets CO-RE relocated), and in kernel function
 * entry probes backtrace() and print_backtrace() (bpf_get_stack(): the
 * same unwind from the kprobe's registers as runtime/sym.c's; the loader,
 * staprun/stapbpf_sym.c, names print_backtrace()'s frames). bpf_gen.c's
 * builtin() asks here first; bt_types() writes the C they need.
 */
#include <string.h>

#include "bpf.h"

static bool is(const struct node *n, const char *name, int nparams)
{
	return !strcmp(n->op, name) && n->func->nparams == nparams;
}

/* uconversions.stp's user_*_error(addr): the size and sign of the number */
static const struct { const char *name; int size, is_signed; } unums[] = {
	{ "user_char_error", 1, 1 }, { "user_short_error", 2, 1 },
	{ "user_ushort_error", 2, 0 }, { "user_int_error", 4, 1 },
	{ "user_uint_error", 4, 0 }, { "user_long_error", 8, 1 },
	{ "user_ulong_error", 8, 0 }, { "user_int8_error", 1, 1 },
	{ "user_uint8_error", 1, 0 }, { "user_int16_error", 2, 1 },
	{ "user_uint16_error", 2, 0 }, { "user_int32_error", 4, 1 },
	{ "user_uint32_error", 4, 0 }, { "user_int64_error", 8, 1 },
	{ "user_uint64_error", 8, 0 },
};

static int unum(const struct func *f)
{
	for (size_t i = 0; f->nparams == 1 && i < sizeof(unums) / sizeof(unums[0]); i++)
		if (!strcmp(f->name, unums[i].name))
			return (int)i;
	return -1;
}

bool bt_has(const struct func *f)
{
	if (unum(f) >= 0)
		return true;
	static const struct { const char *name; int n; } fns[] = {
		{ "user_string_n", 2 }, { "user_string", 2 }, { "user_string_quoted", 1 },
		{ "ppid", 0 }, { "pexecname", 0 }, { "backtrace", 0 }, { "print_backtrace", 0 },
	};

	for (size_t i = 0; i < sizeof(fns) / sizeof(fns[0]); i++)
		if (!strcmp(f->name, fns[i].name) && f->nparams == fns[i].n)
			return true;
	return bs_has(f);
}

static const char *new_tmp(struct bgen *g)
{
	return arena_printf(g->s->arena, "t%d", g->ntmp++);
}

/* user_string_n(addr, n): at most n bytes (MAXSTRINGLEN - 2), a fault an
 * error near the tapset function, as stp_sc_strncpy_user's callers */
static const char *user_string_n(struct bgen *g, struct node *n)
{
	const char *addr = bg_expr(g, n->args), *len = bg_expr(g, n->args->next);
	const char *t = new_tmp(g), *l = new_tmp(g);

	bg_line(g, "long %s = %s < 0 ? 1 : %s > STP_MAXSTR - 2 ? STP_MAXSTR - 1 : %s + 1;",
		l, len, len, len);
	bg_line(g, "char *%s = %s;", t, bg_slot(g));
	bg_line(g, "if (!STP_UOK(%s, %s) || "
		   "bpf_probe_read_user_str(%s, %s & STP_MASK, (void *)%s) < 0)", addr, l, t, l, addr);
	bg_call_fault(g, n, "user string copy fault -14 at ", addr);
	return t;
}

/* user_int_error(addr) and the like: the number (zero- or sign-extended);
 * a fault (also where access_ok() refuses it) the module runtime's read
 * fault, near the function */
static const char *user_number(struct bgen *g, struct node *n, int k)
{
	static const char *const types[] = { "", "char", "short", "", "int", "", "", "", "long" };
	const char *addr = bg_expr(g, n->args), *t = new_tmp(g), *v = new_tmp(g);
	int size = unums[k].size;

	bg_line(g, "%s %s %s = 0;", unums[k].is_signed ? "signed" : "unsigned", types[size], v);
	bg_line(g, "if (!STP_UOK(%s, %d) || stp_probe_read_user(&%s, %d, (void *)%s) < 0)",
		addr, size, v, size, addr);
	g->indent++;
	bg_fault_msg(g, "read fault [man error::fault] at ", "",
		     arena_printf(g->s->arena, " near identifier '%s' at %s", n->op,
				  loc_str(g->s, n->func->loc)), addr);
	g->indent--;
	bg_line(g, "long %s = %s;", t, v);
	return t;
}

/* user_string(addr, err_msg): err_msg on a fault */
static const char *user_string_err(struct bgen *g, struct node *n)
{
	const char *addr = bg_expr(g, n->args), *err = bg_expr(g, n->args->next);
	const char *t = new_tmp(g);

	bg_line(g, "char *%s = %s;", t, bg_slot(g));
	bg_line(g, "if (!STP_UOK(%s, STP_MAXSTR - 1) || "
		   "bpf_probe_read_user_str(%s, STP_MAXSTR - 1, (void *)%s) < 0)", addr, t, addr);
	bg_line(g, "\tstp_strcpy(%s, %s);", t, err);
	return t;
}

/* user_string_quoted(addr): quoted as string_quoted(), "0x..." on a fault */
static const char *user_string_quoted(struct bgen *g, struct node *n)
{
	const char *addr = bg_expr(g, n->args), *t = new_tmp(g);

	g->need_quote = true;
	g->need_hex = true;
	bg_line(g, "char *%s = %s;", t, bg_slot(g));
	bg_line(g, "if (stp_user_quoted(S, %s, %s) < 0)", t, addr);
	bg_line(g, "\t%s[stp_hex((struct stp_hexbuf *)%s, 0, %s) & STP_MASK] = 0;", t, t, addr);
	return t;
}

/* a handler (its ctx at hand) of kernel function entry probes only: the
 * kernel stack bpf_get_stack() unwinds from the kprobe's registers */
static bool kstack_here(struct bgen *g)
{
	int k = 0;

	if (g->func || !g->probe || g->no_ctx || g->at_entry)
		return false;
	for (const struct rprobe *r = g->s->rprobes; r; r = r->next)
		if (r->probe == g->probe && (k++, !bu_is_kprobe(r) || r->ret))
			return false;
	return k > 0;
}

static const char *kstack(struct bgen *g, struct node *n, bool print)
{
	const char *t;

	if (!kstack_here(g)) {
		bg_unsupported(g, n, arena_printf(g->s->arena, "the function %s() outside the "
						  "handler of kernel function entry probes", n->op));
		return "0";
	}
	g->need_bt = true;
	if (print) {
		bg_line(g, "stp_print_bt(ctx);");
		return "0L";
	}
	g->need_hex = true;
	t = new_tmp(g);
	bg_line(g, "char *%s = %s;", t, bg_slot(g));
	bg_line(g, "stp_bt_str(S, ctx, %s);", t);
	return t;
}

const char *bt_call(struct bgen *g, struct node *n)
{
	const char *t;

	if (!n->func->body || n->func->body->kind != N_EMBEDDED_STMT)
		return NULL;
	if (unum(n->func) >= 0)
		return user_number(g, n, unum(n->func));
	if (is(n, "user_string_n", 2))
		return user_string_n(g, n);
	if (is(n, "user_string", 2))
		return user_string_err(g, n);
	if (is(n, "user_string_quoted", 1))
		return user_string_quoted(g, n);
	if (is(n, "backtrace", 0) || is(n, "print_backtrace", 0))
		return kstack(g, n, n->op[0] == 'p');
	if (is(n, "ppid", 0)) {
		g->need_task = true;
		t = new_tmp(g);
		bg_line(g, "long %s = stp_ppid();", t);
		return t;
	}
	if (is(n, "pexecname", 0)) {
		g->need_task = true;
		t = new_tmp(g);
		bg_line(g, "char *%s = %s;", t, bg_slot(g));
		bg_line(g, "stp_pexecname(%s);", t);
		return t;
	}
	return bs_call(g, n);
}

/* the current task's parent, by a flavor of task_struct of our own (libbpf
 * ignores "___stp" and relocates the members in the kernel's) */
static void emit_task(struct strbuf *c)
{
	sb_puts(c, "static void *(*stp_current_task)(void) = (void *)35;\n"
		"struct task_struct___stp {\n\tvoid *real_parent;\n\tint tgid;\n"
		"\tchar comm[16];\n} __attribute__((preserve_access_index));\n"
		"static __always_inline void *stp_parent(void)\n{\n"
		"\tstruct task_struct___stp *t = stp_current_task();\n\tvoid *p = 0;\n\n"
		"\tbpf_probe_read_kernel(&p, 8, &t->real_parent);\n\treturn p;\n}\n"
		"static __always_inline long stp_ppid(void)\n{\n"
		"\tstruct task_struct___stp *p = stp_parent();\n\tint tgid = 0;\n\n"
		"\tbpf_probe_read_kernel(&tgid, 4, &p->tgid);\n\treturn tgid;\n}\n"
		"static __always_inline void stp_pexecname(char *dst)\n{\n"
		"\tstruct task_struct___stp *p = stp_parent();\n\n"
		"\tif (bpf_probe_read_kernel_str(dst, 16, p->comm) < 0)\n\t\tdst[0] = 0;\n}\n");
}

/* print_backtrace(): a record of the addresses (MAXBACKTRACE, 20, as the
 * module runtime's default) the loader prints; backtrace(): each as %#x
 * and a space. The first is the kprobe's address, where the module
 * runtime's kprobe handler sets the registers' ip (bpf_get_stack() has
 * the ip past the int3) */
static void emit_bt(struct strbuf *c)
{
	sb_puts(c, "#define STP_REC_BT 0xffff0006u\n#define STP_MAXBT 20\n"
		"static long (*stp_get_stack)(void *ctx, void *buf, __u32 size, __u64 flags) = "
		"(void *)67;\n"
		"static __u64 (*stp_func_ip)(void *ctx) = (void *)173;\n"
		"static __always_inline void stp_print_bt(void *ctx)\n{\n"
		"\tstruct { __u32 id, n; __u64 a[STP_MAXBT]; } *r = "
		"bpf_ringbuf_reserve(&stp_rb, sizeof(*r), 0);\n\tlong k;\n\n"
		"\tif (!r)\n\t\treturn;\n\tk = stp_get_stack(ctx, r->a, sizeof(r->a), 0);\n"
		"\tr->id = STP_REC_BT;\n\tr->n = k > 0 ? (long)((__u64)k / 8) : 0;\n"
		"\tif (r->n)\n\t\tr->a[0] = stp_func_ip(ctx);\n"
		"\tbpf_ringbuf_submit(r, 0);\n}\n"
		"static __always_inline void stp_bt_str(struct stp_scratch *S, void *ctx, char *dst)\n"
		"{\n\t__u64 *a = (__u64 *)S->tmp;\n"
		"\tlong k = stp_get_stack(ctx, S->tmp, STP_MAXBT * 8, 0), n = 0;\n\n"
		"\tk = k > 0 ? (long)((__u64)k / 8) : 0;\n"
		"\tif (k)\n\t\ta[0] = stp_func_ip(ctx);\n"
		"\tfor (int i = 0; i < STP_MAXBT; i++) {\n"
		"\t\tif (i >= k || n > STP_MAXSTR - 21)\n\t\t\tbreak;\n"
		"\t\tn = stp_hex((struct stp_hexbuf *)dst, n, a[i]);\n"
		"\t\tdst[n & STP_MASK] = ' ';\n\t\tn++;\n\t}\n"
		"\tdst[n & STP_MASK] = 0;\n}\n");
}

void bt_types(struct bgen *g, struct strbuf *c)
{
	if (g->need_task)
		emit_task(c);
	if (g->need_bt)
		emit_bt(c);
	bs_types(g, c);
}
