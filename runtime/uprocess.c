/* SPDX-License-Identifier: GPL-2.0 */
/*
 * uprocess.c - process lifecycle probes: process.begin, process.end,
 * process.thread.begin, process.thread.end, each also as
 * process("PATH").*, from the sched_process_fork, sched_process_exec and
 * sched_process_exit tracepoints, with SystemTap 4.8's semantics:
 *  - begin runs in the new process's context: a forked child (before it
 *    first returns to user space, through task_work), a process at exec
 *    (an exec ends the old image and begins the new one), and each
 *    process already there when the session starts (woken for it);
 *  - end runs in the exiting process's context when its last thread
 *    exits, or at an exec for the old image;
 *  - thread.begin / thread.end for the threads other than the first
 *    (thread.begin also in each one already there at the start);
 *  - syscall / syscall.return at each system call's entry and exit (the
 *    raw sys_enter / sys_exit tracepoints): $syscall, $arg1..6, $return.
 * Without a path the probes see every user process, or with -c/-x only
 * the target and its descendants; process(PID) ones only that process
 * (its syscalls and threads: its main thread's). With a path they see
 * the processes running that file (same superblock and inode number as
 * the path's, so that 9p's per-open inodes match too); which process runs
 * which probed file is kept in a small table (the old image is gone at
 * exec time).
 */
#include <linux/binfmts.h>
#include <linux/namei.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/tracepoint.h>
#include <asm/syscall.h>

#define STP_UPROC_SLOTS 512
#define STP_UPROC_MAXPATHS 64

struct stp_uproc_path {
	const struct stp_probe *probe;
	struct super_block *sb;
	unsigned long ino;
};

struct stp_uproc_slot {
	pid_t tgid;		/* 0: free */
	u64 mask;		/* the path probes whose file it runs */
};

#include "utwork.c"

struct stp_uproc_work {
	struct stp_utwork tw;
	u64 mask;
	bool thread;
};

static struct stp_uproc_path stp_upaths[STP_UPROC_MAXPATHS];
static unsigned int stp_nupaths;
static struct stp_uproc_slot *stp_uproc_table;
static DEFINE_SPINLOCK(stp_uproc_lock);
static struct tracepoint *stp_uproc_tp_fork, *stp_uproc_tp_exec, *stp_uproc_tp_exit;
static struct tracepoint *stp_uproc_tp_sysenter, *stp_uproc_tp_sysexit;
static bool stp_uproc_sys;	/* syscall probes: the sys_* tracepoints are on */
static bool stp_uproc_on;
static struct stp_utwork_set stp_uproc_works =
	STP_UTWORK_SET_INIT(stp_uproc_works);

static bool stp_uproc_kind(enum stp_probe_kind k)
{
	return k == STP_PROBE_PROC_BEGIN || k == STP_PROBE_PROC_END ||
	       k == STP_PROBE_THREAD_BEGIN || k == STP_PROBE_THREAD_END ||
	       k == STP_PROBE_SYSCALL || k == STP_PROBE_SYSCALL_RETURN;
}

/* Is task t the -c/-x target or one of its descendants (or is there no
 * target)? Caller holds rcu_read_lock(). */
static bool stp_uproc_in_scope(struct task_struct *t)
{
	int depth = 0;

	if (!stp_target_pid)
		return true;
	for (; t && depth < 64; t = rcu_dereference(t->real_parent), depth++) {
		if (t->tgid == stp_target_pid)
			return true;
		if (t->pid <= 1)
			break;
	}
	return false;
}

/* The path probes whose file is inode. */
static u64 stp_uproc_match(struct inode *inode)
{
	u64 mask = 0;
	unsigned int i;

	for (i = 0; inode && i < stp_nupaths; i++)
		if (stp_upaths[i].sb == inode->i_sb && stp_upaths[i].ino == inode->i_ino)
			mask |= 1ULL << i;
	return mask;
}

static struct stp_uproc_slot *stp_uproc_find(pid_t tgid, bool add)
{
	unsigned int h = (unsigned int)tgid % STP_UPROC_SLOTS, i;
	struct stp_uproc_slot *free = NULL;

	for (i = 0; stp_uproc_table && i < STP_UPROC_SLOTS; i++) {
		struct stp_uproc_slot *s = &stp_uproc_table[(h + i) % STP_UPROC_SLOTS];

		if (s->tgid == tgid)
			return s;
		if (!s->tgid && !free)
			free = s;
		if (!s->tgid && !add)
			break;
	}
	if (add && free)
		free->tgid = tgid;
	return add ? free : NULL;
}

/* Get (and with clear, forget) the mask of process tgid. */
static u64 stp_uproc_get(pid_t tgid, bool clear)
{
	struct stp_uproc_slot *s;
	unsigned long flags;
	u64 mask = 0;

	spin_lock_irqsave(&stp_uproc_lock, flags);
	s = stp_uproc_find(tgid, false);
	if (s) {
		mask = s->mask;
		if (clear) {
			s->mask = 0;
			s->tgid = 0;
		}
	}
	spin_unlock_irqrestore(&stp_uproc_lock, flags);
	return mask;
}

static void stp_uproc_set(pid_t tgid, u64 mask)
{
	struct stp_uproc_slot *s;
	unsigned long flags;

	if (!mask)
		return;
	spin_lock_irqsave(&stp_uproc_lock, flags);
	s = stp_uproc_find(tgid, true);
	if (s)
		s->mask = mask;
	spin_unlock_irqrestore(&stp_uproc_lock, flags);
}

/* Does process(PID) probe p see task t? Its begin and end are the
 * process's, its syscalls and threads those of its main thread (the one
 * task 4.8 attaches to). */
static bool stp_uproc_pid_ok(const struct stp_probe *p, struct task_struct *t)
{
	if (p->kind == STP_PROBE_PROC_BEGIN || p->kind == STP_PROBE_PROC_END)
		return t->tgid == p->upid;
	return t->pid == p->upid;
}

/* Would a probe of `kind` run in t: a path-less one when in scope, one of
 * mask, or a process(PID) one of t? With run, run them (in current, t),
 * with regs and args for the syscall probes. */
static bool stp_uproc_each(enum stp_probe_kind kind, struct task_struct *t, bool in_scope,
			   u64 mask, bool run, struct pt_regs *regs,
			   const unsigned long *args)
{
	unsigned int i;
	bool any = false;

	for (i = 0; i < STP_NPROBES; i++) {
		const struct stp_probe *p = &stp_probes[i];

		if (p->kind != kind || p->path ||
		    !(p->upid ? stp_uproc_pid_ok(p, t) : in_scope))
			continue;
		any = true;
		if (run)
			stp_run_probe_ctx(p, regs, args);
	}
	for (i = 0; i < stp_nupaths; i++) {
		if (!(mask & (1ULL << i)) || stp_upaths[i].probe->kind != kind)
			continue;
		any = true;
		if (run)
			stp_run_probe_ctx(stp_upaths[i].probe, regs, args);
	}
	return any;
}

/* Run the probes of `kind` for current: the path-less ones when in scope,
 * the path ones of mask, the process(PID) ones of current; regs and args
 * for the syscall probes. */
static void stp_uproc_run_ctx(enum stp_probe_kind kind, bool in_scope, u64 mask,
			      struct pt_regs *regs, const unsigned long *args)
{
	if (stp_may_run(kind))
		stp_uproc_each(kind, current, in_scope, mask, true, regs, args);
}

static void stp_uproc_run(enum stp_probe_kind kind, bool in_scope, u64 mask)
{
	stp_uproc_run_ctx(kind, in_scope, mask, NULL, NULL);
}

static bool stp_uproc_scope_current(void)
{
	bool r;

	rcu_read_lock();
	r = stp_uproc_in_scope(current);
	rcu_read_unlock();
	return r;
}

/* In the new process or thread, before its first return to user space. */
static void stp_uproc_work_fn(struct stp_utwork *tw)
{
	struct stp_uproc_work *w = container_of(tw, struct stp_uproc_work, tw);

	if (READ_ONCE(stp_uproc_on))
		stp_uproc_run(w->thread ? STP_PROBE_THREAD_BEGIN : STP_PROBE_PROC_BEGIN,
			      stp_uproc_scope_current(), w->mask);
	kfree(w);
}

/* Cancelled at unload: its task never ran it (e.g. stopped). */
static void stp_uproc_work_drop(struct stp_utwork *tw)
{
	kfree(container_of(tw, struct stp_uproc_work, tw));
}

static void stp_uproc_queue(struct task_struct *t, u64 mask, bool thread, bool wake)
{
	struct stp_uproc_work *w = kmalloc(sizeof(*w), GFP_ATOMIC);

	if (!w)
		return;
	w->mask = mask;
	w->thread = thread;
	if (stp_utwork_add(&stp_uproc_works, &w->tw, t, stp_uproc_work_fn,
			   stp_uproc_work_drop, wake))
		kfree(w);
}

static void stp_uproc_fork(void *data, struct task_struct *parent,
			   struct task_struct *child)
{
	bool thread = child->tgid != child->pid;
	u64 mask;

	if (!READ_ONCE(stp_uproc_on) || !child->mm || (child->flags & PF_KTHREAD))
		return;
	mask = stp_uproc_get(parent->tgid, false);
	if (!thread)
		stp_uproc_set(child->tgid, mask);
	stp_uproc_queue(child, mask, thread, false);
}

static void stp_uproc_exec(void *data, struct task_struct *p, pid_t old_pid,
			   struct linux_binprm *bprm)
{
	bool scope;
	u64 mask;

	if (!READ_ONCE(stp_uproc_on))
		return;
	scope = stp_uproc_scope_current();
	/* the old image ends, the new one begins */
	stp_uproc_run(STP_PROBE_PROC_END, scope, stp_uproc_get(current->tgid, true));
	mask = stp_uproc_match(bprm->file ? file_inode(bprm->file) : NULL);
	stp_uproc_set(current->tgid, mask);
	stp_uproc_run(STP_PROBE_PROC_BEGIN, scope, mask);
}

static void stp_uproc_exit(void *data, struct task_struct *p)
{
	bool last = atomic_read(&p->signal->live) == 0;

	/* the task's mm is already gone here */
	if (!READ_ONCE(stp_uproc_on) || (p->flags & PF_KTHREAD))
		return;
	if (!last) {
		stp_uproc_run(STP_PROBE_THREAD_END, stp_uproc_scope_current(),
			      stp_uproc_get(p->tgid, false));
		return;
	}
	stp_uproc_run(STP_PROBE_PROC_END, stp_uproc_scope_current(),
		      stp_uproc_get(p->tgid, true));
}

/* $arg1..$arg6 are args[0..5], $syscall args[6]. */
static void stp_uproc_sysenter(void *data, struct pt_regs *regs, long id)
{
	unsigned long args[7];

	if (!READ_ONCE(stp_uproc_on) || (current->flags & PF_KTHREAD))
		return;
	syscall_get_arguments(current, regs, args);
	args[6] = (unsigned long)id;
	stp_uproc_run_ctx(STP_PROBE_SYSCALL, stp_uproc_scope_current(),
			  stp_uproc_get(current->tgid, false), regs, args);
}

static void stp_uproc_sysexit(void *data, struct pt_regs *regs, long ret)
{
	unsigned long args[7];

	if (!READ_ONCE(stp_uproc_on) || (current->flags & PF_KTHREAD))
		return;
	syscall_get_arguments(current, regs, args);
	args[6] = (unsigned long)syscall_get_nr(current, regs);
	stp_uproc_run_ctx(STP_PROBE_SYSCALL_RETURN, stp_uproc_scope_current(),
			  stp_uproc_get(current->tgid, false), regs, args);
}

static void stp_uproc_lookup(struct tracepoint *tp, void *priv)
{
	if (!strcmp(tp->name, "sched_process_fork"))
		stp_uproc_tp_fork = tp;
	else if (!strcmp(tp->name, "sched_process_exec"))
		stp_uproc_tp_exec = tp;
	else if (!strcmp(tp->name, "sched_process_exit"))
		stp_uproc_tp_exit = tp;
	else if (!strcmp(tp->name, "sys_enter"))
		stp_uproc_tp_sysenter = tp;
	else if (!strcmp(tp->name, "sys_exit"))
		stp_uproc_tp_sysexit = tp;
}

/* The processes and threads there before the session (the -c target
 * among them): their begin probes, run in each of them as soon as it
 * runs (a sleeping one is woken, as 4.8 interrupts them), and the path
 * probes of the file each runs, for its end. Once the session runs. */
static void stp_uproc_existing(void)
{
	struct task_struct *g, *t;

	if (!READ_ONCE(stp_uproc_on))
		return;
	rcu_read_lock();
	for_each_process(g) {
		struct file *exe;
		bool scope;
		u64 mask;

		if (g->flags & PF_KTHREAD)
			continue;
		task_lock(g);
		exe = g->mm ? rcu_dereference(g->mm->exe_file) : NULL;
		mask = stp_uproc_match(exe ? file_inode(exe) : NULL);
		task_unlock(g);
		if (!exe)
			continue;	/* exiting */
		stp_uproc_set(g->tgid, mask);
		scope = stp_uproc_in_scope(g);
		for_each_thread(g, t) {
			bool thread = t->pid != t->tgid;

			if (!(t->flags & PF_EXITING) &&
			    stp_uproc_each(thread ? STP_PROBE_THREAD_BEGIN : STP_PROBE_PROC_BEGIN,
					   t, scope, mask, false, NULL, NULL))
				stp_uproc_queue(t, mask, thread, true);
		}
	}
	rcu_read_unlock();
}

/* Session start, after the begin probes. */
static void stp_uproc_register(void)
{
	unsigned int i, n = 0;

	for (i = 0; i < STP_NPROBES; i++) {
		const struct stp_probe *p = &stp_probes[i];
		struct path path;

		if (!stp_uproc_kind(p->kind))
			continue;
		n++;
		if (p->kind == STP_PROBE_SYSCALL || p->kind == STP_PROBE_SYSCALL_RETURN)
			stp_uproc_sys = true;
		if (!p->path || stp_nupaths == STP_UPROC_MAXPATHS)
			continue;
		if (kern_path(p->path, LOOKUP_FOLLOW, &path)) {
			if (!p->optional)
				stp_warn_msg("probe %s registration error (cannot find %s)",
					     p->pp, p->path);
			continue;
		}
		stp_upaths[stp_nupaths].probe = p;
		stp_upaths[stp_nupaths].sb = d_inode(path.dentry)->i_sb;
		stp_upaths[stp_nupaths++].ino = d_inode(path.dentry)->i_ino;
		path_put(&path);
	}
	if (!n || stp_uproc_on)
		return;
	stp_uproc_table = kvcalloc(STP_UPROC_SLOTS, sizeof(*stp_uproc_table), GFP_KERNEL);
	for_each_kernel_tracepoint(stp_uproc_lookup, NULL);
	if (!stp_uproc_table || !stp_uproc_tp_fork || !stp_uproc_tp_exec || !stp_uproc_tp_exit) {
		stp_error_msg("cannot register the process probes");
		return;
	}
	WRITE_ONCE(stp_uproc_on, true);
	if (tracepoint_probe_register(stp_uproc_tp_fork, (void *)stp_uproc_fork, NULL) ||
	    tracepoint_probe_register(stp_uproc_tp_exec, (void *)stp_uproc_exec, NULL) ||
	    tracepoint_probe_register(stp_uproc_tp_exit, (void *)stp_uproc_exit, NULL) ||
	    (stp_uproc_sys && (!stp_uproc_tp_sysenter || !stp_uproc_tp_sysexit ||
	     tracepoint_probe_register(stp_uproc_tp_sysenter, (void *)stp_uproc_sysenter, NULL) ||
	     tracepoint_probe_register(stp_uproc_tp_sysexit, (void *)stp_uproc_sysexit, NULL))))
		stp_error_msg("cannot register the process probes' tracepoints");
}

/* Session stop or unload: nothing of ours runs after this. */
static void stp_uproc_unregister(void)
{
	if (!READ_ONCE(stp_uproc_on))
		return;
	WRITE_ONCE(stp_uproc_on, false);
	tracepoint_probe_unregister(stp_uproc_tp_fork, (void *)stp_uproc_fork, NULL);
	tracepoint_probe_unregister(stp_uproc_tp_exec, (void *)stp_uproc_exec, NULL);
	tracepoint_probe_unregister(stp_uproc_tp_exit, (void *)stp_uproc_exit, NULL);
	if (stp_uproc_sys) {
		tracepoint_probe_unregister(stp_uproc_tp_sysenter, (void *)stp_uproc_sysenter, NULL);
		tracepoint_probe_unregister(stp_uproc_tp_sysexit, (void *)stp_uproc_sysexit, NULL);
	}
	tracepoint_synchronize_unregister();
	/* queued task_work runs our code: cancel what a task has not
	 * started (a stopped task may never), wait for what runs */
	stp_utwork_drain(&stp_uproc_works);
}

static void stp_uproc_free(void)
{
	kvfree(stp_uproc_table);
	stp_uproc_table = NULL;
	stp_nupaths = 0;
}

/* Registered before the uprobes; the processes already running get
 * their begin probes once the session runs. */
static const struct stp_family_ops stp_uproc_family = {
	.name = "uproc",
	.register_probes = stp_uproc_register,
	.start = stp_uproc_existing,
	.unregister_probes = stp_uproc_unregister,
	.free = stp_uproc_free,
};
