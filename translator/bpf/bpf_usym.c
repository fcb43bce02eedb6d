/*
 * bpf_usym.c - user symbols for --runtime=bpf: print_ubacktrace(),
 * print_ubacktrace_brief(), sprint_ubacktrace(), usymname(), usymdata(),
 * umodname(), print_usyms() and sprint_usyms() (and print_ustack(),
 * sprint_ustack(), the tapset's script functions over them). BPF has
 * neither the process's mappings nor the objects' symbols: the program
 * captures the addresses and the pid, and the loader names them
 * (staprun/stapbpf_usym.c) from /proc/PID/maps and the symbol tables of
 * the objects the module runtime would carry (info/uobjs.c: `-d`,
 * `--ldd`, the probed binaries), which bsy_meta() writes into the
 * object's metadata. The print functions send a record; the string ones
 * return a marker, "\1" KIND PID ':' WHAT "\2", which the loader replaces
 * by the symbol's text wherever it prints a string (printf, print, an
 * error, the exit display), truncated to MAXSTRINGLEN as the module
 * runtime's value is. umodname()'s error where nothing is mapped is
 * raised in BPF (bpf_find_vma()). The stack ones need the handler's ctx
 * (bpf_ustack.c's bus_call() asks here, bsy_stack()).
 */
#include <string.h>

#include "bpf.h"
#include "elab.h"
#include "ubin.h"

static const struct { const char *name; int n; } fns[] = {
	{ "usymname", 1 }, { "usymdata", 1 }, { "umodname", 1 }, { "print_usyms", 1 },
	{ "sprint_usyms", 1 },
};

bool bsy_has(const struct func *f)
{
	for (size_t i = 0; i < sizeof(fns) / sizeof(fns[0]); i++)
		if (!strcmp(f->name, fns[i].name) && f->nparams == fns[i].n)
			return true;
	return false;
}

static const char *new_tmp(struct bgen *g)
{
	return arena_printf(g->s->arena, "t%d", g->ntmp++);
}

/* the marker of kind k for what (a C expression), in a new slot: an
 * address (hex) or, with str, a string appended as it is */
static const char *marker(struct bgen *g, char k, const char *what, bool str)
{
	const char *t = new_tmp(g);

	bg_line(g, "char *%s = %s;", t, bg_slot(g));
	bg_line(g, "%s[0] = 0;", t);
	if (k)
		bg_line(g, "stp_umark(S, %s, '%c', %s, %d);", t, k, what, str);
	else	/* what: "KIND, WHAT" */
		bg_line(g, "stp_umark(S, %s, %s, %d);", t, what, str);
	return t;
}

const char *bsy_call(struct bgen *g, struct node *n)
{
	const char *a;

	if (!n->func->body || n->func->body->kind != N_EMBEDDED_STMT || !bsy_has(n->func))
		return NULL;
	g->need_usym = true;
	g->need_hex = true;
	a = bg_expr(g, n->args);
	if (!strcmp(n->op, "print_usyms")) {
		bg_line(g, "stp_print_usyms(%s);", a);
		return "0L";
	}
	if (!strcmp(n->op, "sprint_usyms"))
		return marker(g, 'u', a, true);
	if (!strcmp(n->op, "umodname")) {
		bg_line(g, "if (!stp_umapped((__u64)%s))", a);
		bg_fail(g, arena_printf(g->s->arena, "module cannot be found near identifier "
					"'%s' at %s", n->op, loc_str(g->s, n->func->loc)));
	}
	return marker(g, !strcmp(n->op, "usymname") ? 'n' : !strcmp(n->op, "usymdata") ? 'd' : 'm',
		      arena_printf(g->s->arena, "(void *)(__u64)%s", a), false);
}

/* the C of "the probe has user registers" in the handler being written:
 * the module runtime unwinds from the task's saved ones otherwise, with
 * 4.8's warning that the kernel has no tables ("stap -d kernel") */
static const char *user_regs(struct bgen *g)
{
	int mode = -2;

	for (const struct rprobe *r = g->s->rprobes; r; r = r->next) {
		if (r->probe != g->probe || (g->rp && r != g->rp))
			continue;
		if (mode != -2 && bs_user_mode_of(r) != mode)
			mode = -1;
		else
			mode = bs_user_mode_of(r);
	}
	/* pt_regs' cs, a perf event's first member */
	return mode == 1 ? "1" : mode == 0 ? "0" : "((((__u64 *)ctx)[17] & 3) != 0)";
}

/* "<no user backtrace at PP>\n", the module runtime's text where there
 * is no user stack (a kernel thread), in a new slot */
static const char *no_user(struct bgen *g)
{
	const char *pp = bg_pp(g), *t = new_tmp(g);

	bg_line(g, "char *%s = %s;", t, bg_slot(g));
	bg_line(g, "stp_no_ubt(S, %s, %s);", t, pp);
	return t;
}

/* print_ubacktrace(), print_ubacktrace_brief(), sprint_ubacktrace() in a
 * handler, entry as for stp_ustack(); NULL for other functions */
const char *bsy_stack(struct bgen *g, struct node *n, int entry)
{
	const char *t, *k, *m;

	if (strcmp(n->op, "print_ubacktrace") && strcmp(n->op, "print_ubacktrace_brief") &&
	    strcmp(n->op, "sprint_ubacktrace"))
		return NULL;
	g->need_usym = true;
	k = new_tmp(g);
	if (n->op[0] == 'p') {
		bg_line(g, "long %s = stp_print_ubt(ctx, %d, %d | (%s ? 0 : 2));", k, entry,
			n->op[16] == '_', user_regs(g));
		bg_line(g, "if (!%s) {", k);
		g->indent++;
		bg_line(g, "stp_print_text(%s);", no_user(g));
		g->indent--;
		bg_line(g, "}");
		return "0L";
	}
	bg_line(g, "long %s = stp_ustack(ctx, (__u64 *)S->tmp, %d);", k, entry);
	t = new_tmp(g);
	bg_line(g, "char *%s = %s;", t, bg_slot(g));
	bg_line(g, "stp_bt_str(S, %s, %s, -1, 1);", t, k);
	if (!strcmp(user_regs(g), "1")) {
		m = marker(g, 'b', t, true);
	} else {
		bg_line(g, "char %s_k = %s ? 'b' : 'B';", t, user_regs(g));
		m = marker(g, 0, arena_printf(g->s->arena, "%s_k, %s", t, t), true);
	}
	bg_line(g, "if (!%s) {", k);
	g->indent++;
	bg_line(g, "stp_strcpy(%s, %s);", m, no_user(g));
	g->indent--;
	bg_line(g, "}");
	return m;
}

/* the loader's records (REC_UBT: format 0 full, 1 brief, | 2 without user
 * registers; REC_USYMS the callers' string; REC_UPID a marker's pid;
 * REC_UTEXT a text printed as it is) and
 * the markers (sprint_ubacktrace()'s 'B' without user registers) */
void bsy_types(struct bgen *g, struct strbuf *c)
{
	if (!g->need_usym)
		return;
	sb_puts(c, "#define STP_REC_UBT 0xffff0007u\n#define STP_REC_USYMS 0xffff0008u\n"
		"#define STP_REC_UPID 0xffff0009u\n#define STP_REC_UTEXT 0xffff000au\n"
		"static void *(*stp_task_btf)(void) = (void *)158;\n"
		"static long (*stp_find_vma)(void *task, __u64 addr, void *cb, void *cx, "
		"__u64 flags) = (void *)180;\n"
		"struct vm_area_struct___stp {\n\tvoid *vm_file;\n} "
		"__attribute__((preserve_access_index));\n"
		"static long stp_umapped_cb(void *task, struct vm_area_struct___stp *vma, "
		"long *mapped)\n{\n\tvoid *f = 0;\n\n"
		"\tbpf_probe_read_kernel(&f, sizeof(f), &vma->vm_file);\n"
		"\t*mapped = f != 0;\n\treturn 0;\n}\n"
		"/* is a file mapped at addr in the current process (umodname()) */\n"
		"static __always_inline long stp_umapped(__u64 addr)\n{\n\tlong mapped = 0;\n\n"
		"\tstp_find_vma(stp_task_btf(), addr, stp_umapped_cb, &mapped, 0);\n"
		"\treturn mapped;\n}\n"
		"/* dst = \"\\1\" k pid ':' and v in hex, or the string s, then \"\\2\";\n"
		" * the loader is told the pid, to read its maps while it runs */\n"
		"static __always_inline void stp_umark(struct stp_scratch *S, char *dst, long k, "
		"const void *v, long s)\n{\n"
		"\tlong n;\n\t__u32 *r = bpf_ringbuf_reserve(&stp_rb, 8, 0);\n\n"
		"\tif (r) {\n\t\tr[0] = STP_REC_UPID;\n"
		"\t\tr[1] = bpf_get_current_pid_tgid() >> 32;\n\t\tbpf_ringbuf_submit(r, 0);\n\t}\n"
		"\tdst[0] = 1;\n\tdst[1] = k;\n"
		"\tn = stp_hex((struct stp_hexbuf *)dst, 2, bpf_get_current_pid_tgid() >> 32);\n"
		"\tdst[n & STP_MASK] = ':';\n\tn++;\n"
		"\tif (!s)\n\t\tn = stp_hex((struct stp_hexbuf *)dst, n, (__u64)v);\n"
		"\tdst[n & STP_MASK] = 0;\n"
		"\tif (s) {\n\t\tstp_strcat(S, dst, v);\n\t\tn = stp_strlen(S, dst);\n\t}\n"
		"\tstp_put(dst, &n, 2);\n\tdst[n & STP_MASK] = 0;\n}\n"
		"static __always_inline void stp_print_usyms(const char *callers)\n{\n"
		"\tstruct { __u32 id, pid; char s[STP_MAXSTR]; } *r = "
		"bpf_ringbuf_reserve(&stp_rb, sizeof(*r), 0);\n\n"
		"\tif (!r)\n\t\treturn;\n\tr->id = STP_REC_USYMS;\n"
		"\tr->pid = bpf_get_current_pid_tgid() >> 32;\n"
		"\tbpf_probe_read_kernel_str(r->s, STP_MAXSTR, callers);\n"
		"\tbpf_ringbuf_submit(r, 0);\n}\n");
	if (!g->need_kstack)
		return;
	sb_puts(c, "/* the frames in a record; their number, -1 when none was sent */\n"
		"static __always_inline long stp_print_ubt(void *ctx, long entry, long fmt)\n{\n"
		"\tstruct { __u32 id, fmt, pid, n; __u64 a[STP_NBT]; } *r = "
		"bpf_ringbuf_reserve(&stp_rb, sizeof(*r), 0);\n\tlong n;\n\n"
		"\tif (!r)\n\t\treturn -1;\n\tr->id = STP_REC_UBT;\n\tr->fmt = fmt;\n"
		"\tr->pid = bpf_get_current_pid_tgid() >> 32;\n"
		"\tn = r->n = stp_ustack(ctx, r->a, entry);\n"
		"\tbpf_ringbuf_submit(r, 0);\n\treturn n;\n}\n"
		"static __always_inline void stp_print_text(const char *s)\n{\n"
		"\tstruct { __u32 id, pad; char s[STP_MAXSTR]; } *r = "
		"bpf_ringbuf_reserve(&stp_rb, sizeof(*r), 0);\n\n"
		"\tif (!r)\n\t\treturn;\n\tr->id = STP_REC_UTEXT;\n"
		"\tbpf_probe_read_kernel_str(r->s, STP_MAXSTR, s);\n"
		"\tbpf_ringbuf_submit(r, 0);\n}\n"
		"static __always_inline void stp_no_ubt(struct stp_scratch *S, char *dst, "
		"const char *pp)\n{\n\tlong n = 0;\n\n");
	for (const char *p = "<no user backtrace at "; *p; p++)
		sb_printf(c, "\tstp_put(dst, &n, '%c');\n", *p);
	sb_puts(c, "\tdst[n & STP_MASK] = 0;\n\tstp_strcat(S, dst, pp);\n"
		"\tn = stp_strlen(S, dst);\n\tstp_put(dst, &n, '>');\n\tstp_put(dst, &n, '\\n');\n"
		"\tdst[n & STP_MASK] = 0;\n}\n");
}

/* can the name go in the metadata's C literal as it is */
static bool plain(const char *name)
{
	for (const char *p = name; *p; p++)
		if (*p == '"' || *p == '\\' || *p == '?' || (unsigned char)*p < ' ')
			return false;
	return true;
}

/* the symbol tables of the objects the module runtime would carry, for
 * the loader: "umod K SIZE DYN END PATH(hex)" and "usym K ADDR NAME",
 * when the script names user addresses; the module runtime's pass-3
 * warning for a -d name that is no ELF file in any case */
void bsy_meta(struct bgen *g)
{
	const char *paths[UOBJ_MAX], *bins[UOBJ_MAX];
	int np, k = 0;

	/* the module runtime's pass-3 warnings for -d names, whatever is called */
	np = uobjs_collect(g->s, bins, rp_binaries(g->s, bins, UOBJ_MAX), paths, true);
	for (int i = 0; i < np && g->need_usym; i++) {
		struct uobj o = { 0 };

		if (!uobj_read(g->s, paths[i], &o))
			continue;
		sb_printf(&g->meta, "umod %d %#llx %d %#llx ", k, (unsigned long long)o.file_size,
			  o.is_dyn, (unsigned long long)o.sym_end);
		for (const char *p = o.path; *p; p++)
			sb_printf(&g->meta, "%02x", (unsigned char)*p);
		sb_puts(&g->meta, "\n");
		for (size_t j = 0; j < o.nsyms; j++)
			if (plain(o.syms[j].name))
				sb_printf(&g->meta, "usym %d %#llx %s\n", k,
					  (unsigned long long)o.syms[j].addr, o.syms[j].name);
		k++;
	}
}
