/*
 * bpf_syscall.c - the embedded-C helpers of the syscall.* and
 * nd_syscall.* tapset aliases (tapsets/linux/syscall_support.stp,
 * errno.stp), written for --runtime=bpf with the module runtime's
 * results: the readers of a system call's arguments (_sc_i() and
 * friends: the user pt_regs the __x64_sys_NAME and __ia32_sys_NAME
 * wrappers take as their first argument, read with
 * bpf_probe_read_kernel, x86-64's or a 32-bit task's registers; in the
 * aliases on the raw_syscalls tracepoints their first argument, and
 * _sc_regs_nr() its orig_ax), its return value (_sc_ret(), the
 * kretprobe's ax), errno_str()/errno_p(),
 * user_buffer_quoted() (stapbpf.h's quoting in its buffer mode) and the
 * flag decoders argstr shows, each a table of names (struct stp_scf)
 * of the x86-64 kernel's values. bpf_tapfn.c asks here (bsc_has,
 * bsc_call); bsc_types() writes the C they need.
 */
#include <errno.h>
#include <string.h>

#include "bpf.h"

/* a flag decoder: its table (values and names, in the module runtime's
 * order), the access mode first (open's flags) */
struct scf {
	unsigned long val;
	const char *name;
};

#define F(v, n) { v, n }
static const struct scf open_flags[] = {
	F(0100, "O_CREAT"), F(0200, "O_EXCL"), F(0400, "O_NOCTTY"), F(01000, "O_TRUNC"),
	F(02000, "O_APPEND"), F(04000, "O_NONBLOCK"), F(04010000, "O_SYNC"),
	F(010000, "O_DSYNC"), F(020000, "O_ASYNC"), F(040000, "O_DIRECT"),
	F(0100000, "O_LARGEFILE"), F(0200000, "O_DIRECTORY"), F(0400000, "O_NOFOLLOW"),
	F(01000000, "O_NOATIME"), F(02000000, "O_CLOEXEC"), F(010000000, "O_PATH"),
	{ 0, NULL }
};
static const struct scf at_flags[] = {
	F(0x100, "AT_SYMLINK_NOFOLLOW"), F(0x200, "AT_REMOVEDIR"), F(0x400, "AT_SYMLINK_FOLLOW"),
	F(0x800, "AT_NO_AUTOMOUNT"), F(0x1000, "AT_EMPTY_PATH"), { 0, NULL }
};
static const struct scf access_modes[] = {
	F(4, "R_OK"), F(2, "W_OK"), F(1, "X_OK"), { 0, NULL }
};
static const struct scf seek_whence[] = {
	F(0, "SEEK_SET"), F(1, "SEEK_CUR"), F(2, "SEEK_END"), F(3, "SEEK_DATA"),
	F(4, "SEEK_HOLE"), { 0, NULL }
};
static const struct scf wait4_opts[] = {
	F(1, "WNOHANG"), F(4, "WEXITED"), F(2, "WSTOPPED"), F(8, "WCONTINUED"),
	F(0x1000000, "WNOWAIT"), F(0x20000000, "__WNOTHREAD"), F(0x40000000, "__WALL"),
	F(0x80000000, "__WCLONE"), { 0, NULL }
};
static const struct scf prot_flags[] = {
	F(1, "PROT_READ"), F(2, "PROT_WRITE"), F(4, "PROT_EXEC"), F(8, "PROT_SEM"),
	F(0x1000000, "PROT_GROWSDOWN"), F(0x2000000, "PROT_GROWSUP"), { 0, NULL }
};
static const struct scf prio_which[] = {
	F(0, "PRIO_PROCESS"), F(1, "PRIO_PGRP"), F(2, "PRIO_USER"), { 0, NULL }
};
static const struct scf mfd_flags[] = {
	F(1, "MFD_CLOEXEC"), F(2, "MFD_ALLOW_SEALING"), F(0x80000, "O_CLOEXEC"), { 0, NULL }
};
static const struct scf splice_flags[] = {
	F(1, "SPLICE_F_MOVE"), F(2, "SPLICE_F_NONBLOCK"), F(4, "SPLICE_F_MORE"),
	F(8, "SPLICE_F_GIFT"), { 0, NULL }
};
/* the signals as 4.8 names and orders them (syscall_support.stp's) */
static const struct scf signals[] = {
	F(0, "SIG_0"), F(1, "SIGHUP"), F(2, "SIGINT"), F(3, "SIGQUIT"), F(4, "SIGILL"),
	F(5, "SIGTRAP"), F(6, "SIGABRT"), F(7, "SIGBUS"), F(8, "SIGFPE"), F(9, "SIGKILL"),
	F(10, "SIGUSR1"), F(11, "SIGSEGV"), F(13, "SIGPIPE"), F(12, "SIGUSR2"),
	F(14, "SIGALRM"), F(15, "SIGTERM"), F(17, "SIGCHLD"), F(18, "SIGCONT"),
	F(19, "SIGSTOP"), F(20, "SIGTSTP"), F(21, "SIGTTIN"), F(22, "SIGTTOU"),
	F(23, "SIGURG"), F(24, "SIGXCPU"), F(25, "SIGXFSZ"), F(26, "SIGVTALRM"),
	F(27, "SIGPROF"), F(28, "SIGWINCH"), F(29, "SIGIO/SIGPOLL"), F(30, "SIGPWR"),
	F(31, "SIGSYS"), F(0x85, "TRACESYSGOOD"), { 0, NULL }
};
static const struct scf msg_flags[] = {
	F(1, "MSG_OOB"), F(2, "MSG_PEEK"), F(4, "MSG_DONTROUTE"), F(8, "MSG_CTRUNC"),
	F(0x10, "MSG_PROBE"), F(0x20, "MSG_TRUNC"), F(0x40, "MSG_DONTWAIT"), F(0x80, "MSG_EOR"),
	F(0x100, "MSG_WAITALL"), F(0x200, "MSG_FIN"), F(0x400, "MSG_SYN"),
	F(0x800, "MSG_CONFIRM"), F(0x1000, "MSG_RST"), F(0x2000, "MSG_ERRQUEUE"),
	F(0x4000, "MSG_NOSIGNAL"), F(0x8000, "MSG_MORE"), F(0x10000, "MSG_WAITFORONE"),
	F(0x20000, "MSG_SENDPAGE_NOTLAST"), F(0x20000000, "MSG_FASTOPEN"),
	F(0x40000000, "MSG_CMSG_CLOEXEC"), { 0, NULL }
};
static const struct scf rlimits[] = {
	F(0xffffffff, "RLIM_INFINITY"), F(0, "RLIMIT_CPU"), F(1, "RLIMIT_FSIZE"),
	F(2, "RLIMIT_DATA"), F(3, "RLIMIT_STACK"), F(4, "RLIMIT_CORE"), F(5, "RLIMIT_RSS"),
	F(6, "RLIMIT_NPROC"), F(7, "RLIMIT_NOFILE"), F(8, "RLIMIT_MEMLOCK"), F(9, "RLIMIT_AS"),
	F(10, "RLIMIT_LOCKS"), F(11, "RLIMIT_SIGPENDING"), F(12, "RLIMIT_MSGQUEUE"),
	F(13, "RLIMIT_NICE"), F(14, "RLIMIT_RTPRIO"), F(15, "RLIMIT_RTTIME"),
	F(16, "RLIM_NLIMITS"), { 0, NULL }
};
static const struct scf itimers[] = {
	F(0, "ITIMER_REAL"), F(1, "ITIMER_VIRTUAL"), F(2, "ITIMER_PROF"), { 0, NULL }
};
static const struct scf fadvice[] = {
	F(0, "POSIX_FADV_NORMAL"), F(1, "POSIX_FADV_RANDOM"), F(2, "POSIX_FADV_SEQUENTIAL"),
	F(3, "POSIX_FADV_WILLNEED"), F(4, "POSIX_FADV_DONTNEED"), F(5, "POSIX_FADV_NOREUSE"),
	{ 0, NULL }
};
static const struct scf xattr_flags[] = {
	F(1, "XATTR_CREATE"), F(2, "XATTR_REPLACE"), { 0, NULL }
};
#undef F

/* errno.stp's names, 1 to 131 (EDEADLK for 35) */
#define E(e) [e] = #e
static const char *const errnames[] = {
	E(EPERM), E(ENOENT), E(ESRCH), E(EINTR), E(EIO), E(ENXIO), E(E2BIG), E(ENOEXEC),
	E(EBADF), E(ECHILD), E(EAGAIN), E(ENOMEM), E(EACCES), E(EFAULT), E(ENOTBLK),
	E(EBUSY), E(EEXIST), E(EXDEV), E(ENODEV), E(ENOTDIR), E(EISDIR), E(EINVAL),
	E(ENFILE), E(EMFILE), E(ENOTTY), E(ETXTBSY), E(EFBIG), E(ENOSPC), E(ESPIPE),
	E(EROFS), E(EMLINK), E(EPIPE), E(EDOM), E(ERANGE), E(EDEADLK), E(ENAMETOOLONG),
	E(ENOLCK), E(ENOSYS), E(ENOTEMPTY), E(ELOOP), E(ENOMSG), E(EIDRM), E(ECHRNG),
	E(EL2NSYNC), E(EL3HLT), E(EL3RST), E(ELNRNG), E(EUNATCH), E(ENOCSI), E(EL2HLT),
	E(EBADE), E(EBADR), E(EXFULL), E(ENOANO), E(EBADRQC), E(EBADSLT), E(EBFONT),
	E(ENOSTR), E(ENODATA), E(ETIME), E(ENOSR), E(ENONET), E(ENOPKG), E(EREMOTE),
	E(ENOLINK), E(EADV), E(ESRMNT), E(ECOMM), E(EPROTO), E(EMULTIHOP), E(EDOTDOT),
	E(EBADMSG), E(EOVERFLOW), E(ENOTUNIQ), E(EBADFD), E(EREMCHG), E(ELIBACC),
	E(ELIBBAD), E(ELIBSCN), E(ELIBMAX), E(ELIBEXEC), E(EILSEQ), E(ERESTART),
	E(ESTRPIPE), E(EUSERS), E(ENOTSOCK), E(EDESTADDRREQ), E(EMSGSIZE), E(EPROTOTYPE),
	E(ENOPROTOOPT), E(EPROTONOSUPPORT), E(ESOCKTNOSUPPORT), E(EOPNOTSUPP),
	E(EPFNOSUPPORT), E(EAFNOSUPPORT), E(EADDRINUSE), E(EADDRNOTAVAIL), E(ENETDOWN),
	E(ENETUNREACH), E(ENETRESET), E(ECONNABORTED), E(ECONNRESET), E(ENOBUFS),
	E(EISCONN), E(ENOTCONN), E(ESHUTDOWN), E(ETOOMANYREFS), E(ETIMEDOUT),
	E(ECONNREFUSED), E(EHOSTDOWN), E(EHOSTUNREACH), E(EALREADY), E(EINPROGRESS),
	E(ESTALE), E(EUCLEAN), E(ENOTNAM), E(ENAVAIL), E(EISNAM), E(EREMOTEIO), E(EDQUOT),
	E(ENOMEDIUM), E(EMEDIUMTYPE), E(ECANCELED), E(ENOKEY), E(EKEYEXPIRED),
	E(EKEYREVOKED), E(EKEYREJECTED), E(EOWNERDEAD), E(ENOTRECOVERABLE),
};
#undef E
#define NERRNAMES ((int)(sizeof(errnames) / sizeof(errnames[0])))

/* the decoders of a table: their names and tables, how they decode (the
 * or-ed flags, the name for 0 or NULL: "0x0"; or one value, 'l'), the
 * width of the value (the module runtime's cast) */
static const struct {
	const char *fn;
	const struct scf *t;
	char kind;
	const char *zero;
	int bits;
} decoders[] = {
	{ "_sys_open_flag_str", open_flags, 'f', NULL, 32 },
	{ "_at_flag_str", at_flags, 'f', NULL, 64 },
	{ "_access_mode_str", access_modes, 'f', "F_OK", 32 },
	{ "_seek_whence_str", seek_whence, 'l', NULL, 32 },
	{ "_wait4_opt_str", wait4_opts, 'f', NULL, 32 },
	{ "_mprotect_prot_str", prot_flags, 'f', "PROT_NONE", 64 },
	{ "_priority_which_str", prio_which, 'l', NULL, 32 },
	{ "_mfd_flags_str", mfd_flags, 'f', NULL, 32 },
	{ "_stp_splice_flags_str", splice_flags, 'f', NULL, 32 },
	{ "_signal_name", signals, 'l', NULL, 32 },
	{ "_msg_flags_str", msg_flags, 'f', NULL, 64 },	/* MSG_CMSG_COMPAT not shown */
	{ "_rlimit_resource_str", rlimits, 'l', NULL, 32 },
	{ "_itimer_which_str", itimers, 'l', NULL, 32 },
	{ "_fadvice_advice_str", fadvice, 'l', NULL, 32 },
	{ "_stp_xattr_flags_str", xattr_flags, 'f', NULL, 32 },
};
#define NDECODERS (sizeof(decoders) / sizeof(decoders[0]))

static const struct {
	const char *name;
	int n;
} fns[] = {
	{ "_sc_use_uregs", 0 }, { "_sc_i", 1 }, { "_sc_u", 1 }, { "_sc_l", 1 },
	{ "_sc_ul", 1 }, { "_sc_p", 1 }, { "_sc32_u", 1 }, { "_sc_ret", 0 },
	{ "errno_str", 1 }, { "errno_p", 1 }, { "user_buffer_quoted", 3 },
	{ "_sc_set_uregs", 1 }, { "_sc_regs_nr", 1 }, { "_sc_tp_none", 1 },
	{ "_sc_compat_task", 0 },
};

bool bsc_has(const struct func *f)
{
	for (size_t i = 0; i < sizeof(fns) / sizeof(fns[0]); i++)
		if (!strcmp(f->name, fns[i].name) && f->nparams == fns[i].n)
			return true;
	for (size_t i = 0; i < NDECODERS; i++)
		if (!strcmp(f->name, decoders[i].fn) && f->nparams == 1)
			return true;
	return false;
}

static const char *new_tmp(struct bgen *g)
{
	return arena_printf(g->s->arena, "t%d", g->ntmp++);
}

/* The kind of probes the code being written runs in: 1 the entry of
 * kernel functions (also a .return probe's entry half, @entry()), 2
 * their return, 3 the raw_syscalls tracepoints (their first argument the
 * user pt_regs), 0 none of these or not known (a function, another probe). */
static int kprobe_kind(struct bgen *g)
{
	int k = 0, kr;

	if (g->at_entry)
		return 1;
	if (g->func || !g->probe || g->no_ctx)
		return 0;
	for (const struct rprobe *r = g->s->rprobes; r; r = r->next) {
		if (r->probe != g->probe)
			continue;
		if (!strcmp(r->family, "kernel.trace") && r->tp_name &&
		    (!strcmp(r->tp_name, "sys_enter") || !strcmp(r->tp_name, "sys_exit")))
			kr = 3;
		else if (bu_is_kprobe(r))
			kr = r->ret ? 2 : 1;
		else
			return 0;
		if (k && k != kr)
			return 0;
		k = kr;
	}
	return k;
}

static const char *unsupported(struct bgen *g, struct node *n, const char *where)
{
	bg_unsupported(g, n, arena_printf(g->s->arena, "the function %s() %s", n->op, where));
	return "0";
}

/* _sc_i() and friends: argument n of the system call, from the user
 * pt_regs the probed wrapper's first argument points to (di of the
 * kprobe's registers), or those _sc_use_uregs() kept in a function */
static const char *sc_arg(struct bgen *g, struct node *n)
{
	const char *k = bg_expr(g, n->args), *t = new_tmp(g), *regs = "S->uregs";
	int kind = kprobe_kind(g);

	if (kind == 2)
		return unsupported(g, n, "in a .return probe (outside @entry())");
	if (kind == 0 && !g->func)
		return unsupported(g, n, "outside kernel function probes");
	if (kind == 1)
		regs = "((__u64 *)ctx)[14]";
	else if (kind == 3)
		regs = "((__u64 *)ctx)[0]";
	g->need_sc = true;
	if (!strcmp(n->op, "_sc32_u")) {
		bg_line(g, "long %s = (long)(__u32)stp_sc_arg(%s, %s, 1);", t, regs, k);
		return t;
	}
	bg_line(g, "long %s = stp_sc_arg(%s, %s, 0);", t, regs, k);
	if (!strcmp(n->op, "_sc_i"))
		bg_line(g, "%s = (long)(int)%s;", t, t);
	else if (!strcmp(n->op, "_sc_u"))
		bg_line(g, "%s = (long)(unsigned int)%s;", t, t);
	else if (!strcmp(n->op, "_sc_l"))
		bg_line(g, "if (stp_sc_compat()) %s = (long)(int)%s;", t, t);
	return t;
}

/* user_buffer_quoted(addr, inlen, outlen); 0x... (cut at outlen - 1) on a
 * fault */
static const char *buffer_quoted(struct bgen *g, struct node *n)
{
	const char *addr = bg_expr(g, n->args), *len = bg_expr(g, n->args->next);
	const char *out = bg_expr(g, n->args->next->next), *t = new_tmp(g), *h = new_tmp(g);

	g->need_quote = true;
	g->need_hex = true;
	g->need_sc = true;
	bg_line(g, "char *%s = %s;", t, bg_slot(g));
	bg_line(g, "if (stp_user_bufq(S, %s, %s, %s, %s) < 0) {", t, addr, len, out);
	bg_line(g, "\tlong %s = stp_hex((struct stp_hexbuf *)%s, 0, %s);", h, t, addr);
	bg_line(g, "\t%s[(%s < %s - 1 ? %s : %s - 1) & STP_MASK] = 0;", t, h, out, h, out);
	bg_line(g, "}");
	return t;
}

const char *bsc_call(struct bgen *g, struct node *n)
{
	const char *t, *a;
	int kind;

	if (!bsc_has(n->func))
		return NULL;
	if (!strcmp(n->op, "_sc_use_uregs")) {
		kind = kprobe_kind(g);
		if (!kind)
			return unsupported(g, n, "outside the handler of kernel function probes");
		if ((kind == 1 || kind == 3) && !g->at_entry)
			bg_line(g, "S->uregs = ((__u64 *)ctx)[%d];", kind == 1 ? 14 : 0);
		return "0L";
	}
	if (!strcmp(n->op, "_sc_set_uregs")) {
		bg_line(g, "S->uregs = %s;", bg_expr(g, n->args));
		return "0L";
	}
	if (!strcmp(n->op, "_sc_compat_task")) {
		g->need_sc = true;
		t = new_tmp(g);
		bg_line(g, "long %s = stp_sc_compat_call();", t);
		return t;
	}
	if (!strcmp(n->op, "_sc_regs_nr") || !strcmp(n->op, "_sc_tp_none")) {
		a = bg_expr(g, n->args);
		t = new_tmp(g);
		if (n->op[4] == 't')	/* (nr || 1): never fires */
			bg_line(g, "long %s = 1;", t);
		else	/* orig_ax; -1 when unreadable */
			bg_line(g, "long %s = -1;\nbpf_probe_read_kernel(&%s, 8, (__u64 *)%s + 15);",
				t, t, a);
		return t;
	}
	if (!strcmp(n->op, "_sc_ret")) {
		kind = kprobe_kind(g);
		if (!kind || kind == 3 || g->at_entry)
			return unsupported(g, n, "outside the handler of kernel function probes");
		t = new_tmp(g);
		bg_line(g, "long %s = ((long *)ctx)[10];", t);
		return t;
	}
	if (!strcmp(n->op, "user_buffer_quoted"))
		return buffer_quoted(g, n);
	if (n->op[0] == '_' && n->op[1] == 's' && n->op[2] == 'c')
		return sc_arg(g, n);
	g->need_sc = true;
	g->need_quote = true;	/* stapbpf.h's bpf_loop() */
	a = bg_expr(g, n->args);
	t = new_tmp(g);
	if (!strcmp(n->op, "errno_p")) {
		bg_line(g, "long %s = stp_errno_p(%s);", t, a);
		return t;
	}
	bg_line(g, "char *%s = %s;", t, bg_slot(g));
	if (!strcmp(n->op, "errno_str")) {
		bg_line(g, "stp_errno_str(%s, %s);", t, a);
		return t;
	}
	for (size_t i = 0; i < NDECODERS; i++)
		if (!strcmp(n->op, decoders[i].fn))
			bg_line(g, "stp_scd_%zu(S, %s, %s);", i, t, a);
	return t;
}

/* the readers of the user registers: x86-64's di si dx r10 r8 r9, a
 * 32-bit task's bx cx dx si di bp (u64 slots of struct pt_regs), a 32-bit
 * task the one whose mm is set up for ia32 (MM_CONTEXT_UPROBE_IA32, bit 0
 * of mm->context.flags), as the module runtime's stp_sc_compat_task() */
static void emit_args(struct strbuf *c)
{
	sb_puts(c, "struct mm_struct___stpsc {\n\tstruct { unsigned char flags; } context;\n"
		"} __attribute__((preserve_access_index));\n"
		"struct task_struct___stpsc {\n\tstruct mm_struct___stpsc *mm;\n"
		"} __attribute__((preserve_access_index));\n"
		"struct thread_info___stpsc {\n\tunsigned int status;\n"
		"} __attribute__((preserve_access_index));\n"
		"struct task_struct___stpct {\n\tstruct thread_info___stpsc thread_info;\n"
		"} __attribute__((preserve_access_index));\n"
		"/* in_compat_syscall(): an ia32 call (TS_COMPAT in thread_info.status) */\n"
		"static __always_inline long stp_sc_compat_call(void)\n{\n"
		"\tstruct task_struct___stpct *t = ((void *(*)(void))35)();\n"
		"\tunsigned int s = 0;\n\n"
		"\tbpf_probe_read_kernel(&s, 4, &t->thread_info.status);\n"
		"\treturn (s & 2) != 0;\n}\n"
		"static __always_inline long stp_sc_compat(void)\n{\n"
		"\tstruct task_struct___stpsc *t = ((void *(*)(void))35)();\n"
		"\tstruct mm_struct___stpsc *mm = 0;\n\tunsigned char f = 0;\n\n"
		"\tif (bpf_probe_read_kernel(&mm, 8, &t->mm) || !mm)\n\t\treturn 0;\n"
		"\tbpf_probe_read_kernel(&f, 1, &mm->context.flags);\n\treturn f & 1;\n}\n"
		"static __always_inline unsigned long stp_sc_arg(unsigned long regs, long n, "
		"int ia32)\n{\n"
		"\tint compat = ia32 || stp_sc_compat();\n\tunsigned long v = 0;\n\tlong r;\n\n"
		"\tif (!regs || n < 1 || n > 6)\n\t\treturn 0;\n"
		"\tif (compat)\n\t\tr = n == 1 ? 5 : n == 2 ? 11 : n == 3 ? 12 : n == 4 ? 13 : "
		"n == 5 ? 14 : 4;\n"
		"\telse\n\t\tr = n == 1 ? 14 : n == 2 ? 13 : n == 3 ? 12 : n == 4 ? 7 : "
		"n == 5 ? 9 : 8;\n"
		"\tif (bpf_probe_read_kernel(&v, 8, (__u64 *)regs + r))\n\t\treturn 0;\n"
		"\treturn compat ? (__u32)v : v;\n}\n");
}

/* errno_str(), errno_p(): the names by number */
static void emit_errno(struct strbuf *c)
{
	sb_puts(c, "static const char stp_errn[256][16] = {\n");
	for (int i = 0; i < NERRNAMES; i++)
		if (errnames[i])
			sb_printf(c, "\t[%d] = \"%s\",\n", i, errnames[i]);
	sb_printf(c, "};\n"
		  "static __always_inline long stp_errno_p(long e)\n{\n\tchar k = 0;\n\n"
		  "\tif (e < 0)\n\t\te = -e;\n\tif (e <= 0 || e >= %d)\n\t\treturn 0;\n"
		  "\tbpf_probe_read_kernel(&k, 1, stp_errn[e & 255]);\n\treturn k ? e : 0;\n}\n"
		  "static __always_inline void stp_errno_str(char *dst, long e)\n{\n"
		  "\tdst[0] = 0;\n\tif (e < 0)\n\t\te = -e;\n"
		  "\tif (e > 0 && e < %d)\n\t\tbpf_probe_read_kernel_str(dst, 16, stp_errn[e & 255]);\n"
		  "}\n", NERRNAMES, NERRNAMES);
}

/* user_buffer_quoted(): inlen bytes (MAXSTRINGLEN - 1 when none or too
 * many) quoted in outlen, as stp_text_buf() with buffer = 1; -1 on a fault */
static void emit_bufq(struct strbuf *c)
{
	sb_puts(c, "static __always_inline long stp_user_bufq(struct stp_scratch *S, char *dst, "
		"long addr, long n, long out)\n{\n\tstruct stp_quote *q = &S->quote;\n\n"
		"\tif (out > STP_MAXSTR)\n\t\tout = STP_MAXSTR;\n"
		"\tif (out <= 0) {\n\t\tdst[0] = 0;\n\t\treturn 0;\n\t}\n"
		"\tif (n <= 0 || n > STP_MAXSTR - 1)\n\t\tn = STP_MAXSTR - 1;\n"
		"\tif (!STP_UOK(addr, n) || stp_probe_read_user(S->tmp, n & STP_MASK, (void *)addr) < 0)\n"
		"\t\treturn -1;\n"
		"\tif (out > STP_MAXSTR - 1)\n\t\tout = STP_MAXSTR - 1;\n"
		"\t*q = (struct stp_quote){ 0, n, 1, (out < 5 ? 5 : out) - 2, 0, 0, 0, 1 };\n"
		"\tstp_quote_run(S, dst);\n\treturn 0;\n}\n");
}

/* the flag decoders: one table stp_scf[] (each decoder's entries from
 * its start); stp_scflags() appends the names of those val has, as
 * runtime/stp_scflags.h's stp_sc_flags(), an entry a bpf_loop() step
 * (its counters in S->scf: the verifier checks the step once);
 * stp_scd_I() is decoder I */
static void emit_decoders(struct strbuf *c)
{
	int start[NDECODERS], n = 0;

	sb_puts(c, "#define STP_SCF_N 256\n"
		"struct stp_scf { unsigned long val; long len; char name[24]; };\n"
		"static const struct stp_scf stp_scf[STP_SCF_N] = {\n");
	for (size_t i = 0; i < NDECODERS; i++) {
		start[i] = n;
		for (const struct scf *t = decoders[i].t; t->name; t++, n++)
			sb_printf(c, "\t{ %#lx, %zu, \"%s\" },\n", t->val, strlen(t->name),
				  t->name);
	}
	sb_puts(c, "};\n"
		"struct stp_scfctx { struct stp_scratch *S; char *out; };\n"
		"static __always_inline void stp_scsep(char *dst, long *len)\n{\n"
		"\tchar e = *len > 0 ? dst[(*len - 1) & STP_MASK] : '|';\n\n"
		"\tif (e != '|' && e != ' ')\n\t\tstp_put(dst, len, '|');\n}\n"
		"static long stp_scf_step(__u32 i, struct stp_scfctx *c)\n{\n"
		"\tstruct stp_scratch *S = c->S;\n"
		"\tconst struct stp_scf *e = &stp_scf[(S->scf[2] + i) & (STP_SCF_N - 1)];\n"
		"\tlong len = S->scf[0];\n\n"
		"\tif (!(e->val & S->scf[1]))\n\t\treturn 0;\n"
		"\tstp_scsep(c->out, &len);\n\tstp_putn(c->out, &len, e->name, e->len & 31);\n"
		"\tS->scf[0] = len;\n\tS->scf[1] &= ~e->val;\n\treturn 0;\n}\n"
		"static long stp_scl_step(__u32 i, struct stp_scfctx *c)\n{\n"
		"\tstruct stp_scratch *S = c->S;\n"
		"\tconst struct stp_scf *e = &stp_scf[(S->scf[2] + i) & (STP_SCF_N - 1)];\n"
		"\tlong len = S->scf[0];\n\n"
		"\tif (e->val != S->scf[1])\n\t\treturn 0;\n"
		"\tstp_putn(c->out, &len, e->name, e->len & 31);\n"
		"\tS->scf[0] = len;\n\tS->scf[3] = 1;\n\treturn 1;\n}\n"
		"/* val's flags (lookup 0), or the name of the entry equal to val (1), as\n"
		" * stp_sc_flags() and stp_sc_lookup() */\n"
		"static __always_inline void stp_scflags(struct stp_scratch *S, char *dst, long *len, "
		"long start, long n, unsigned long val, int lookup)\n{\n"
		"\tstruct stp_scfctx c = { S, dst };\n\n"
		"\tif (!val && !lookup) {\n\t\tstp_putn(dst, len, \"0x0\", 3);\n\t\treturn;\n\t}\n"
		"\tS->scf[0] = *len;\n\tS->scf[1] = val;\n\tS->scf[2] = start;\n"
		"\tS->scf[3] = 0;\n"
		"\tbpf_loop(n, lookup ? (void *)stp_scl_step : (void *)stp_scf_step, &c, 0);\n"
		"\t*len = S->scf[0];\n"
		"\tif (lookup && !S->scf[3])\n"
		"\t\tstp_sfmt_long(dst, len, val, 'x', STP_F_ALT, 0, -1);\n"
		"\telse if (!lookup && S->scf[1]) {\n\t\tstp_scsep(dst, len);\n"
		"\t\tstp_sfmt_long(dst, len, S->scf[1], 'x', STP_F_ALT, 0, -1);\n\t}\n}\n");
	for (size_t i = 0; i < NDECODERS; i++) {
		int k = 0;

		while (decoders[i].t[k].name)
			k++;
		sb_printf(c, "static __always_inline void stp_scd_%zu(struct stp_scratch *S, "
			  "char *dst, long f)\n{\n\tlong len = 0;\n\n", i);
		if (decoders[i].t == open_flags)	/* the access mode, then the others */
			sb_printf(c, "\tif ((f & 3) == 1)\n\t\tstp_putn(dst, &len, \"O_WRONLY\", 8);\n"
				  "\telse if ((f & 3) == 2)\n\t\tstp_putn(dst, &len, \"O_RDWR\", 6);\n"
				  "\telse\n\t\tstp_putn(dst, &len, \"O_RDONLY\", 8);\n"
				  "\tf = (int)f & ~3;\n\tif (f) {\n\t\tstp_put(dst, &len, '|');\n"
				  "\t\tstp_scflags(S, dst, &len, %d, %d, (unsigned int)f, 0);\n\t}\n",
				  start[i], k);
		else if (decoders[i].zero)
			sb_printf(c, "\tif (!(%s)f)\n\t\tstp_putn(dst, &len, \"%s\", %zu);\n"
				  "\telse\n\t\tstp_scflags(S, dst, &len, %d, %d, (%s)f, 0);\n",
				  decoders[i].bits == 32 ? "unsigned int" : "unsigned long",
				  decoders[i].zero, strlen(decoders[i].zero), start[i], k,
				  decoders[i].bits == 32 ? "unsigned int" : "unsigned long");
		else if (decoders[i].t == msg_flags)	/* 4.8 leaves MSG_CMSG_COMPAT out */
			sb_printf(c, "\tstp_scflags(S, dst, &len, %d, %d, (unsigned long)f & "
				  "~0x80000000UL, 0);\n", start[i], k);
		else
			sb_printf(c, "\tstp_scflags(S, dst, &len, %d, %d, (%s)f, %d);\n", start[i], k,
				  decoders[i].bits == 32 ? "unsigned int" : "unsigned long",
				  decoders[i].kind == 'l');
		sb_puts(c, "\tstp_sfmt_end(dst, len);\n}\n");
	}
}

void bsc_types(struct bgen *g, struct strbuf *c)
{
	if (!g->need_sc)
		return;
	emit_args(c);
	emit_errno(c);
	if (g->need_quote)
		emit_bufq(c);
	emit_decoders(c);
}
