/*
 * elab.h - pass 2 (elab/): alias expansion, probe points resolved to
 * concrete probes (struct rprobe), name resolution, types, optimisation,
 * regex compilation, and the -l/-L listing. Built on the front end
 * (ast.h) and the kernel and DWARF readers (info/).
 */
#ifndef ELAB_H
#define ELAB_H

#include "ast.h"

/* ---- alias.c ------------------------------------------------------------ */
struct probe **alias_expand(struct session *s, struct probe *p,
			    struct probe **out);

/* ---- optimize.c: pass 2 optimisations ----------------------------------- */
void opt_fold(struct session *s, struct probe *p, struct node **body);
void opt_elide(struct session *s);

/* ---- elaborate.c: pass 2 ------------------------------------------------ */
struct timer_spec {
	int64_t period_ns;
};

/* A resolved probe: one per concrete probe point (probepoint.c). */
struct kcat_arg;
struct rprobe {
	struct probe *probe;	/* body and locals */
	struct probe_point *point;
	const char *pp;		/* canonical probe point text */
	const char *marks;	/* "?" or "!" of the point as written, or "" */
	const char *note;	/* -p2 comment after pp, or NULL */
	const char *from;	/* the probe's points as written (-p2 "<-") */
	const char *label;	/* as stap -l prints it */
	const char *family;	/* "kernel.function", "timer.jiffies": messages */
	int kind;		/* RP_* */
	int64_t order;		/* begin(N)/end(N)/error(N) */
	int64_t period_ns;	/* RP_TIMER; RP_PROFILE with freq.hz(N) */
	int64_t jiffies;	/* RP_JIFFIES */
	int64_t randomize;	/* +-M: ns for RP_TIMER, jiffies for RP_JIFFIES */
	/* RP_KFUNC, RP_KPROBE, RP_KSTATEMENT */
	const char *module;	/* NULL: the kernel itself */
	const char *symbol;	/* the function */
	int64_t offset;		/* statement("func+OFFSET") */
	int64_t address;	/* statement(ADDRESS).absolute (symbol NULL) */
	bool ret;		/* .return: a kretprobe */
	int64_t maxactive;	/* .maxactive(N), or -1 */
	const char *ret_type;	/* RP_KFUNC: "void" when there is no $return */
	const struct kcat_arg *ret_arg;	/* RP_KFUNC: its BTF type */
	/* RP_TRACEPOINT */
	const char *tp_system;	/* "" when no trace header names it */
	const char *tp_name;
	/* RP_HWBKPT: symbol or address, and */
	int64_t hw_len;		/* bytes watched */
	bool hw_rw;		/* .rw (else .write) */
	/* RP_PERF: the perf_event_attr; period, or frequency when perf_freq */
	int64_t perf_type, perf_config, perf_period;
	bool perf_freq;
	/* RP_PROCFS: the file under /proc/systemtap/MODULE ("command" when
	 * the point names none), .write or .read, umask (-1: none) and the
	 * read buffer's size (-1: MAXSTRINGLEN) */
	const char *procfs_path;
	bool procfs_write;
	int64_t procfs_umask, procfs_maxsize;
	/* RP_NETFILTER: C expressions of the hook, protocol family and
	 * priority (numbers, or what guru mode wrote) */
	const char *nf_hook, *nf_pf, *nf_priority;
	/* $variables: RP_KFUNC parameters, RP_TRACEPOINT arguments */
	int nargs;
	const struct kcat_arg *args;
	struct uprobe_info *u;	/* RP_UPROBE (uprobes.c) */
	const char *proc_path;	/* RP_UPROC: process("PATH"), NULL: any */
	int proc_event;		/* RP_UPROC: UP_BEGIN ... */
	int64_t proc_pid;	/* RP_UPROC, RP_UPROBE: process(PID), 0: none */
	struct rprobe *next;
};
enum {
	RP_BEGIN, RP_END, RP_TIMER, RP_NEVER,	/* pass 3 translates these */
	RP_ERROR,	/* error, error(N) */
	RP_JIFFIES,	/* timer.jiffies(N)[.randomize(M)] */
	RP_PROFILE,	/* timer.profile[.tick], timer.profile.freq.hz(N) */
	RP_KFUNC,	/* kernel.function, module().function: $vars from BTF */
	RP_KPROBE,	/* kprobe.function, kprobe.module().function: no $vars */
	RP_KSTATEMENT,	/* kernel/module().statement("f+off"), *.statement(A).absolute */
	RP_TRACEPOINT,	/* kernel.trace("sys:name") */
	RP_PERF,	/* perf.type(T).config(C)[.sample(N)|.hz(F)], timer.profile */
	RP_UPROBE,	/* process("PATH").function/.statement/.mark (uprobes.c) */
	RP_UPROC,	/* process[("PATH")].begin/.end/.thread.begin/.thread.end */
	RP_PROCFS,	/* procfs[("path")][.umask(N)].read[.maxsize(N)] | .write */
	RP_HWBKPT,	/* kernel.data("SYM"|ADDR)[.length(N)].write|.rw */
	RP_NETFILTER,	/* netfilter.hook("H").pf("PF")[.priority("P")] */
};
enum { UP_BEGIN, UP_END, UP_THREAD_BEGIN, UP_THREAD_END, UP_SYSCALL, UP_SYSCALL_RETURN };


/* ---- probepoint.c, listing.c: probe points (pass 2, -l/-L) -------------- */
struct rprobe *resolve_probe_point(struct session *s, struct probe *p,
				   struct probe_point *pp);
bool probe_family_known(const char *name);
bool probe_point_matches(struct session *s, struct probe_point *pp);
bool probe_point_has_wildcard(const struct probe_point *pp);
void check_procfs_points(struct session *s);
int list_probes(struct session *s, FILE *out);

int elaborate(struct session *s);
void load_tapsets(struct session *s);
bool elaborate_poisoned(struct session *s, const char *name);

/* ---- dump.c: --dump-functions, --dump-probe-aliases ---------------------- */
int dump_functions(struct session *s);
int dump_probe_aliases(struct session *s);
void elaborate_print(struct session *s, FILE *out);
int rprobe_entry_count(const struct rprobe *r);

/* ---- regex.c: regexes of =~ and !~ --------------------------------------- */
#define RX_MAX_INSNS 2000	/* program size limit */
#define RX_MAX_SLOTS 16384	/* instructions * capture slots limit */
#define RX_MAX_SETS 256		/* distinct character sets */
enum rx_op { RX_CHAR, RX_SPLIT, RX_JMP, RX_SAVE, RX_BOL_OP, RX_EOL_OP, RX_MATCH };
struct rx_insn {
	enum rx_op op;
	int x, y;		/* CHAR: set; SPLIT: preferred, other; JMP: to; SAVE: slot */
};
struct rx_prog {
	struct rx_insn *insns;
	int ninsns, ngroups;	/* groups: 1 + the capturing groups */
	uint8_t sets[RX_MAX_SETS][32];
	int nsets;
	const char *text;	/* the literal's bytes */
};
void regex_compile_all(struct session *s);	/* pass 2 */


#endif /* ELAB_H */
