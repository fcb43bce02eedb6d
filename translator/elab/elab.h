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

/* ---- probe families: the interface (family/ implements it) -------------- */
struct family;
struct gen;
struct resolver;

/* A resolved probe: one per concrete probe point (probepoint.c). What is
 * common to every family, then each family's own data. */
struct kcat_arg;
struct ubin;
struct uprobe_info;
struct rprobe {
	const struct family *fam;	/* the family that resolved it */
	int kind;		/* the family's own variant (family.h's RP_*) */
	unsigned int flags;	/* RF_*: what generic code may ask of it */
	struct probe *probe;	/* body and locals */
	/* its group among the probe's points when their $$parms$ and the
	 * like differ (probe->pretty_groups): the points with the same
	 * arguments, numbered in order */
	int pgroup;
	struct probe_point *point;
	const char *pp;		/* canonical probe point text */
	const char *marks;	/* "?" or "!" of the point as written, or "" */
	const char *note;	/* -p2 comment after pp, or NULL */
	const char *entry_note;	/* the same of 4.8's .call half of a .return
				 * (-p2 shows @entry so), when not note */
	const char *from;	/* the probe's points as written (-p2 "<-") */
	const char *label;	/* as stap -l prints it */
	const char *family;	/* "kernel.function", "timer.jiffies": messages */
	/* functions and statements (kernel, module, kprobe, process) */
	const char *module;	/* NULL: the kernel itself */
	const char *symbol;	/* the function (kernel.data: the variable) */
	int64_t offset;		/* statement("func+OFFSET") */
	int64_t address;	/* statement(ADDRESS).absolute, kernel.data(ADDR) */
	bool ret;		/* .return */
	int64_t maxactive;	/* .maxactive(N), or -1 */
	const char *ret_type;	/* RF_RETURN: "void" when there is no $return */
	const struct kcat_arg *ret_arg;	/* RF_RETURN: its type */
	/* $variables: parameters, tracepoint arguments, context variables */
	int nargs;
	const struct kcat_arg *args;
	const char *binary;	/* a user-space program or library it probes */
	struct ubin *kmod_dwarf;	/* module("M") read through DWARF: M's */
	union {			/* the family's own data */
		struct {	/* begin, end, error */
			int64_t order;	/* begin(N)/end(N)/error(N) */
		};
		struct {	/* timer */
			int64_t period_ns;	/* hrtimers; profile.freq.hz(N) */
			int64_t jiffies;	/* timer.jiffies(N) */
			int64_t randomize;	/* +-M: ns, or jiffies */
		};
		struct {	/* tracepoint */
			const char *tp_system;	/* "" when no trace header names it */
			const char *tp_name;
		};
		struct {	/* hwbkpt (kernel.data): symbol or address, and */
			int64_t hw_len;	/* bytes watched */
			bool hw_rw;	/* .rw (else .write) */
		};
		struct {	/* perf: period, or frequency when perf_freq */
			int64_t perf_type, perf_config, perf_period;
			bool perf_freq;
		};
		struct {	/* procfs: the file under /proc/systemtap/MODULE
				 * ("command" when the point names none), .write or
				 * .read, umask (-1: none), read buffer (-1: MAXSTRINGLEN) */
			const char *procfs_path;
			bool procfs_write;
			int64_t procfs_umask, procfs_maxsize;
		};
		struct {	/* netfilter: C expressions of the hook, protocol
				 * family and priority */
			const char *nf_hook, *nf_pf, *nf_priority;
		};
		struct {	/* process, process events */
			struct uprobe_info *u;	/* process probes (process.c) */
			const char *proc_path;	/* events: process("PATH"), NULL: any */
			int proc_event;		/* events: UP_BEGIN ... */
			int64_t proc_pid;	/* process(PID), 0: none */
		};
	};
	struct rprobe *next;
};

/* What generic passes may ask of a resolved probe (rprobe.flags). */
enum {
	RF_PARMS = 1 << 0,	/* has $$parms, $$vars, $$locals, $$return */
	RF_RETURN = 1 << 1,	/* .return has $return (ret_type, ret_arg) */
	RF_USER = 1 << 2,	/* its context is user space: user memory */
	RF_WRITABLE = 1 << 3,	/* guru mode may write its target variables */
	RF_KRETPROBE = 1 << 4,	/* a kernel function's kretprobe: -p2 shows
				 * @entry as 4.8's .call probe */
	RF_ENTRY = 1 << 5,	/* .return takes @entry (a kretprobe) */
	RF_TP_VARS = 1 << 6,	/* its variables are a tracepoint's (4.8's
				 * messages on writes) */
	RF_LOCAL_VARS = 1 << 7,	/* context variables are locals (netfilter) */
	RF_STDIN = 1 << 8,	/* reads stapio's standard input (input.*) */
	RF_DWARF = 1 << 9,	/* its variables come from DWARF (process family:
				 * a program, or a module with DWARF) */
};

/* Where a target variable of one probe point comes from. */
#define STP_TARG_GET (-3)	/* a generated getter (process.c) */
struct targ {
	int src;		/* argument index, -2 $return, -3 getter, -1 none */
	int width;
	bool is_signed;
	const char *why;	/* when not available */
	bool why_whole;		/* why is the whole message (4.8's words) */
};
/* stp_targ.width of a struct passed in registers: its size | this (the
 * runtime's value is the address of a copy, stp_uobj()) */
#define STP_TARG_OBJ 0x80

/* Probe-point resolution as families see it (probepoint.c): the point
 * being resolved and the concrete probes found so far. */
struct resolver {
	struct session *s;
	struct probe *probe;
	struct probe_point *pp;
	bool quiet;		/* an optional point, or -l/-L: no errors */
	bool failed;		/* an error was found (reported unless quiet) */
	const char *from;	/* the probe's points as written */
	struct rprobe *head, **tail;
};
/* A new concrete probe of family f (its flags f->flags) at the end of
 * r's list; pp is also its -l label. */
struct rprobe *rp_add(struct resolver *r, const struct family *f, int kind,
		      const char *family, const char *pp);
/* An error at loc (kept quiet for optional points); marks r failed. */
void rp_fail(struct resolver *r, struct loc loc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* *c when it is `name` with an argument of kind arg (N_NUM, N_STR, or -1
 * for none); *c then moves past it. NULL otherwise. */
const struct pp_comp *pp_take(const struct pp_comp **c, const char *name, int arg);
bool pp_is_glob(const char *p);	/* a glob, not one exact name? */
/* The user binaries the session's probes name (r->binary), each once, at
 * most max into out: their number. */
int rp_binaries(struct session *s, const char **out, int max);

/*
 * A probe family: everything the passes need to know of it. main.c hands
 * the list (family/families.c) to the session; pass 2 and pass 3 reach a
 * family only through it (s->families, rprobe.fam), never by name.
 */
struct family {
	const char *name;		/* "kernel.function", "timer" ... */
	const char *const *roots;	/* first components it resolves */
	/* its points' component names, dot-separated, for wildcards in them
	 * (`timer.s*(1)`: "timer.s.randomize", ...) */
	const char *const *shapes;
	unsigned int flags;		/* RF_* of its probes (rp_add) */
	const char *runtime;		/* runtime part: STP_HAVE_<runtime> */
	/* pass 2: the concrete probes of the point whose first component
	 * c is one of roots (nothing when the rest is not its shape) */
	void (*resolve)(struct resolver *r, const struct pp_comp *c);
	/* --privilege=stapusr: may the script use the point whose first
	 * component is c? (NULL: none of the family's points) */
	bool (*unprivileged)(const struct pp_comp *c);
	/* after every point is resolved: checks across points */
	void (*check)(struct session *s);
	/* where $name comes from at r (NULL: no target variables) */
	struct targ (*targ)(struct session *s, const struct rprobe *r, const char *name);
	/* is $name at r the address of an object rather than a value? */
	bool (*targ_lvalue)(struct session *s, const struct rprobe *r, const char *name);
	/* why guru mode cannot write $name at r (NULL: it can) */
	const char *(*targ_write)(struct session *s, const struct rprobe *r,
				  const char *name);
	/* $$name, $$provider and the like at r, or NULL */
	const char *(*mark_string)(const struct rprobe *r, const char *op);
	/* checks target variable n ($name) in probe p itself: true when it
	 * did (n->type set, errors reported), false when p is not its */
	bool (*claim_target)(struct session *s, struct probe *p, struct node *n,
			     bool written);
	/* -p2: the comment after r's point (*note, when r has none of its
	 * own) and its "<-" (*from, when the probe is no alias's) */
	void (*p2_show)(struct session *s, const struct rprobe *r, const char **note,
			const char **from);
	/* how many of r's args are parameters ($$parms), and how many -L
	 * lists (NULL: all of them) */
	int (*nparams)(const struct rprobe *r);
	int (*nlisted)(const struct rprobe *r);
	/* -L: the prefix of the locals its context variables become */
	const char *listed_locals;
	/* pass 3: r's probe table rows (gen's tr_table_row) and the code
	 * they need; id numbers its arrays */
	void (*emit)(struct gen *g, struct strbuf *code, const struct rprobe *r, int id);
	/* pass 3: the value of target variable n, or its assignment (n the
	 * N_ASSIGN), when the family claimed it; else NULL */
	const char *(*gen_target)(struct gen *g, struct node *n);
	const char *(*gen_assign)(struct gen *g, struct node *n);
};

/* ---- target.c: target variables ($name, $$parms...) in pass 2 ---------- */
/* Where $name of point r comes from (its family's answer). */
struct targ targ_find(struct session *s, const struct rprobe *r, const char *name);
bool targ_lvalue(struct session *s, const struct rprobe *r, const char *name);
/* Check the target variable n ($name, $$parms...) used in probe p (NULL
 * in a function) against every resolved point of p; sets n->type. */
/* --skip-badvars: the failing access n of target variable t becomes 0 */
void elab_skip_badvar(struct session *s, struct node *n, const struct node *t);
void elab_target(struct session *s, struct probe *p, struct node *n,
		 bool written);
enum type elab_target_type(const struct node *n);
/* After elision: report the target errors of the statements left. */
void elab_report_deferred(struct session *s, bool elided);
/* Where $name of point r comes from (NULL if it has none there), and
 * whether $name (op, with the '$') can be read at r (@defined). */
const struct kcat_arg *elab_target_arg(struct session *s, const struct rprobe *r,
				       const char *name);
bool elab_target_defined_at(struct session *s, const struct rprobe *r, const char *op);
const char *targ_mark_string(const struct rprobe *r, const char *op);
/* r's family's nparams and nlisted (all its args by default) */
int rp_nparams(const struct rprobe *r);
int rp_nlisted(const struct rprobe *r);
/* Does probe p have a point with all of flags? Every point? */
bool probe_has(struct session *s, const struct probe *p, unsigned int flags);
bool probe_all(struct session *s, const struct probe *p, unsigned int flags);
#define TARGET_PROCFS 8		/* N_TARGET flags: $value of a procfs probe */
#define TARGET_NF_LOCAL 16	/* N_TARGET flags: netfilter $verdict op= or ++ */

/* ---- deref.c: $var->member, @cast, &, @defined, $var$ (pass 2) -------- */
enum dstep_op { DS_LOAD, DS_ADD, DS_INDEX };
struct dstep {
	enum dstep_op op;
	int64_t n;		/* DS_ADD: bytes; DS_INDEX: element size */
	struct node *idx;	/* DS_INDEX: the index */
};
enum dres { DR_READ, DR_ADDR, DR_PRETTY };
#define DEREF_ADDR 4		/* N_DEREF flags: the operand of '&' */
#define DEREF_WRITTEN 8		/* N_DEREF flags: an autocast stored to */
#define DEREF_OPASSIGN 16	/* N_DEREF flags: ... by 'op=', '++' or '--',
				 * whose line << 20 | column is in len */

/* The walk again, unmerged and by BTF names, for CO-RE relocations
 * (--runtime=bpf): a pointer load, a member of the aggregate `type`
 * (its name and `mtype`), or an index of `type` elements (through a
 * pointer, or of an array member). */
enum dcore_op { DC_LOAD, DC_MEMBER, DC_INDEX };
struct dcore {
	enum dcore_op op;
	unsigned int type, mtype;
	const char *name;
	struct node *idx;
	bool ptr;
};

struct btf;
struct btf_type;
struct deref {
	const struct btf *btf;
	struct dstep *steps;
	int nsteps, cap;
	enum dres res;
	int width;		/* DR_READ */
	bool is_signed;
	int bit_off, bit_size;	/* a bit field */
	unsigned int type;	/* the final type */
	bool lvalue;		/* acc is the address of a `type` (else its value) */
	bool addr;		/* under '&' */
	bool user;		/* in user memory (process() probes) */
	bool dwarf;		/* its types are the kernel's DWARF (4.8's
				 * dwarf_pretty_print rules, tr_pretty.c) */
	int pretty;		/* 1 '$', 2 '$$' */
	const struct rprobe *parms;	/* $$parms$: the point whose arguments */
	struct dcore *core;	/* the CO-RE walk (not compared: same steps) */
	int ncore, ccore;
	/* ... one point per group of points with the same arguments
	 * (elab_pretty_group), parms the first */
	const struct rprobe **groups;
	int ngroups;
};

/* The C type of a value, 4.8's "type details" (autocast.c): ->member
 * and [i] on it walk from there. */
struct autocast {
	const struct btf *btf;
	unsigned int type;
	bool lv;		/* the value is the address of a `type` (else a `type`) */
	bool cast;		/* ... and a first [i] indexes from it, as @cast's */
	bool user;		/* in user memory */
	bool conflict;		/* given two different types: none */
};

const struct btf_type *deref_skip(const struct btf *btf, unsigned int *id);
bool deref_value_type(const struct deref *d, struct autocast *t);
void elab_defer_typed(struct session *s, const struct node *n, struct loc at, const char *msg);
void elab_flush_typed(struct session *s);
bool elab_autocast(struct session *s, struct node *n, const struct autocast *t,
		   struct loc *at, const char **err);
struct loc elab_autocast_loc(const struct node *n, const struct node *c);
/* autocast.c: type every autocast of the script, or say why not */
bool elab_is_autocast(const struct node *n);
void elab_autocasts(struct session *s);
bool deref_is_typed(const struct node *n);
void elab_deref(struct session *s, struct probe *p, struct node *n, bool written);
void elab_cast_alone(struct session *s, struct probe *p, struct node *n);
const struct autocast *elab_cast_addr(struct session *s, struct probe *p,
				      struct node *n);
bool elab_no_points(struct session *s, struct probe *p);
bool elab_cast_probe_module(struct session *s, const struct probe *p);
bool elab_cast_own_types(struct session *s, const struct probe *p);
/* a $var in a function no probe copied (4.8: "unresolved target-symbol
 * expression"), with its name */
/* @entry outside .return probes, in 4.8's words */
#define ELAB_ENTRY_NOT_RETURN "internal error: @entry is only valid in .return probes"
bool elab_all_return(struct session *s, const struct probe *p);
#define ELAB_TARGET_IN_FUNCTION "unresolved target-symbol expression: target variable '%s' " \
	"in a function that no function or statement probe calls directly"

/* castctx.c: what makes 4.8 copy a function for a probe */
bool elab_holds_target(const struct node *n);
const struct node *elab_bare_cast(const struct node *n);
void elab_check_cast_functions(struct session *s);	/* castctx.c */
bool elab_defined(struct session *s, struct probe *p, struct node *n);
/* n->deref for $var$ (one variable) or $$parms$ (the arguments of the
 * first point; the others must match). */
bool elab_pretty_target(struct session *s, struct probe *p, struct node *n);

/* target.c: @entry(expr) in .return probes; is every point of p a
 * user-space process probe? */
void elab_entry(struct session *s, struct probe *p, struct node *n);
bool entry_in_uprobes(struct session *s, struct probe *p);


/* ---- probepoint.c, listing.c: probe points (pass 2, -l/-L) -------------- */
struct rprobe *resolve_probe_point(struct session *s, struct probe *p,
				   struct probe_point *pp);
bool probe_family_known(struct session *s, const char *name);
bool probe_point_matches(struct session *s, struct probe_point *pp);
/* "no match for probe point", with the nearest known point as a hint */
void probe_point_no_match(struct session *s, const struct probe_point *pp);
bool probe_point_has_wildcard(const struct probe_point *pp);
void check_points(struct session *s);
/* privilege.c: --privilege=stapusr, the used functions and embedded
 * expressions (errors reported); pp_unprivileged, a family's unprivileged
 * hook that allows each of its points */
void check_privilege(struct session *s);
bool pp_unprivileged(const struct pp_comp *c);
int list_probes(struct session *s, FILE *out);

int elaborate(struct session *s);

/* ---- dump.c: --dump-functions, --dump-probe-aliases ---------------------- */
int dump_functions(struct session *s);
int dump_probe_aliases(struct session *s);
/* --dump-probe-types (probetypes.c) */
int dump_probe_types(struct session *s, FILE *out);
void elaborate_print(struct session *s, FILE *out);
int rprobe_entry_count(struct session *s, const struct rprobe *r);
/* the @entry() nodes of the tree n (an @entry inside one is the same
 * value) into v[k...], in tree order (v NULL: only counted); k after them */
int entry_nodes(const struct node *n, const struct node **v, int k);
/* the same for p's body, then the bodies of its function copies (which
 * its entry handler evaluates too); their count */
int probe_entry_nodes(struct session *s, const struct probe *p, const struct node **v);

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
