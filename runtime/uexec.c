/* SPDX-License-Identifier: GPL-2.0 */
/*
 * uexec.c - process() probes on the inode a program is actually run
 * from (included by uprobes.c).
 *
 * A uprobe belongs to an inode. On most filesystems the inode kern_path()
 * finds is the one exec maps, but not on all (9p, as the test guest's
 * root is, gives the running program another one). So while uprobes are
 * registered, the sched_process_exec tracepoint watches for programs
 * whose file is the probed one (same superblock and inode number) but
 * another inode; the exec'ing task then registers the probes on that
 * inode itself, through task_work before it returns to user space (where
 * it may sleep), so not even its first instruction is missed.
 */
#include <linux/binfmts.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/task_work.h>
#include <linux/tracepoint.h>
#include <linux/wait.h>
#include <linux/mm.h>
#include <asm/syscall.h>
#include <asm/unistd.h>

#include "utwork.c"

struct stp_uexec_work {
	struct stp_utwork tw;
	struct inode *inode;
};

static LIST_HEAD(stp_uextras);		/* struct stp_uprobe, by .extra */
static DEFINE_SPINLOCK(stp_uextras_lock);	/* the list, for the tracepoint */
static DEFINE_MUTEX(stp_uextras_mutex);	/* adding to it */
static struct tracepoint *stp_uexec_tp, *stp_uexec_tp_mmap;
static bool stp_uexec_mmap_on;
static bool stp_uexec_on;
static struct stp_utwork_set stp_uexec_works =
	STP_UTWORK_SET_INIT(stp_uexec_works);

/* Is probe p registered on inode already? Caller holds stp_uextras_lock. */
static bool stp_uexec_has(const struct stp_probe *p, struct inode *inode)
{
	struct stp_uprobe *x;

	list_for_each_entry(x, &stp_uextras, extra)
		if (x->probe == p && x->inode == inode)
			return true;
	return false;
}

/* Does some probe want inode, which it is not registered on yet? */
static bool stp_uexec_wanted(struct inode *inode)
{
	unsigned long flags;
	unsigned int i;
	bool want = false;

	spin_lock_irqsave(&stp_uextras_lock, flags);
	for (i = 0; i < stp_nups && !want; i++) {
		struct stp_uprobe *u = &stp_ups[i];

		want = u->sb == inode->i_sb && u->ino == inode->i_ino &&
		       u->inode != inode && !stp_uexec_has(u->probe, inode);
	}
	spin_unlock_irqrestore(&stp_uextras_lock, flags);
	return want;
}

/* Register the probes of the file inode is a copy of on it. May sleep. */
static void stp_uexec_arm(struct inode *inode)
{
	unsigned long flags;
	unsigned int i;

	mutex_lock(&stp_uextras_mutex);
	for (i = 0; stp_uexec_on && i < stp_nups; i++) {
		struct stp_uprobe *u = &stp_ups[i], *x;
		bool have;

		if (u->sb != inode->i_sb || u->ino != inode->i_ino || u->inode == inode)
			continue;
		spin_lock_irqsave(&stp_uextras_lock, flags);
		have = stp_uexec_has(u->probe, inode);
		spin_unlock_irqrestore(&stp_uextras_lock, flags);
		if (have)
			continue;
		x = kzalloc(sizeof(*x), GFP_KERNEL);
		if (!x)
			break;
		x->probe = u->probe;
		x->sb = u->sb;
		x->ino = u->ino;
		if (stp_uprobe_register_inode(x, igrab(inode))) {
			kfree(x);
			continue;
		}
		spin_lock_irqsave(&stp_uextras_lock, flags);
		list_add(&x->extra, &stp_uextras);
		spin_unlock_irqrestore(&stp_uextras_lock, flags);
	}
	mutex_unlock(&stp_uextras_mutex);
}

/* Processes already running a probed file (through another inode): the
 * probes on their inodes too (registering arms the existing mappings). */
static void stp_uexec_existing(void)
{
	struct inode *seen[16];
	struct task_struct *t;
	int n = 0, i;

	rcu_read_lock();
	for_each_process(t) {
		struct file *exe;
		struct inode *inode = NULL;

		if (t->flags & PF_KTHREAD)
			continue;
		task_lock(t);		/* t->mm stays while we hold it */
		exe = t->mm ? rcu_dereference(t->mm->exe_file) : NULL;
		if (exe)
			inode = file_inode(exe);
		for (i = 0; inode && i < n; i++)
			if (seen[i] == inode)
				inode = NULL;
		if (inode && n < (int)ARRAY_SIZE(seen) && stp_uexec_wanted(inode)) {
			inode = igrab(inode);
			if (inode)
				seen[n++] = inode;
		}
		task_unlock(t);
	}
	rcu_read_unlock();
	for (i = 0; i < n; i++) {
		stp_uexec_arm(seen[i]);
		iput(seen[i]);
	}
}

/* In the exec'ing task, before it returns to user space: may sleep. */
static void stp_uexec_work_fn(struct stp_utwork *tw)
{
	struct stp_uexec_work *w = container_of(tw, struct stp_uexec_work, tw);

	stp_uexec_arm(w->inode);
	iput(w->inode);
	kfree(w);
}

/* Cancelled at unload (its task never ran it): may sleep. */
static void stp_uexec_work_drop(struct stp_utwork *tw)
{
	struct stp_uexec_work *w = container_of(tw, struct stp_uexec_work, tw);

	iput(w->inode);
	kfree(w);
}

/* Arm the probes on inode in the current task before it returns to user
 * space; inode is a reference of ours. Atomic context. */
static void stp_uexec_queue(struct inode *inode)
{
	struct stp_uexec_work *w = kmalloc(sizeof(*w), GFP_ATOMIC);

	if (!w) {
		iput(inode);	/* the file is mapped: never the last */
		return;
	}
	w->inode = inode;
	if (stp_utwork_add(&stp_uexec_works, &w->tw, current,
			   stp_uexec_work_fn, stp_uexec_work_drop, false)) {
		iput(w->inode);
		kfree(w);
	}
}

static void stp_uexec_cb(void *data, struct task_struct *p, pid_t old_pid,
			 struct linux_binprm *bprm)
{
	struct inode *inode = bprm->file ? file_inode(bprm->file) : NULL;

	if (!inode || !READ_ONCE(stp_uexec_on) || !stp_uexec_wanted(inode))
		return;
	inode = igrab(inode);	/* exec holds the file: never the last */
	if (inode)
		stp_uexec_queue(inode);
}

/* A successful mmap() of a probed file through another inode. */
static void stp_uexec_mmap_cb(void *data, struct pt_regs *regs, long ret)
{
	struct mm_struct *mm = current->mm;
	struct vm_area_struct *vma;
	struct inode *inode = NULL;

	if (!READ_ONCE(stp_uexec_on) || !mm || IS_ERR_VALUE(ret) ||
	    syscall_get_nr(current, regs) != __NR_mmap || !mmap_read_trylock(mm))
		return;
	vma = find_vma(mm, (unsigned long)ret);
	if (vma && vma->vm_start <= (unsigned long)ret && vma->vm_file)
		inode = file_inode(vma->vm_file);
	inode = inode && stp_uexec_wanted(inode) ? igrab(inode) : NULL;
	mmap_read_unlock(mm);
	if (inode)
		stp_uexec_queue(inode);
}

static void stp_uexec_lookup(struct tracepoint *tp, void *priv)
{
	if (!strcmp(tp->name, "sched_process_exec"))
		stp_uexec_tp = tp;
	else if (!strcmp(tp->name, "sys_exit"))
		stp_uexec_tp_mmap = tp;
}

/* After the uprobes: watch execs. */
static void stp_uexec_watch(void)
{
	for_each_kernel_tracepoint(stp_uexec_lookup, NULL);
	if (!stp_uexec_tp)
		return;
	WRITE_ONCE(stp_uexec_on, true);
	if (tracepoint_probe_register(stp_uexec_tp, (void *)stp_uexec_cb, NULL)) {
		WRITE_ONCE(stp_uexec_on, false);
		return;
	}
	stp_uexec_mmap_on = stp_uexec_tp_mmap &&
		!tracepoint_probe_register(stp_uexec_tp_mmap, (void *)stp_uexec_mmap_cb, NULL);
	stp_uexec_existing();
}

/* Before the uprobes go: no new work, pending work done, extras gone. */
static void stp_uexec_unwatch(void)
{
	struct stp_uprobe *x, *tmp;

	if (READ_ONCE(stp_uexec_on)) {
		mutex_lock(&stp_uextras_mutex);
		WRITE_ONCE(stp_uexec_on, false);
		mutex_unlock(&stp_uextras_mutex);
		tracepoint_probe_unregister(stp_uexec_tp, (void *)stp_uexec_cb, NULL);
		if (stp_uexec_mmap_on)
			tracepoint_probe_unregister(stp_uexec_tp_mmap,
						    (void *)stp_uexec_mmap_cb, NULL);
		stp_uexec_mmap_on = false;
		tracepoint_synchronize_unregister();
	}
	/* queued task_work runs our code: cancel it, or wait if it runs */
	stp_utwork_drain(&stp_uexec_works);
	list_for_each_entry_safe(x, tmp, &stp_uextras, extra) {
		if (x->registered) {
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
			uprobe_unregister_nosync(x->up, &x->uc);
			uprobe_unregister_sync();
#else
			uprobe_unregister(x->inode, x->probe->uoffset, &x->uc);
#endif
		}
		iput(x->inode);
		list_del(&x->extra);
		kfree(x);
	}
}
