/*
 * bpf_strfn.c - more tapset functions whose module-runtime bodies are
 * embedded C, written for --runtime=bpf with the module runtime's results:
 * the strings of strings.stp (text_str(), text_strn() over
 * user_string_quoted()'s quoting step, tokenize() with its per-CPU state
 * in a map of its own, str_replace(), strtol() as the kernel's
 * simple_strtol()), and the context of context.stp, context_ids.stp and
 * time.stp (euid(), egid() from the task's cred, pgrp() and sid() from
 * its signal_struct's pids in the initial namespace, CO-RE relocated, the
 * ns_*() ids in the loader's namespaces;
 * get_cycles(); ctime(epochsecs), runtime/tapset_support.c's stp_ctime()
 * without its loops). bpf_tapfn.c's bt_call() asks here (bx_call()).
 */
#include <string.h>

#include "bpf.h"

enum { NEED_TEXT = 1, NEED_TOK = 2, NEED_REPL = 4, NEED_STRTOL = 8, NEED_CRED = 16,
       NEED_PGRP = 32, NEED_CTIME = 64, NEED_NS = 128 };

static const struct { const char *name; int n, need; } fns[] = {
	{ "text_str", 1, NEED_TEXT }, { "text_strn", 3, NEED_TEXT },
	{ "tokenize", 2, NEED_TOK }, { "str_replace", 3, NEED_REPL },
	{ "strtol", 2, NEED_STRTOL }, { "euid", 0, NEED_CRED }, { "egid", 0, NEED_CRED },
	{ "pgrp", 0, NEED_PGRP }, { "sid", 0, NEED_PGRP }, { "get_cycles", 0, 0 },
	{ "ctime", 1, NEED_CTIME },
	{ "ns_pid", 0, NEED_PGRP | NEED_NS }, { "ns_tid", 0, NEED_PGRP | NEED_NS },
	{ "ns_ppid", 0, NEED_PGRP | NEED_NS }, { "ns_pgrp", 0, NEED_PGRP | NEED_NS },
	{ "ns_sid", 0, NEED_PGRP | NEED_NS }, { "ns_uid", 0, NEED_CRED | NEED_NS },
	{ "ns_euid", 0, NEED_CRED | NEED_NS }, { "ns_gid", 0, NEED_CRED | NEED_NS },
	{ "ns_egid", 0, NEED_CRED | NEED_NS },
};

static int find(const struct func *f)
{
	for (size_t i = 0; i < sizeof(fns) / sizeof(fns[0]); i++)
		if (!strcmp(f->name, fns[i].name) && f->nparams == fns[i].n)
			return (int)i;
	return -1;
}

bool bx_has(const struct func *f)
{
	return find(f) >= 0;
}

static const char *new_tmp(struct bgen *g)
{
	return arena_printf(g->s->arena, "t%d", g->ntmp++);
}

/* the string argument a copied into a new slot (a literal's .rodata is
 * only its own size, a loop's reads need MAXSTRINGLEN bytes) */
static const char *str_arg(struct bgen *g, struct node *a)
{
	const char *v = bg_expr(g, a), *sl = bg_slot(g);

	bg_line(g, "stp_strcpy(%s, %s);", sl, v);
	return sl;
}

/* a string result: a new slot t, given to the helper */
static const char *str_ret(struct bgen *g, const char *call_fmt, const char *a,
			   const char *b, const char *c)
{
	const char *t = new_tmp(g);

	bg_line(g, "char *%s = %s;", t, bg_slot(g));
	bg_line(g, call_fmt, t, a, b, c);
	return t;
}

static bool named(const struct node *n, const char *name)
{
	return !strcmp(n->op, name);
}

/* ctime()'s errors, near the tapset function */
static void ctime_fail(struct bgen *g, struct node *n, const char *t, int r, const char *when)
{
	bg_line(g, "if (%s == %d)", t, r);
	bg_fail(g, arena_printf(g->s->arena, "Time too far in the %s to be converted "
				"near identifier '%s' at %s", when, n->op,
				loc_str(g->s, n->func->loc)));
}

const char *bx_call(struct bgen *g, struct node *n)
{
	int k = find(n->func);
	const char *a, *b, *c, *t;

	if (k < 0 || !n->func->body || n->func->body->kind != N_EMBEDDED_STMT)
		return NULL;
	g->strfn_need |= fns[k].need;
	if (named(n, "text_str") || named(n, "text_strn")) {
		g->need_quote = true;
		a = bg_expr(g, n->args);
		if (!n->args->next)
			return str_ret(g, "stp_text(S, %s, %s, %s, %s);", a, "0", "0");
		b = bg_expr(g, n->args->next);
		c = bg_expr(g, n->args->next->next);
		return str_ret(g, "stp_text(S, %s, %s, %s, %s != 0);", a, b, c);
	}
	if (named(n, "str_replace")) {
		a = str_arg(g, n->args);
		b = str_arg(g, n->args->next);
		c = str_arg(g, n->args->next->next);
		return str_ret(g, "stp_str_replace(S, %s, %s, %s, %s);", a, b, c);
	}
	if (named(n, "tokenize")) {
		a = bg_expr(g, n->args);
		b = str_arg(g, n->args->next);
		return str_ret(g, "stp_tokenize(S, %s, %s, %s%s);", a, b, "");
	}
	if (named(n, "get_cycles"))
		return "(long)bpf_ktime_get_ns()";
	t = new_tmp(g);
	if (named(n, "strtol")) {
		a = str_arg(g, n->args);
		b = bg_expr(g, n->args->next);
		bg_line(g, "long %s = stp_strtol(S, %s, %s);", t, a, b);
	} else if (named(n, "ctime")) {
		a = bg_expr(g, n->args);
		bg_line(g, "char *%s = %s;", t, bg_slot(g));
		bg_line(g, "long %s_r = stp_ctime(%s, %s);", t, t, a);
		ctime_fail(g, n, arena_printf(g->s->arena, "%s_r", t), -1, "future");
		ctime_fail(g, n, arena_printf(g->s->arena, "%s_r", t), -2, "past");
	} else if (named(n, "euid") || named(n, "egid")) {	/* cred's 1 euid, 3 egid */
		bg_line(g, "long %s = stp_cred_id(%d);", t, n->op[1] == 'g' ? 3 : 1);
	} else if (named(n, "pgrp") || named(n, "sid")) {	/* PIDTYPE_PGID, _SID */
		bg_line(g, "long %s = stp_pid_nr(%d, 0, 0);", t, named(n, "pgrp") ? 2 : 3);
	} else if (fns[k].need & NEED_CRED) {
		/* ns_uid 0, ns_euid 1, ns_gid 2, ns_egid 3: the loader's user
		 * namespace's map */
		int which = named(n, "ns_euid") ? 1 : named(n, "ns_gid") ? 2 :
			    named(n, "ns_egid") ? 3 : 0;

		bg_line(g, "long %s = stp_ns_id(%d);", t, which);
	} else {	/* ns_pid, ns_tid, ns_ppid, ns_pgrp, ns_sid: the loader's pid ns */
		int type = named(n, "ns_tid") ? 0 : named(n, "ns_pgrp") ? 2 : named(n, "ns_sid") ? 3 : 1;

		bg_line(g, "long %s = stp_pid_nr(%d, %d, stp_ns.ino);", t, type,
			named(n, "ns_ppid"));
	}
	return t;
}

/*
 * text_str(in): runtime/tapset_support.c's stp_text_buf() with inlen
 * MAXSTRINGLEN - 1, outlen len (0 or out of range: MAXSTRINGLEN - 1),
 * quoted or not; stapbpf.h's quoting step (STP_QUOTE) one character.
 */
static void emit_text(struct strbuf *c)
{
	sb_puts(c, "static __always_inline void stp_text(struct stp_scratch *S, char *dst, "
		"const char *in, long outlen, long quoted)\n{\n"
		"\tstruct stp_qctx c = { S, dst };\n\n"
		"\tif (bpf_probe_read_kernel_str(S->tmp, STP_MAXSTR, in) < 0)\n\t\tS->tmp[0] = 0;\n"
		"\tif (outlen <= 0 || outlen > STP_MAXSTR - 1)\n\t\toutlen = STP_MAXSTR - 1;\n"
		"\tif (quoted) {\n"
		"\t\tS->quote = (struct stp_quote){ 0, STP_MAXSTR - 1, 1, "
		"(outlen < 5 ? 5 : outlen) - 2, 0, 0, 0, 0 };\n"
		"\t\tstp_quote_run(S, dst);\n\t\treturn;\n\t}\n"
		"\tS->quote = (struct stp_quote){ 0, STP_MAXSTR - 1, 0, outlen, 0, 0, 0, 0 };\n"
		"\tbpf_loop(STP_MAXSTR, stp_quote_step, &c, 0);\n"
		"\tdst[S->quote.o & STP_MASK] = 0;\n}\n");
}

/*
 * tokenize(input, delim): the string being split and the position in it
 * per CPU, across probes (a map of its own), as the module runtime keeps
 * them; strsep() skipping empty tokens, one byte a bpf_loop() step, the
 * delimiters a bit set.
 */
static void emit_tok(struct strbuf *c)
{
	sb_puts(c, "struct stp_tok {\n\tchar str[STP_MAXSTR];\n\tlong next, i, ts, found;\n"
		"\t__u64 set[4];\n};\n"
		"struct {\n\t__uint(type, 6);\t/* BPF_MAP_TYPE_PERCPU_ARRAY */\n"
		"\t__uint(max_entries, 1);\n\t__type(key, __u32);\n"
		"\t__type(value, struct stp_tok);\n} stp_tok SEC(\".maps\");\n"
		"struct stp_tokctx {\n\tstruct stp_tok *t;\n\tconst char *delim;\n};\n"
		"static long stp_tok_set(__u32 i, struct stp_tokctx *c)\n{\n"
		"\tunsigned char ch = c->delim[i & STP_MASK];\n\n"
		"\tif (!ch)\n\t\treturn 1;\n"
		"\tc->t->set[(ch >> 6) & 3] |= 1ULL << (ch & 63);\n\treturn 0;\n}\n"
		"static long stp_tok_step(__u32 k, struct stp_tokctx *c)\n{\n"
		"\tstruct stp_tok *t = c->t;\n"
		"\tlong i = t->i & STP_MASK;\n\tunsigned char ch = t->str[i];\n\n"
		"\t(void)k;\n"
		"\tif (!ch || i >= STP_MAXSTR - 1) {\n\t\tt->next = -1;\n"
		"\t\tt->found = i > t->ts;\n\t\treturn 1;\n\t}\n"
		"\tif (t->set[(ch >> 6) & 3] & (1ULL << (ch & 63))) {\n"
		"\t\tt->str[i] = 0;\n"
		"\t\tif (i > t->ts) {\n\t\t\tt->next = i + 1;\n\t\t\tt->found = 1;\n"
		"\t\t\treturn 1;\n\t\t}\n\t\tt->ts = i + 1;\n\t}\n"
		"\tt->i = i + 1;\n\treturn 0;\n}\n"
		"static __always_inline void stp_tokenize(struct stp_scratch *S, char *dst, "
		"const char *in, const char *delim)\n{\n"
		"\t__u32 zero = 0;\n\tstruct stp_tok *t = bpf_map_lookup_elem(&stp_tok, &zero);\n"
		"\tstruct stp_tokctx c = { t, delim };\n\n"
		"\tdst[0] = 0;\n\tif (!t)\n\t\treturn;\n"
		"\tif (in[0]) {\n"
		"\t\tif (bpf_probe_read_kernel_str(t->str, STP_MAXSTR, in) < 0)\n"
		"\t\t\tt->str[0] = 0;\n\t\tt->next = 0;\n\t}\n"
		"\tif (t->next < 0)\n\t\treturn;\n"
		"\tt->set[0] = t->set[1] = t->set[2] = t->set[3] = 0;\n"
		"\tbpf_loop(STP_MAXSTR, stp_tok_set, &c, 0);\n"
		"\tt->i = t->ts = t->next;\n\tt->found = 0;\n"
		"\tbpf_loop(STP_MAXSTR, stp_tok_step, &c, 0);\n"
		"\tif (t->found)\n"
		"\t\tbpf_probe_read_kernel_str(dst, STP_MAXSTR, t->str + (t->ts & STP_MASK));\n}\n");
}

/*
 * str_replace(s, from, to): s copied with every non-overlapping match of
 * from (left to right) replaced by to, cut at MAXSTRINGLEN - 1 bytes; a
 * bpf_loop() step a position of s, the counters in the scratch.
 */
static void emit_repl(struct strbuf *c)
{
	sb_puts(c, "struct stp_replctx {\n\tconst char *s, *from, *to;\n\tchar *dst;\n"
		"\tlong *st;\n};\n"
		"static long stp_repl_step(__u32 k, struct stp_replctx *c)\n{\n"
		"\tlong *st = c->st, i = st[0], j;\n\n\t(void)k;\n"
		"\tif (i >= st[1] || st[4] >= STP_MAXSTR - 1)\n\t\treturn 1;\n"
		"\tif (st[2] > 0 && i + st[2] <= st[1]) {\n"
		"\t\tfor (j = 0; j < STP_MAXSTR; j++) {\n"
		"\t\t\tif (j >= st[2])\n\t\t\t\tbreak;\n"
		"\t\t\tif (c->s[(i + j) & STP_MASK] != c->from[j & STP_MASK])\n\t\t\t\tbreak;\n"
		"\t\t}\n"
		"\t\tif (j >= st[2]) {\n"
		"\t\t\tstp_putn(c->dst, &st[4], c->to, st[3]);\n"
		"\t\t\tst[0] = i + st[2];\n\t\t\treturn 0;\n\t\t}\n\t}\n"
		"\tstp_put(c->dst, &st[4], c->s[i & STP_MASK]);\n"
		"\tst[0] = i + 1;\n\treturn 0;\n}\n"
		"static __always_inline void stp_str_replace(struct stp_scratch *S, char *dst, "
		"const char *s, const char *from, const char *to)\n{\n"
		"\tlong *st = (long *)(S->tmp + STP_TMPLEN - 256);\n"
		"\tstruct stp_replctx c = { s, from, to, dst, st };\n\n"
		"\tst[0] = 0;\n\tst[1] = stp_strlen(S, s);\n\tst[2] = stp_strlen(S, from);\n"
		"\tst[3] = stp_strlen(S, to);\n\tst[4] = 0;\n"
		"\tbpf_loop(STP_MAXSTR, stp_repl_step, &c, 0);\n"
		"\tdst[st[4] & STP_MASK] = 0;\n}\n");
}

/*
 * strtol(s, base): the kernel's simple_strtol(): an optional '-', base 0
 * 0x... hex, 0... octal, else decimal, base 16 skipping a 0x, then the
 * digits (0-9, a-f) valid in the base, wrapping as unsigned; a bpf_loop() step a
 * digit.
 */
static void emit_strtol(struct strbuf *c)
{
	sb_puts(c, "struct stp_tolctx {\n\tconst char *s;\n\tlong *st;\n};\n"
		"static long stp_tol_step(__u32 k, struct stp_tolctx *c)\n{\n"
		"\tlong *st = c->st;\n\tunsigned long d;\n"
		"\tunsigned char ch = c->s[(st[0] + k) & STP_MASK];\n\n"
		"\tif (st[0] + k >= STP_MAXSTR - 1)\n\t\treturn 1;\n"
		"\tif (ch >= '0' && ch <= '9')\n\t\td = ch - '0';\n"
		"\telse if ((ch | 0x20) >= 'a' && (ch | 0x20) <= 'f')\n\t\td = (ch | 0x20) - 'a' + 10;\n"
		"\telse\n\t\treturn 1;\n"
		"\tif (d >= (unsigned long)st[1])\n\t\treturn 1;\n"
		"\tst[2] = (long)((unsigned long)st[2] * (unsigned long)st[1] + d);\n"
		"\treturn 0;\n}\n"
		"static __always_inline long stp_strtol(struct stp_scratch *S, const char *s, "
		"long base)\n{\n"
		"\tlong *st = (long *)(S->tmp + STP_TMPLEN - 256), i = 0, neg = 0;\n"
		"\tstruct stp_tolctx c = { s, st };\n\tunsigned int b = (unsigned int)base;\n\n"
		"\tif (s[0] == '-') {\n\t\tneg = 1;\n\t\ti = 1;\n\t}\n"
		"\tif (!b) {\n"
		"\t\tb = 10;\n"
		"\t\tif (s[i & STP_MASK] == '0') {\n"
		"\t\t\tchar x = s[(i + 2) & STP_MASK] | 0x20;\n\n"
		"\t\t\tb = 8;\n"
		"\t\t\tif ((s[(i + 1) & STP_MASK] | 0x20) == 'x' && ((x >= '0' && x <= '9') ||"
		" (x >= 'a' && x <= 'f')) && s[(i + 2) & STP_MASK] >= '0')\n"
		"\t\t\t\tb = 16;\n\t\t}\n\t}\n"
		"\tif (b == 16 && s[i & STP_MASK] == '0' && (s[(i + 1) & STP_MASK] | 0x20) == 'x')\n"
		"\t\ti += 2;\n"
		"\tst[0] = i;\n\tst[1] = b;\n\tst[2] = 0;\n"
		"\tbpf_loop(STP_MAXSTR, stp_tol_step, &c, 0);\n"
		"\treturn neg ? (long)(0UL - (unsigned long)st[2]) : st[2];\n}\n");
}

/* euid(), egid(): the current task's cred (current_euid()), and pgrp(),
 * sid(): its signal_struct's pids[PIDTYPE_PGID or _SID] in the initial
 * namespace (numbers[0]), by flavors of the kernel's types (CO-RE); the
 * ns_*() ids in the loader's namespaces (stapio's in the module runtime),
 * which it writes in stp_ns (staprun/stapbpf_ns.c): a pid's number at the
 * level whose namespace is the loader's (none: 0, as pid_nr_ns()), an id
 * mapped up by the user namespace's extents (else
 * the overflow id, 65534) */
static void emit_task(struct strbuf *c, int which)
{
	sb_puts(c, "static void *(*stp_cur_task)(void) = (void *)35;\n");
	if (which & NEED_NS)
		sb_puts(c, "struct stp_nsinfo {\n\tlong ino, nuid, ngid;\n"
			"\tlong uid_map[5][3], gid_map[5][3];\n};\n"
			"struct stp_nsinfo stp_ns;\n");
	if (which & NEED_CRED)
		sb_puts(c, "struct cred___stpx {\n\tstruct { unsigned int val; } uid;\n"
			"\tstruct { unsigned int val; } euid;\n"
			"\tstruct { unsigned int val; } gid;\n"
			"\tstruct { unsigned int val; } egid;\n"
			"} __attribute__((preserve_access_index));\n"
			"struct task_struct___stpc {\n\tstruct cred___stpx *cred;\n"
			"} __attribute__((preserve_access_index));\n"
			"static __always_inline long stp_cred_id(long which)\n{\n"
			"\tstruct task_struct___stpc *t = stp_cur_task();\n"
			"\tstruct cred___stpx *cr = 0;\n\tunsigned int v = 0;\n\n"
			"\tbpf_probe_read_kernel(&cr, 8, &t->cred);\n"
			"\tif (which == 0)\n\t\tbpf_probe_read_kernel(&v, 4, &cr->uid);\n"
			"\telse if (which == 1)\n\t\tbpf_probe_read_kernel(&v, 4, &cr->euid);\n"
			"\telse if (which == 2)\n\t\tbpf_probe_read_kernel(&v, 4, &cr->gid);\n"
			"\telse\n\t\tbpf_probe_read_kernel(&v, 4, &cr->egid);\n"
			"\treturn v;\n}\n");
	if ((which & NEED_CRED) && (which & NEED_NS))
		sb_puts(c, "static __always_inline long stp_ns_id(long which)\n{\n"
			"\tunsigned long id = (unsigned long)stp_cred_id(which);\n"
			"\tlong n = which < 2 ? stp_ns.nuid : stp_ns.ngid;\n\n"
			"\tfor (int i = 0; i < 5; i++) {\n"
			"\t\tlong *e = which < 2 ? stp_ns.uid_map[i] : stp_ns.gid_map[i];\n\n"
			"\t\tif (i >= n)\n\t\t\tbreak;\n"
			"\t\tif (id >= (unsigned long)e[1] && id - (unsigned long)e[1] < "
			"(unsigned long)e[2])\n"
			"\t\t\treturn (long)(unsigned int)(e[0] + (id - e[1]));\n\t}\n"
			"\treturn 65534;\n}\n");
	if (which & NEED_PGRP)
		sb_puts(c, "struct ns_common___stpx {\n\tunsigned int inum;\n"
			"} __attribute__((preserve_access_index));\n"
			"struct pid_namespace___stpx {\n\tstruct ns_common___stpx ns;\n"
			"} __attribute__((preserve_access_index));\n"
			"struct upid___stpx {\n\tint nr;\n\tstruct pid_namespace___stpx *ns;\n"
			"} __attribute__((preserve_access_index));\n"
			"struct pid___stpx {\n\tunsigned int level;\n"
			"\tstruct upid___stpx numbers[1];\n"
			"} __attribute__((preserve_access_index));\n"
			"struct signal_struct___stpx {\n\tstruct pid___stpx *pids[4];\n"
			"} __attribute__((preserve_access_index));\n"
			"struct task_struct___stps {\n\tstruct pid___stpx *thread_pid;\n"
			"\tstruct signal_struct___stpx *signal;\n"
			"\tstruct task_struct___stps *real_parent;\n"
			"} __attribute__((preserve_access_index));\n"
			"/* __task_pid_nr_ns(): type 0 the thread's, else the signal_struct's\n"
			" * pids[type]; the number in the namespace of inode ino (0: the initial) */\n"
			"static __always_inline long stp_pid_nr(long type, long parent, long ino)\n{\n"
			"\tstruct task_struct___stps *t = stp_cur_task();\n"
			"\tstruct signal_struct___stpx *sig = 0;\n\tstruct pid___stpx *p = 0;\n"
			"\tstruct pid_namespace___stpx *ns = 0;\n"
			"\tunsigned int plevel = 0, inum = 0;\n\tint nr = 0;\n\n"
			"\tif (parent)\n\t\tbpf_probe_read_kernel(&t, 8, &t->real_parent);\n"
			"\tif (!type) {\n\t\tbpf_probe_read_kernel(&p, 8, &t->thread_pid);\n"
			"\t} else {\n\t\tbpf_probe_read_kernel(&sig, 8, &t->signal);\n"
			"\t\tif (!sig)\n\t\t\treturn 0;\n"
			"\t\tbpf_probe_read_kernel(&p, 8, &sig->pids[type & 3]);\n\t}\n"
			"\tif (!p)\n\t\treturn 0;\n"
			"\tbpf_probe_read_kernel(&plevel, 4, &p->level);\n"
			"\tif (!ino) {\n"
			"\t\tbpf_probe_read_kernel(&nr, 4, &p->numbers[0].nr);\n\t\treturn nr;\n\t}\n"
			"\t/* the level whose namespace is the loader's */\n"
			"\tfor (unsigned int l = 0; l < 33; l++) {\n"
			"\t\tif (l > plevel)\n\t\t\tbreak;\n"
			"\t\tns = 0;\n\t\tinum = 0;\n"
			"\t\tbpf_probe_read_kernel(&ns, 8, &p->numbers[l].ns);\n"
			"\t\tif (ns)\n\t\t\tbpf_probe_read_kernel(&inum, 4, &ns->ns.inum);\n"
			"\t\tif (inum == (unsigned long)ino) {\n"
			"\t\t\tbpf_probe_read_kernel(&nr, 4, &p->numbers[l].nr);\n"
			"\t\t\treturn nr;\n\t\t}\n\t}\n"
			"\treturn 0;\n}\n");
}

/*
 * ctime(secs): "Www Mmm dd hh:mm:ss yyyy" (UTC) as stp_ctime(); the civil
 * date from the day number by arithmetic (no loops); -1 for a time past
 * the 32-bit time_t range, -2 for one before it.
 */
static void emit_ctime(struct strbuf *c)
{
	sb_puts(c, "static const char stp_days[] STP_RODATA = \"SunMonTueWedThuFriSat\"\n"
		"\t\"           \";\t/* room for a masked index */\n"
		"static const char stp_months[] STP_RODATA = "
		"\"JanFebMarAprMayJunJulAugSepOctNovDec\"\n"
		"\t\"                               \";\n"
		"static __always_inline long stp_ctime(char *dst, long secs)\n{\n"
		"\tunsigned long u, day, sod, wday, z, era, doe, yoe, y, doy, mp, d, m;\n"
		"\tlong n = 0;\n\n"
		"\tdst[0] = 0;\n"
		"\tif (secs > 2147483647L)\n\t\treturn -1;\n"
		"\tif (secs < -2147483648L)\n\t\treturn -2;\n"
		"\t/* unsigned only (BPF divides no signed value): days from\n"
		"\t * 25000 days before 1970, past the range's start */\n"
		"\tu = (unsigned long)(secs + 25000L * 86400);\n"
		"\tday = u / 86400;\n\tsod = u % 86400;\n"
		"\twday = (day + 4 + 7 - 25000 % 7) % 7;\n"
		"\tz = day - 25000 + 719468;\n\tera = z / 146097;\n"
		"\tdoe = z - era * 146097;\n"
		"\tyoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;\n"
		"\ty = yoe + era * 400;\n\tdoy = doe - (365 * yoe + yoe / 4 - yoe / 100);\n"
		"\tmp = (5 * doy + 2) / 153;\n\td = doy - (153 * mp + 2) / 5 + 1;\n"
		"\tm = mp < 10 ? mp + 3 : mp - 9;\n\tif (m <= 2)\n\t\ty++;\n"
"\t/* the masks for the verifier, which cannot bound a modulo: not\n"
		"\t * folded away by clang (barrier) */\n"
		"\twday *= 3;\n\tm = 3 * (m - 1);\n"
		"\tasm volatile(\"\" : \"+r\"(wday), \"+r\"(m));\n"
		"\tstp_putn(dst, &n, stp_days + (wday & 31), 3);\n"
		"\tstp_put(dst, &n, ' ');\n"
		"\tstp_putn(dst, &n, stp_months + (m & 63), 3);\n"
		"\tstp_put(dst, &n, ' ');\n"
		"\tstp_put(dst, &n, d >= 10 ? '0' + d / 10 : ' ');\n"
		"\tstp_put(dst, &n, '0' + d % 10);\n\tstp_put(dst, &n, ' ');\n"
		"\tstp_put(dst, &n, '0' + sod / 36000);\n\tstp_put(dst, &n, '0' + sod / 3600 % 10);\n"
		"\tstp_put(dst, &n, ':');\n"
		"\tstp_put(dst, &n, '0' + sod / 600 % 6);\n\tstp_put(dst, &n, '0' + sod / 60 % 10);\n"
		"\tstp_put(dst, &n, ':');\n"
		"\tstp_put(dst, &n, '0' + sod % 60 / 10);\n\tstp_put(dst, &n, '0' + sod % 10);\n"
		"\tstp_put(dst, &n, ' ');\n"
		"\tstp_put(dst, &n, '0' + y / 1000);\n\tstp_put(dst, &n, '0' + y / 100 % 10);\n"
		"\tstp_put(dst, &n, '0' + y / 10 % 10);\n\tstp_put(dst, &n, '0' + y % 10);\n"
		"\tdst[n & STP_MASK] = 0;\n\treturn 0;\n}\n");
}

void bx_types(struct bgen *g, struct strbuf *c)
{
	int need = g->strfn_need;

	if (need & NEED_TEXT)
		emit_text(c);
	if (need & NEED_TOK)
		emit_tok(c);
	if (need & NEED_REPL)
		emit_repl(c);
	if (need & NEED_STRTOL)
		emit_strtol(c);
	if (need & (NEED_CRED | NEED_PGRP))
		emit_task(c, need);
	if (need & NEED_CTIME)
		emit_ctime(c);
	g->strfn_need = 0;
}
