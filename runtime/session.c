/* SPDX-License-Identifier: GPL-2.0 */
/*
 * session.c - the session state machine and the begin, end and timer
 * probes.
 *
 * INIT --START--> STARTING (begin probes) --> RUNNING (timers armed)
 *      --exit()/errors--> exit requested: only end probes may still run
 *      --EXIT or .cmd closed--> STOPPING (end probes) --> STOPPED.
 * More than MAXERRORS errors (or MAXSKIPPED skips) also request the exit,
 * but then the error probes run instead of the end probes.
 * exit() only sets a flag; a 20 ms control timer notices it and queues
 * STP_MSG_REQUEST_EXIT, and wakes stapio for queued messages.
 */
#include <linux/hrtimer.h>
#include <linux/sort.h>

enum stp_state {
	STP_STATE_INIT,
	STP_STATE_STARTING,
	STP_STATE_RUNNING,
	STP_STATE_STOPPING,
	STP_STATE_STOPPED,
};

struct stp_timer {
	struct hrtimer hr;
	const struct stp_probe *probe;
	ktime_t period;
	u64 randomize;		/* ns: each period is period +- up to this */
};

/* The next period of t: .randomize(M) adds a uniform -M..+M to each. */
static ktime_t stp_timer_next(const struct stp_timer *t)
{
	u64 r;

	if (!t->randomize)
		return t->period;
	r = ((u64)get_random_u32() * (2 * t->randomize + 1)) >> 32;
	return ktime_add_ns(t->period, r) - t->randomize;
}

static atomic_t stp_state = ATOMIC_INIT(STP_STATE_INIT);
static atomic_t stp_exit_flag = ATOMIC_INIT(0);	/* exit() was called */
static atomic_t stp_error_flag = ATOMIC_INIT(0);	/* too many errors */
static bool stp_exit_sent;			/* REQUEST_EXIT queued */
static struct timer_list stp_ctl_timer;
static struct stp_timer *stp_timers;
static unsigned int stp_ntimers;

/* target(): stap -x PID, or the pid of -c CMD's command; staprun sets it */
long stp_target_pid;
module_param_named(_stp_target, stp_target_pid, long, 0400);

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

static void stp_ctl_timer_fn(struct timer_list *t)
{
	if (atomic_read(&stp_exit_flag) && !stp_exit_sent &&
	    atomic_read(&stp_state) == STP_STATE_RUNNING) {
		if (!stp_ctl_queue(STP_MSG_REQUEST_EXIT, NULL, 0))
			stp_exit_sent = true;
	}
	stp_system_warn();
	stp_ctl_wakeup();
	mod_timer(&stp_ctl_timer, jiffies + msecs_to_jiffies(STP_CTL_TIMER_MS));
}

static enum hrtimer_restart stp_hrtimer_fn(struct hrtimer *hr)
{
	struct stp_timer *t = container_of(hr, struct stp_timer, hr);

	if (!stp_may_run(STP_PROBE_TIMER))
		return HRTIMER_NORESTART;
	stp_run_probe(t->probe);
	hrtimer_forward_now(hr, stp_timer_next(t));
	return HRTIMER_RESTART;
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

/* Kernel probes (kprobes.c, tracepoints.c): registered after the begin
 * probes, unregistered before the end probes, as SystemTap 4.8 orders
 * its probe groups. Process context. */
static void stp_kernel_probes_register(void)
{
	stp_ksyms_resolve();
	stp_kprobes_register();
	stp_uproc_register();	/* begin of running processes before their uprobes */
	stp_uprobes_register();
	stp_tracepoints_register();
	stp_netfilter_register();
	stp_perf_register();
	stp_hwbkpt_register();
}

static void stp_kernel_probes_unregister(void)
{
	stp_procfs_unregister();
	stp_hwbkpt_unregister();
	stp_perf_unregister();
	stp_netfilter_unregister();
	stp_tracepoints_unregister();
	stp_uproc_unregister();
	stp_uprobes_unregister();
	stp_kprobes_unregister();
}

static int stp_timers_init(void)
{
	unsigned int i, n = 0;

	for (i = 0; i < STP_NPROBES; i++)
		n += stp_probes[i].kind == STP_PROBE_TIMER;
	stp_timers = kcalloc(max(n, 1U), sizeof(*stp_timers), GFP_KERNEL);
	if (!stp_timers)
		return -ENOMEM;
	for (i = 0; i < STP_NPROBES; i++) {
		struct stp_timer *t = &stp_timers[stp_ntimers];

		if (stp_probes[i].kind != STP_PROBE_TIMER)
			continue;
		t->probe = &stp_probes[i];
		if (stp_probes[i].jiffies) {	/* timer.jiffies(N): the kernel's HZ */
			t->period = ns_to_ktime(jiffies_to_nsecs(stp_probes[i].jiffies));
			t->randomize = jiffies_to_nsecs(stp_probes[i].randomize);
		} else {
			t->period = ns_to_ktime(max_t(u64, stp_probes[i].period_ns,
						      STP_MIN_TIMER_NS));
			t->randomize = stp_probes[i].randomize;
		}
		/* the period never goes below the minimum */
		if (t->randomize && ktime_to_ns(t->period) - (s64)t->randomize < STP_MIN_TIMER_NS)
			t->randomize = ktime_to_ns(t->period) > STP_MIN_TIMER_NS ?
				       ktime_to_ns(t->period) - STP_MIN_TIMER_NS : 0;
		stp_hrtimer_setup(&t->hr, stp_hrtimer_fn);
		stp_ntimers++;
	}
	return 0;
}

static void stp_timers_start(void)
{
	unsigned int i;

	for (i = 0; i < stp_ntimers; i++)
		hrtimer_start(&stp_timers[i].hr, stp_timer_next(&stp_timers[i]),
			      HRTIMER_MODE_REL);
}

static void stp_timers_cancel(void)
{
	unsigned int i;

	for (i = 0; i < stp_ntimers; i++)
		hrtimer_cancel(&stp_timers[i].hr);
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
	stp_kernel_probes_register();
	atomic_set(&stp_state, STP_STATE_RUNNING);
	stp_uproc_existing();	/* their begin probes may run from now on */
	/* once running: a file that exists can always be read */
	stp_procfs_register();
	stp_timers_start();
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
 * stapio's EXIT (reply true) or .cmd closed (reply false): stop timers,
 * wait for running handlers, run end probes. Process context.
 */
static void stp_session_stop_cmd(bool reply)
{
	int state = atomic_read(&stp_state);

	if (state == STP_STATE_STARTING || state == STP_STATE_RUNNING) {
		atomic_set(&stp_state, STP_STATE_STOPPING);
		stp_timers_cancel();
		stp_kernel_probes_unregister();
		synchronize_rcu();	/* handlers run with preemption off */
		stp_run_kind(STP_PROBE_END);	/* one of these two kinds */
		stp_run_kind(STP_PROBE_ERROR);
		stp_final_warnings();
		atomic_set(&stp_state, STP_STATE_STOPPED);
	}
	if (reply)
		stp_ctl_send(STP_MSG_EXIT, NULL, 0);
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
	stp_timers_cancel();
	stp_kernel_probes_unregister();
	stp_kprobes_free();
	stp_uprobes_free();
	stp_uproc_free();
	stp_tracepoints_free();
	stp_netfilter_free();
	stp_perf_free();
	stp_procfs_free();
	stp_hwbkpt_free();
	if (stp_ctl_timer.function)
		stp_timer_delete_sync(&stp_ctl_timer);
	synchronize_rcu();
	kfree(stp_timers);
	stp_timers = NULL;
}
