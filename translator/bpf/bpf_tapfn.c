/*
 * bpf_tapfn.c - tapset functions whose module-runtime bodies are embedded
 * C, written for --runtime=bpf with the module runtime's results and
 * error messages: the user_string family (bpf_probe_read_user_str: the
 * same length limits and "user string copy fault -14 at 0x..." as
 * tapsets/linux/syscall_support.stp), string_quoted(), substr(),
 * stringat(), strpos(), isinstr(), kernel_string_n() and kernel_long()
 * and the like (runtime/deref.c's faults), ppid() and pexecname() (the
 * current task's real_parent, its offsets CO-RE relocated); backtraces
 * are bpf_stack.c's, more strings and context bpf_strfn.c's. bpf_gen.c's builtin() asks here first; bt_types()
 * writes the C they need.
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
		{ "string_quoted", 1 }, { "kernel_string_n", 2 }, { "kernel_long", 1 },
		{ "kernel_int", 1 }, { "kernel_short", 1 }, { "kernel_char", 1 },
		{ "kernel_pointer", 1 }, { "substr", 3 }, { "stringat", 2 }, { "strpos", 2 },
		{ "isinstr", 2 },
		{ "ppid", 0 }, { "pexecname", 0 },
	};

	for (size_t i = 0; i < sizeof(fns) / sizeof(fns[0]); i++)
		if (!strcmp(f->name, fns[i].name) && f->nparams == fns[i].n)
			return true;
	return bx_has(f) || bsc_has(f);
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

/* string_quoted(str): escaped as user_string_quoted() */
static const char *string_quoted(struct bgen *g, struct node *n)
{
	const char *s = bg_expr(g, n->args), *t = new_tmp(g);

	g->need_quote = true;
	bg_line(g, "char *%s = %s;", t, bg_slot(g));
	bg_line(g, "stp_string_quoted(S, %s, %s);", t, s);
	return t;
}

/* kernel_string_n(addr, n): n bytes at most (0 or less: read, then
 * empty), as runtime/deref.c's stp_kernel_string() */
static const char *kernel_string_n(struct bgen *g, struct node *n)
{
	const char *addr = bg_expr(g, n->args), *len = bg_expr(g, n->args->next);
	const char *t = new_tmp(g), *l = new_tmp(g);

	bg_line(g, "long %s = %s > 0 && %s < STP_MAXSTR ? %s + 1 : STP_MAXSTR;", l, len, len, len);
	bg_line(g, "char *%s = %s;", t, bg_slot(g));
	bg_line(g, "if (bpf_probe_read_kernel_str(%s, ((%s - 1) & STP_MASK) + 1, (void *)%s) < 0)",
		t, l, addr);
	bg_call_fault(g, n, "kernel string copy fault at ", addr);
	bg_line(g, "if (%s <= 0)", len);
	bg_line(g, "\t%s[0] = 0;", t);
	return t;
}

/* kernel_long() and friends: sign-extended, "kernel <what> copy fault" */
static const char *kernel_number(struct bgen *g, struct node *n)
{
	static const struct { const char *name, *type, *what; } nums[] = {
		{ "kernel_long", "long", "long" }, { "kernel_int", "int", "int" },
		{ "kernel_short", "short", "short" }, { "kernel_char", "signed char", "char" },
		{ "kernel_pointer", "long", "pointer" },
	};
	const char *addr, *t;

	for (size_t i = 0; i < sizeof(nums) / sizeof(nums[0]); i++) {
		if (!is(n, nums[i].name, 1))
			continue;
		addr = bg_expr(g, n->args);
		t = new_tmp(g);
		bg_line(g, "%s %s_v = 0;", nums[i].type, t);
		bg_line(g, "if (bpf_probe_read_kernel(&%s_v, sizeof(%s_v), (void *)%s) < 0)", t, t,
			addr);
		bg_call_fault(g, n, arena_printf(g->s->arena, "kernel %s copy fault at ",
						 nums[i].what), addr);
		bg_line(g, "long %s = %s_v;", t, t);
		return t;
	}
	return NULL;
}

/* substr(str, start, length): strings.stp's, room for length bytes and
 * the NUL computed with wrap-around */
static const char *substr(struct bgen *g, struct node *n)
{
	const char *str = bg_expr(g, n->args), *start = bg_expr(g, n->args->next);
	const char *len = bg_expr(g, n->args->next->next);
	const char *t = new_tmp(g), *l = new_tmp(g), *room = new_tmp(g);

	bg_line(g, "char *%s = %s;", t, bg_slot(g));
	bg_line(g, "long %s = stp_strlen(S, %s), %s = (long)((__u64)%s + 1);", l, str, room, len);
	bg_line(g, "%s[0] = 0;", t);
	bg_line(g, "if (%s >= 0 && %s < %s && %s > 0)", start, start, l, room);
	bg_line(g, "\tbpf_probe_read_kernel_str(%s, %s > STP_MAXSTR ? STP_MAXSTR : "
		"((%s - 1) & STP_MASK) + 1, %s + (%s & STP_MASK));", t, room, room, str, start);
	return t;
}

/* stringat(str, pos): the byte (a signed char), "Position out of bounds" */
static const char *stringat(struct bgen *g, struct node *n)
{
	const char *str = bg_expr(g, n->args), *pos = bg_expr(g, n->args->next);
	const char *t = new_tmp(g);

	bg_line(g, "signed char %s_c = 0;", t);
	bg_line(g, "if (%s < 0 || %s >= stp_strlen(S, %s))", pos, pos, str);
	bg_fail(g, arena_printf(g->s->arena, "Position out of bounds near identifier '%s' at %s",
				n->op, loc_str(g->s, n->func->loc)));
	bg_line(g, "bpf_probe_read_kernel(&%s_c, 1, %s + (%s & STP_MASK));", t, str, pos);
	bg_line(g, "long %s = %s_c;", t, t);
	return t;
}

/* strpos(s1, s2) and isinstr(s1, s2): strstr()'s first match */
static const char *strpos(struct bgen *g, struct node *n)
{
	const char *s1 = bg_expr(g, n->args), *s2 = bg_expr(g, n->args->next);
	const char *t = new_tmp(g), *a = bg_slot(g), *b = bg_slot(g);

	g->need_strpos = true;	/* copies in the scratch: a literal's .rodata is its size */
	bg_line(g, "stp_strcpy(%s, %s);", a, s1);
	bg_line(g, "stp_strcpy(%s, %s);", b, s2);
	bg_line(g, "long %s = stp_strpos(S, %s, %s)%s;", t, a, b, n->op[0] == 'i' ? " >= 0" : "");
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
	if (is(n, "string_quoted", 1))
		return string_quoted(g, n);
	if (is(n, "strpos", 2) || is(n, "isinstr", 2))
		return strpos(g, n);
	if (is(n, "substr", 3))
		return substr(g, n);
	if (is(n, "stringat", 2))
		return stringat(g, n);
	if (is(n, "kernel_string_n", 2))
		return kernel_string_n(g, n);
	t = kernel_number(g, n);
	if (t)
		return t;
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
	t = bx_call(g, n);
	return t ? t : bsc_call(g, n);
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

/* strpos(): a bpf_loop() step a position of s1, its state in the scratch
 * past stp_strlen()'s copy and before bpf_stack.c's symbol scan */
static void emit_strpos(struct strbuf *c)
{
	sb_puts(c, "struct stp_posctx {\n\tconst char *s1, *s2;\n\tlong *st;\n};\n"
		"static long stp_strpos_step(__u32 i, struct stp_posctx *c)\n{\n"
		"\tlong *st = c->st;\n\n"
		"\tif (i + st[1] > st[0])\n\t\treturn 1;\n"
		"\tfor (long j = 0; j < STP_MAXSTR; j++) {\n"
		"\t\tif (j >= st[1]) {\n\t\t\tst[2] = i;\n\t\t\treturn 1;\n\t\t}\n"
		"\t\tif (c->s1[(i + j) & STP_MASK] != c->s2[j & STP_MASK])\n\t\t\tbreak;\n\t}\n"
		"\treturn 0;\n}\n"
		"static __always_inline long stp_strpos(struct stp_scratch *S, const char *s1, "
		"const char *s2)\n{\n"
		"\tlong *st = (long *)(S->tmp + STP_TMPLEN - 256);\n"
		"\tstruct stp_posctx c = { s1, s2, st };\n\n"
		"\tst[0] = stp_strlen(S, s1);\n\tst[1] = stp_strlen(S, s2);\n\tst[2] = -1;\n"
		"\tbpf_loop(STP_MAXSTR, stp_strpos_step, &c, 0);\n\treturn st[2];\n}\n");
}

void bt_types(struct bgen *g, struct strbuf *c)
{
	if (g->need_task)
		emit_task(c);
	if (g->need_strpos)
		emit_strpos(c);
	bx_types(g, c);
	bsc_types(g, c);
}
