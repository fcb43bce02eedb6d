/*
 * tr_kernel.h - kernel probes (kprobes, kretprobes, tracepoints) and their
 * target variables: the pass-2 check (elaborate.c) and the pass-3 code
 * (translate.c), in tr_kernel.c.
 */
#ifndef TR_KERNEL_H
#define TR_KERNEL_H

#include "translate.h"
#include "kcatalog.h"
#include "udwarf.h"

struct gen;

/* Where a target variable of one probe point comes from. */
#define STP_TARG_GET (-3)	/* a generated getter (uprobes.c) */
struct targ {
	int src;		/* argument index, -2 $return, -3 getter, -1 none */
	int width;
	bool is_signed;
	const char *why;	/* when not available */
};
/* The module-wide target variable names (without '$'), by index. */
int tr_target_names(const char ***names);

/* ---- process.c: the process family ---- */
/* Fill point rp (just added): a function (how 0 plain, 1 .call, 2
 * .return), a statement at addr inside f, an SDT marker. */
void uprobe_fill_function(struct session *s, struct rprobe *rp, struct ubin *b,
			  const struct ufunc *f, int how);
/* The binary a RP_UPROBE point probes (its symbols go into the module as
 * if named with -d, as SystemTap 4.8 does). */
const char *uprobe_binary(const struct rprobe *rp);
void uprobe_fill_statement(struct session *s, struct rprobe *rp, struct ubin *b,
			   const struct ufunc *f, const char *spec, uint64_t addr);
void uprobe_fill_mark(struct session *s, struct rprobe *rp, struct ubin *b,
		      const struct usdt *m);
/* .function("F").label("L"): the label l of f. */
void uprobe_fill_label(struct session *s, struct rprobe *rp, struct ubin *b,
		       const struct ufunc *f, const struct ulabel *l);
/* .function("F").callee("G")[.call]: G's entry when called from one of the
 * n call sites of F in calls (all calling the same function). */
void uprobe_fill_callee(struct session *s, struct rprobe *rp, struct ubin *b,
			const struct ufunc *f, const struct ucall *calls, size_t n,
			bool call);
/* pn() of rp when it is not pp() (the point as -l lists it, without marks). */
void uprobe_set_pn(struct rprobe *rp, const char *pn);
const char *uprobe_pn(const struct rprobe *rp);
/* -p2's comment on rp's address, as 4.8: "pc=.dynamic+0xADDR" (a
 * shared object or PIE) or ".absolute+" (a fixed-address executable). */
const char *uprobe_pc_note(struct session *s, const struct rprobe *rp);
/* -p2's "<-" of rp, as 4.8: the point it became (pp()), or for a .label or
 * .callee probe the point as -l lists it. */
const char *uprobe_origin(const struct rprobe *rp);
/* A PLT entry (.plt("NAME")): pp() is the statement at its address, $$name
 * the function. */
void uprobe_fill_plt(struct session *s, struct rprobe *rp, struct ubin *b,
		     const struct uplt *p);


struct targ utarg_find(struct session *s, const struct rprobe *r, const char *name,
		       const char **body);
bool utarg_lvalue(struct session *s, const struct rprobe *r, const char *name);
const char *utarg_write(struct session *s, const struct rprobe *r, const char *name,
			const char **body);
bool targ_lvalue(struct session *s, const struct rprobe *r, const char *name);
/* stp_targ.width of a struct passed in registers: its size | this (the
 * runtime's value is the address of a copy, stp_uobj()) */
#define STP_TARG_OBJ 0x80
/* A RP_UPROBE point in a kernel module read through its DWARF? */
bool uprobe_is_kernel(const struct rprobe *rp);
int uprobe_nparams(const struct rprobe *r);	/* r->args[0..N) are parameters */
int uprobe_nvars(const struct rprobe *r);	/* parameters and locals */
bool tr_uprobe(struct gen *g, struct strbuf *code, struct strbuf *table,
	       const struct rprobe *r, int id);
const char *uprobe_mark_string(const struct rprobe *r, const char *op);
bool tr_uproc(struct gen *g, struct strbuf *code, struct strbuf *table,
	      const struct rprobe *r);
struct targ uproc_targ(struct session *s, const struct rprobe *r, const char *name);

/* Pass 2: check the target variable n ($name, $$parms...) used in probe p
 * (NULL in a function) against every resolved point of p; sets n->type. */
void elab_target(struct session *s, struct probe *p, struct node *n,
		 bool written);
enum type elab_target_type(const struct node *n);

/* Where $name of point r comes from (NULL if it has none there), and
 * whether $name (op, with the '$') can be read at r (@defined). */
const struct kcat_arg *elab_target_arg(struct session *s, const struct rprobe *r,
				       const char *name);
bool elab_target_defined_at(struct session *s, const struct rprobe *r, const char *op);

/* ---- tr_procfs.c: procfs probes and their $value ---- */
#define TARGET_PROCFS 8		/* N_TARGET flags: $value of a procfs probe */
/* Pass 2: n is $... in a procfs probe p: check it (true), or p is not
 * one (false). */
bool elab_procfs_value(struct session *s, struct probe *p, struct node *n,
		       bool written);
/* Pass 3: $value read in a .write probe; `$value = x` and `$value .= x`
 * in a .read probe (n is the assignment); a probe table entry. */
const char *tr_procfs_value(struct gen *g, struct node *n);
const char *tr_procfs_assign(struct gen *g, struct node *n);
void tr_procfs_probe(struct gen *g, struct strbuf *table, const struct rprobe *r);

/* ---- tr_netfilter.c: netfilter hooks and their context variables ---- */
/* The C values of a point's hook, family and priority (NULL: 0) into rp;
 * else the error (4.8's text). */
const char *nf_resolve(struct session *s, const char *hook, const char *pf,
		       const char *prio, struct rprobe *rp);
const struct kcat_arg *nf_args(struct session *s, int *n);
struct targ nf_targ(const char *name);
bool elab_nf_target(struct session *s, struct probe *p, struct node *n,
		    bool written);
bool elab_nf_probe(struct session *s, struct probe *p);	/* p has netfilter points */
#define TARGET_NF_LOCAL 16	/* N_TARGET flags: netfilter $verdict op= or ++ */
void tr_nf_probe(struct gen *g, struct strbuf *table, const struct rprobe *r,
		 const char *fields);

/* ---- tr_deref.c: $var->member, @cast, &, @defined, pretty printing ---- */
enum dstep_op { DS_LOAD, DS_ADD, DS_INDEX };
struct dstep {
	enum dstep_op op;
	int64_t n;		/* DS_ADD: bytes; DS_INDEX: element size */
	struct node *idx;	/* DS_INDEX: the index */
};
enum dres { DR_READ, DR_ADDR, DR_PRETTY };
#define DEREF_ADDR 4		/* N_DEREF flags: the operand of '&' */

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
	int pretty;		/* 1 '$', 2 '$$' */
	const struct rprobe *parms;	/* $$parms$: the point whose arguments */
};

const struct btf_type *deref_skip(const struct btf *btf, unsigned int *id);
bool deref_is_typed(const struct node *n);
void elab_deref(struct session *s, struct probe *p, struct node *n, bool written);
void elab_cast_alone(struct session *s, struct probe *p, struct node *n);
bool elab_cast_addr(struct session *s, struct probe *p, struct node *n);
bool elab_no_points(struct session *s, struct probe *p);
bool elab_defined(struct session *s, struct probe *p, struct node *n);
const char *tr_deref(struct gen *g, struct node *n);
/* A guru-mode store through an N_DEREF (n is the N_ASSIGN). */
const char *tr_deref_assign(struct gen *g, struct node *n);

/* ---- tr_pretty.c ---- */
/* A string temporary holding the pretty print of the `type` at acc
 * (d->lvalue) or of the value acc. */
const char *tr_pretty(struct gen *g, const struct deref *d, const char *acc);
/* $var$, $var$$, $$parms$, $$parms$$ (pass 2 check, pass 3 value) */
bool elab_pretty_target(struct session *s, struct probe *p, struct node *n);
const char *tr_pretty_target(struct gen *g, struct node *n);

/* ---- tr_entry.c: @entry(expr) in .return probes ---- */
void elab_entry(struct session *s, struct probe *p, struct node *n);
/* Every point of p is a process probe (its @entry is resolve.c's). */
bool entry_in_uprobes(struct session *s, struct probe *p);
/* Write the evaluation of p's @entry expressions into body; returns the
 * bytes they need (a C expression) or NULL when p has none. */
const char *tr_entry_handler(struct gen *g, struct probe *p, struct strbuf *body);
const char *tr_entry_value(struct gen *g, struct node *n);

/* Pass 3: the value of the target variable n in a handler; a write of
 * val to it (guru mode), which is the value of the assignment. */
const char *tr_target(struct gen *g, struct node *n);
const char *tr_target_set(struct gen *g, struct node *n, const char *val);
/* Pass 3: write r's probe table entry (and any code it needs) when r is a
 * kernel probe (RP_KFUNC, RP_KPROBE, RP_TRACEPOINT); false otherwise. */
bool tr_kernel_probe(struct gen *g, struct strbuf *code, struct strbuf *table,
		     const struct rprobe *r);

#endif /* TR_KERNEL_H */
