/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stp_runtime.c - the runtime implementation, included at the end of a
 * generated <module>_src.c after its probe table. Pulls in the other
 * runtime files and defines module init and exit.
 */
#if defined(STP_RUNTIME_SPLIT) && !defined(STP_RUNTIME_OBJ)
/*
 * The script's file of a split module: the runtime is an object of its
 * own (stp_runtime.h); this hands it what it reads of the script.
 */
#ifndef STP_USTACK		/* ustack.c (the ustack tapset) not used */
static int stp_ustack_init(void) { return 0; }
static void stp_ustack_exit(void) { }
#endif
#ifdef STP_NO_GLOBALS
static int stp_globals_init(void) { return 0; }
static void stp_globals_exit(void) { }
#endif
#ifndef STP_LOCALS_SIZE
#define STP_LOCALS_SIZE 1
#endif
#ifdef STP_NKSYMS
static unsigned long stp_ksym_addrs[STP_NKSYMS];
#endif
#ifdef STP_KERNEL_BUILD_ID
static const unsigned char stp_build_id[] = { STP_KERNEL_BUILD_ID };
#endif

const struct stp_script stp_script = {
	.probes = stp_probes,
	.nprobes = STP_NPROBES,
	.locs = stp_locs,
	.locals_size = STP_LOCALS_SIZE,
	.globals_init = stp_globals_init,
	.globals_exit = stp_globals_exit,
	.ustack_init = stp_ustack_init,
	.ustack_exit = stp_ustack_exit,
#ifdef STP_TIMING
	.probe_locs = stp_probe_locs,
#endif
#ifdef STP_NKSYMS
	.ksym_names = stp_ksym_names,
	.ksym_addrs = stp_ksym_addrs,
	.nksyms = STP_NKSYMS,
#endif
#ifdef STP_KERNEL_BUILD_ID
	.build_id = stp_build_id,
	.build_id_len = sizeof(stp_build_id),
#endif
};
#else /* the runtime */
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/slab.h>

#ifdef STP_RUNTIME_OBJ
/* the runtime's object of a split module: the script's names, through
 * what its file hands over */
extern const struct stp_script stp_script;
#define STP_NPROBES (stp_script.nprobes)
#define stp_probes (stp_script.probes)
#define stp_locs (stp_script.locs)
#define STP_LOCALS_SIZE (stp_script.locals_size)
#define stp_probe_locs (stp_script.probe_locs)
#define stp_globals_init (stp_script.globals_init)
#define stp_globals_exit (stp_script.globals_exit)
#define stp_ustack_init (stp_script.ustack_init)
#define stp_ustack_exit (stp_script.ustack_exit)
#define STP_USTACK	/* the script's file has them */
const char stp_msg_maxaction[] = "MAXACTION exceeded";
const char stp_msg_no_overload[] = "all functions exhausted";
const char stp_msg_aborted[] = "aborted";
#endif

#ifndef STP_LOCALS_SIZE
#define STP_LOCALS_SIZE 1
#endif

#include "transport/control.c"
#include "transport/relay.c"
#include "print.c"
#include "timing.c"
#include "context.c"
#include "deref.c"
#include "sym.c"
#include "regex.c"
#ifndef STP_USTACK		/* ustack.c (the ustack tapset) not used */
static int stp_ustack_init(void) { return 0; }
static void stp_ustack_exit(void) { }
#endif
#include "lock.c"
#include "stat.c"
#include "map.c"

/*
 * A probe family's runtime file is compiled only when the module has a
 * probe of that family: the translator defines STP_HAVE_<FAMILY> for the
 * kinds its probe table uses (most of a module's build time is the C
 * compiler's). Each file defines its struct stp_family_ops (family.c).
 */
static bool stp_may_run(enum stp_probe_kind kind);	/* session.c */

#include "family.c"
#ifdef STP_HAVE_KPROBES
#include "kprobes.c"
#endif
#ifdef STP_HAVE_UPROBES
#include "uprobes.c"
#endif
#ifdef STP_HAVE_UPROC
#include "uprocess.c"
#endif
#ifdef STP_HAVE_TRACEPOINTS
#include "tracepoints.c"
#endif
#ifdef STP_HAVE_PERF
#include "perf.c"
#endif
#ifdef STP_HAVE_PROCFS
#include "procfs.c"
#endif
#ifdef STP_HAVE_NETFILTER
#include "netfilter.c"
#endif
#include "hwbkpt.c"	/* its kernel-symbol part in every module */
#ifdef STP_HAVE_TIMERS
#include "timers.c"
#endif

/*
 * The module's probe families, in the order SystemTap 4.8 registers its
 * probe groups: at session start each one's register_probes in this
 * order (uproc before uprobes: the processes' begin before their
 * uprobes), then, once the session runs, each one's start in this order
 * (the running processes' begin probes, the procfs files, the timers).
 * At stop, and at unload, each one's unregister_probes by increasing
 * `unreg`: the reverse order, except that uproc goes before the uprobes
 * there too. At load each one's init, at unload each one's free, in this
 * order.
 */
#define STP_FAMILIES_MAX 10	/* unreg < this */
static const struct stp_family {
	const struct stp_family_ops *ops;
	u8 unreg;
} stp_families[] = {
	{ &stp_ksyms_family, 9 },
#ifdef STP_HAVE_KPROBES
	{ &stp_kprobes_family, 8 },
#endif
#ifdef STP_HAVE_UPROC
	{ &stp_uproc_family, 6 },
#endif
#ifdef STP_HAVE_UPROBES
	{ &stp_uprobes_family, 7 },
#endif
#ifdef STP_HAVE_TRACEPOINTS
	{ &stp_tracepoints_family, 5 },
#endif
#ifdef STP_HAVE_NETFILTER
	{ &stp_netfilter_family, 4 },
#endif
#ifdef STP_HAVE_PERF
	{ &stp_perf_family, 3 },
#endif
#ifdef STP_HAVE_HWBKPT
	{ &stp_hwbkpt_family, 2 },
#endif
#ifdef STP_HAVE_PROCFS
	{ &stp_procfs_family, 1 },
#endif
#ifdef STP_HAVE_TIMERS
	{ &stp_timers_family, 0 },
#endif
};

/* Module load: the first error fails it (stp_families_free() then). */
static int stp_families_init(void)
{
	unsigned int i;
	int rc = 0;

	for (i = 0; i < ARRAY_SIZE(stp_families) && !rc; i++)
		if (stp_families[i].ops->init)
			rc = stp_families[i].ops->init();
	return rc;
}

/* Session start, after the begin probes; the session is not running. */
static void stp_families_register(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(stp_families); i++)
		if (stp_families[i].ops->register_probes)
			stp_families[i].ops->register_probes();
}

/* Then, once the session runs. */
static void stp_families_start(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(stp_families); i++)
		if (stp_families[i].ops->start)
			stp_families[i].ops->start();
}

/* Session stop, before the end probes, and unload: no handler of ours
 * runs after this (but the end and error probes the session runs). */
static void stp_families_unregister(void)
{
	unsigned int rank, i;

	for (rank = 0; rank < STP_FAMILIES_MAX; rank++)
		for (i = 0; i < ARRAY_SIZE(stp_families); i++)
			if (stp_families[i].unreg == rank &&
			    stp_families[i].ops->unregister_probes)
				stp_families[i].ops->unregister_probes();
}

/* Module unload, after stp_families_unregister(). */
static void stp_families_free(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(stp_families); i++)
		if (stp_families[i].ops->free)
			stp_families[i].ops->free();
}

#include "session.c"
#include "tapset_support.c"

/*
 * The generated file defines stp_globals_init() (make the maps, statistics
 * and locks of the script's globals; process context, may allocate) and
 * stp_globals_exit() (free them; must cope with a partial init). A module
 * without globals may define STP_NO_GLOBALS instead.
 */
#ifdef STP_NO_GLOBALS
static int stp_globals_init(void) { return 0; }
static void stp_globals_exit(void) { }
#endif

static struct dentry *stp_top_dir;	/* debugfs "stap", shared */
static bool stp_top_ref;		/* we hold a lookup reference */
static struct dentry *stp_mod_dir;	/* debugfs "stap/<module>" */

static int stp_debugfs_init(void)
{
	stp_top_dir = debugfs_lookup(STP_DEBUGFS_DIR, NULL);
	stp_top_ref = stp_top_dir != NULL;
	if (!stp_top_dir)
		stp_top_dir = debugfs_create_dir(STP_DEBUGFS_DIR, NULL);
	if (IS_ERR(stp_top_dir)) {
		int rc = PTR_ERR(stp_top_dir);

		stp_top_dir = NULL;
		return rc;
	}
	/* the loaded name: staprun -R renames a module before loading it */
	stp_mod_dir = debugfs_create_dir(THIS_MODULE->name, stp_top_dir);
	if (IS_ERR(stp_mod_dir)) {
		int rc = PTR_ERR(stp_mod_dir);

		stp_mod_dir = NULL;
		return rc;
	}
	return 0;
}

static void stp_debugfs_exit(void)
{
	debugfs_remove(stp_mod_dir);
	stp_mod_dir = NULL;
	if (!stp_top_dir)
		return;
	if (simple_empty(stp_top_dir))
		debugfs_remove(stp_top_dir);
	if (stp_top_ref)
		dput(stp_top_dir);
	stp_top_dir = NULL;
}

static void stp_cleanup(void)
{
	stp_session_exit();		/* no handler runs after this */
	stp_globals_exit();
	stp_relay_exit();		/* removes trace<cpu> */
	stp_debugfs_exit();		/* removes .cmd */
	stp_regex_exit();
	stp_ustack_exit();
	stp_context_exit();
	stp_timing_exit();
	stp_print_exit();
}

#if defined(STP_KERNEL_BUILD_ID) || defined(STP_RUNTIME_OBJ)
#include <linux/kprobes.h>

#ifdef STP_RUNTIME_OBJ
#define STP_BUILD_ID stp_script.build_id
#define STP_BUILD_ID_LEN stp_script.build_id_len
#else
static const unsigned char stp_build_id[] = { STP_KERNEL_BUILD_ID };
#define STP_BUILD_ID stp_build_id
#define STP_BUILD_ID_LEN sizeof(stp_build_id)
#endif

/* The probes were placed by the kernel's DWARF (its debug vmlinux): this
 * must be that kernel, else their addresses are wrong. Its build ID
 * (vmlinux_build_id, CONFIG_CRASH_CORE) against the translator's; when the
 * kernel does not keep it, nothing to compare. */
static int stp_kernel_build_id_check(void)
{
	struct kprobe kp = { .symbol_name = "vmlinux_build_id" };

	if (!STP_BUILD_ID_LEN)
		return 0;
	if (!register_kprobe(&kp))	/* a data symbol: only looked up */
		unregister_kprobe(&kp);
	if (!kp.addr || !memcmp(kp.addr, STP_BUILD_ID, STP_BUILD_ID_LEN))
		return 0;
	pr_err("stap: this module was built with the DWARF of another build of the kernel "
	       "(build ID mismatch)\n");
	return -ENOEXEC;
}
#else
static int stp_kernel_build_id_check(void)
{
	return 0;
}
#endif

static int __init stp_module_init(void)
{
	int rc;

	rc = stp_kernel_build_id_check();
	if (!rc)
		rc = stp_globals_init();
	if (!rc)
		rc = stp_debugfs_init();
	if (!rc)
		rc = stp_context_init();
	if (!rc)
		rc = stp_timing_init();
	if (!rc)
		rc = stp_regex_init();
	if (!rc)
		rc = stp_ustack_init();
	if (!rc)
		rc = stp_print_init();
	if (!rc)
		rc = stp_relay_init(stp_mod_dir);
	if (!rc)
		rc = stp_families_init();
	if (!rc)
		rc = stp_ctl_init(stp_mod_dir);
	if (rc) {
		stp_cleanup();
		return rc;
	}
	stp_session_init();	/* STP_MSG_TRANSPORT goes at each open of .cmd */
	return 0;
}

static void __exit stp_module_exit(void)
{
	stp_cleanup();
}

module_init(stp_module_init);
module_exit(stp_module_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("SystemTap-compatible generated probe module");
MODULE_INFO(stap_transport, STP_MODINFO_VALUE);	/* staprun checks it */
#ifdef STP_PRIVILEGE	/* stap --privilege: who may run it (staprun checks) */
MODULE_INFO(stap_privilege, STP_PRIVILEGE);
#endif
#endif /* the runtime */
