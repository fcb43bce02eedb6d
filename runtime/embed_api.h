/* SPDX-License-Identifier: GPL-2.0 */
/*
 * embed_api.h - SystemTap 4.8's documented API for embedded C in guru
 * mode scripts, and the kernel headers a 4.8 module includes, so that
 * %{ %} code written for 4.8 builds unchanged. Included at the end of
 * stp_runtime.h when the module is built with -g (STP_EMBED_API, which
 * build/kbuild.c defines); the translator itself defines CONTEXT,
 * STAP_ARG_*, STAP_RETVALUE, STAP_RETURN and STAP_ERROR around each
 * embedded function.
 *
 * kread(p)/kwrite(p, v), deref(size, addr)/store_deref(size, addr, v):
 * fault-tolerant reads and writes of kernel memory; a fault sets the
 * script error and jumps to the function's CATCH_DEREF_FAULT() label.
 */
#ifndef STP_EMBED_API_H
#define STP_EMBED_API_H

#include <linux/version.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/sched/mm.h>
#include <linux/cred.h>
#include <linux/key.h>
#include <linux/fs.h>
#include <linux/file.h>
#include <linux/fdtable.h>
#include <linux/mm.h>
#include <linux/list.h>
#include <linux/uaccess.h>

/* the language version: `#if STAP_COMPAT_VERSION >= STAP_VERSION(1,8)` */
#define STAP_VERSION(a, b) (((a) << 8) + (b))
#ifndef STAP_COMPAT_VERSION
#define STAP_COMPAT_VERSION STAP_VERSION(4, 8)
#endif

#define STP_EMBED_FAULT(what, addr)						\
	({									\
		snprintf(c->error_buffer, sizeof(c->error_buffer),		\
			 "kernel %s fault at 0x%lx", (what), (unsigned long)(addr)); \
		c->last_error = c->error_buffer;				\
		goto deref_fault;						\
	})

/* the label kread() and the others go to on a fault */
#define CATCH_DEREF_FAULT()	if (0) { deref_fault: ; }

#define kread(ptr)								\
	({									\
		typeof(*(ptr)) __stp_v;						\
		if (copy_from_kernel_nofault(&__stp_v, (ptr), sizeof(__stp_v))) \
			STP_EMBED_FAULT("read", (ptr));				\
		__stp_v;							\
	})

#define kwrite(ptr, value)							\
	({									\
		typeof(*(ptr)) __stp_v = (typeof(*(ptr)))(value);		\
		if (copy_to_kernel_nofault((ptr), &__stp_v, sizeof(__stp_v)))	\
			STP_EMBED_FAULT("write", (ptr));			\
	})

/* size bytes (1, 2, 4 or 8) at addr, zero-extended as 4.8's kderef */
#define deref(size, addr)							\
	({									\
		u64 __stp_v = 0;						\
		if ((size) > 8 || copy_from_kernel_nofault(&__stp_v,		\
			(const void *)(unsigned long)(addr), (size)))		\
			STP_EMBED_FAULT("read", (addr));			\
		(long)(__stp_v & (~0ULL >> (64 - 8 * (size))));		\
	})

#define store_deref(size, addr, value)						\
	({									\
		u64 __stp_v = (u64)(value);					\
		if ((size) > 8 || copy_to_kernel_nofault(			\
			(void *)(unsigned long)(addr), &__stp_v, (size)))		\
			STP_EMBED_FAULT("write", (addr));			\
	})

#define kderef(size, addr)		deref(size, addr)
#define store_kderef(size, addr, v)	store_deref(size, addr, v)

#endif /* STP_EMBED_API_H */
