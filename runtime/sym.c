/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sym.c - where a kernel probe is: symbols of kernel addresses (symname(),
 * symdata(), modname()), backtraces of the probed context (backtrace(),
 * print_backtrace()...), the registers (register(), print_regs()) and the
 * function arguments of the x86_64 calling convention (int_arg()...).
 *
 * Symbols come from the running kernel's own kallsyms through
 * sprint_symbol(), so no symbol table is built at translate time and
 * KASLR does not matter. Backtraces use the kernel's unwinder (ORC, frame
 * pointers or guess, whichever it was built with) started from the probe's
 * registers, through the exported unwind_start() API (x86 only; elsewhere,
 * the probed address alone; without registers, stack_trace_save() of the
 * current stack; none when the probe interrupted user mode). Each
 * probe hit unwinds at most once: the addresses are kept in the context.
 *
 * Output formats follow SystemTap 4.8 with symbol data for the kernel:
 * "name+0xoff/0xsize [module]" ("kernel" for the kernel itself).
 */
#include <linux/kallsyms.h>
#include <linux/ptrace.h>
#include <linux/stacktrace.h>
#include <linux/uaccess.h>
#if defined(CONFIG_X86) && defined(CONFIG_STACKTRACE)
#include <asm/unwind.h>
#define STP_HAVE_UNWIND 1
#endif
#ifdef CONFIG_X86_64
#include <asm/msr.h>
#include <asm/special_insns.h>
#include <asm/segment.h>
#endif

struct stp_sym {
	const char *name;	/* NULL: no symbol */
	size_t namelen;
	unsigned long off, size;
	const char *mod;	/* "kernel" or the module's name */
	size_t modlen;
};

/* Look addr up; the strings point into buf (KSYM_SYMBOL_LEN bytes). */
static bool stp_sym_lookup(unsigned long addr, char *buf, struct stp_sym *s)
{
	char *plus, *slash, *br, *end;

	memset(s, 0, sizeof(*s));
	if (!addr)
		return false;
	sprint_symbol(buf, addr);
	if (!strncmp(buf, "0x", 2))
		return false;	/* hex only: no symbol */
	plus = strrchr(buf, '+');
	slash = plus ? strchr(plus, '/') : NULL;
	if (!plus || !slash)
		return false;
	s->name = buf;
	s->namelen = plus - buf;
	s->off = simple_strtoul(plus + 1, NULL, 16);
	s->size = simple_strtoul(slash + 1, &end, 16);
	br = strstr(slash, " [");
	if (br) {
		s->mod = br + 2;
		end = strchr(s->mod, ']');
		s->modlen = end ? (size_t)(end - s->mod) : strlen(s->mod);
		/* "[mod buildid]": the name only */
		end = memchr(s->mod, ' ', s->modlen);
		if (end)
			s->modlen = end - s->mod;
	} else {
		s->mod = "kernel";
		s->modlen = 6;
	}
	return true;
}

static void stp_emit_hexaddr(struct stp_sink *sk, unsigned long addr)
{
	static const struct stp_spec hex = { 'x', STP_F_ALT, -1, -1 };

	stp_emit_long(sk, (int64_t)addr, &hex);
}

static void stp_emit_sym(struct stp_sink *sk, const struct stp_sym *s,
			 bool size)
{
	char n[40];
	int k;

	stp_emit_lit(sk, s->name, s->namelen);
	k = size ? scnprintf(n, sizeof(n), "+%#lx/%#lx", s->off, s->size) :
		   scnprintf(n, sizeof(n), "+%#lx", s->off);
	stp_emit_lit(sk, n, k);
	stp_emit_lit(sk, " [", 2);
	stp_emit_lit(sk, s->mod, s->modlen);
	stp_emit_lit(sk, "]", 1);
}

/* One address in a style (enum stp_sym_style in stp_runtime.h). */
void stp_sym_emit(struct stp_context *c, struct stp_sink *sk, int64_t addr,
		  int style)
{
	struct stp_sym s;
	bool found = style != STP_SYM_HEX &&
		     stp_sym_lookup((unsigned long)addr, c->sym_buf, &s);

	switch (style) {
	case STP_SYM_NAME:
		if (found)
			stp_emit_lit(sk, s.name, s.namelen);
		else
			stp_emit_hexaddr(sk, addr);
		break;
	case STP_SYM_DATA:
		if (found)
			stp_emit_sym(sk, &s, true);
		else
			stp_emit_hexaddr(sk, addr);
		break;
	case STP_SYM_FULL:
		stp_emit_lit(sk, " ", 1);
		stp_emit_hexaddr(sk, addr);
		if (found) {
			stp_emit_lit(sk, " : ", 3);
			stp_emit_sym(sk, &s, true);
		}
		stp_emit_lit(sk, "\n", 1);
		break;
	case STP_SYM_SIMPLE:
		if (found)
			stp_emit_sym(sk, &s, false);
		else
			stp_emit_hexaddr(sk, addr);
		stp_emit_lit(sk, "\n", 1);
		break;
	default:
		stp_emit_hexaddr(sk, addr);
		stp_emit_lit(sk, " ", 1);
		break;
	}
}

/* modname(): the module holding addr, "kernel", or NULL when unknown. */
int stp_sym_module(struct stp_context *c, char *dst, int64_t addr)
{
	struct stp_sym s;

	if (!stp_sym_lookup((unsigned long)addr, c->sym_buf, &s))
		return -1;
	memcpy(dst, s.mod, min_t(size_t, s.modlen, MAXSTRINGLEN - 1));
	dst[min_t(size_t, s.modlen, MAXSTRINGLEN - 1)] = '\0';
	return 0;
}

/* The return addresses of the probed context, computed once per hit. */
int stp_backtrace(struct stp_context *c, const unsigned long **pcs)
{
	int n = 0;

	*pcs = c->bt;
	if (c->nbt >= 0)
		return c->nbt;
#ifdef STP_HAVE_UNWIND
	if (c->regs && !user_mode(c->regs)) {
		struct unwind_state st;
		unsigned long a;

		/* the unwinder starts past the frame of regs: that one first */
		c->bt[n++] = instruction_pointer(c->regs);
		for (unwind_start(&st, current, c->regs, NULL);
		     !unwind_done(&st) && n < STP_MAXBACKTRACE;
		     unwind_next_frame(&st)) {
			a = unwind_get_return_address(&st);
			if (!a)
				break;
			c->bt[n++] = a;
		}
		c->nbt = n;
		return n;
	}
#endif
	if (c->regs && !user_mode(c->regs)) {	/* no unwinder: where we are */
		c->bt[n++] = instruction_pointer(c->regs);
	} else if (!c->regs) {	/* begin, timers, tracepoints: the handler's */
#ifdef CONFIG_STACKTRACE
		n = stack_trace_save(c->bt, STP_MAXBACKTRACE, 0);
#endif
	}	/* user mode (perf, timer.profile): no kernel stack */
	c->nbt = n;
	return n;
}

/* print_backtrace() (FULL), sprint_backtrace() (SIMPLE), backtrace() (HEX);
 * in a return probe, FULL starts with where it returns from and to. */
void stp_backtrace_emit(struct stp_context *c, struct stp_sink *sk, int style)
{
	const unsigned long *pcs;
	int i, n = stp_backtrace(c, &pcs);

	if (style == STP_SYM_FULL && c->probe && c->ret_from && n) {
		stp_emit_lit(sk, "Returning from: ", 16);
		stp_sym_emit(c, sk, (int64_t)c->ret_from, style);
		stp_emit_lit(sk, "Returning to  : ", 16);
	}
	for (i = 0; i < n; i++)
		stp_sym_emit(c, sk, (int64_t)pcs[i], style);
}

/* stack(n): the address at depth n of the backtrace, 0 past its end. */
int64_t stp_stack(struct stp_context *c, int64_t depth)
{
	const unsigned long *pcs;
	int n = stp_backtrace(c, &pcs);

	return depth >= 0 && depth < n ? (int64_t)pcs[depth] : 0;
}

#ifdef CONFIG_X86_64
struct stp_regname {
	const char *name;
	u16 off;
	u8 size;	/* 8, 4, 2, 1 */
};

#define STP_R(n, f, sz, b) { n, offsetof(struct pt_regs, f) + (b), sz }
static const struct stp_regname stp_regnames[] = {
	STP_R("r15", r15, 8, 0), STP_R("r14", r14, 8, 0), STP_R("r13", r13, 8, 0),
	STP_R("r12", r12, 8, 0), STP_R("rbp", bp, 8, 0), STP_R("rbx", bx, 8, 0),
	STP_R("r11", r11, 8, 0), STP_R("r10", r10, 8, 0), STP_R("r9", r9, 8, 0),
	STP_R("r8", r8, 8, 0), STP_R("rax", ax, 8, 0), STP_R("rcx", cx, 8, 0),
	STP_R("rdx", dx, 8, 0), STP_R("rsi", si, 8, 0), STP_R("rdi", di, 8, 0),
	STP_R("orig_rax", orig_ax, 8, 0), STP_R("rip", ip, 8, 0),
	STP_R("xcs", cs, 8, 0), STP_R("eflags", flags, 8, 0),
	STP_R("rsp", sp, 8, 0), STP_R("xss", ss, 8, 0),
	STP_R("ebp", bp, 4, 0), STP_R("ebx", bx, 4, 0), STP_R("eax", ax, 4, 0),
	STP_R("ecx", cx, 4, 0), STP_R("edx", dx, 4, 0), STP_R("esi", si, 4, 0),
	STP_R("edi", di, 4, 0), STP_R("orig_eax", orig_ax, 4, 0),
	STP_R("eip", ip, 4, 0), STP_R("esp", sp, 4, 0),
	STP_R("bp", bp, 2, 0), STP_R("bx", bx, 2, 0), STP_R("ax", ax, 2, 0),
	STP_R("cx", cx, 2, 0), STP_R("dx", dx, 2, 0), STP_R("si", si, 2, 0),
	STP_R("di", di, 2, 0), STP_R("orig_ax", orig_ax, 2, 0),
	STP_R("ip", ip, 2, 0), STP_R("cs", cs, 2, 0), STP_R("flags", flags, 2, 0),
	STP_R("sp", sp, 2, 0), STP_R("ss", ss, 2, 0),
	STP_R("al", ax, 1, 0), STP_R("ah", ax, 1, 1), STP_R("bl", bx, 1, 0),
	STP_R("bh", bx, 1, 1), STP_R("cl", cx, 1, 0), STP_R("ch", cx, 1, 1),
	STP_R("dl", dx, 1, 0), STP_R("dh", dx, 1, 1),
};
#undef STP_R
#endif

/* The six argument registers of a kprobe or uprobe hit (x86_64: di si dx
 * cx r8 r9), the raw arguments its target variables read. */
#define STP_KP_NARGS 6

static void stp_kp_save_args(struct pt_regs *regs, unsigned long *a)
{
#ifdef CONFIG_X86_64
	a[0] = regs->di;
	a[1] = regs->si;
	a[2] = regs->dx;
	a[3] = regs->cx;
	a[4] = regs->r8;
	a[5] = regs->r9;
#else
	memset(a, 0, STP_KP_NARGS * sizeof(*a));
#endif
}

/* register(name) (sign 1) and u_register(name) (sign 0). */
int64_t stp_register(struct stp_context *c, const char *name, int sign)
{
#ifdef CONFIG_X86_64
	size_t i;
	u64 v = 0;

	if (!c->regs) {
		c->last_error = "cannot access CPU registers in this context";
		return 0;
	}
	for (i = 0; i < ARRAY_SIZE(stp_regnames); i++) {
		const struct stp_regname *r = &stp_regnames[i];
		int sh = 64 - r->size * 8;

		if (strcmp(r->name, name))
			continue;
		memcpy(&v, (const char *)c->regs + r->off, r->size);
		if (!sh)
			return (int64_t)v;
		v <<= sh;
		return sign ? (int64_t)v >> sh : (int64_t)(v >> sh);
	}
	snprintf(c->error_buffer, sizeof(c->error_buffer), "Unknown register: %s", name);
	c->last_error = c->error_buffer;
	return 0;
#else
	c->last_error = "cannot access CPU registers in this context";
	return 0;
#endif
}

/*
 * Argument n (1..6) of a syscall whose probe set c->sregs to the user
 * registers: di si dx r10 r8 r9 as the syscall ABI passes them (bx cx dx
 * si di bp, 32 bits, for a 32-bit task's).
 */
static int64_t stp_syscall_arg(struct stp_context *c, int64_t n, int sign, int trunc)
{
	unsigned long v = 0;
	size_t off;

#ifdef CONFIG_X86_64
	if (n < 1 || n > 6)
		goto bad;
	if (c->sregs_compat) {
		static const size_t regs32[] = {
			offsetof(struct pt_regs, bx), offsetof(struct pt_regs, cx),
			offsetof(struct pt_regs, dx), offsetof(struct pt_regs, si),
			offsetof(struct pt_regs, di), offsetof(struct pt_regs, bp),
		};

		off = regs32[n - 1];
	} else {
		static const size_t regs64[] = {
			offsetof(struct pt_regs, di), offsetof(struct pt_regs, si),
			offsetof(struct pt_regs, dx), offsetof(struct pt_regs, r10),
			offsetof(struct pt_regs, r8), offsetof(struct pt_regs, r9),
		};

		off = regs64[n - 1];
	}
	if (stp_copy_from_kernel_nofault(&v, (const char *)c->sregs + off, sizeof(v))) {
		snprintf(c->error_buffer, sizeof(c->error_buffer),
			 "kernel fault at %#lx accessing arg(%lld)",
			 (unsigned long)c->sregs + off, n);
		c->last_error = c->error_buffer;
		return 0;
	}
	if (c->sregs_compat)
		v = (u32)v;
	if (trunc)
		return sign ? (int64_t)(s32)v : (int64_t)(u32)v;
	return (int64_t)v;
bad:
#endif
	snprintf(c->error_buffer, sizeof(c->error_buffer), "cannot access arg(%lld)", n);
	c->last_error = c->error_buffer;
	return 0;
}

/* Argument n (from 1) of the probed function, x86_64 convention: six in
 * registers (di si dx cx r8 r9), the rest on the stack above the return
 * address. trunc: 32 bits, sign- (sign) or zero-extended. */
int64_t stp_arg(struct stp_context *c, int64_t n, int sign, int trunc)
{
	unsigned long v = 0;

	if (c->sregs)
		return stp_syscall_arg(c, n, sign, trunc);
	if (!c->regs) {
		c->last_error = "cannot access function args in this context";
		return 0;
	}
	if (n < 1)
		goto bad;
#ifdef CONFIG_X86_64
	switch (n) {
	case 1: v = c->regs->di; break;
	case 2: v = c->regs->si; break;
	case 3: v = c->regs->dx; break;
	case 4: v = c->regs->cx; break;
	case 5: v = c->regs->r8; break;
	case 6: v = c->regs->r9; break;
	default: {
		unsigned long a = c->regs->sp + (n - 6) * sizeof(long);

		if (n > 1024)
			goto bad;
		if (user_mode(c->regs) ?
		    stp_copy_from_user_nofault(&v, (const void __user *)a, sizeof(v)) :
		    stp_copy_from_kernel_nofault(&v, (const void *)a, sizeof(v))) {
			snprintf(c->error_buffer, sizeof(c->error_buffer),
				 "kernel fault at %#lx accessing arg(%lld)", a, n);
			c->last_error = c->error_buffer;
			return 0;
		}
	}
	}
#else
	goto bad;
#endif
	if (trunc)
		return sign ? (int64_t)(s32)v : (int64_t)(u32)v;
	return (int64_t)v;
bad:
	snprintf(c->error_buffer, sizeof(c->error_buffer), "cannot access arg(%lld)", n);
	c->last_error = c->error_buffer;
	return 0;
}

/* print_regs(): the probed context's registers, as 4.8 prints them. */
#ifdef CONFIG_X86_64
/* The general registers, three to a line: name and pt_regs offset. */
static const struct { char name[4]; unsigned short off; } stp_gprs[] = {
	{ "RAX", offsetof(struct pt_regs, ax) }, { "RBX", offsetof(struct pt_regs, bx) },
	{ "RCX", offsetof(struct pt_regs, cx) }, { "RDX", offsetof(struct pt_regs, dx) },
	{ "RSI", offsetof(struct pt_regs, si) }, { "RDI", offsetof(struct pt_regs, di) },
	{ "RBP", offsetof(struct pt_regs, bp) }, { "R08", offsetof(struct pt_regs, r8) },
	{ "R09", offsetof(struct pt_regs, r9) }, { "R10", offsetof(struct pt_regs, r10) },
	{ "R11", offsetof(struct pt_regs, r11) }, { "R12", offsetof(struct pt_regs, r12) },
	{ "R13", offsetof(struct pt_regs, r13) }, { "R14", offsetof(struct pt_regs, r14) },
	{ "R15", offsetof(struct pt_regs, r15) },
};
#endif

void stp_print_regs(struct stp_context *c, struct stp_sink *sk)
{
#ifdef CONFIG_X86_64
	struct pt_regs *r = c->regs;
	unsigned long fs, gs, kgs;
	unsigned int ds, cs, es, fsi, gsi;
	char b[160];
	size_t i;
	int n;

	if (!r)
		return;
	n = scnprintf(b, sizeof(b), "RIP: %016lx\nRSP: %016lx  EFLAGS: %08lx\n",
		      r->ip, r->sp, r->flags);
	stp_emit_lit(sk, b, n);
	for (i = 0; i < ARRAY_SIZE(stp_gprs); i++) {
		n = scnprintf(b, sizeof(b), "%s: %016lx%s", stp_gprs[i].name,
			      *(unsigned long *)((char *)r + stp_gprs[i].off),
			      i % 3 == 2 ? "\n" : " ");
		stp_emit_lit(sk, b, n);
	}
	savesegment(ds, ds);
	savesegment(cs, cs);
	savesegment(es, es);
	savesegment(fs, fsi);
	savesegment(gs, gsi);
	rdmsrl(MSR_FS_BASE, fs);
	rdmsrl(MSR_GS_BASE, gs);
	rdmsrl(MSR_KERNEL_GS_BASE, kgs);
	n = scnprintf(b, sizeof(b), "FS:  %016lx(%04x) GS:%016lx(%04x) knlGS:%016lx\n",
		      fs, fsi, gs, gsi, kgs);
	stp_emit_lit(sk, b, n);
	n = scnprintf(b, sizeof(b), "CS:  %04x DS: %04x ES: %04x CR0: %016lx\n",
		      cs, ds, es, read_cr0());
	stp_emit_lit(sk, b, n);
	n = scnprintf(b, sizeof(b), "CR2: %016lx CR3: %016lx CR4: %016lx\n",
		      read_cr2(), __read_cr3(), __read_cr4());
	stp_emit_lit(sk, b, n);
#endif
}
