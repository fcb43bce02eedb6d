/*
 * utwork.c - task_work items that module unload never waits on forever.
 *
 * uexec.c and uprocess.c queue task_work (our code, run when a task next
 * returns to user space). A task that stays stopped (SIGSTOP, ptrace)
 * does not return, so waiting for its item at unload would hang. Each
 * item is therefore on a list with a reference to its task; at unload
 * the items still queued are taken back with task_work_cancel_match()
 * (6.1 does not export it: its address comes from a kprobe's symbol
 * lookup) and freed, and only the items already running are waited for.
 */
#ifndef STP_UTWORK_C
#define STP_UTWORK_C

#include <linux/kprobes.h>
#include <linux/sched/task.h>
#include <linux/task_work.h>

struct stp_utwork;
typedef void (*stp_utwork_fn)(struct stp_utwork *w);

struct stp_utwork_set {
	spinlock_t lock;
	struct list_head items;		/* queued, not yet started */
	atomic_t pending;		/* queued or running */
	wait_queue_head_t wq;
};

struct stp_utwork {
	struct callback_head cb;
	struct list_head node;
	struct stp_utwork_set *set;
	struct task_struct *task;
	stp_utwork_fn run;		/* the work; frees the item */
	stp_utwork_fn drop;		/* cancelled: frees the item */
};

#define STP_UTWORK_SET_INIT(name) {					\
	.lock = __SPIN_LOCK_UNLOCKED(name.lock),			\
	.items = LIST_HEAD_INIT(name.items),				\
	.pending = ATOMIC_INIT(0),					\
	.wq = __WAIT_QUEUE_HEAD_INITIALIZER(name.wq),			\
}

typedef struct callback_head *(*stp_twcancel_t)(struct task_struct *,
		bool (*)(struct callback_head *, void *), void *);

static void stp_utwork_fn_cb(struct callback_head *cb)
{
	struct stp_utwork *w = container_of(cb, struct stp_utwork, cb);
	struct stp_utwork_set *set = w->set;
	unsigned long flags;

	spin_lock_irqsave(&set->lock, flags);
	list_del_init(&w->node);
	spin_unlock_irqrestore(&set->lock, flags);
	put_task_struct(w->task);
	w->run(w);
	if (atomic_dec_and_test(&set->pending))
		wake_up(&set->wq);
}

/* Queue w on t (TWA_RESUME; with wake, TWA_SIGNAL: a sleeping task
 * runs it now, its system call restarted); 0 or task_work_add()'s error
 * (w untouched). */
static int stp_utwork_add(struct stp_utwork_set *set, struct stp_utwork *w,
			  struct task_struct *t, stp_utwork_fn run,
			  stp_utwork_fn drop, bool wake)
{
	unsigned long flags;
	int rc;

	w->set = set;
	w->task = t;
	w->run = run;
	w->drop = drop;
	get_task_struct(t);
	init_task_work(&w->cb, stp_utwork_fn_cb);
	atomic_inc(&set->pending);
	spin_lock_irqsave(&set->lock, flags);
	list_add(&w->node, &set->items);
	spin_unlock_irqrestore(&set->lock, flags);
	rc = task_work_add(t, &w->cb, wake ? TWA_SIGNAL : TWA_RESUME);
	if (rc) {
		spin_lock_irqsave(&set->lock, flags);
		list_del(&w->node);
		spin_unlock_irqrestore(&set->lock, flags);
		put_task_struct(t);
		atomic_dec(&set->pending);
	}
	return rc;
}

static bool stp_utwork_match(struct callback_head *cb, void *data)
{
	return cb == data;
}

static stp_twcancel_t stp_utwork_canceller(void)
{
	struct kprobe kp = { .symbol_name = "task_work_cancel_match" };
	stp_twcancel_t fn;

	if (register_kprobe(&kp))
		return NULL;
	fn = (stp_twcancel_t)kp.addr;
	unregister_kprobe(&kp);
	return fn;
}

/* Unload: no new items may be queued any more. Cancel what is still
 * queued, wait for what runs. */
static void stp_utwork_drain(struct stp_utwork_set *set)
{
	stp_twcancel_t cancel = NULL;
	struct stp_utwork *w, *tmp;
	unsigned long flags;
	LIST_HEAD(gone);

	if (atomic_read(&set->pending))
		cancel = stp_utwork_canceller();
	if (cancel) {
		spin_lock_irqsave(&set->lock, flags);
		list_for_each_entry_safe(w, tmp, &set->items, node)
			if (cancel(w->task, stp_utwork_match, &w->cb))
				list_move(&w->node, &gone);
		spin_unlock_irqrestore(&set->lock, flags);
	}
	list_for_each_entry_safe(w, tmp, &gone, node) {
		list_del(&w->node);
		put_task_struct(w->task);
		w->drop(w);
		atomic_dec(&set->pending);
	}
	wait_event(set->wq, atomic_read(&set->pending) == 0);
}

#endif /* STP_UTWORK_C */
