/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stp_defines.h - limits of the runtime. Each one can be overridden with
 * -DNAME=VALUE (the translator passes them as kbuild ccflags).
 */
#ifndef STP_DEFINES_H
#define STP_DEFINES_H

#ifndef MAXSTRINGLEN
#define MAXSTRINGLEN 512
#endif
#ifndef MAXACTION
#define MAXACTION 1000
#endif
#ifdef STP_SUPPRESS_TIME_LIMITS	/* stap -g --suppress-time-limits */
#undef MAXACTION_INTERRUPTIBLE
#define MAXACTION_INTERRUPTIBLE (1LL << 62)
#endif
#ifndef MAXACTION_INTERRUPTIBLE
#define MAXACTION_INTERRUPTIBLE (MAXACTION * 10)
#endif
#ifndef MAXERRORS
#define MAXERRORS 0
#endif
#ifndef MAXSKIPPED
#define MAXSKIPPED 100
#endif
#ifndef MAXMAPENTRIES		/* rows of an array without a size */
#define MAXMAPENTRIES 2048
#endif
#ifndef MAXTRYLOCK		/* tries on a global's lock, then skip */
#define MAXTRYLOCK 100
#endif
#ifndef TRYLOCKDELAY		/* microseconds between tries */
#define TRYLOCKDELAY 10
#endif
#ifndef STP_BUFFER_SIZE		/* per-CPU print buffer, bytes */
#define STP_BUFFER_SIZE 8192
#endif
#ifndef MAXBACKTRACE		/* addresses of a backtrace */
#define MAXBACKTRACE 20
#endif
#define STP_MAXBACKTRACE MAXBACKTRACE
#ifndef STP_MAXNESTING
#define STP_MAXNESTING 1
#endif
#ifndef STP_DEFAULT_BUFSIZE	/* relay bytes per CPU when _stp_bufsize is 0 */
#define STP_DEFAULT_BUFSIZE (256 * 1024)
#endif
#ifndef STP_RELAY_NSUBBUFS	/* relay sub-buffers per CPU */
#define STP_RELAY_NSUBBUFS 4
#endif
#ifndef STP_CTL_TIMER_MS	/* exit-flag / wakeup poll interval */
#define STP_CTL_TIMER_MS 20
#endif
#ifndef STP_CTL_QUEUE_SIZE	/* bytes of queued control messages */
#define STP_CTL_QUEUE_SIZE 16384
#endif
#ifndef STP_MIN_TIMER_NS	/* shortest timer probe period */
#define STP_MIN_TIMER_NS 100000
#endif

#endif /* STP_DEFINES_H */
