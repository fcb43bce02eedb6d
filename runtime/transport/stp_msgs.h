/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stp_msgs.h - the wire protocol between a generated module and stapio.
 *
 * Shared by the kernel runtime and the user-space tools, so it uses only
 * fixed-width types. Control messages travel over the debugfs file
 * /sys/kernel/debug/stap/<module>/.cmd: each write() from stapio is one
 * message, each read() returns exactly one message from the module.
 * A message is a struct stp_msg_hdr followed by len payload bytes.
 * Script output travels over per-CPU relay files trace0..N-1 as records
 * of struct stp_trace_hdr followed by len bytes. A record whose magic is
 * STP_TRACE_SWITCH carries no data: it marks the place in the output where
 * switch_file() was called (stapio -o opens the next output file there).
 */
#ifndef STP_MSGS_H
#define STP_MSGS_H

#include <linux/types.h>	/* __u32 etc., kernel and UAPI alike */

#define STP_DEBUGFS_DIR "stap"		/* under the debugfs mount */
#define STP_CTL_FILE ".cmd"
#define STP_TRACE_PREFIX "trace"
#define STP_TRACE_MAGIC 0x70617473u	/* "stap" little-endian */
#define STP_TRACE_SWITCH 0x77737473u	/* "stsw": switch_file() here, len 0 */
#define STP_MSG_MAX 2048		/* largest control message, header included */

enum stp_msg_type {
	STP_MSG_START = 0x50,	/* io->mod: run begin probes, arm the rest;
				 * mod->io: payload __s32 result (0 or -errno) */
	STP_MSG_EXIT,		/* io->mod: stop, run end probes;
				 * mod->io: done, all output is in the relay files */
	STP_MSG_REQUEST_EXIT,	/* mod->io: the script called exit() or hit
				 * too many errors; stapio answers STP_MSG_EXIT */
	STP_MSG_OOB,		/* mod->io: text for stderr ("ERROR: ...\n",
				 * "WARNING: ...\n"), not NUL-terminated */
	STP_MSG_TRANSPORT,	/* mod->io: first message after each open of
				 * .cmd; payload __u32 ncpus (relay files
				 * trace0..ncpus-1 exist for the online CPUs;
				 * offline CPUs have none), __u32 flags
				 * (STP_TRANSPORT_*: what an earlier stapio
				 * left, for staprun -A) */
	STP_MSG_SYSTEM,		/* mod->io: system(cmd): stapio runs the
				 * NUL-terminated command with /bin/sh -c */
	STP_MSG_QUIESCE,	/* io->mod, before EXIT: stop the probes and
				 * timers, run no end probe yet; when the
				 * write() returns nothing writes to the relay
				 * files until EXIT (stapio empties them, so
				 * that the end probes' output has room) */
};

/* STP_MSG_TRANSPORT's flags */
#define STP_TRANSPORT_STARTED 1u	/* START done: do not send it again */
#define STP_TRANSPORT_EXITING 2u	/* exit() called, too many errors, or
					 * QUIESCE/EXIT begun: end the session */
#define STP_TRANSPORT_BULK 4u		/* stap -b: stapio writes each CPU's
					 * records as they are to a file of
					 * its own (stap-merge orders them) */

/* Every module of ours carries STP_MODINFO_KEY=STP_MODINFO_VALUE in its
 * .modinfo: staprun loads nothing else */
#define STP_MODINFO_KEY "stap_transport"
#define STP_MODINFO_VALUE "stap/1"

/* procfs probes' files: /proc/systemtap/<module>/PATH; stapio -i writes
 * its stdin, a byte per write(), to STP_PROCFS_STDIN there */
#define STP_PROCFS_DIR "/proc/systemtap"
#define STP_PROCFS_STDIN "__stdin"

struct stp_msg_hdr {
	__u32 type;
	__u32 len;		/* payload bytes after this header */
};

struct stp_trace_hdr {
	__u32 magic;		/* STP_TRACE_MAGIC */
	__u32 seq;		/* global order of records across CPUs */
	__u32 len;		/* data bytes after this header */
};

#endif /* STP_MSGS_H */
