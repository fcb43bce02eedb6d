/* SPDX-License-Identifier: GPL-2.0 */
/*
 * uprobes.c - process("PATH") probes: inode-based uprobes and uretprobes,
 * one per STP_PROBE_UPROBE / STP_PROBE_URETPROBE entry of stp_probes[]
 * (.path: the binary, .uoffset: the file offset of the probed
 * instruction, .usem: an SDT semaphore's file offset or 0, .uaddr: the
 * instruction's link-time address).
 *
 * The inode is found with kern_path() and held (igrab) while registered.
 * Registered when the session starts (after the begin probes, so before
 * stapio lets a -c command run: nothing early is missed), unregistered
 * before the end probes and at the latest at unload; the kernel waits for
 * running handlers on unregistration. A uprobe applies to every process
 * that maps the file, as 4.8's process("PATH") probes do.
 *
 * The handlers run in the probed task's context: c->regs are its user
 * registers, c->args the six argument registers (a function probe at the
 * entry reads its parameters there), and c->uaddr the run-time address of
 * the probed instruction (the function's entry for a uretprobe), from
 * which stp_ubias() gives the load bias of a PIE or a library.
 * Kernel API differences (6.12's uprobe_register returning the uprobe,
 * 6.13's handler data argument) are confined to the STP_UPROBE_* macros
 * below.
 */
#include <linux/uprobes.h>
#include <linux/namei.h>
#include <linux/fs.h>
#include <linux/version.h>
#include <linux/hash.h>
#include <linux/spinlock.h>

#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 13, 0)
#define STP_UPROBE_DATA_ARG , __u64 *data
#else
#define STP_UPROBE_DATA_ARG
#endif

struct stp_uprobe {
	struct uprobe_consumer uc;
	const struct stp_probe *probe;
	struct inode *inode;
	struct super_block *sb;		/* the path's file, for stp_uexec_cb() */
	unsigned long ino;
	struct list_head extra;		/* on stp_uextras (registrations at exec) */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
	struct uprobe *up;
#endif
	bool registered;
};

static struct stp_uprobe *stp_ups;
static unsigned int stp_nups;

/* A .callee() probe at the callee's entry: was it called from one of
 * its call sites (the return address on the stack, less the load bias)? */
static bool stp_ucall_matches(const struct stp_probe *p, struct pt_regs *regs)
{
	unsigned long ret, bias = instruction_pointer(regs) - p->uaddr;

	if (!p->nucalls)
		return true;
	if (copy_from_user_nofault(&ret, (const void __user *)regs->sp, sizeof(ret)))
		return false;
	for (u32 i = 0; i < p->nucalls; i++)
		if (ret - bias == p->ucalls[i])
			return true;
	return false;
}

static int stp_uprobe_handler(struct uprobe_consumer *uc, struct pt_regs *regs
			      STP_UPROBE_DATA_ARG)
{
	struct stp_uprobe *u = container_of(uc, struct stp_uprobe, uc);
	unsigned long args[STP_KP_NARGS];

	if (!stp_may_run(STP_PROBE_UPROBE) || !stp_ucall_matches(u->probe, regs))
		return 0;
	stp_kp_save_args(regs, args);
	stp_run_probe_uctx(u->probe, regs, args, instruction_pointer(regs));
	return 0;
}

/*
 * A uretprobe's parameters are their values at entry: the entry handler
 * keeps the argument registers in a small table keyed by task, probe and
 * stack pointer (the return handler sees it 8 bytes higher, the return
 * address popped). A lost slot (table full, a longjmp) only makes those
 * parameters unavailable at that return.
 */
#define STP_UENTRY_SLOTS 1024
#define STP_UENTRY_PROBES 8
struct stp_uentry {
	struct task_struct *task;
	const struct stp_probe *probe;
	unsigned long sp;
	unsigned long args[STP_KP_NARGS];
};
static struct stp_uentry *stp_uentries;
static DEFINE_SPINLOCK(stp_uentry_lock);

static unsigned int stp_uentry_hash(const struct stp_probe *p, unsigned long sp)
{
	return (unsigned int)(hash_ptr(current, 16) ^ hash_ptr(p, 16) ^ (sp >> 4));
}

static int stp_uretprobe_entry(struct uprobe_consumer *uc, struct pt_regs *regs
			       STP_UPROBE_DATA_ARG)
{
	struct stp_uprobe *u = container_of(uc, struct stp_uprobe, uc);
	unsigned int h = stp_uentry_hash(u->probe, regs->sp), i;
	struct stp_uentry *e = NULL;
	unsigned long flags;

	if (!stp_uentries || !stp_may_run(STP_PROBE_URETPROBE))
		return 0;
	spin_lock_irqsave(&stp_uentry_lock, flags);
	for (i = 0; i < STP_UENTRY_PROBES && !e; i++) {
		struct stp_uentry *x = &stp_uentries[(h + i) % STP_UENTRY_SLOTS];

		if (!x->task || (x->task == current && x->sp == regs->sp &&
				 x->probe == u->probe))
			e = x;
	}
	if (!e)		/* full here: the oldest guess loses */
		e = &stp_uentries[h % STP_UENTRY_SLOTS];
	e->task = current;
	e->probe = u->probe;
	e->sp = regs->sp;
	stp_kp_save_args(regs, e->args);
	spin_unlock_irqrestore(&stp_uentry_lock, flags);
	return 0;
}

/* The entry's arguments into args, the slot freed; false if lost. */
static bool stp_uretprobe_args(const struct stp_probe *p, unsigned long sp,
			       unsigned long *args)
{
	unsigned int h = stp_uentry_hash(p, sp), i;
	unsigned long flags;
	bool found = false;

	if (!stp_uentries)
		return false;
	spin_lock_irqsave(&stp_uentry_lock, flags);
	for (i = 0; i < STP_UENTRY_PROBES && !found; i++) {
		struct stp_uentry *x = &stp_uentries[(h + i) % STP_UENTRY_SLOTS];

		if (x->task == current && x->sp == sp && x->probe == p) {
			memcpy(args, x->args, sizeof(x->args));
			x->task = NULL;
			found = true;
		}
	}
	spin_unlock_irqrestore(&stp_uentry_lock, flags);
	return found;
}

static int stp_uretprobe_handler(struct uprobe_consumer *uc, unsigned long func,
				 struct pt_regs *regs STP_UPROBE_DATA_ARG)
{
	struct stp_uprobe *u = container_of(uc, struct stp_uprobe, uc);
	unsigned long args[STP_KP_NARGS];
	bool have;

	have = stp_uretprobe_args(u->probe, regs->sp - sizeof(long), args);
	if (!stp_may_run(STP_PROBE_URETPROBE))
		return 0;
	stp_run_probe_uctx(u->probe, regs, have ? args : NULL, func);
	return 0;
}

/* Register u->probe on `inode` (a reference of ours from now on). */
static int stp_uprobe_register_inode(struct stp_uprobe *u, struct inode *inode)
{
	const struct stp_probe *p = u->probe;
	int rc;

	u->inode = inode;
	if (p->kind == STP_PROBE_URETPROBE) {
		u->uc.handler = stp_uretprobe_entry;
		u->uc.ret_handler = stp_uretprobe_handler;
	} else
		u->uc.handler = stp_uprobe_handler;
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
	u->up = uprobe_register(u->inode, p->uoffset, p->usem, &u->uc);
	rc = IS_ERR(u->up) ? PTR_ERR(u->up) : 0;
#else
	rc = p->usem ? uprobe_register_refctr(u->inode, p->uoffset, p->usem, &u->uc) :
		       uprobe_register(u->inode, p->uoffset, &u->uc);
#endif
	if (rc) {
		iput(u->inode);
		u->inode = NULL;
		return rc;
	}
	u->registered = true;
	return 0;
}

static int stp_uprobe_register_one(struct stp_uprobe *u)
{
	struct path path;
	struct inode *inode;
	int rc;

	rc = kern_path(u->probe->path, LOOKUP_FOLLOW, &path);
	if (rc)
		return rc;
	inode = igrab(d_inode(path.dentry));
	path_put(&path);
	if (!inode)
		return -ENOENT;
	u->sb = inode->i_sb;
	u->ino = inode->i_ino;
	return stp_uprobe_register_inode(u, inode);
}

#include "uexec.c"

/* Session start, process context. */
static void stp_uprobes_register(void)
{
	unsigned int i;

	if (stp_ups)
		return;
	STP_PROBES_COLLECT(stp_ups, stp_nups,
			   BIT_ULL(STP_PROBE_UPROBE) | BIT_ULL(STP_PROBE_URETPROBE),
			   "uprobes");
	if (!stp_ups)
		return;
	for (i = 0; i < stp_nups && !stp_uentries; i++)
		if (stp_ups[i].probe->kind == STP_PROBE_URETPROBE)
			stp_uentries = kvcalloc(STP_UENTRY_SLOTS, sizeof(*stp_uentries),
						GFP_KERNEL);
	for (i = 0; i < stp_nups; i++) {
		struct stp_uprobe *u = &stp_ups[i];
		const struct stp_probe *p = u->probe;
		int rc;

		rc = stp_uprobe_register_one(u);
		if (rc && !p->optional)
			stp_warn_msg("probe %s inode-offset %#llx registration error (rc %d)",
				     p->pp, (unsigned long long)p->uoffset, rc);
		cond_resched();
	}
	stp_uexec_watch();
}

/* Session stop or module unload, process context: no handler of ours
 * runs after this returns. */
static void stp_uprobes_unregister(void)
{
	unsigned int i;
	bool any = false;

	stp_uexec_unwatch();
	for (i = 0; i < stp_nups; i++) {
		struct stp_uprobe *u = &stp_ups[i];

		if (!u->registered)
			continue;
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
		uprobe_unregister_nosync(u->up, &u->uc);
#else
		uprobe_unregister(u->inode, u->probe->uoffset, &u->uc);
#endif
		u->registered = false;
		any = true;
	}
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
	if (any)
		uprobe_unregister_sync();
#endif
	for (i = 0; i < stp_nups; i++) {
		if (stp_ups[i].inode)
			iput(stp_ups[i].inode);
		stp_ups[i].inode = NULL;
	}
	(void)any;
}

/* Module unload, after stp_uprobes_unregister(). */
static void stp_uprobes_free(void)
{
	kvfree(stp_uentries);
	stp_uentries = NULL;
	kvfree(stp_ups);
	stp_ups = NULL;
	stp_nups = 0;
}

static const struct stp_family_ops stp_uprobes_family = {
	.name = "uprobes",
	.register_probes = stp_uprobes_register,
	.unregister_probes = stp_uprobes_unregister,
	.free = stp_uprobes_free,
};

/* The function holding addr, in the binary of the running process probe. */
const char *stp_usym_lookup(struct stp_context *c, u64 addr, u64 *off, u64 *size)
{
	const struct stp_ubin *b = c->probe && stp_probe_is_uprobe(c->probe) ?
				   c->probe->ubin : NULL;
	unsigned int lo = 0, hi;
	u64 link;

	if (!b || !b->nsyms)
		return NULL;
	link = addr - stp_ubias(c);
	hi = b->nsyms;
	while (lo < hi) {	/* the last symbol starting at or before link */
		unsigned int mid = lo + (hi - lo) / 2;

		if (b->syms[mid].addr <= link)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || link >= b->syms[lo - 1].addr + b->syms[lo - 1].size)
		return NULL;
	*off = link - b->syms[lo - 1].addr;
	*size = b->syms[lo - 1].size;
	return b->syms[lo - 1].name;
}
