/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lock.c - the per-global locks. A handler takes every lock it needs at
 * entry with trylock; when one cannot be had within MAXTRYLOCK tries
 * (TRYLOCKDELAY us apart) the handler releases what it holds, counts a
 * skipped probe and returns.
 */
#include <linux/delay.h>

void stp_lock_init(struct stp_lock *l)
{
	rwlock_init(&l->rw);
}

static __always_inline bool stp_lock_read(struct stp_lock *l)
{
	int tries;

	for (tries = 0; !read_trylock(&l->rw); tries++) {
		if (tries >= MAXTRYLOCK)
			return false;
		udelay(TRYLOCKDELAY);
	}
	return true;
}

static __always_inline bool stp_lock_write(struct stp_lock *l)
{
	int tries;

	for (tries = 0; !write_trylock(&l->rw); tries++) {
		if (tries >= MAXTRYLOCK)
			return false;
		udelay(TRYLOCKDELAY);
	}
	return true;
}

static __always_inline void stp_unlock_read(struct stp_lock *l)
{
	read_unlock(&l->rw);
}

static __always_inline void stp_unlock_write(struct stp_lock *l)
{
	write_unlock(&l->rw);
}

/* Counted in "skipped probes"; more than MAXSKIPPED ends the session
 * (checked when the handler returns, in stp_run_probe()). */
void stp_probe_skipped(void)
{
	atomic_inc(&stp_skipped_count);
}
