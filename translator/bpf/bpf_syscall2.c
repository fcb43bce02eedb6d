/*
 * bpf_syscall2.c - more of the syscall.* and nd_syscall.* tapsets'
 * embedded-C helpers for --runtime=bpf (bpf_syscall.c has the argument
 * readers, the flag decoders and the time structures): a user sockaddr
 * (_struct_sockaddr_u()), execve's argument and environment arrays
 * (__get_argv() over _sc_user_ptr(), one bpf_loop() step an entry, which
 * 6.1's verifier checks once), a sigaction (also a 32-bit task's), a
 * siginfo_t, a timex, prctl's argstr, an extended attribute's value, the
 * structures shown field by field (tms, sysinfo, sched_attr, user_desc,
 * stack_t, quota blocks, an iovec), and the numeric readers of pipe's
 * fds, utime's times and ptrace's int; each with the module runtime's
 * output (tapsets/linux/syscall_support.stp and its kin). bpf_syscall.c
 * asks here (bsc2_has, bsc2_call, bsc2_types), bpf_gen.c for
 * __get_argv() (bsc2_script); the decoders used are bpf_syscall.c's
 * (bsc_decoder).
 */
#include <string.h>

#include "bpf.h"

enum {
	SC2_SOCKADDR = 1,	/* stp_sc_sockaddr() */
	SC2_ARGV = 2,		/* stp_sc_argv() */
	/* 4 << i: structs[i] */
	SC2_XATTR = 1 << 20,	/* stp_sc_xattr() */
};

/* the user structures shown field by field: a field's text before it,
 * its offset and size (bytes), its bits (shift and width, 0: all), its
 * conversion ('d', 'u', 'x' as %#lx, 'S' a stack_t's SS_* flags); size 0:
 * the text alone */
struct sc2_field {
	const char *pre;
	int off, size, shift, bits;
	char conv;
};
#define FLD(p, o, s, c) { p, o, s, 0, 0, c }
static const struct sc2_field tms_fields[] = {
	FLD("{tms_utime=", 0, 8, 'u'), FLD(", tms_stime=", 8, 8, 'u'),
	FLD(", tms_cutime=", 16, 8, 'u'), FLD(", tms_cstime=", 24, 8, 'u'), { NULL, 0, 0, 0, 0, 0 }
};
static const struct sc2_field sysinfo_fields[] = {
	FLD("{uptime=", 0, 8, 'd'), FLD(", loads=[", 8, 8, 'u'), FLD(", ", 16, 8, 'u'),
	FLD(", ", 24, 8, 'u'), FLD("], totalram=", 32, 8, 'u'), FLD(", freeram=", 40, 8, 'u'),
	FLD(", sharedram=", 48, 8, 'u'), FLD(", bufferram=", 56, 8, 'u'),
	FLD(", totalswap=", 64, 8, 'u'), FLD(", freeswap=", 72, 8, 'u'),
	FLD(", procs=", 80, 2, 'u'), { NULL, 0, 0, 0, 0, 0 }
};
static const struct sc2_field sched_attr_fields[] = {
	FLD("{size=", 0, 4, 'u'), FLD(", sched_policy=", 4, 4, 'u'),
	FLD(", sched_flags=", 8, 8, 'u'), FLD(", sched_nice=", 16, 4, 'd'),
	FLD(", sched_priority=", 20, 4, 'u'), FLD(", sched_runtime=", 24, 8, 'u'),
	FLD(", sched_deadline=", 32, 8, 'u'), FLD(", sched_period=", 40, 8, 'u'),
	{ NULL, 0, 0, 0, 0, 0 }
};
static const struct sc2_field user_desc_fields[] = {
	FLD("{entry_number=", 0, 4, 'u'), FLD(", base_addr=", 4, 4, 'u'),
	FLD(", limit=", 8, 4, 'u'), { ", seg_32bit=", 12, 4, 0, 1, 'u' },
	{ ", contents=", 12, 4, 1, 2, 'u' }, { ", read_exec_only=", 12, 4, 3, 1, 'u' },
	{ ", limit_in_pages=", 12, 4, 4, 1, 'u' }, { ", seg_not_present=", 12, 4, 5, 1, 'u' },
	{ ", useable=", 12, 4, 6, 1, 'u' }, { ", lm=", 12, 4, 7, 1, 'u' }, { NULL, 0, 0, 0, 0, 0 }
};
static const struct sc2_field dqblk_fields[] = {
	FLD("{dqb_bhardlimit=", 0, 8, 'u'), FLD(", dqb_bsoftlimit=", 8, 8, 'u'),
	FLD(", dqb_curspace=", 16, 8, 'u'), FLD(", dqb_ihardlimit=", 24, 8, 'u'),
	FLD(", dqb_isoftlimit=", 32, 8, 'u'), FLD(", ...", 0, 0, 0), { NULL, 0, 0, 0, 0, 0 }
};
static const struct sc2_field dqinfo_fields[] = {
	FLD("{dqi_bgrace=", 0, 8, 'u'), FLD(", dqi_igrace=", 8, 8, 'u'),
	FLD(", dqi_flags=", 16, 4, 'd'), FLD(", dqi_valid=", 20, 4, 'd'), { NULL, 0, 0, 0, 0, 0 }
};
static const struct sc2_field iovec_fields[] = {
	FLD("[{", 0, 8, 'x'), FLD(", ", 8, 8, 'u'), FLD("}", 0, 0, 0), { NULL, 0, 0, 0, 0, 0 }
};
static const struct sc2_field sigaltstack_fields[] = {
	FLD("{ss_sp=", 0, 8, 'x'), FLD(", ss_flags=", 8, 4, 'S'), FLD(", ss_size=", 16, 8, 'u'),
	{ NULL, 0, 0, 0, 0, 0 }
};
#undef FLD

/* the structures: the tapset function, the C function, its size, whether
 * 0 shows as NULL (else 0x0), its fields */
static const struct {
	const char *fn, *c;
	int size, null_name;
	const struct sc2_field *f;
} structs[] = {
	{ "_struct_tms_u", "stp_sc_tms", 32, 1, tms_fields },
	{ "_struct_sysinfo_u", "stp_sc_sysinfo", 112, 1, sysinfo_fields },
	{ "_struct_sched_attr_u", "stp_sc_sched_attr", 56, 1, sched_attr_fields },
	{ "_struct_user_desc_u", "stp_sc_user_desc", 16, 1, user_desc_fields },
	{ "_stp_sigaltstack_u", "stp_sc_sigaltstack", 24, 0, sigaltstack_fields },
	{ "_struct_dqblk_u", "stp_sc_dqblk", 72, 1, dqblk_fields },
	{ "_struct_dqinfo_u", "stp_sc_dqinfo", 24, 1, dqinfo_fields },
	{ "_ptrace_iovec_u", "stp_sc_iovec", 16, 1, iovec_fields },	/* "[{...}]" */
};
#define NSTRUCTS (sizeof(structs) / sizeof(structs[0]))

static const struct {
	const char *name;
	int n;
} fns2[] = {
	{ "_struct_sockaddr_u", 2 }, { "_sc_user_ptr", 1 }, { "__sc_int32", 1 },
	{ "_fildes_index_u", 2 }, { "__sc_utimbuf_field", 2 }, { "_stp_xattr_val_str", 2 },
	{ "_struct_sigaction_u", 1 }, { "_struct_timex_u", 1 }, { "_stp_siginfo_u", 1 },
	{ "_sc_compat_sigaction_u", 2 }, { "_prctl_argstr", 5 },
};

/* the index in structs[] of the user structure fn, else -1 */
static int user_struct2(const char *fn)
{
	for (size_t i = 0; i < NSTRUCTS; i++)
		if (!strcmp(fn, structs[i].fn))
			return (int)i;
	return -1;
}

bool bsc2_has(const struct func *f)
{
	if (f->nparams == 1 && user_struct2(f->name) >= 0)
		return true;
	for (size_t i = 0; i < sizeof(fns2) / sizeof(fns2[0]); i++)
		if (!strcmp(f->name, fns2[i].name) && f->nparams == fns2[i].n)
			return true;
	return false;
}

static const char *new_tmp(struct bgen *g)
{
	return arena_printf(g->s->arena, "t%d", g->ntmp++);
}

/* __get_argv(argv, first): the tapset's script function, written here
 * as one loop the verifier accepts; NULL for other calls */
const char *bsc2_script(struct bgen *g, struct node *n)
{
	const char *argv, *first, *t;

	if (!n->func || strcmp(n->func->name, "__get_argv") || n->func->nparams != 2 ||
	    n->func->type != T_STRING)
		return NULL;
	argv = bg_expr(g, n->args);
	first = bg_expr(g, n->args->next);
	t = new_tmp(g);
	g->need_sc = true;
	g->need_quote = true;
	g->sc2_used |= SC2_ARGV;
	bg_line(g, "char *%s = %s;", t, bg_slot(g));
	bg_line(g, "stp_sc_argv(S, %s, %s, %s, %s);", t, bg_slot(g), argv, first);
	return t;
}

/* _struct_sigaction_u(): "SIG_DFL", "SIG_IGN", else the handler, its SA_
 * flags, the restorer and the mask, as the tapset (the kernel's struct
 * sigaction of x86-64, 32 bytes); NULL; 0x... on a fault. Each decoder
 * writes into a slot of its own, then appended. _sc_compat_sigaction_u(a,
 * old): a 32-bit task's, its rt_sigaction layout (handler, flags,
 * restorer, a two-word mask) or with old its sigaction one (handler, a
 * one-word mask, flags, restorer). */
static const char *user_sigaction(struct bgen *g, struct node *n)
{
	const char *a = bg_expr(g, n->args), *o = NULL, *t = new_tmp(g), *u = bg_slot(g);
	size_t fl = bsc_decoder(g, " sigaction flags");
	size_t ms = bsc_decoder(g, "_stp_sigmask_str");

	if (n->args->next)
		o = bg_expr(g, n->args->next);
	g->need_sc = true;
	bg_line(g, "char *%s = %s;", t, bg_slot(g));
	if (!o) {
		bg_line(g, "if (!stp_sc_in(S, %s, %s, 32)) {", t, a);
		bg_line(g, "\tunsigned long h = ((long *)S->tmp)[0], fl = ((long *)S->tmp)[1];\n"
			"\tunsigned long rs = ((long *)S->tmp)[2], m = ((long *)S->tmp)[3];");
	} else {
		bg_line(g, "if (!stp_sc_in(S, %s, %s, %s ? 16 : 20)) {", t, a, o);
		bg_line(g, "\t__u32 *w = (__u32 *)S->tmp;\n\tunsigned long h = w[0];\n"
			"\tunsigned long fl = %s ? w[2] : w[1], rs = %s ? w[3] : w[2];\n"
			"\tunsigned long m = %s ? w[1] : w[3] | (unsigned long)w[4] << 32;", o, o, o);
	}
	bg_line(g, "\tlong len = 0;\n");
	bg_line(g, "\tif (h <= 1) {\n\t\tstp_putn(%s, &len, h ? \"SIG_IGN\" : \"SIG_DFL\", 7);\n"
		"\t} else {", t);
	bg_line(g, "\t\tstp_sfmt_long(%s, &len, h, 'x', STP_F_ALT, 0, -1);\n"
		"\t\tstp_putn(%s, &len, \", \", 2);", t, t);
	bg_line(g, "\t\tstp_scd_%zu(S, %s, fl);\n"
		"\t\tstp_putn(%s, &len, S->tmp, stp_strlen(S, %s));", fl, u, t, u);
	bg_line(g, "\t\tstp_putn(%s, &len, \", \", 2);\n"
		"\t\tstp_sfmt_long(%s, &len, rs, 'x', STP_F_ALT, 0, -1);\n"
		"\t\tstp_putn(%s, &len, \", \", 2);", t, t, t);
	bg_line(g, "\t\tstp_scd_%zu(S, %s, m);\n"
		"\t\tstp_putn(%s, &len, S->tmp, stp_strlen(S, %s));\n\t}", ms, u, t, u);
	bg_line(g, "\tstp_sfmt_end(%s, len);\n}", t);
	return t;
}

static const char *user_timex(struct bgen *g, struct node *n)
{
	static const struct { const char *name; int i; } f[] = {
		{ "constant", 6 }, { "esterror", 4 }, { "freq", 2 }, { "maxerror", 3 },
		{ "offset", 1 }, { "precision", 7 }, { "status", 5 }, { "tick", 11 },
		{ "tolerance", 8 },
	};
	const char *a = bg_expr(g, n->args), *t = new_tmp(g), *u = bg_slot(g);

	g->need_sc = true;
	bg_line(g, "char *%s = %s;", t, bg_slot(g));
	bg_line(g, "if (!stp_sc_in(S, %s, %s, 132)) {", t, a);
	bg_line(g, "\tint x[12];\n\tlong len = 0;\n\n"
		"\tfor (int i = 0; i < 12; i++)\n\t\tx[i] = ((int *)S->tmp)[i];");
	bg_line(g, "\tstp_scd_%zu(S, %s, (unsigned int)x[0]);\n\tstp_put(%s, &len, '{');\n"
		"\tif (x[0])\n\t\tstp_put(%s, &len, '|');\n"
		"\tstp_putn(%s, &len, S->tmp, stp_strlen(S, %s));",
		bsc_decoder(g, " timex modes"), u, t, t, t, u);
	for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++)
		bg_line(g, "\tstp_putn(%s, &len, \", %s=\", %zu);\n"
			"\tstp_sfmt_long(%s, &len, x[%d], '%c', 0, 0, -1);", t, f[i].name,
			strlen(f[i].name) + 3, t, f[i].i, f[i].i == 5 ? 'd' : 'u');
	bg_line(g, "\tstp_put(%s, &len, '}');\n\tstp_sfmt_end(%s, len);\n}", t, t);
	return t;
}

/* _stp_siginfo_u(): a user siginfo_t (128 bytes) as the tapset shows it:
 * "{si_signo=..., si_code=...", an unknown code followed by its name for
 * some signals, then the fields of its kind, "}"; NULL; 0x... on a fault.
 * x[]: its ints (signo, errno, code, pad, pid or tid, uid or overrun,
 * status), ad: the long at 16 (si_addr, si_band). */
static const char *user_siginfo(struct bgen *g, struct node *n)
{
	const char *a = bg_expr(g, n->args), *t = new_tmp(g), *u = bg_slot(g);
	size_t codes = bsc_decoder(g, " si_code");
	size_t sigcodes = bsc_decoder(g, " si_code of a signal");
	size_t sig = bsc_decoder(g, " signal name");

	g->need_sc = true;
	bg_line(g, "char *%s = %s;", t, bg_slot(g));
	bg_line(g, "if (!stp_sc_in(S, %s, %s, 128)) {", t, a);
	bg_line(g, "\tint x[8];\n\tlong len = 0, ad = ((long *)S->tmp)[2];\n\n"
		"\tfor (int i = 0; i < 8; i++)\n\t\tx[i] = ((int *)S->tmp)[i];\n"
		"\tstp_putn(%s, &len, \"{si_signo=\", 10);\n\tstp_scd_%zu(S, %s, x[0]);\n"
		"\tstp_putn(%s, &len, S->tmp, stp_strlen(S, %s));\n"
		"\tstp_putn(%s, &len, \", si_code=\", 10);\n\tstp_scd_%zu(S, %s, x[2]);\n"
		"\tstp_putn(%s, &len, S->tmp, stp_strlen(S, %s));",
		t, sig, u, t, u, t, codes, u, t, u);
	bg_line(g, "\tif (%s[0] == '0' && (x[0] == 4 || x[0] == 8 || x[0] == 11 || x[0] == 7 || "
		"x[0] == 5 || x[0] == 17 || x[0] == 29 || x[0] == 31)) {\n"
		"\t\t%s[0] = '0';\n"
		"\t\tif (x[2] > 0 && x[2] < 256)\n\t\t\tstp_scd_%zu(S, %s, (long)x[0] << 8 | x[2]);\n"
		"\t\tif (%s[0] != '0')\n\t\t\tstp_putn(%s, &len, S->tmp, stp_strlen(S, %s));\n"
		"\t\telse\n\t\t\tstp_sfmt_long(%s, &len, x[2], 'x', STP_F_ALT, 0, -1);\n\t}",
		u, u, sigcodes, u, u, t, u, t);
	bg_line(g, "\tif (x[2] == -2) {\n\t\tstp_putn(%s, &len, \", si_tid=\", 9);\n"
		"\t\tstp_sfmt_long(%s, &len, (unsigned int)x[4], 'x', STP_F_ALT, 0, -1);\n"
		"\t\tstp_putn(%s, &len, \", si_overrun=\", 13);\n"
		"\t\tstp_sfmt_long(%s, &len, x[5], 'd', 0, 0, -1);\n"
		"\t} else if (x[2] <= 0 || x[0] == 17 || (x[0] != 4 && x[0] != 8 && x[0] != 11 && "
		"x[0] != 7 && x[0] != 29 && (x[4] || x[5]))) {\n"
		"\t\tstp_putn(%s, &len, \", si_pid=\", 9);\n"
		"\t\tstp_sfmt_long(%s, &len, x[4], 'u', 0, 0, -1);\n"
		"\t\tstp_putn(%s, &len, \", si_uid=\", 9);\n"
		"\t\tstp_sfmt_long(%s, &len, (unsigned int)x[5], 'u', 0, 0, -1);\n\t}",
		t, t, t, t, t, t, t, t);
	bg_line(g, "\tif (x[2] > 0 && x[0] == 17) {\n"
		"\t\tstp_putn(%s, &len, \", si_status=\", 12);\n"
		"\t\tif (x[2] == 1) {\n\t\t\tstp_sfmt_long(%s, &len, x[6], 'd', 0, 0, -1);\n"
		"\t\t} else {\n\t\t\tstp_scd_%zu(S, %s, x[6]);\n"
		"\t\t\tstp_putn(%s, &len, S->tmp, stp_strlen(S, %s));\n\t\t}\n"
		"\t} else if (x[2] > 0 && (x[0] == 4 || x[0] == 8 || x[0] == 11 || x[0] == 7)) {\n"
		"\t\tstp_putn(%s, &len, \", si_addr=\", 10);\n"
		"\t\tstp_sfmt_long(%s, &len, ad, 'x', STP_F_ALT, 0, -1);\n"
		"\t} else if (x[2] > 0 && x[0] == 29 && x[2] <= 3) {\n"
		"\t\tstp_putn(%s, &len, \", si_band=\", 10);\n"
		"\t\tstp_sfmt_long(%s, &len, ad, 'd', 0, 0, -1);\n\t}",
		t, t, sig, u, t, u, t, t, t, t);
	bg_line(g, "\tstp_put(%s, &len, '}');\n\tstp_sfmt_end(%s, len);\n}", t, t);
	return t;
}

/* _prctl_argstr(option, a2, a3, a4, a5): the option (0x... when unknown),
 * then the arguments it reads, each as that option reads it (a name, a
 * flag set, a number, 0x...), as the tapset's stp_scmisc_prctl_args();
 * an option it does not know shows all four as 0x.... dec: a decoder's
 * name into slot u, appended after ", " (a C fragment) */
static const char *user_prctl(struct bgen *g, struct node *n)
{
	static const char *const ptype[][2] = {
		{ "6", " prctl unalign" }, { "10", " prctl fpemu" }, { "12", " prctl fpexc" },
		{ "14", " prctl timing" }, { "20", " prctl endian" }, { "26", " prctl tsc" },
		{ "23 || o == 24", " prctl caps" }, { "28", " prctl securebits" },
	};
	const char *a[5], *t = new_tmp(g), *u = bg_slot(g);
	struct node *arg = n->args;
	const char *app = arena_printf(g->s->arena, "stp_putn(%s, &len, S->tmp, stp_strlen(S, %s));",
				       t, u);

	for (int i = 0; i < 5; i++, arg = arg->next)
		a[i] = bg_expr(g, arg);
	g->need_sc = true;
	bg_line(g, "char *%s = %s;", t, bg_slot(g));
	bg_line(g, "{\n\tunsigned int o = %s;\n\tunsigned long a2 = %s, a3 = %s;\n"
		"\tlong len = 0;\n", a[0], a[1], a[2]);
	bg_line(g, "\tstp_scd_%zu(S, %s, o);\n\t%s", bsc_decoder(g, " prctl options"), u, app);
	bg_line(g, "\tif (o == 3 || o == 13 || o == 7 || o == 21 || o == 31 || o == 32 || "
		"o == 30 || o == 34 || o == 39 || o == 42 || o == 43 || o == 44 || o == 27) {");
	for (size_t i = 0; i < sizeof(ptype) / sizeof(ptype[0]); i++)
		bg_line(g, "\t} else if (o == %s) {\n\t\tstp_putn(%s, &len, \", \", 2);\n"
			"\t\tstp_scd_%zu(S, %s, a2);\n\t\t%s", ptype[i][0], t,
			bsc_decoder(g, ptype[i][1]), u, app);
	bg_line(g, "\t} else if (o == 0x59616d61) {\n"
		"\t\tif (a2 == -1UL) {\n"
		"\t\t\tstp_putn(%s, &len, \", PR_SET_PTRACER_ANY\", 20);\n"
		"\t\t} else {\n\t\t\tstp_putn(%s, &len, \", \", 2);\n"
		"\t\t\tstp_sfmt_long(%s, &len, a2, 'd', 0, 0, -1);\n\t\t}", t, t, t);
	bg_line(g, "\t} else if (o == 1 || o == 2 || o == 5 || o == 9 || o == 11 || o == 15 || "
		"o == 16 || o == 19 || o == 25 || o == 40 || o == 37 || o == 41) {\n"
		"\t\tstp_putn(%s, &len, \", \", 2);\n"
		"\t\tstp_sfmt_long(%s, &len, a2, 'x', STP_F_ALT, 0, -1);", t, t);
	bg_line(g, "\t} else if (o == 4 || o == 8 || o == 36 || o == 38 || o == 29) {\n"
		"\t\tstp_putn(%s, &len, \", \", 2);\n"
		"\t\tstp_sfmt_long(%s, &len, a2, 'u', 0, 0, -1);", t, t);
	bg_line(g, "\t} else if (o == 33) {\n\t\tstp_putn(%s, &len, \", \", 2);\n"
		"\t\tstp_scd_%zu(S, %s, a2);\n\t\t%s\n"
		"\t\tif (a2 == 1) {\n\t\t\tstp_putn(%s, &len, \", \", 2);\n"
		"\t\t\tstp_scd_%zu(S, %s, a3);\n\t\t\t%s\n"
		"\t\t} else if (a2) {\n\t\t\tstp_putn(%s, &len, \", \", 2);\n"
		"\t\t\tstp_sfmt_long(%s, &len, a3, 'x', STP_F_ALT, 0, -1);\n\t\t}",
		t, bsc_decoder(g, " prctl mce_kill"), u, app, t,
		bsc_decoder(g, " prctl mce_kill policy"), u, app, t, t);
	bg_line(g, "\t} else if (o == 22 || o == 35) {\n\t\tstp_putn(%s, &len, \", \", 2);\n"
		"\t\tif (o == 22)\n\t\t\tstp_scd_%zu(S, %s, a2);\n"
		"\t\telse\n\t\t\tstp_scd_%zu(S, %s, a2);\n\t\t%s\n"
		"\t\tstp_putn(%s, &len, \", \", 2);\n"
		"\t\tstp_sfmt_long(%s, &len, a3, 'x', STP_F_ALT, 0, -1);",
		t, bsc_decoder(g, " prctl seccomp"), u, bsc_decoder(g, " prctl set_mm"), u, app,
		t, t);
	bg_line(g, "\t} else {\n\t\tunsigned long v[4] = { a2, a3, %s, %s };\n\n"
		"\t\tfor (int i = 0; i < 4; i++) {\n"
		"\t\t\tstp_putn(%s, &len, \", \", 2);\n"
		"\t\t\tstp_sfmt_long(%s, &len, v[i], 'x', STP_F_ALT, 0, -1);\n\t\t}\n\t}",
		a[3], a[4], t, t);
	bg_line(g, "\tstp_sfmt_end(%s, len);\n}", t);
	return t;
}

const char *bsc2_call(struct bgen *g, struct node *n)
{
	const char *a, *b = NULL, *t;

	if (!bsc2_has(n->func))
		return NULL;
	if (!strcmp(n->op, "_struct_sigaction_u") || !strcmp(n->op, "_sc_compat_sigaction_u"))
		return user_sigaction(g, n);
	if (!strcmp(n->op, "_struct_timex_u"))
		return user_timex(g, n);
	if (!strcmp(n->op, "_stp_siginfo_u"))
		return user_siginfo(g, n);
	if (!strcmp(n->op, "_prctl_argstr"))
		return user_prctl(g, n);
	g->need_sc = true;
	a = bg_expr(g, n->args);
	if (n->args->next)
		b = bg_expr(g, n->args->next);
	t = new_tmp(g);
	if (!strcmp(n->op, "_struct_sockaddr_u")) {
		g->need_quote = true;	/* the abstract name's escapes */
		g->sc2_used |= SC2_SOCKADDR;
		bg_line(g, "char *%s = %s;", t, bg_slot(g));
		bg_line(g, "stp_sc_sockaddr(S, %s, %s, %s, %s);", t, bg_slot(g), a, b);
	} else if (!strcmp(n->op, "_stp_xattr_val_str")) {
		g->sc2_used |= SC2_XATTR;
		bg_line(g, "char *%s = %s;", t, bg_slot(g));
		bg_line(g, "stp_sc_xattr(S, %s, %s, %s);", t, a, b);
	} else if (user_struct2(n->op) >= 0) {
		g->sc2_used |= 4U << user_struct2(n->op);
		bg_line(g, "char *%s = %s;", t, bg_slot(g));
		bg_line(g, "%s(S, %s, %s);", structs[user_struct2(n->op)].c, t, a);
	} else if (!strcmp(n->op, "__sc_int32")) {
		bg_line(g, "long %s = (long)(int)%s;", t, a);
	} else if (!strcmp(n->op, "_sc_user_ptr")) {	/* -1 on a fault */
		bg_line(g, "long %s = 0;", t);
		bg_line(g, "if (!STP_UOK(%s, 8) || stp_probe_read_user(&%s, 8, (void *)%s) < 0)\n"
			"\t%s = -1;", a, t, a, t);
	} else {	/* _fildes_index_u(), __sc_utimbuf_field(): 0 when unreadable */
		int fd = n->op[1] == 'f';

		bg_line(g, "long %s = 0;", t);
		bg_line(g, "if (%s && %s && STP_UOK(%s, %d)) {", a, fd ? arena_printf(
				g->s->arena, "(%s == 0 || %s == 1)", b, b) : "1", a, fd ? 8 : 16);
		if (fd)
			bg_line(g, "\tint v[2] = { 0, 0 };\n\n"
				"\tif (!stp_probe_read_user(v, 8, (void *)%s))\n"
				"\t\t%s = %s ? v[1] : v[0];", a, t, b);
		else
			bg_line(g, "\tlong v[2] = { 0, 0 };\n\n"
				"\tif (!stp_probe_read_user(v, 16, (void *)%s))\n"
				"\t\t%s = %s ? v[1] : v[0];", a, t, b);
		bg_line(g, "}");
	}
	return t;
}

/*
 * stp_sc_sockaddr(): the len bytes (clamped to 0...128 as an unsigned
 * value) of the user sockaddr at addr in S->tmp (zeroed past them), shown
 * by family as the tapset: AF_INET's %pI4 and port, AF_INET6's %pI6 and
 * port, AF_UNIX's path (an abstract name's bytes escaped as
 * stp_text_buf() with buffer = 1, unquoted, after "\000", in
 * MAXSTRINGLEN - 18), AF_NETLINK's and AF_PACKET's fields, else the
 * family and length; "NULL"; "{...}" on a fault. tx: a slot for the
 * name's text.
 */
static void emit_sockaddr(struct strbuf *c)
{
	sb_puts(c, "static __always_inline void stp_sc_sockaddr(struct stp_scratch *S, char *dst, "
		"char *tx, long addr, long salen)\n{\n"
		"\tunsigned char *u = (unsigned char *)S->tmp;\n"
		"\tunsigned long n = (unsigned long)salen > 128 ? 128 : salen;\n"
		"\tlong len = 0, fam;\n\n"
		"\tif (!addr) {\n\t\tstp_putn(dst, &len, \"NULL\", 4);\n"
		"\t\tstp_sfmt_end(dst, len);\n\t\treturn;\n\t}\n"
		"\tfor (int i = 0; i < 16; i++)\n\t\t((__u64 *)S->tmp)[i] = 0;\n"
		"\tif (!STP_UOK(addr, n) || (n && stp_probe_read_user(S->tmp, n & 255, "
		"(void *)addr) < 0)) {\n"
		"\t\tfor (int i = 0; i < 16; i++)\n\t\t\t((__u64 *)S->tmp)[i] = 0;\n"
		"\t\tstp_putn(dst, &len, \"{...}\", 5);\n"
		"\t\tstp_sfmt_end(dst, len);\n\t\treturn;\n\t}\n"
		"\tfam = u[0] | u[1] << 8;\n"
		"\tif (fam == 2 && n == 16) {\n"
		"\t\tstp_putn(dst, &len, \"{AF_INET, \", 10);\n"
		"\t\tfor (int i = 0; i < 4; i++) {\n"
		"\t\t\tif (i)\n\t\t\t\tstp_put(dst, &len, '.');\n"
		"\t\t\tstp_sfmt_long(dst, &len, u[4 + i], 'd', 0, 0, -1);\n\t\t}\n"
		"\t\tstp_putn(dst, &len, \", \", 2);\n"
		"\t\tstp_sfmt_long(dst, &len, u[2] << 8 | u[3], 'd', 0, 0, -1);\n"
		"\t\tstp_put(dst, &len, '}');\n"
		"\t} else if (fam == 10 && n == 28) {\n"
		"\t\tstp_putn(dst, &len, \"{AF_INET6, \", 11);\n"
		"\t\tfor (int i = 0; i < 16; i++) {\n"
		"\t\t\tif (i && !(i & 1))\n\t\t\t\tstp_put(dst, &len, ':');\n"
		"\t\t\tstp_sc_hexbyte(dst, &len, u[8 + i]);\n\t\t}\n"
		"\t\tstp_putn(dst, &len, \", \", 2);\n"
		"\t\tstp_sfmt_long(dst, &len, u[2] << 8 | u[3], 'd', 0, 0, -1);\n"
		"\t\tstp_put(dst, &len, '}');\n"
		"\t} else if (fam == 1 && n >= 4 && !u[2]) {\n"
		"\t\tstruct stp_qctx qc = { S, tx };\n"
		"\t\tlong k;\n\n"
		"\t\tS->quote = (struct stp_quote){ 3, n - 2 > 125 ? 125 : n - 2, 0, "
		"STP_MAXSTR - 1, 0, 0, 0, 1 };\n"
		"\t\tbpf_loop(STP_MAXSTR, stp_quote_step, &qc, 0);\n"
		"\t\tk = S->quote.o;\n"
		"\t\tif (k > STP_MAXSTR - 18)\n\t\t\tk = STP_MAXSTR - 18;\n"
		"\t\tstp_putn(dst, &len, \"{AF_UNIX, \\\"\\\\000\", 15);\n"
		"\t\tstp_putn(dst, &len, tx, k);\n"
		"\t\tstp_putn(dst, &len, \"\\\"}\", 2);\n"
		"\t} else if (fam == 1 && n >= 4) {\n"
		"\t\tlong k;\n\n"
		"\t\tu[127] = 0;\n"
		"\t\tk = bpf_probe_read_kernel_str(tx, 126, S->tmp + 2);\n"
		"\t\tstp_putn(dst, &len, \"{AF_UNIX, \\\"\", 11);\n"
		"\t\tstp_putn(dst, &len, tx, k - 1);\n"
		"\t\tstp_putn(dst, &len, \"\\\"}\", 2);\n"
		"\t} else if (fam == 16 && n == 12) {\n"
		"\t\tstp_putn(dst, &len, \"{AF_NETLINK, pid=\", 17);\n"
		"\t\tstp_sfmt_long(dst, &len, ((int *)S->tmp)[1], 'd', 0, 0, -1);\n"
		"\t\tstp_putn(dst, &len, \", groups=\", 9);\n"
		"\t\tstp_sfmt_long(dst, &len, ((__u32 *)S->tmp)[2], 'x', STP_F_ZERO, 8, -1);\n"
		"\t\tstp_put(dst, &len, '}');\n"
		"\t} else if (fam == 17 && n == 20) {\n"
		"\t\tunsigned long hw = ((__u32 *)S->tmp)[3] | (unsigned long)"
		"((__u32 *)S->tmp)[4] << 32;\n\n"
		"\t\tstp_putn(dst, &len, \"{AF_PACKET, proto=\", 18);\n"
		"\t\tstp_sfmt_long(dst, &len, u[2] | u[3] << 8, 'd', 0, 0, -1);\n"
		"\t\tstp_putn(dst, &len, \", ind=\", 6);\n"
		"\t\tstp_sfmt_long(dst, &len, ((int *)S->tmp)[1], 'd', 0, 0, -1);\n"
		"\t\tstp_putn(dst, &len, \", hatype=\", 9);\n"
		"\t\tstp_sfmt_long(dst, &len, u[8] | u[9] << 8, 'd', 0, 0, -1);\n"
		"\t\tstp_putn(dst, &len, \", pkttype=\", 10);\n"
		"\t\tstp_sfmt_long(dst, &len, u[10], 'd', 0, 0, -1);\n"
		"\t\tstp_putn(dst, &len, \", halen=\", 8);\n"
		"\t\tstp_sfmt_long(dst, &len, u[11], 'd', 0, 0, -1);\n"
		"\t\tstp_putn(dst, &len, \", addr=\", 7);\n"
		"\t\tstp_sfmt_long(dst, &len, hw, 'x', STP_F_ALT, 0, -1);\n"
		"\t\tstp_put(dst, &len, '}');\n"
		"\t} else {\n"
		"\t\tstp_putn(dst, &len, \"{unknown sockaddr with \", 23);\n"
		"\t\tif (n >= 2) {\n\t\t\tstp_putn(dst, &len, \"sa=\", 3);\n"
		"\t\t\tstp_sfmt_long(dst, &len, fam, 'd', 0, 0, -1);\n"
		"\t\t\tstp_putn(dst, &len, \", \", 2);\n\t\t}\n"
		"\t\tstp_putn(dst, &len, \"salen=\", 6);\n"
		"\t\tstp_sfmt_long(dst, &len, n, 'd', 0, 0, -1);\n"
		"\t\tstp_put(dst, &len, '}');\n\t}\n"
		"\tstp_sfmt_end(dst, len);\n}\n");
}

/* stp_sc_hexbyte(): two hex digits; stp_sc_xattr(): the first 50 bytes
 * of an extended attribute's value (size long), quoted: printable ASCII
 * as it is, the others as \xHH, a last NUL after a printable byte left
 * out; 0x... of addr when none, or a fault. A byte a bpf_loop() step. */
static void emit_hex_xattr(struct strbuf *c, bool xattr)
{
	sb_puts(c, "static __always_inline void stp_sc_hexbyte(char *dst, long *len, long b)\n{\n"
		"\tlong h = (b >> 4) & 15, l = b & 15;\n\n"
		"\tstp_put(dst, len, h < 10 ? '0' + h : 'a' + h - 10);\n"
		"\tstp_put(dst, len, l < 10 ? '0' + l : 'a' + l - 10);\n}\n");
	if (!xattr)
		return;
	sb_puts(c, "struct stp_xactx { struct stp_scratch *S; char *dst; };\n"
		"static long stp_xattr_step(__u32 i, struct stp_xactx *c)\n{\n"
		"\tstruct stp_scratch *S = c->S;\n\tlong len = S->scf[1];\n\tunsigned char ch;\n\n"
		"\tif (i >= S->scf[2])\n\t\treturn 1;\n"
		"\tch = ((unsigned char *)S->tmp)[i & 63];\n"
		"\tif (ch >= ' ' && ch <= 0x7e) {\n\t\tstp_put(c->dst, &len, ch);\n"
		"\t} else {\n\t\tstp_put(c->dst, &len, '\\\\');\n"
		"\t\tstp_put(c->dst, &len, 'x');\n\t\tstp_sc_hexbyte(c->dst, &len, ch);\n\t}\n"
		"\tS->scf[1] = len;\n\treturn 0;\n}\n"
		"static __always_inline void stp_sc_xattr(struct stp_scratch *S, char *dst, "
		"long addr, long size)\n{\n"
		"\tunsigned long n = (unsigned long)size > 50 ? 50 : size;\n"
		"\tunsigned char *b = (unsigned char *)S->tmp;\n"
		"\tstruct stp_xactx c = { S, dst };\n\tlong len = 0;\n\n"
		"\tif (!addr || !n || !STP_UOK(addr, n) || "
		"stp_probe_read_user(S->tmp, n & 63, (void *)addr) < 0) {\n"
		"\t\tstp_sfmt_long(dst, &len, addr, 'x', STP_F_ALT, 0, -1);\n"
		"\t\tstp_sfmt_end(dst, len);\n\t\treturn;\n\t}\n"
		"\tdst[0] = '\"';\n\tS->scf[1] = 1;\n\tS->scf[2] = n;\n"
		"\tbpf_loop(50, stp_xattr_step, &c, 0);\n\tlen = S->scf[1];\n"
		"\tif (n > 1 && !b[(n - 1) & 63] && b[(n - 2) & 63] >= ' ' && "
		"b[(n - 2) & 63] <= 0x7e)\n\t\tlen -= 4;\n"
		"\tstp_put(dst, &len, '\"');\n\tstp_sfmt_end(dst, len);\n}\n");
}

/*
 * stp_sc_argv(): the tapset's __get_argv(): "[" and the quoted strings
 * of the NULL-terminated user array at argv (from entry first), ", "
 * between them, an unreadable entry its address and the end, the end
 * also when an entry adds nothing (the string full), then "]". One entry
 * a bpf_loop() step, its state in S->scf (the array's address, the
 * length, the length after the last entry); tq: a slot for an entry.
 */
static void emit_argv(struct strbuf *c)
{
	sb_puts(c, "struct stp_argvctx { struct stp_scratch *S; char *dst; char *tq; };\n"
		"static long stp_argv_step(__u32 i, struct stp_argvctx *c)\n{\n"
		"\tstruct stp_scratch *S = c->S;\n"
		"\tunsigned long argv = S->scf[0], v = 0;\n"
		"\tlong len = S->scf[1], last = S->scf[2];\n\n"
		"\t(void)i;\n"
		"\tif (!argv)\n\t\treturn 1;\n"
		"\tif (!STP_UOK(argv, 8) || stp_probe_read_user(&v, 8, (void *)argv) < 0) {\n"
		"\t\tif (last)\n\t\t\tstp_putn(c->dst, &len, \", \", 2);\n"
		"\t\tstp_sfmt_long(c->dst, &len, argv, 'x', STP_F_ALT, 0, -1);\n"
		"\t\tS->scf[1] = len;\n\t\treturn 1;\n\t}\n"
		"\tif (!v)\n\t\treturn 1;\n"
		"\tif (last)\n\t\tstp_putn(c->dst, &len, \", \", 2);\n"
		"\tif (stp_user_quoted(S, c->tq, v) < 0)\n"
		"\t\tstp_sfmt_long(c->dst, &len, v, 'x', STP_F_ALT, 0, -1);\n"
		"\telse\n\t\tstp_putn(c->dst, &len, c->tq, S->quote.o);\n"
		"\tS->scf[1] = len;\n"
		"\tif (len == last)\n\t\treturn 1;\n"
		"\tS->scf[2] = len;\n\tS->scf[0] = argv + 8;\n\treturn 0;\n}\n"
		"static __always_inline void stp_sc_argv(struct stp_scratch *S, char *dst, "
		"char *tq, long argv, long first)\n{\n"
		"\tstruct stp_argvctx c = { S, dst, tq };\n\n"
		"\tdst[0] = '[';\n"
		"\tif (first && argv)\n\t\targv += 8 * first;\n"
		"\tS->scf[0] = argv;\n\tS->scf[1] = 1;\n\tS->scf[2] = 0;\n"
		"\tbpf_loop(STP_MAXSTR, stp_argv_step, &c, 0);\n"
		"\tS->scf[0] = S->scf[1];\n"
		"\tstp_put(dst, &S->scf[0], ']');\n"
		"\tstp_sfmt_end(dst, S->scf[0]);\n}\n");
}

/* stp_sc_NAME(): the user structure i at addr, "{...=N, ...}" as the
 * tapset's snprintf() of its fields; NULL (or 0x0); 0x... on a fault */
static void emit_fields(struct strbuf *c, size_t i)
{
	sb_printf(c, "static __always_inline void %s(struct stp_scratch *S, char *dst, "
		  "long addr)\n{\n\tunsigned char *u = (unsigned char *)S->tmp;\n"
		  "\tlong len = 0, v;\n\n"
		  "\tif (!addr && %d)\n\t\tstp_putn(dst, &len, \"NULL\", 4);\n"
		  "\telse if (!addr || !STP_UOK(addr, %d) || "
		  "stp_probe_read_user(S->tmp, %d, (void *)addr) < 0)\n"
		  "\t\tstp_sfmt_long(dst, &len, addr, 'x', STP_F_ALT, 0, -1);\n"
		  "\telse {\n", structs[i].c, structs[i].null_name, structs[i].size,
		  structs[i].size);
	for (const struct sc2_field *f = structs[i].f; f->pre; f++) {
		const char *ty = f->size == 2 ? "__u16" : f->size == 8 ? "long" :
				 f->conv == 'd' || f->conv == 'S' ? "int" : "__u32";

		sb_printf(c, "\t\tstp_putn(dst, &len, \"%s\", %zu);\n", f->pre, strlen(f->pre));
		if (!f->size)
			continue;
		sb_printf(c, "\t\tv = *(%s *)(u + %d);\n", ty, f->off);
		if (f->bits)
			sb_printf(c, "\t\tv = (v >> %d) & %#x;\n", f->shift, (1 << f->bits) - 1);
		if (f->conv == 'S')	/* stp_sc_lookup() of SS_ONSTACK, SS_DISABLE */
			sb_puts(c, "\t\tif (v == 1 || v == 2)\n\t\t\tstp_putn(dst, &len, "
				"v == 1 ? \"SS_ONSTACK\" : \"SS_DISABLE\", 10);\n\t\telse\n"
				"\t\t\tstp_sfmt_long(dst, &len, v, 'x', STP_F_ALT, 0, -1);\n");
		else
			sb_printf(c, "\t\tstp_sfmt_long(dst, &len, v, '%c', %s, 0, -1);\n",
				  f->conv, f->conv == 'x' ? "STP_F_ALT" : "0");
	}
	sb_printf(c, "\t\tstp_put(dst, &len, '%c');\n\t}\n\tstp_sfmt_end(dst, len);\n}\n",
		  structs[i].f == iovec_fields ? ']' : '}');
}

void bsc2_types(struct bgen *g, struct strbuf *c)
{
	if (g->sc2_used & (SC2_SOCKADDR | SC2_XATTR))
		emit_hex_xattr(c, g->sc2_used & SC2_XATTR);
	if (g->sc2_used & SC2_SOCKADDR)
		emit_sockaddr(c);
	if (g->sc2_used & SC2_ARGV)
		emit_argv(c);
	for (size_t i = 0; i < NSTRUCTS; i++)
		if (g->sc2_used & 4U << i)
			emit_fields(c, i);
}
