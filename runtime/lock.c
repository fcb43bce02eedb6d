/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lock.c - the per-global locks: their initialisation and the count of
 * skipped probes (taking and releasing them: stp_runtime.h, inlined).
 */

void stp_lock_init(struct stp_lock *l)
{
	rwlock_init(&l->rw);
}

/* Counted in "skipped probes"; more than MAXSKIPPED ends the session
 * (checked when the handler returns, in stp_run_probe()). */
void stp_probe_skipped(void)
{
	atomic_inc(&stp_skipped_count);
}
