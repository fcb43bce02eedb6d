/* SPDX-License-Identifier: GPL-2.0 */
/*
 * session.c - the session state machine and the begin, end and error
 * probes; the probe families (timers.c and the others) through the list
 * of stp_runtime.c.
 *
 * INIT --START--> STARTING (begin probes) --> RUNNING (timers armed)
 *      --exit()/errors--> exit requested: only end probes may still run
 *      --QUIESCE--> STOPPING (probes off; stapio empties the relay files)
 *      --EXIT or .cmd closed--> end probes --> STOPPED.
 * More than MAXERRORS errors (or MAXSKIPPED skips) also request the exit,
 * but then the error probes run instead of the end probes.
 * exit() only sets a flag; a 20 ms control timer notices it and queues
 * STP_MSG_REQUEST_EXIT, and wakes stapio for queued messages.
 * Closing .cmd detaches (staprun -L, SIGQUIT, a dead stapio): the state
 * stays, the relay goes into overwrite mode; the next open (staprun -A)
 * is told the state in STP_MSG_TRANSPORT and finishes what is pending.
 */
#include <linux/sort.h>

enum stp_state {
	STP_STATE_INIT,
	STP_STATE_STARTING,
	STP_STATE_RUNNING,
	STP_STATE_STOPPING,
	STP_STATE_STOPPED,
};

static atomic_t stp_state = ATOMIC_INIT(STP_STATE_INIT);
static atomic_t stp_exit_flag = ATOMIC_INIT(0);	/* exit() was called */
static atomic_t stp_error_flag = ATOMIC_INIT(0);	/* too many errors */
static bool stp_exit_sent;			/* REQUEST_EXIT queued */
static atomic_t stp_detached_dropped = ATOMIC_INIT(0);	/* see stp_detached_warn */
static struct timer_list stp_ctl_timer;

/* target(): stap -x PID, or the pid of -c CMD's command; staprun sets it */
long stp_target_pid;
module_param_named(_stp_target, stp_target_pid, long, 0400);

/* staprun -N PID: the target namespaces' process; staprun -r N:URI: what
 * remote_id() and remote_uri() return (-1 and "" without -r) */
long stp_namespaces_pid;
module_param_named(_stp_namespaces_pid, stp_namespaces_pid, long, 0400);
long stp_remote_id = -1;
module_param_named(_stp_remote_id, stp_remote_id, long, 0400);
char stp_remote_uri[MAXSTRINGLEN];
module_param_string(_stp_remote_uri, stp_remote_uri, MAXSTRINGLEN, 0400);

/* stp_pid(): the process id of the stapio that opened the control file */
long stp_stapio_pid;

/* tz_gmtoff(), tz_name(): the local time zone where staprun ran */
long stp_tz_gmtoff;
module_param_named(_stp_tz_gmtoff, stp_tz_gmtoff, long, 0400);
char stp_tz_name[MAXSTRINGLEN];
module_param_string(_stp_tz_name, stp_tz_name, MAXSTRINGLEN, 0400);

/* stap -G NAME=VALUE for a long global: a module parameter of 64 bits */
static int stp_param_set_int64(const char *val, const struct kernel_param *kp)
{
	return kstrtos64(val, 0, (s64 *)kp->arg);
}

static int stp_param_get_int64(char *buf, const struct kernel_param *kp)
{
	return scnprintf(buf, PAGE_SIZE, "%lld\n", *(s64 *)kp->arg);
}

const struct kernel_param_ops stp_param_ops_int64 = {
	.set = stp_param_set_int64,
	.get = stp_param_get_int64,
};

void stp_exit(void)
{
	atomic_set(&stp_exit_flag, 1);
}

/* Too many errors or skips: stop like exit(), but the error probes run
 * instead of the end probes (as in SystemTap 4.8). */
static void stp_request_exit(void)
{
	atomic_set(&stp_error_flag, 1);
	stp_exit();
}

/* May probes of this kind run now? */
static bool stp_may_run(enum stp_probe_kind kind)
{
	int state = atomic_read(&stp_state);

	if (kind == STP_PROBE_END)
		return state == STP_STATE_STOPPING &&
		       !atomic_read(&stp_error_flag);
	if (kind == STP_PROBE_ERROR)
		return state == STP_STATE_STOPPING &&
		       atomic_read(&stp_error_flag);
	if (atomic_read(&stp_exit_flag))
		return false;
	if (kind == STP_PROBE_BEGIN)
		return state == STP_STATE_STARTING;
	return state == STP_STATE_RUNNING;
}

/* Messages the control queue dropped while no stapio was attached: a
 * warning for the stapio that attached, queued once there is room. */
static void stp_detached_warn(void)
{
	int dropped = atomic_read(&stp_detached_dropped);
	char msg[128];
	int n;

	if (!dropped)
		return;
	n = scnprintf(msg, sizeof(msg), "WARNING: %d warning and error messages were dropped while no stapio was attached\n",
		      dropped);
	if (!stp_ctl_queue(STP_MSG_OOB, msg, n))
		atomic_sub(dropped, &stp_detached_dropped);
}

static void stp_ctl_timer_fn(struct timer_list *t)
{
	if (atomic_read(&stp_exit_flag) && !stp_exit_sent &&
	    atomic_read(&stp_state) == STP_STATE_RUNNING) {
		if (!stp_ctl_queue(STP_MSG_REQUEST_EXIT, NULL, 0))
			stp_exit_sent = true;
	}
	stp_system_warn();
	if (atomic_read(&stp_ctl_opened))
		stp_detached_warn();
	stp_ctl_wakeup();
	mod_timer(&stp_ctl_timer, jiffies + msecs_to_jiffies(STP_CTL_TIMER_MS));
}

/* Index order of the begin or end probes: by .order, then table order. */
static int stp_cmp_order(const void *a, const void *b)
{
	const struct stp_probe *pa = &stp_probes[*(const int *)a];
	const struct stp_probe *pb = &stp_probes[*(const int *)b];

	if (pa->order != pb->order)
		return pa->order < pb->order ? -1 : 1;
	return *(const int *)a - *(const int *)b;
}

static void stp_run_kind(enum stp_probe_kind kind)
{
	int *idx;
	int i, n = 0;

	/* thousands of kernel probes: not on the stack */
	idx = kmalloc_array(STP_NPROBES, sizeof(*idx), GFP_KERNEL);
	if (!idx)
		return;
	for (i = 0; i < STP_NPROBES; i++)
		if (stp_probes[i].kind == kind)
			idx[n++] = i;
	sort(idx, n, sizeof(idx[0]), stp_cmp_order, NULL);
	for (i = 0; i < n && stp_may_run(kind); i++)
		stp_run_probe(&stp_probes[idx[i]]);
	kfree(idx);
}

/* stapio's START: run begin probes, arm timers, reply with the result. */
static void stp_session_start_cmd(void)
{
	__s32 res = 0;

	if (atomic_cmpxchg(&stp_state, STP_STATE_INIT, STP_STATE_STARTING) !=
	    STP_STATE_INIT) {
		res = -EALREADY;
		goto reply;
	}
	stp_run_kind(STP_PROBE_BEGIN);
	stp_families_register();
	atomic_set(&stp_state, STP_STATE_RUNNING);
	stp_families_start();	/* process begin probes, procfs files, timers */
reply:
	stp_ctl_send(STP_MSG_START, &res, sizeof(res));
}

static void stp_final_warnings(void)
{
	int errors = atomic_read(&stp_error_count);
	int skipped = atomic_read(&stp_skipped_count);
	int reentrant = atomic_read(&stp_reentrant_count);
	int dropped = atomic_read(&stp_relay_dropped);

	stp_system_warn();
	stp_detached_warn();
	if (errors || skipped || reentrant)
		stp_warn_msg("Number of errors: %d, skipped probes: %d\n",
			     errors, skipped);
	if (reentrant)
		stp_warn_msg("Skipped due to reentrancy: %d\n", reentrant);
	if (dropped)
		stp_warn_msg("There were %d transport failures. Try stap -s to increase the buffer size from %u KiB.\n",
			     dropped, (unsigned int)(STP_RELAY_NSUBBUFS *
				      stp_relay_subbuf_size() / 1024));
}

/*
 * stapio's QUIESCE: stop timers and probes and wait for running handlers,
 * but run no end probe yet: stapio then empties the relay files (nothing
 * writes to them any more), so that the end probes' output finds room
 * however fast the probes were printing. Process context.
 */
static void stp_session_quiesce_cmd(void)
{
	int state = atomic_read(&stp_state);

	if (state == STP_STATE_STARTING || state == STP_STATE_RUNNING) {
		atomic_set(&stp_state, STP_STATE_STOPPING);
		stp_families_unregister();	/* the timers first */
		synchronize_rcu();	/* handlers run with preemption off */
	}
}

/*
 * stapio's EXIT (reply true) or .cmd closed (reply false): quiesce if
 * QUIESCE did not, run the end probes. Process context.
 */
static void stp_session_stop_cmd(bool reply)
{
	stp_session_quiesce_cmd();
	if (atomic_read(&stp_state) == STP_STATE_STOPPING) {
		stp_run_kind(STP_PROBE_END);	/* one of these two kinds */
		stp_run_kind(STP_PROBE_ERROR);
		stp_timing_report();	/* stap -t */
		stp_final_warnings();
		atomic_set(&stp_state, STP_STATE_STOPPED);
	}
	if (reply)
		stp_ctl_send(STP_MSG_EXIT, NULL, 0);
}

/* .cmd opened (under stp_ctl_mutex): a reader again; tell it the state. */
static void stp_session_attach(void)
{
	__u32 t[2] = { nr_cpu_ids, 0 };
	int state = atomic_read(&stp_state);

	stp_relay_set_overwrite(false);
	if (state != STP_STATE_INIT)
		t[1] |= STP_TRANSPORT_STARTED;
	if (state >= STP_STATE_STOPPING || atomic_read(&stp_exit_flag))
		t[1] |= STP_TRANSPORT_EXITING;
#ifdef STP_BULKMODE
	t[1] |= STP_TRANSPORT_BULK;
#endif
	stp_ctl_send(STP_MSG_TRANSPORT, t, sizeof(t));
	/* the queue filled up with no reader: the timer says how much it
	 * could not hold, once the new reader has made room */
	atomic_add(stp_ctl_take_dropped(), &stp_detached_dropped);
}

/* .cmd closed without EXIT (under stp_ctl_mutex): the probes go on, the
 * newest output kept in the relay buffers. */
static void stp_session_detach(void)
{
	stp_relay_set_overwrite(true);
}

static void stp_session_init(void)
{
	timer_setup(&stp_ctl_timer, stp_ctl_timer_fn, 0);
	mod_timer(&stp_ctl_timer, jiffies + msecs_to_jiffies(STP_CTL_TIMER_MS));
}

/* Module unload: whatever the state, nothing may run or fire after this. */
static void stp_session_exit(void)
{
	stp_session_stop_cmd(false);
	stp_families_unregister();
	stp_families_free();
	if (stp_ctl_timer.function)
		stp_timer_delete_sync(&stp_ctl_timer);
	synchronize_rcu();
}
