/*
 * ustack.c - user stacks and user symbols for the ucontext tapset:
 * finds the object mapped at a user address (the current task's VMAs,
 * under mmap_read_trylock, never sleeping), names the address from the
 * tables of `stap -d`/`--ldd` (stp_usyms.h) and unwinds the stack from the
 * task's user registers with unwind.c.  Output formats are SystemTap
 * 4.8's.  Included from the tapset's top-level embedded C.
 */
#include <linux/mm.h>
#include <linux/mmap_lock.h>
#include <linux/ctype.h>
#include <linux/dcache.h>
#include <linux/percpu.h>
#include <linux/sched/task_stack.h>
#include <asm/unaligned.h>
#include "stp_usyms.h"
#include "unwind.c"

#ifndef MAXBACKTRACE
#define MAXBACKTRACE 20
#endif

#ifndef STP_NUMODS
#define STP_NUMODS 0
static const struct stp_umod stp_umods[1];
#endif

#define STP_UPATH 256

/* What is mapped at one user address. */
struct stp_uloc {
	int mod;			/* index in stp_umods, -1: none */
	bool mapped;			/* a file is mapped there */
	unsigned long pc, vaddr;	/* the address; link-time for mod */
	unsigned long base, size;	/* the file's mapping */
	char path[STP_UPATH];		/* the file's path (mod: its table's) */
};

struct stp_ustack_scratch {
	struct stp_uw_state uw;
	struct stp_uloc loc[MAXBACKTRACE + 1];
	char line[STP_UPATH + 128];
	char data[MAXSTRINGLEN];
};

#define STP_USTACK

/*
 * 4.8 sizes an object it has no tables for by what its VMA tracker saw:
 * a library mapped while the session runs by its mmap() (the file and its
 * bss after it), one mapped before by its file's VMAs only. Ours guesses
 * which from the module's load: mappings of a process started before it
 * (or of the -x target's image then) are old, except the -c target's
 * after its exec.
 */
static u64 stp_ustack_t0;
static const struct mm_struct *stp_ustack_mm0;

static bool stp_umap_fresh(struct mm_struct *mm)
{
	if (mm == stp_ustack_mm0)
		return false;
	return (stp_target_pid && current->tgid == stp_target_pid) ||
	       current->group_leader->start_boottime > stp_ustack_t0;
}

/* One workspace per CPU, in the context (too big for the stack). */
static int stp_ustack_init(void)
{
	struct task_struct *t;
	unsigned int cpu;

	stp_ustack_t0 = ktime_get_boottime_ns();
	rcu_read_lock();
	t = stp_target_pid ? pid_task(find_vpid((pid_t)stp_target_pid), PIDTYPE_PID) : NULL;
	stp_ustack_mm0 = t ? READ_ONCE(t->mm) : NULL;	/* compared, never used */
	rcu_read_unlock();

	for_each_possible_cpu(cpu) {
		struct stp_context *c = stp_contexts[cpu];

		c->ustack_ws = kvzalloc(sizeof(struct stp_ustack_scratch), GFP_KERNEL);
		if (!c->ustack_ws)
			return -ENOMEM;
	}
	return 0;
}

static void stp_ustack_exit(void)
{
	unsigned int cpu;

	if (!stp_contexts)
		return;
	for_each_possible_cpu(cpu) {
		if (stp_contexts[cpu])
			kvfree(stp_contexts[cpu]->ustack_ws);
	}
}

enum stp_usym_fmt { STP_USYM_FULL, STP_USYM_BRIEF, STP_USYM_NONE, STP_USYM_SIMPLE,
		   STP_USYM_FULLER };

/* The path of a mapped file from its dentries, under RCU: the mount's own
 * path is not known here (it is for objects given with -d). */
static void stp_dentry_path(struct dentry *d, char *buf, int len)
{
	char tmp[STP_UPATH];
	int pos = STP_UPATH - 1, depth = 0;

	tmp[pos] = '\0';
	rcu_read_lock();
	while (d && depth++ < 64) {
		struct dentry *parent = READ_ONCE(d->d_parent);
		const unsigned char *name = READ_ONCE(d->d_name.name);
		int n = 0;

		if (parent == d)
			break;
		while (n < NAME_MAX && name[n])
			n++;
		if (n + 1 > pos)
			break;
		pos -= n;
		memcpy(tmp + pos, name, n);
		tmp[--pos] = '/';
		d = parent;
	}
	rcu_read_unlock();
	strscpy(buf, pos == STP_UPATH - 1 ? "/" : tmp + pos, len);
}

/*
 * The path of a mapped file. d_path() waits for rename_lock's writers, so
 * it is used only where none can be interrupted on this CPU (not in an
 * interrupt or NMI, and rename_lock not held); otherwise the path is that
 * of the file within its mount.
 */
static void stp_file_path(struct file *f, char *buf, int len)
{
	char *p;

	if (!in_nmi() && !in_hardirq() && !in_serving_softirq() &&
	    !(raw_read_seqcount(&rename_lock.seqcount) & 1)) {
		p = d_path(&f->f_path, buf, len);
		if (!IS_ERR(p)) {
			memmove(buf, p, strlen(p) + 1);
			return;
		}
	}
	stp_dentry_path(f->f_path.dentry, buf, len);
}

static bool stp_umod_matches(const struct stp_umod *m, struct file *f)
{
	bool same;

	if ((unsigned long)i_size_read(file_inode(f)) != m->file_size)
		return false;
	rcu_read_lock();
	same = !strcmp((const char *)READ_ONCE(f->f_path.dentry->d_name.name), m->name);
	rcu_read_unlock();
	return same;
}

/* The extent of f's mappings (and its bss right after, when mapped in
 * the session: stp_umap_fresh()), and its base: the start of the mapping
 * of file offset 0. */
static void stp_umap_extent(struct mm_struct *mm, struct file *f, struct stp_uloc *u)
{
	struct vm_area_struct *vma;
	unsigned long start = ~0UL, end = 0, base = ~0UL;
	int n = 0;
	VMA_ITERATOR(vmi, mm, 0);

	for_each_vma(vmi, vma) {
		if (n++ > 4096)
			break;
		if (vma->vm_file == f) {
			start = min(start, vma->vm_start);
			end = max(end, vma->vm_end);
			if (vma->vm_pgoff == 0 && base == ~0UL)
				base = vma->vm_start;
		} else if (end && vma->vm_start == end && !vma->vm_file && stp_umap_fresh(mm) &&
			   !(vma->vm_start <= mm->brk && vma->vm_end >= mm->start_brk)) {
			end = vma->vm_end;
		}
	}
	u->base = base == ~0UL ? start : base;
	u->size = end - u->base;
}

/* Fill u for pc; the caller holds the mmap lock for reading. */
static void stp_uloc_find(struct mm_struct *mm, unsigned long pc, struct stp_uloc *u)
{
	struct vm_area_struct *vma = find_vma(mm, pc);
	struct file *f;

	u->mod = -1;
	u->mapped = false;
	u->pc = u->vaddr = pc;
	if (!vma || vma->vm_start > pc || !vma->vm_file)
		return;
	f = vma->vm_file;
	u->mapped = true;
	stp_umap_extent(mm, f, u);
	for (int i = 0; i < STP_NUMODS; i++) {
		if (!stp_umods[i].path || !stp_umod_matches(&stp_umods[i], f))
			continue;
		u->mod = i;
		u->vaddr = stp_umods[i].is_dyn ? pc - u->base : pc;
		strscpy(u->path, stp_umods[i].path, sizeof(u->path));
		return;
	}
	stp_file_path(f, u->path, sizeof(u->path));
}

/* The symbol of u: name, offset and size; false: none. */
static bool stp_uloc_sym(const struct stp_uloc *u, const char **name,
			 unsigned long *off, unsigned long *size)
{
	const struct stp_umod *m;
	unsigned long lo = 0, hi, end;

	if (u->mod < 0)
		return false;
	m = &stp_umods[u->mod];
	hi = m->nsyms;
	if (!hi || u->vaddr < m->sym_addr[0])
		return false;
	while (hi - lo > 1) {
		unsigned long mid = lo + (hi - lo) / 2;

		if (m->sym_addr[mid] <= u->vaddr)
			lo = mid;
		else
			hi = mid;
	}
	end = lo + 1 < m->nsyms ? m->sym_addr[lo + 1] : m->sym_end;
	if (u->vaddr >= end)
		return false;
	*name = m->sym_name[lo];
	*off = u->vaddr - m->sym_addr[lo];
	*size = end - m->sym_addr[lo];
	return true;
}

/* The source file and line of u from its object's line table (line 0:
 * the row has none); false: no row covers it. */
static bool stp_uloc_line(const struct stp_uloc *u, const char **file, unsigned long *line)
{
	const struct stp_umod *m;
	unsigned long lo = 0, hi;
	unsigned int v;

	if (u->mod < 0)
		return false;
	m = &stp_umods[u->mod];
	hi = m->nlines;
	if (!hi || u->vaddr < m->line_addr[0] || u->vaddr > 0xffffffffUL)
		return false;
	while (hi - lo > 1) {
		unsigned long mid = lo + (hi - lo) / 2;

		if (m->line_addr[mid] <= u->vaddr)
			lo = mid;
		else
			hi = mid;
	}
	v = m->line_info[lo];
	if (!v)
		return false;
	*file = m->line_file[v >> 20];
	*line = v & ((1u << 20) - 1);
	return true;
}

static const char *stp_basename(const char *p)
{
	const char *s = strrchr(p, '/');

	return s ? s + 1 : p;
}

/* One frame as 4.8 writes it in format fmt, into buf. */
static void stp_uloc_format(const struct stp_uloc *u, int fmt, char *buf, size_t len)
{
	const char *name;
	unsigned long off, size;
	bool sym = stp_uloc_sym(u, &name, &off, &size);

	const char *file;
	unsigned long line = 0;

	if (fmt == STP_USYM_FULLER && stp_uloc_line(u, &file, &line)) {
		char at[STP_UPATH + 24];

		if (line)
			snprintf(at, sizeof(at), " at %s:%lu", file, line);
		else
			snprintf(at, sizeof(at), " at %s", file);
		if (sym)
			snprintf(buf, len, " %#lx : %s+%#lx/%#lx%s [%s]\n", u->pc, name, off,
				 size, at, u->path);
		else
			snprintf(buf, len, " %#lx [%s+%#lx/%#lx]%s\n", u->pc, u->path,
				 u->pc - u->base, u->size, at);
		return;
	}
	switch (fmt) {
	case STP_USYM_FULLER:
	case STP_USYM_FULL:
		if (sym)
			snprintf(buf, len, " %#lx : %s+%#lx/%#lx [%s]\n", u->pc, name, off,
				 size, u->path);
		else if (u->mapped)
			snprintf(buf, len, " %#lx [%s+%#lx/%#lx]\n", u->pc, u->path,
				 u->pc - u->base, u->size);
		else
			snprintf(buf, len, " %#lx\n", u->pc);
		break;
	case STP_USYM_BRIEF:
		if (sym)
			snprintf(buf, len, "%s+%#lx\n", name, off);
		else
			snprintf(buf, len, "%#lx\n", u->pc);
		break;
	case STP_USYM_SIMPLE:
		if (sym)
			snprintf(buf, len, "%s+%#lx [%s]\n", name, off, stp_basename(u->path));
		else if (u->mapped)
			snprintf(buf, len, "%#lx [%s+%#lx]\n", u->pc, stp_basename(u->path),
				 u->pc - u->base);
		else
			snprintf(buf, len, "%#lx\n", u->pc);
		break;
	default:
		snprintf(buf, len, "%#lx ", u->pc);
		break;
	}
}

/* 4.8's warnings, each once per session. */
static unsigned long stp_uwarned[16];

static bool stp_uwarn_first(const char *what)
{
	unsigned long h = full_name_hash(NULL, what, strlen(what)) | 1;

	for (int i = 0; i < ARRAY_SIZE(stp_uwarned); i++) {
		unsigned long old = cmpxchg(&stp_uwarned[i], 0, h);

		if (old == h)
			return false;
		if (old == 0)
			break;
	}
	return true;
}

static void stp_uwarn_once(const char *what)
{
	if (stp_uwarn_first(what))
		stp_warn_msg("Missing unwind data for a module, rerun with 'stap -d %s'", what);
}

/* Why a DWARF expression of the CFI failed, once per session, in 4.8's
 * words. */
static void stp_uw_warn(struct stp_ustack_scratch *s)
{
	unsigned long arg = (unsigned long)s->uw.why_arg;
	char msg[96];

	switch (s->uw.why) {
	case STP_UW_E_OVERFLOW:
		strscpy(msg, "DWARF expression stack overflow in CFI", sizeof(msg));
		break;
	case STP_UW_E_UNDERFLOW:
		strscpy(msg, "DWARF expression stack underflow in CFI", sizeof(msg));
		break;
	case STP_UW_E_DIVZERO:
		strscpy(msg, "DWARF expression stack divide by zero in CFI", sizeof(msg));
		break;
	case STP_UW_E_TRUNCATED:
		strscpy(msg, "invalid (truncated) DWARF expression in CFI", sizeof(msg));
		break;
	case STP_UW_E_DEREF:
		strscpy(msg, "failed to access memory for deref", sizeof(msg));
		break;
	case STP_UW_E_BACKWARD:
		strscpy(msg, "backward branch in CFI expression not supported", sizeof(msg));
		break;
	case STP_UW_E_SKIP:
		snprintf(msg, sizeof(msg), "invalid skip %ld in CFI expression", s->uw.why_arg);
		break;
	case STP_UW_E_REG:
		snprintf(msg, sizeof(msg), "invalid register number %lu in CFI expression", arg);
		break;
	case STP_UW_E_SIZE:
		snprintf(msg, sizeof(msg), "invalid DW_OP_deref_size %lu in CFI expression", arg);
		break;
	default:
		snprintf(msg, sizeof(msg), "unimplemented CFI expression operation: 0x%lx", arg);
		break;
	}
	if (stp_uwarn_first(msg))
		stp_warn_msg("%s", msg);
}

/* The user registers of the current task; NULL outside a user task. */
static struct pt_regs *stp_uregs(struct stp_context *c, bool unwinding)
{
	if (!current->mm || (current->flags & PF_KTHREAD))
		return NULL;
	if (c->regs && user_mode(c->regs))
		return c->regs;
	/* from a kernel probe 4.8's unwinder first tries to unwind the
	 * kernel to the user registers, without tables for it */
	if (unwinding)
		stp_uwarn_once("kernel");
	return task_pt_regs(current);
}

static void stp_uw_from_ptregs(struct stp_uw_regs *r, const struct pt_regs *p)
{
	r->r[0] = p->ax; r->r[1] = p->dx; r->r[2] = p->cx; r->r[3] = p->bx;
	r->r[4] = p->si; r->r[5] = p->di; r->r[6] = p->bp; r->r[7] = p->sp;
	r->r[8] = p->r8; r->r[9] = p->r9; r->r[10] = p->r10; r->r[11] = p->r11;
	r->r[12] = p->r12; r->r[13] = p->r13; r->r[14] = p->r14; r->r[15] = p->r15;
	r->r[16] = p->ip;
	r->known = (1u << STP_UW_NREGS) - 1;
}

/*
 * Unwind the current task's user stack into the per-CPU scratch: at most
 * max frames (<= MAXBACKTRACE); returns their number (0: no user context).
 */
static int stp_ustack_walk_from(struct stp_context *c, int max,
				struct stp_ustack_scratch **out, const unsigned long *from);

static int stp_ustack_walk(struct stp_context *c, int max, struct stp_ustack_scratch **out)
{
	return stp_ustack_walk_from(c, max, out, NULL);
}

/* from: NULL, or the pc, sp and frame pointer to start from instead of
 * the task's (print_ubacktrace(pc, sp, fp)). */
static int stp_ustack_walk_from(struct stp_context *c, int max,
				struct stp_ustack_scratch **out, const unsigned long *from)
{
	struct stp_ustack_scratch *s = c->ustack_ws;
	struct pt_regs *pr = stp_uregs(c, true);
	struct mm_struct *mm = current->mm;
	struct stp_uw_regs regs;
	bool fault = false, exact = true, ok;
	int n = 0;

	*out = s;
	if (!pr || !mm)
		return 0;
	if (max > MAXBACKTRACE)
		max = MAXBACKTRACE;
	stp_uw_from_ptregs(&regs, pr);
	if (from) {
		regs.r[STP_UW_RA] = from[0];
		regs.r[STP_UW_SP] = from[1];
		regs.r[6] = from[2];	/* rbp */
	}
	if (!mmap_read_trylock(mm)) {
		s->loc[0] = (struct stp_uloc){ .mod = -1, .pc = regs.r[STP_UW_RA] };
		return 1;
	}
	while (n < max) {
		struct stp_uloc *u = &s->loc[n];
		const struct stp_umod *m;

		stp_uloc_find(mm, regs.r[STP_UW_RA], u);
		n++;
		if (u->mod < 0) {
			if (u->mapped)
				stp_uwarn_once(u->path);
			break;
		}
		m = &stp_umods[u->mod];
		/* a return address is after its call: look up the call; the pc
		 * of the probe or one a signal interrupted is exact */
		ok = stp_uw_step(m, exact ? u->vaddr : u->vaddr - 1, &regs, &s->uw, &fault);
		if (s->uw.why)
			stp_uw_warn(s);
		if (!ok)
			break;
		exact = s->uw.signal;
	}
	mmap_read_unlock(mm);
	if (fault && stp_uwarn_first(" read fault"))
		stp_warn_msg("_stp_read_address failed to access memory location");
	return n;
}

/* What 4.8 writes where there is no user context (a kernel thread). */
static void stp_ustack_none(struct stp_context *c, int fmt, char *buf, size_t len)
{
	if (fmt == STP_USYM_NONE)
		strscpy(buf, "\n", len);
	else
		snprintf(buf, len, "<no user backtrace at %s>\n", c->probe_point);
}

/* print_ubacktrace() and friends: every frame in format fmt; from as
 * for stp_ustack_walk_from(). */
static void stp_ustack_print_from(struct stp_context *c, int fmt, const unsigned long *from)
{
	struct stp_ustack_scratch *s;
	int n = stp_ustack_walk_from(c, MAXBACKTRACE, &s, from);

	if (!n) {
		stp_ustack_none(c, fmt, s->line, sizeof(s->line));
		stp_print_str(s->line);
	}
	for (int i = 0; i < n; i++) {
		stp_uloc_format(&s->loc[i], fmt, s->line, sizeof(s->line));
		stp_print_str(s->line);
	}
}

static void stp_ustack_print(struct stp_context *c, int fmt)
{
	stp_ustack_print_from(c, fmt, NULL);
}

/* sprint_ubacktrace(), ubacktrace(): the frames into dst (MAXSTRINGLEN). */
static void stp_ustack_sprint(struct stp_context *c, char *dst, int fmt)
{
	struct stp_ustack_scratch *s;
	int n = stp_ustack_walk(c, MAXBACKTRACE, &s);

	dst[0] = '\0';
	if (!n)
		stp_ustack_none(c, fmt, dst, MAXSTRINGLEN);
	for (int i = 0; i < n; i++) {
		stp_uloc_format(&s->loc[i], fmt, s->line, sizeof(s->line));
		stp_str_cat(dst, s->line);
	}
}

/* ucallers(n): the addresses of frames 0..n (all of them for n < 0),
 * separated by spaces; false when the stack ends before frame n. */
static bool stp_ucallers(struct stp_context *c, char *dst, int64_t level)
{
	struct stp_ustack_scratch *s;
	int want = level < 0 || level >= MAXBACKTRACE ? MAXBACKTRACE : (int)level + 1;
	int n = stp_ustack_walk(c, want, &s);
	char buf[24];

	dst[0] = '\0';
	if (!n) {	/* no user context: frame 0 is address 0, as in 4.8 */
		s->loc[0].pc = 0;
		n = 1;
	}
	for (int i = 0; i < n; i++) {
		snprintf(buf, sizeof(buf), i ? " %#lx" : "%#lx", s->loc[i].pc);
		stp_str_cat(dst, buf);
	}
	return level < 0 || n > level;
}

/* usymname(), usymdata(), umodname() of one address of the current task. */
static struct stp_uloc *stp_uaddr_loc(struct stp_context *c, unsigned long addr)
{
	struct stp_ustack_scratch *s = c->ustack_ws;
	struct stp_uloc *u = &s->loc[0];
	struct mm_struct *mm = current->mm;

	*u = (struct stp_uloc){ .mod = -1, .pc = addr, .vaddr = addr };
	if (!mm || (current->flags & PF_KTHREAD) || !mmap_read_trylock(mm))
		return u;
	stp_uloc_find(mm, addr, u);
	mmap_read_unlock(mm);
	return u;
}

static void stp_usymname(struct stp_context *c, char *dst, unsigned long addr)
{
	struct stp_uloc *u = stp_uaddr_loc(c, addr);
	const char *name;
	unsigned long off, size;

	if (stp_uloc_sym(u, &name, &off, &size))
		strscpy(dst, name, MAXSTRINGLEN);
	else
		snprintf(dst, MAXSTRINGLEN, "%#lx", addr);
}

static void stp_usymdata(struct stp_context *c, char *dst, unsigned long addr)
{
	struct stp_uloc *u = stp_uaddr_loc(c, addr);
	const char *name;
	unsigned long off, size;

	if (stp_uloc_sym(u, &name, &off, &size))
		snprintf(dst, MAXSTRINGLEN, "%s+%#lx/%#lx [%s]", name, off, size, u->path);
	else if (u->mapped)
		snprintf(dst, MAXSTRINGLEN, "%#lx [%s+%#lx/%#lx]", addr, u->path,
			 addr - u->base, u->size);
	else
		snprintf(dst, MAXSTRINGLEN, "%#lx", addr);
}

/* usymfile() (what 1), usymline() (2), usymfileline() (3): from the
 * line table of the object mapped at addr, else addr in hex, as 4.8. */
static void stp_usymfileline(struct stp_context *c, char *dst, unsigned long addr, int what)
{
	struct stp_uloc *u = stp_uaddr_loc(c, addr);
	const char *file = NULL;
	unsigned long line = 0;

	stp_uloc_line(u, &file, &line);
	if (what == 1 && file)
		strscpy(dst, file, MAXSTRINGLEN);
	else if (what == 2 && line)
		snprintf(dst, MAXSTRINGLEN, "%lu", line);
	else if (what == 3 && file && line)
		snprintf(dst, MAXSTRINGLEN, "%s:%lu", file, line);
	else if (what == 3 && file)
		strscpy(dst, file, MAXSTRINGLEN);
	else
		snprintf(dst, MAXSTRINGLEN, "0x%lx", addr);
}

/* false: nothing is mapped there */
static bool stp_umodname(struct stp_context *c, char *dst, unsigned long addr)
{
	struct stp_uloc *u = stp_uaddr_loc(c, addr);

	if (!u->mapped)
		return false;
	strscpy(dst, u->path, MAXSTRINGLEN);
	return true;
}

/* uaddr(): the current task's user pc. */
static unsigned long stp_uaddr(struct stp_context *c)
{
	struct pt_regs *r = stp_uregs(c, false);

	return r ? r->ip : 0;
}

/* ustack(n): the address of frame n; false when the stack has fewer
 * frames (with no user context frame 0 is address 0, as in 4.8). */
static bool stp_ustack_at(struct stp_context *c, int64_t level, unsigned long *pc)
{
	struct stp_ustack_scratch *s;
	int n;

	if (level < 0 || level >= MAXBACKTRACE)
		return false;
	n = stp_ustack_walk(c, (int)level + 1, &s);
	if (!n && level == 0) {
		*pc = 0;
		return true;
	}
	if (n <= level)
		return false;
	*pc = s->loc[level].pc;
	return true;
}

/* The next space-separated token of *p into tok (at most len - 1 bytes
 * kept); false at the end. */
static bool stp_next_token(const char **p, char *tok, size_t len)
{
	const char *q = *p;
	size_t n = 0;

	while (*q == ' ')
		q++;
	if (!*q)
		return false;
	for (; *q && *q != ' '; q++)
		if (n + 1 < len)
			tok[n++] = *q;
	tok[n] = '\0';
	*p = q;
	return true;
}

static unsigned long stp_hex_value(const char *t)
{
	unsigned long v = 0;

	if (t[0] == '0' && (t[1] == 'x' || t[1] == 'X'))
		t += 2;
	for (; isxdigit(*t); t++)
		v = (v << 4) | hex_to_bin(*t);
	return v;
}

/* print_usyms(), sprint_usyms(): one " ADDR : usymdata(ADDR)" line per
 * address of a ubacktrace()/ucallers() string; the string form stops
 * before a line that would pass MAXSTRINGLEN. dst NULL: print. */
static void stp_usyms_lines(struct stp_context *c, const char *callers, char *dst)
{
	struct stp_ustack_scratch *s = c->ustack_ws;
	char tok[40], *data = s->data;
	size_t total = 0;

	if (dst)
		dst[0] = '\0';
	while (stp_next_token(&callers, tok, sizeof(tok))) {
		stp_usymdata(c, data, stp_hex_value(tok));	/* uses s->loc[0] */
		snprintf(s->line, sizeof(s->line), " %s : %s\n", tok, data);
		if (!dst) {
			stp_print_str(s->line);
			continue;
		}
		total += strlen(s->line);
		if (total > MAXSTRINGLEN)
			break;
		stp_str_cat(dst, s->line);
	}
}
