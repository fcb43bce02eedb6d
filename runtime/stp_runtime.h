/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stp_runtime.h - types and API that generated modules and embedded C use.
 * README.md in this directory is the contract; keep the two in sync.
 */
#ifndef STP_RUNTIME_H
#define STP_RUNTIME_H

#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/types.h>
#include <linux/string.h>
#include <linux/spinlock.h>

#include <linux/delay.h>

/*
 * A module's runtime is either compiled with the script's C, included at
 * its end (stp_runtime.c), or, with -DSTP_RUNTIME_SPLIT, into an object
 * of its own (build/kdirect.c keeps it in the cache and links it in):
 * the functions the generated code calls then have external linkage
 * (STP_API), the runtime's file defines STP_RUNTIME_OBJ, and the script's
 * file hands the runtime what the runtime reads of it in `stp_script`
 * (stp_runtime.c). Nothing of the runtime may then depend on a define
 * the script's file makes, but those build/kbuild.c puts in the
 * runtime's file (families, privilege, regex sizes: the object's key).
 */
#ifdef STP_RUNTIME_SPLIT
#define STP_API
#else
#define STP_API static
#endif

#include "stp_defines.h"
#include "compat.h"
#include "stp_msgs.h"

enum stp_probe_kind {
	STP_PROBE_BEGIN,
	STP_PROBE_END,
	STP_PROBE_TIMER,
	STP_PROBE_ERROR,	/* instead of end probes after too many errors */
	STP_PROBE_KPROBE,		/* kprobes.c: by symbol name */
	STP_PROBE_KRETPROBE,
	STP_PROBE_TRACEPOINT,		/* tracepoints.c */
	STP_PROBE_PERF,			/* perf.c: perf events on every CPU */
	STP_PROBE_UPROBE,		/* uprobes.c: process() probes */
	STP_PROBE_URETPROBE,
	STP_PROBE_PROC_BEGIN,		/* uprocess.c: process.begin ... */
	STP_PROBE_PROC_END,
	STP_PROBE_THREAD_BEGIN,
	STP_PROBE_THREAD_END,
	STP_PROBE_SYSCALL,		/* process.syscall: args[6] = $syscall */
	STP_PROBE_SYSCALL_RETURN,
	STP_PROBE_HWBKPT,		/* hwbkpt.c: kernel.data() watchpoints */
	STP_PROBE_PROCFS,		/* procfs.c: /proc/systemtap/<module>/PATH */
	STP_PROBE_NETFILTER,		/* netfilter.c: a hook in init_net */
	STP_PROBE_NKINDS		/* (at most 64: kind masks are u64) */
};

/* procfs probes: $value's buffer (read: the file's contents being made;
 * write: one write()'s data), size bytes with the NUL, count used. */
struct stp_procfs_data {
	char *buf;
	size_t size;
	size_t count;
};

struct pt_regs;
struct stp_probe;

/* Where target variable k of a kernel probe comes from (stp_target()):
 * src >= 0: argument src (pt_regs di si dx cx r8 r9 at entry, saved at
 * entry for .return, a tracepoint's argument); STP_TARG_RETURN: regs->ax
 * in a kretprobe; STP_TARG_NONE: not available. width 1, 2, 4, 8 bytes. */
#define STP_TARG_NONE	(-1)
#define STP_TARG_RETURN	(-2)
#define STP_TARG_GET	(-3)	/* get(c): a generated getter (process probes) */
/* $$parms/$$locals entries of a struct or union ("{...}") or an array
 * ("[...]"), which 4.8 names without reading */
#define STP_TARG_AGG	(-4)
/* width | STP_TARG_OBJ: a struct of `width` bytes passed in the argument
 * registers from src on; its value is the address of a copy (stp_uobj) */
#define STP_TARG_OBJ	0x80
#define STP_TARG_ARRAY	(-5)
struct stp_context;
struct stp_targ {
	s8 src;
	u8 width;
	u8 is_signed;
	int64_t (*get)(struct stp_context *c);
	void (*set)(struct stp_context *c, int64_t v);	/* guru writes */
};

/* A parameter for $$parms: its name and where its value is. */
struct stp_parm {
	const char *name;
	struct stp_targ t;
};

#ifdef STP_REGEX_MAXGROUPS
/* regex.c: a program compiled by the translator from a regex literal */
enum stp_rx_op { STP_RX_CHAR, STP_RX_SPLIT, STP_RX_JMP, STP_RX_SAVE, STP_RX_BOL,
		 STP_RX_EOL, STP_RX_MATCH };
struct stp_rx_insn {
	u8 op;
	u16 x, y;	/* CHAR: set; SPLIT: preferred, other; JMP: to; SAVE: slot */
};
struct stp_regex {
	const struct stp_rx_insn *insns;
	const u32 (*sets)[8];		/* 256-bit byte sets */
	int ninsns, ngroups;		/* groups: 1 + capturing groups */
};
/* The last match of a script that reads submatches (matched(), ngroups()) */
struct stp_regex_match {
	int result;			/* the last =~ matched */
	int ntags;			/* 2 * groups of the last successful match */
	s32 tags[2 * STP_REGEX_MAXGROUPS];	/* start, end of each group; -1 */
	char str[MAXSTRINGLEN];		/* the subject */
};
struct stp_context;
STP_API int64_t stp_regex_match(struct stp_context *c, const struct stp_regex *re,
			       const char *subject, int tags);
#endif

/* Errors the generated code tells apart by address: MAXACTION is not
 * caught by try/catch; "next" in a function has no overload to go to. */
/* abort() ("aborted"): ends the handler like an error, but is no error
 * (not reported, not counted) and no try/catch catches it. One copy in a
 * split module: stp_runtime.c defines them. */
#ifdef STP_RUNTIME_SPLIT
extern const char stp_msg_maxaction[], stp_msg_no_overload[], stp_msg_aborted[];
#else
static const char stp_msg_maxaction[] __maybe_unused = "MAXACTION exceeded";
static const char stp_msg_no_overload[] __maybe_unused = "all functions exhausted";
static const char stp_msg_aborted[] __maybe_unused = "aborted";
#endif

#define STP_UOBJ_SLOTS 4	/* objects a handler may hold at once */
#define STP_UOBJ_SIZE 64	/* bytes each */

struct stp_context {
	/* public: generated code and embedded C */
	void *locals;			/* STP_LOCALS_SIZE bytes, zeroed per run */
	const char *probe_point;	/* the running probe's pp */
	const char *probe_name;		/* pn(): the alias it came from, or NULL */
	const char *last_error;		/* set to abort the handler */
	const char *last_stmt;		/* where the error happened */
	char error_buffer[MAXSTRINGLEN];
	int64_t actionremaining;	/* statement budget */
	int nesting;			/* call depth */
	const struct stp_probe *probe;	/* the running probe */
	struct pt_regs *regs;		/* kprobes: the registers, else NULL */
	const struct pt_regs *sregs;	/* syscall probes: the user registers
					 * *_arg() read, else NULL */
	bool sregs_compat;		/* sregs: a 32-bit task's (ia32 ABI) */
	const unsigned long *args;	/* kernel probes: raw arguments */
	unsigned long uaddr;		/* process probes: the probed address */
	struct stp_procfs_data *procfs;	/* procfs probes: $value, else NULL */
	unsigned long ret_from;		/* kretprobes: the probed function */
	void *entry_data;		/* kretprobes: @entry values (instance) */
	int nbt;			/* sym.c: bt[] entries, -1: not unwound */
	unsigned long bt[STP_MAXBACKTRACE];	/* sym.c: the backtrace */
	char *sym_buf;			/* sym.c: KSYM_SYMBOL_LEN bytes */
#ifdef STP_REGEX_MAXGROUPS
	struct stp_regex_match last_match;	/* kept across probe runs, as 4.8 */
	void *regex_ws;			/* private: regex.c's workspace */
#endif
	void *ustack_ws;		/* private: ustack.c's workspace, or NULL */
	/* process probes: copies of objects held in registers or in pieces
	 * (stp_uobj()), read by stp_uread() as if in the task's memory */
	u64 uobj[STP_UOBJ_SLOTS][STP_UOBJ_SIZE / 8];
	unsigned int uobj_next;
	/* private: the runtime */
	atomic_t busy;
};

/* A probed user binary's functions, by link-time address (usymname()). */
struct stp_usym {
	u64 addr;
	u32 size;
	const char *name;
};
struct stp_ubin {
	const char *path;
	const struct stp_usym *syms;
	unsigned int nsyms;
};

/*
 * An entry of the generated probe table: a common header, then the data of
 * its kind's family (an anonymous union: the translator's designated
 * initializers name the fields directly; an entry sets only its family's).
 * Read a family's fields only for that family's kinds.
 */
/* The names of a kprobe.function("F") entry: pp, symbol and func at once. */
#define STP_KFUNC(f) .pp = "kprobe.function(\"" f "\")", .symbol = f, .func = f

struct stp_probe {
	enum stp_probe_kind kind;
	void (*handler)(struct stp_context *c);
	const char *pp;
	const char *pn;			/* pn() when not pp (NULL: pp) */
	const char *func;		/* probefunc(): the function's name */
	/* kprobes: "func" or "module:func"; hwbkpt: the watched symbol
	 * (NULL: hw_addr) */
	const char *symbol;
	const char *path;		/* process probes (uprobes, uproc): the binary */
	int maxactive;			/* kretprobes: -1 = KRETACTIVE */
	bool optional;			/* "?": no warning when it fails */
	/* target variables (context.c, for every kind) */
	const struct stp_targ *targs;	/* target variables, by index */
	const struct stp_parm *parms;	/* $$parms, NULL-name terminated */
	const struct stp_parm *locals;	/* $$locals (process, module DWARF probes) */
	const struct stp_parm *vars;	/* $$vars in scope order (process probes) */
	int pgroup;			/* its points' group, for $$parms$ that differ */
	union {
		struct {	/* session.c, timers.c: begin, end, error, timer */
			int64_t order;		/* begin/end/error: run order */
			u64 period_ns;		/* timer: period */
			u64 jiffies;		/* timer.jiffies(N): period in jiffies */
			u64 randomize;		/* .randomize(M): +-M ns (jiffies) a period */
		};
		struct {	/* kprobes.c */
			u32 koffset;		/* bytes after the symbol */
			const char *kmodule;	/* the module they follow */
			/* kretprobes: @entry's handler, bytes of its values */
			void (*entry_handler)(struct stp_context *c);
			unsigned int entry_size;
		};
		struct {	/* tracepoints.c */
			const char *tp_name;	/* the kernel's name */
			void *tp_func;		/* the generated callback */
		};
		struct {	/* uprobes.c */
			/* the probed instruction's file offset and link-time
			 * address, an SDT semaphore's offset */
			u64 uoffset, uaddr, usem;
			const char *sdt_name, *sdt_provider;	/* $$name, $$provider */
			const struct stp_ubin *ubin;		/* its symbols */
			/* .callee(): the link-time return addresses of the
			 * calls it is for; the probe on the callee's entry
			 * runs only for these */
			const u64 *ucalls;
			u32 nucalls;
		};
		struct {	/* uprocess.c */
			pid_t upid;		/* process(PID) events: that process */
		};
		struct {	/* perf.c: the perf_event_attr's type, config, and
				 * sample period (or frequency, with perf_freq) */
			u32 perf_type;
			u64 perf_config, perf_period;
			bool perf_freq;
		};
		struct {	/* procfs.c: the file under /proc/systemtap/<module>/,
				 * .write or .read, umask (-1: none), read buffer
				 * bytes (-1: MAXSTRINGLEN) */
			const char *procfs_path;
			bool procfs_write;
			s16 procfs_umask;
			s32 procfs_maxsize;
		};
		struct {	/* netfilter.c: the hook, protocol family, priority */
			int nf_hook, nf_pf, nf_priority;
		};
		struct {	/* hwbkpt.c: kernel.data: this address when no
				 * symbol; bytes watched; 1: .rw */
			u64 hw_addr;
			u8 hw_len, hw_rw;
		};
	};
};

/* Is p a uprobes.c probe (its family data are uprobes')? */
static inline bool stp_probe_is_uprobe(const struct stp_probe *p)
{
	return p->kind == STP_PROBE_UPROBE || p->kind == STP_PROBE_URETPROBE;
}

/* procfs.c: $value of a .write probe into dst (MAXSTRINGLEN); $value = v
 * (append: $value .= v) in a .read probe ("buffer size exceeded" error
 * past the buffer's size, with what is kept). */
STP_API void stp_procfs_get(struct stp_context *c, char *dst);
STP_API void stp_procfs_set(struct stp_context *c, const char *v, bool append);

/* The value of target variable k (stp_targ) in a kernel probe; a write
 * (guru mode) of a parameter's register at entry, or of $return. */
STP_API int64_t stp_target(struct stp_context *c, int k);
STP_API void stp_target_set(struct stp_context *c, int k, int64_t v);
/* $$parms / $$vars (mode 0), $$return (1), $$locals (2) into dst. */
STP_API void stp_target_pretty(struct stp_context *c, char *dst, int mode);
/* deref.c: kernel memory, never faulting: on a bad address they set
 * c->last_error ("read fault [man error::fault] at 0x...") and return 0. */
STP_API int64_t stp_kread(struct stp_context *c, int64_t addr, int size, int is_signed);
STP_API int64_t stp_kread_bits(struct stp_context *c, int64_t addr, int size,
			      int is_signed, int bit_off, int bit_size);
STP_API int stp_kread_string(char *dst, int64_t addr, int max);	/* -1: fault */
/* hwbkpt.c: the address of module symbol i of the translator's
 * stp_ksym_names (a static variable read through DWARF), resolved when
 * the session starts; 0 with c->last_error set if it was not found. */
STP_API int64_t stp_ksym(struct stp_context *c, int i);
/* Guru-mode stores into kernel memory: "write fault ... at 0x..." on a
 * bad or read-only address (the value truncated to the field). */
STP_API void stp_kwrite(struct stp_context *c, int64_t addr, int size, int64_t v);
STP_API void stp_kwrite_bits(struct stp_context *c, int64_t addr, int bit_off,
			    int bit_size, int64_t v);
STP_API int stp_uread_string(char *dst, int64_t addr, int max);	/* user memory */
/* The same reads from the current task's user memory (process probes). */
STP_API int64_t stp_uread(struct stp_context *c, int64_t addr, int size, int is_signed);
STP_API void stp_uwrite(struct stp_context *c, int64_t addr, int size, int64_t v);
/* A zeroed slot for a copy of an object not in memory; stp_uobj_put()
 * stores n (<= 8) bytes of v at byte `at` of it. */
STP_API void *stp_uobj(struct stp_context *c);
STP_API void stp_uobj_put(void *obj, int at, int n, u64 v);
STP_API int64_t stp_uread_bits(struct stp_context *c, int64_t addr, int size,
			      int is_signed, int bit_off, int bit_size);
/* The function of the probed binary holding user address addr (in the
 * current task): its name, offset and size; NULL if none. */
STP_API const char *stp_usym_lookup(struct stp_context *c, u64 addr, u64 *off, u64 *size);
/* The load bias of a process probe's binary in the current task. */
static inline uint64_t stp_ubias(struct stp_context *c)
{
	if (!c->probe)
		return 0;
	return (uint64_t)c->uaddr -
	       (stp_probe_is_uprobe(c->probe) ? c->probe->uaddr : 0);
}
STP_API void stp_kernel_string(struct stp_context *c, char *dst, int64_t addr, int64_t max);
STP_API void stp_user_string(struct stp_context *c, char *dst, int64_t addr);
STP_API int64_t stp_kernel_number(struct stp_context *c, int64_t addr, int size,
				 const char *what);

/* Pretty printing ($var$): a table of pieces, STP_PP_END last. Each
 * prints lit, then a value read at base + off (or base itself with
 * STP_PP_VALUE): integers in decimal, chars as %#c, pointers as %p,
 * strings quoted (STRP: the char* there, STRA: the chars there; STRQ: the
 * char* there, the whole print "ERROR" when it cannot be read, as 4.8's
 * kernel_or_user_string_quoted under its dwarf_pretty_print). */
enum { STP_PP_END, STP_PP_LIT, STP_PP_INT, STP_PP_UINT, STP_PP_CHAR,
       STP_PP_PTR, STP_PP_STRP, STP_PP_STRA, STP_PP_STRQ };
#define STP_PP_VALUE 0x80
struct stp_pp {
	const char *lit;
	u8 kind;
	u8 size;
	u8 bit_off;
	u8 bit_size;
	u32 off;
};
STP_API void stp_pretty(struct stp_context *c, char *dst, int64_t base, int load,
		       const struct stp_pp *pp);

struct stp_sink;
/* sym.c: symbols, backtraces, registers and arguments of kernel probes */
enum stp_sym_style {
	STP_SYM_NAME,	/* symname(): "name", else hex */
	STP_SYM_DATA,	/* symdata(): "name+0xoff/0xsize [module]", else hex */
	STP_SYM_FULL,	/* print_backtrace(): " 0xaddr : <DATA>\n" */
	STP_SYM_SIMPLE,	/* sprint_backtrace(): "name+0xoff [module]\n" */
	STP_SYM_HEX,	/* backtrace(): "0xaddr " */
};
STP_API void stp_sym_emit(struct stp_context *c, struct stp_sink *sk, int64_t addr,
			 int style);
STP_API int stp_sym_module(struct stp_context *c, char *dst, int64_t addr);
STP_API int stp_backtrace(struct stp_context *c, const unsigned long **pcs);
STP_API void stp_backtrace_emit(struct stp_context *c, struct stp_sink *sk, int style);
STP_API int64_t stp_stack(struct stp_context *c, int64_t depth);
STP_API int64_t stp_register(struct stp_context *c, const char *name, int sign);
STP_API int64_t stp_arg(struct stp_context *c, int64_t n, int sign, int trunc);
STP_API void stp_print_regs(struct stp_context *c, struct stp_sink *sk);

/* A tracepoint fired: data is the stp_probe, args its raw arguments. */
STP_API void stp_tracepoint_fire(void *data, const unsigned long *args);

#include "stp_fmt.h"	/* struct stp_spec, STP_F_*, struct stp_stat(_spec) */

struct stp_print_buf;

/* where formatted output goes: this CPU's print buffer or a string */
struct stp_sink {
	struct stp_print_buf *pb;	/* print sink, else NULL */
	char *dst;			/* string sink: MAXSTRINGLEN bytes */
	size_t len;			/* bytes used (print: this statement's) */
	size_t cap;			/* print sink: at most this many */
};

STP_API void stp_sink_print(struct stp_sink *s);
STP_API void stp_sink_print_all(struct stp_sink *s);
STP_API void stp_sink_string(struct stp_sink *s, char *dst);
STP_API void stp_emit_lit(struct stp_sink *s, const char *p, size_t n);
STP_API void stp_emit_long(struct stp_sink *s, int64_t v, const struct stp_spec *sp);
STP_API void stp_emit_str(struct stp_sink *s, const char *v, const struct stp_spec *sp);
STP_API void stp_emit_bin(struct stp_sink *s, int64_t v, const struct stp_spec *sp);
STP_API void stp_emit_mem(struct stp_sink *s, int64_t addr, const struct stp_spec *sp);
STP_API void stp_mem_check(struct stp_context *c, int64_t addr, const struct stp_spec *sp);
STP_API void stp_print_str(const char *s);
STP_API void stp_print_long(int64_t v);

/*
 * Calls of script functions (README "Calls"). Locations are indices in the
 * generated stp_locs[] table. In a handler or function (c, the goto label
 * lbl for errors):
 *	{
 *		STP_CALL_FRAME(struct stp_locals_fn_f__1, f, def, lbl);
 *		f->l_x = ...;			(the arguments)
 *		STP_CALL(function_f__1, f, at, def, lbl);
 *		... f->__retvalue ...
 *	}
 * STP_CALL_FRAME declares f, the callee's zeroed frame; past MAXNESTING it
 * fails with "MAXNESTING exceeded" near stp_locs[def] (the definition).
 * STP_CALL runs the callee one level deeper; when it failed without naming
 * a place, stp_call_failed() names the call site stp_locs[at] (MAXACTION,
 * "all functions exhausted") or the definition (any other error).
 */
STP_API void stp_call_deep(struct stp_context *c, unsigned int def);
STP_API void stp_call_failed(struct stp_context *c, unsigned int at, unsigned int def);

#define STP_CALL_FRAME(type, f, def, lbl)				\
	type *f = STP_FRAME(c, c->nesting + 1);				\
	if (unlikely(c->nesting + 1 > MAXNESTING)) {			\
		stp_call_deep(c, def);					\
		goto lbl;						\
	}								\
	__builtin_memset(f, 0, sizeof(*f))

#define STP_CALL(fn, f, at, def, lbl)					\
	do {								\
		c->nesting++;						\
		fn(c, f);						\
		c->nesting--;						\
		if (unlikely(c->last_error)) {				\
			stp_call_failed(c, at, def);			\
			goto lbl;					\
		}							\
	} while (0)

STP_API int64_t stp_div(struct stp_context *c, int64_t a, int64_t b);
STP_API int64_t stp_mod(struct stp_context *c, int64_t a, int64_t b);
STP_API void stp_str_copy(char *dst, const char *src);
STP_API void stp_str_cat(char *dst, const char *src);

STP_API void stp_exit(void);

/* target(): the pid given by stap -x, or of the command of stap -c */
extern long stp_target_pid;
/* context.c's per-CPU contexts; external, for the runtime's files the
 * script's file includes (ustack.c) see them in a split module too */
extern struct stp_context **stp_contexts;
/* stp_pid(): the stapio process of the session (control.c sets it) */
extern long stp_stapio_pid;
/* the ns_*() functions' namespaces: those of this process (staprun -N) */
extern long stp_namespaces_pid;
/* remote_id(), remote_uri(): staprun -r N:URI (-1 and "" without) */
extern long stp_remote_id;
extern char stp_remote_uri[MAXSTRINGLEN];
/* tz_gmtoff(), tz_name(): staprun's time zone (seconds west of UTC) */
extern long stp_tz_gmtoff;
extern char stp_tz_name[MAXSTRINGLEN];
/* module parameter type of the long globals (stap -G NAME=VALUE) */
extern const struct kernel_param_ops stp_param_ops_int64;
STP_API __printf(1, 2) void stp_error_msg(const char *fmt, ...);
STP_API void stp_system(const char *cmd);	/* system(): stapio runs cmd */
STP_API void stp_switch_file(void);	/* switch_file(): next -o output file */
STP_API __printf(1, 2) void stp_warn_msg(const char *fmt, ...);

/* ---- maps (map.c), statistics (stat.c), locks (lock.c) ---- */

/* One per key position; kinds "ls" = long, string. */
struct stp_key {
	int64_t n;
	const char *s;
};

enum stp_value_kind { STP_VAL_LONG, STP_VAL_STR, STP_VAL_STAT };

struct stp_map;
struct stp_stat_var;

/* A map's row (private to map.c but for these accessors): slot[0] is the
 * long value, or the offset in the row of the string or statistic value;
 * slot[1 + i] is key i, a long or (length << 32 | offset) of a string. */
struct stp_map_entry {
	struct list_head lnode;		/* the map's list (in order) or pool */
	struct hlist_node hnode;
	u32 hash;
	u32 unused;
	u64 slot[];
};

static inline int64_t stp_entry_key_long(const struct stp_map_entry *e, int i)
{
	return (int64_t)e->slot[1 + i];
}

static inline const char *stp_entry_key_str(const struct stp_map_entry *e, int i)
{
	return (const char *)e + (u32)e->slot[1 + i];
}

static inline int64_t stp_entry_long(const struct stp_map_entry *e)
{
	return (int64_t)e->slot[0];
}

static inline const char *stp_entry_str(const struct stp_map_entry *e)
{
	return (const char *)e + (u32)e->slot[0];
}

static inline const struct stp_stat *stp_entry_stat(const struct stp_map_entry *e)
{
	return (const void *)((const char *)e + (u32)e->slot[0]);
}

STP_API struct stp_map *stp_map_new(const char *keykinds, enum stp_value_kind vk,
				   int64_t maxentries, bool wrap,
				   const struct stp_stat_spec *ss);
STP_API void stp_map_free(struct stp_map *m);
STP_API int64_t stp_map_get_long(struct stp_map *m, const struct stp_key *k);
STP_API void stp_map_get_str(struct stp_map *m, const struct stp_key *k, char *dst);
STP_API bool stp_map_exists(struct stp_map *m, const struct stp_key *k);
STP_API bool stp_map_exists_matching(struct stp_map *m, const struct stp_key *k,
				    unsigned int wildcard_mask);
STP_API int stp_map_set_long(struct stp_map *m, const struct stp_key *k, int64_t v);
STP_API int stp_map_set_str(struct stp_map *m, const struct stp_key *k, const char *v);
STP_API int stp_map_add_stat(struct stp_map *m, const struct stp_key *k, int64_t v);
STP_API void stp_map_delete(struct stp_map *m, const struct stp_key *k);
STP_API void stp_map_delete_matching(struct stp_map *m, const struct stp_key *k,
				    unsigned int wildcard_mask);
STP_API void stp_map_clear(struct stp_map *m);
STP_API int64_t stp_map_size(struct stp_map *m);
STP_API const struct stp_stat *stp_map_get_stat(struct stp_map *m,
					       const struct stp_key *k);
STP_API int64_t stp_map_sorted(struct stp_map *m, int col, int dir, char agg,
			      int64_t limit, struct stp_map_entry ***out);
STP_API int stp_map_add_long(struct stp_map *m, const struct stp_key *k, int64_t d,
			    int64_t *old);
STP_API struct stp_map_entry *stp_map_first(struct stp_map *m);
STP_API struct stp_map_entry *stp_map_next(struct stp_map *m, struct stp_map_entry *e);

STP_API struct stp_stat_var *stp_stat_new(const struct stp_stat_spec *ss);
STP_API void stp_stat_free(struct stp_stat_var *v);
STP_API void stp_stat_add(struct stp_stat_var *v, int64_t x);
STP_API const struct stp_stat *stp_stat_get(struct stp_stat_var *v);
STP_API void stp_stat_clear(struct stp_stat_var *v);
STP_API int64_t stp_stat_op(struct stp_context *c, const struct stp_stat *st, char op);
STP_API int64_t stp_stat_variance(struct stp_context *c, const struct stp_stat *st,
				 int shift);
STP_API void stp_stat_print_hist(struct stp_sink *sk, const struct stp_stat *st,
				const struct stp_stat_spec *ss);
STP_API int64_t stp_stat_hist_bucket(struct stp_context *c, const struct stp_stat *st,
				    const struct stp_stat_spec *ss, int64_t i);
STP_API int stp_stat_hist_nbuckets(const struct stp_stat_spec *ss);

struct stp_lock {
	rwlock_t rw;
};

STP_API void stp_lock_init(struct stp_lock *l);
/*
 * A handler takes every lock it needs at entry with trylock; when one
 * cannot be had within MAXTRYLOCK tries (TRYLOCKDELAY us apart) the
 * handler releases what it holds, counts a skipped probe
 * (stp_probe_skipped()) and returns. Inlined in the handlers' lock sets,
 * which are compiled at -Og (here, not in lock.c: the script's file of a
 * split module has them too).
 */
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
STP_API void stp_probe_skipped(void);

/*
 * stap --privilege=stapusr: process probes run only in the processes of
 * the user who loaded the module (staprun's real uid, kept at module
 * init), and a "myproc-unprivileged" tapset function raises 4.8's error
 * elsewhere (translate.c puts the check at its top).
 */
#ifdef STP_PRIVILEGE_STAPUSR
STP_API bool stp_is_myproc(void);
#define stp_assert_is_myproc(c) do {					\
	if (!stp_is_myproc()) {						\
		snprintf((c)->error_buffer, MAXSTRINGLEN,		\
			 "myproc-unprivileged tapset function called without " \
			 "is_myproc checking for pid %d (euid %d)",	\
			 current->tgid,					\
			 (int)from_kuid_munged(current_user_ns(), current_euid())); \
		(c)->last_error = (c)->error_buffer;			\
		goto out;						\
	}								\
} while (0)
#else
#define stp_assert_is_myproc(c) do { } while (0)
#endif

/*
 * What the runtime reads of the script's file. In a split module (the
 * runtime in an object of its own, STP_RUNTIME_SPLIT) the script's file
 * defines `stp_script` (stp_runtime.c) and the runtime's object reads
 * these through it; else the runtime reads the script's own names.
 */
struct stp_script {
	const struct stp_probe *probes;		/* stp_probes[] */
	unsigned int nprobes;			/* STP_NPROBES */
	const char *const *locs;		/* stp_locs[] */
	size_t locals_size;			/* STP_LOCALS_SIZE */
	int (*globals_init)(void);
	void (*globals_exit)(void);
	int (*ustack_init)(void);		/* ustack.c's, or doing nothing */
	void (*ustack_exit)(void);
	const char *const *probe_locs;		/* stap -t: stp_probe_locs[] */
	const char *const *ksym_names;		/* stp_ksym()'s (hwbkpt.c) */
	unsigned long *ksym_addrs;
	int nksyms;
	const unsigned char *build_id;		/* STP_KERNEL_BUILD_ID, or NULL */
	size_t build_id_len;
};

/*
 * The generated code between STP_OPT_SCRIPT and STP_OPT_KERNEL (call
 * stubs, handlers, script functions) is compiled at -Og, or at -O0 when
 * the translator defines STP_SCRIPT_O0: when that code is big (a tapset
 * alias over hundreds of functions, like syscall.*), gcc's time is
 * mostly its, and -O0 takes a third less (bench/csize.py); a small
 * script's build is the runtime's, and its hits keep -Og's code. Embedded
 * C (its compile-time checks, clamp()'s signedness..., need -O2's or
 * -O1's folding) and the runtime keep the kernel's flags, except that an
 * embedded-C function (between STP_OPT_KERNEL STP_OPT_EMBED and
 * STP_OPT_KERNEL STP_OPT_SCRIPT) is compiled at -O1 with STP_SCRIPT_O0
 * (a fifth less time than at -O2 on syscall.*'s 142); -DSTP_SCRIPT_O2
 * compiles everything at -O2.
 * At -Og the script's small functions are still inlined, and the lock
 * functions always: a hit of a one-statement handler then costs 2-5%
 * more than at -O2 (bench/probes.py's scripts in the guest), 7-13%
 * without. At -O0 nothing folds the kernel's compile-time checks inlined
 * into the generated code (the fortified memset()'s __write_overflow()
 * stays a call and fails the build): the generated code calls no
 * fortified string function (__builtin_memset for frames,
 * stp_str_copy()), and a function or handler that holds an embedded-C
 * expression is compiled at -Og between STP_OPT_KERNEL STP_OPT_EXPR and
 * STP_OPT_KERNEL STP_OPT_SCRIPT. Frames at -O0 stay small (at most 144
 * bytes a generated function on the syscall.* one-liner).
 * The kernel's explicit -fno-* flags hold under the pragma.
 */
#ifdef STP_SCRIPT_O2
#undef STP_SCRIPT_O0
#define STP_OPT_SCRIPT
#define STP_OPT_EXPR
#define STP_OPT_EMBED
#define STP_OPT_KERNEL
#else
#define STP_OPT_EXPR _Pragma("GCC push_options") \
	_Pragma("GCC optimize (\"Og\", \"inline-small-functions\", \"inline-functions-called-once\")")
#ifdef STP_SCRIPT_O0
#define STP_OPT_SCRIPT _Pragma("GCC push_options") _Pragma("GCC optimize (\"O0\")")
#define STP_OPT_EMBED _Pragma("GCC push_options") _Pragma("GCC optimize (\"O1\")")
#else
#define STP_OPT_SCRIPT STP_OPT_EXPR
#define STP_OPT_EMBED _Pragma("GCC push_options")
#endif
#define STP_OPT_KERNEL _Pragma("GCC pop_options")
#endif

#ifdef STP_EMBED_API	/* -g: 4.8's embedded-C API for the script's %{ %} */
#include "embed_api.h"
#endif

#endif /* STP_RUNTIME_H */
