/* SPDX-License-Identifier: GPL-2.0 */
/*
 * compat.h - kernel APIs that differ across the kernel versions the
 * runtime builds for. Everything version-dependent lives here.
 */
#ifndef STP_COMPAT_H
#define STP_COMPAT_H

#include <linux/version.h>
#include <linux/timer.h>
#include <linux/hrtimer.h>

/* timer_delete_sync() appeared in 6.2 (backported to some 6.1 stables) */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 2, 0)
#define stp_timer_delete_sync(t) timer_delete_sync(t)
#else
#define stp_timer_delete_sync(t) del_timer_sync(t)
#endif

/* hrtimer_setup() replaced hrtimer_init() + ->function in 6.13 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 13, 0)
#define stp_hrtimer_setup(t, fn) \
	hrtimer_setup((t), (fn), CLOCK_MONOTONIC, HRTIMER_MODE_REL)
#else
#define stp_hrtimer_setup(t, fn)				\
	do {							\
		hrtimer_init((t), CLOCK_MONOTONIC, HRTIMER_MODE_REL); \
		(t)->function = (fn);				\
	} while (0)
#endif

/* from_timer() was renamed timer_container_of() in 6.16 */
#ifndef from_timer
#define from_timer(var, t, field) timer_container_of(var, t, field)
#endif

/* struct rchan_callbacks became const in relay_open() in 5.11 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(5, 11, 0)
#define STP_RELAY_CB_CONST const
#else
#define STP_RELAY_CB_CONST
#endif

/* copy_from_kernel_nofault() was probe_kernel_read() before 5.8 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(5, 8, 0)
#define stp_copy_from_kernel_nofault(dst, src, n) \
	copy_from_kernel_nofault((dst), (src), (n))
#define stp_copy_from_user_nofault(dst, src, n) \
	copy_from_user_nofault((dst), (src), (n))
#define stp_copy_to_user_nofault(dst, src, n) \
	copy_to_user_nofault((dst), (src), (n))
#else
#define stp_copy_from_kernel_nofault(dst, src, n) \
	probe_kernel_read((dst), (src), (n))
#define stp_copy_from_user_nofault(dst, src, n) \
	probe_user_read((dst), (src), (n))
#define stp_copy_to_user_nofault(dst, src, n) \
	probe_user_write((dst), (src), (n))
#endif

/* netfilter hooks: nf_register_net_hook() per namespace since 4.3, hook
 * functions (priv, skb, state) with state->okfn since 4.4; older kernels
 * or one without CONFIG_NETFILTER: the probes fail to register. */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(4, 4, 0) && IS_ENABLED(CONFIG_NETFILTER)
#define STP_HAVE_NF_NET_HOOK 1
#endif

#endif /* STP_COMPAT_H */
