/*
 * translate.h - pass 3 (gen/): the generator state and the helpers that
 * write C (translate.c), error locations and calls (tr_sites.c), arrays
 * and statistics (tr_maps.c), typed target expressions (tr_deref.c,
 * tr_pretty.c, tr_entry.c), target variables
 * and the probe table's rows (tr_target.c), which the families' emit
 * hooks write. Built on pass 2 (elab.h).
 */
#ifndef TRANSLATE_H
#define TRANSLATE_H

#include "elab.h"

/* Pass 3: the script as C, written to s->c_file; the error count. */
int translate(struct session *s);

struct gen {
	struct session *s;
	struct strbuf *body;	/* statements of the handler being written */
	struct strbuf tmps;	/* temporaries of its locals struct */
	int ntmp;
	int indent;
	int label;
	int loops[64];		/* continue labels of enclosing loops */
	int nloops;
	struct utab *utabs;	/* process.c: user symbol tables written */
	/* target variable names the handlers use (without '$'), by index */
	const char **tnames;
	int ntnames, captnames;
	/* the probe table: its rows, their number, the runtime parts they
	 * need (STP_HAVE_*), and the points written (for array names) */
	struct strbuf table;
	struct strbuf table_locs;	/* stap -t: each row's probe, where written */
	int ntable, npoints;
	const char *runtimes[16];
	int nruntimes;
	int npptables;		/* tr_pretty.c: pretty-printing tables written */
	struct func *func;	/* NULL in a probe */
	const char *err_label;	/* where a run-time error jumps: out, or a catch */
	int act_pending;	/* MAXACTION: actions not yet charged */
	bool act_finite;	/* loop-free body: checked at entry only */
	/* enclosing foreach loops whose row serves a[k1, ..., kn] directly */
	struct fe_row {
		const struct var *arr;
		const struct node *keys;	/* the loop's key variables */
		const char *ent;		/* C expression of the current row */
	} rows[16];
	int nrows;
	/* the location table stp_locs[]: each distinct error location once
	 * (its entries as C, and a hash of interned texts to indices) */
	struct strbuf locs;
	int nlocs;
	struct loc_slot {
		const char *text;	/* interned: compared by address */
		int index;
	} *loc_hash;
	int loc_cap;
	/* shorthands the code uses (tr_shorthands): print family pieces,
	 * kprobe rows, call stubs (their number) */
	bool used_print, used_kp;
	int nstubs;
	/* their files, each a macro STP_LF<index> of stp_locs[] */
	const char **loc_files;
	int nloc_files;
	/* the handlers written (probe_N), by N: their identity (gen_probe) */
	const char **handlers;
	int nhandlers, caphandlers;
	/* tr_target.c: the stp_targs_N arrays written, by content */
	struct targ_array {
		const char *key;	/* interned initializer */
		int id;			/* its N */
	} *targs;
	int ntargs, captargs;
	struct strbuf stubs;	/* the call_ functions of script functions */
	bool pn_read;		/* embedded C reads c->probe_name (pn()) */
	bool script_o0;		/* the code is big: at -O0 (TR_O0_BYTES) */
	/* tr_shared.c: the user's block of the handler being written, run by
	 * body_<shared_id>; its variables (l->b.l_NAME in the handler); the
	 * body_K functions and their locals structs, by key */
	const struct node *shared;
	int shared_id;
	const struct var *svars[64];
	int nsvars;
	bool in_shared;		/* writing body_K: its variables are l->l_NAME */
	bool shared_next;	/* ... and it has a `next` */
	struct strbuf shared_structs, shared_code;
	const char **bodies;
	int nbodies, capbodies;
	const char **locksets;	/* tr_lockset: by key */
	int nlocksets, caplocksets;
};

void tr_line(struct gen *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
const char *tr_cstr(struct gen *g, const char *s);
const char *tr_mangle(struct gen *g, const char *prefix, const char *name);
const char *tr_new_tmp(struct gen *g, enum type t);
const char *tr_new_decl(struct gen *g, const char *ctype, const char *suffix);
/* The index in stp_locs[] of a location text ("identifier 'f' at x:1:2"),
 * and "stp_locs[N]" (a C expression for c->last_stmt). */
int tr_loc_index(struct gen *g, const char *text);
const char *tr_loc(struct gen *g, const char *text);
const char *tr_where(struct gen *g, const struct node *n);
/* the macros of the generated code (STP_SPEC, STP_ACT_*, STP_FUNCTION...) */
void tr_shorthands(struct gen *g, struct strbuf *c);
/* "operator '/' at file:1:2", the text tr_where enters in the table */
const char *tr_where_text(struct gen *g, const struct node *n);
/* C names of a script function (by prefix: function_, call_...) and of
 * its frame: name and arity, since functions overload by arity */
const char *tr_fn_cname(struct gen *g, const char *prefix, const struct func *f);
const char *tr_frame_type(struct gen *g, const struct func *f);
/* The call n; its result goes to dst (an lvalue of its type), or a new
 * temporary when dst is NULL; returns the result's C expression. */
const char *tr_call(struct gen *g, struct node *n, const char *dst);
/* the location texts of statements (for tr_act_record; not C) */
const char *tr_stmt_where(struct gen *g, const struct node *n);
void tr_error_check(struct gen *g, const struct node *n);
const char *tr_var_ref(struct gen *g, const struct var *v);
const char *tr_gen_expr(struct gen *g, struct node *n);
const char *tr_stable(struct gen *g, const char *v, enum type t, const struct node *later);
void tr_gen_stmt(struct gen *g, struct node *n);
void tr_store(struct gen *g, const char *dst, const char *val, enum type t);
int64_t stmt_count(struct gen *g, const struct node *n);
int64_t tr_func_count(struct gen *g, struct func *f);
const char *tr_act_where(struct gen *g, const struct node *n);
/* charge k actions; `where` is a location text, entered in stp_locs[]
 * only when a check is written */
void tr_act_record(struct gen *g, int k, const char *where, bool update);
void tr_loop_body(struct gen *g, struct node *body, int label);
bool tr_param_by_ref(const struct var *v);
void tr_loop_body_at(struct gen *g, struct node *body, int label,
		     const char *where);
void tr_unsupported(struct gen *g, const struct node *n);

bool tr_has_effects(const struct node *n);
/* Does n (and what follows it) hold an embedded-C expression? Its code
 * is then compiled at -Og even in a big script (stp_runtime.h STP_OPT_EXPR), between
 * TR_OPT_EXPR_BEGIN and TR_OPT_EXPR_END. */
bool tr_has_embed_expr(const struct node *n);
/* generated code (stubs, shared bodies, handlers and functions) from
 * this size on is compiled at -O0 (STP_SCRIPT_O0) */
#define TR_O0_BYTES (64 * 1024)
#define TR_OPT_EXPR_BEGIN "STP_OPT_KERNEL\nSTP_OPT_EXPR\n"
#define TR_OPT_EXPR_END "STP_OPT_KERNEL\nSTP_OPT_SCRIPT\n"
/* an embedded-C function: -O2, -O1 with STP_SCRIPT_O0 (STP_OPT_EMBED) */
#define TR_OPT_EMBED_BEGIN "STP_OPT_KERNEL\nSTP_OPT_EMBED\n"

/* tr_print.c: the print family; sprint*'s string into dst (NULL: a new
 * temporary). tr_into writes the string n into dst (tr_into_ok: it can). */
const char *tr_print(struct gen *g, struct node *n, const char *dst);
bool tr_into_ok(const struct node *n, const struct var *x);
void tr_into(struct gen *g, struct node *n, const char *dst);

bool tr_has_effects(const struct node *n);

/* tr_print.c: the print family; sprint*'s string into dst (NULL: a new
 * temporary). tr_into writes the string n into dst (tr_into_ok: it can). */
const char *tr_print(struct gen *g, struct node *n, const char *dst);
bool tr_into_ok(const struct node *n, const struct var *x);
void tr_into(struct gen *g, struct node *n, const char *dst);

/* tr_shared.c: the user's body of derived probes, one function for the
 * handlers whose copies are alike. tr_shared_find picks p's block (before
 * its handler is written), tr_shared_var says whether v is one of its
 * variables (l->b.l_NAME), tr_shared_call writes the block's call. */
void tr_shared_find(struct gen *g, struct probe *p);
bool tr_shared_var(struct gen *g, const struct var *v);
void tr_shared_call(struct gen *g, struct node *n);
/* A handler's lock and unlock code (tr_probe_locks) as calls of the
 * functions stp_locks_K and stp_unlocks_K, written once per lock set. */
void tr_lockset(struct gen *g, struct strbuf *lock, struct strbuf *unlock);

/* tr_regex.c: =~ and !~ (the programs elab/regex.c compiled) */
void regex_defines(struct session *s, struct strbuf *c);
/* tr_target.c: the defines the runtime depends on (s->rt_defines) */
void tr_runtime_defines(struct gen *g, struct strbuf *c);
void regex_tables(struct session *s, struct strbuf *c);
const char *tr_regex_match(struct gen *g, struct node *n);

/* tr_maps.c: arrays and statistics */
const char *tr_global_ref(struct gen *g, const struct var *v);
const char *tr_index_get(struct gen *g, struct node *n);
const char *tr_index_assign(struct gen *g, struct node *n, const char *arith_op,
			    const char *(*arith)(struct gen *, struct node *,
						 const char *, const char *, const char *,
						 const struct node *));
const char *tr_index_incdec(struct gen *g, struct node *n);
const char *tr_in(struct gen *g, struct node *n);
void tr_delete(struct gen *g, struct node *n);
const char *tr_stat_add(struct gen *g, struct node *n);
const char *tr_stat_op(struct gen *g, struct node *n);
const char *tr_hist_bucket(struct gen *g, struct node *hist, struct node *index);
void tr_hist_check(struct gen *g, struct node *hist, const struct node *at);
void tr_print_hist(struct gen *g, struct node *hist, const char *sink);
bool tr_is_hist(const struct node *n);
void tr_foreach(struct gen *g, struct node *n);
void tr_globals_decl(struct gen *g, struct strbuf *out);
void tr_globals_init(struct gen *g, struct strbuf *out);
void tr_display_global(struct gen *g, const struct var *v);
void tr_probe_locks(struct gen *g, struct probe *p, struct strbuf *lock,
		    struct strbuf *unlock);

/* tr_deref.c, tr_pretty.c, tr_entry.c: typed target expressions */
const char *tr_deref(struct gen *g, struct node *n);
/* A guru-mode store through an N_DEREF (n is the N_ASSIGN). */
const char *tr_deref_assign(struct gen *g, struct node *n);
/* A string temporary holding the pretty print of the `type` at acc
 * (d->lvalue) or of the value acc. */
const char *tr_pretty(struct gen *g, const struct deref *d, const char *acc);
const char *tr_pretty_target(struct gen *g, struct node *n);
/* Write the evaluation of p's @entry expressions into body; returns the
 * bytes they need (a C expression) or NULL when p has none. */
/* every probe's @entry slots (its own and its function copies'), first */
void tr_entry_slots(struct gen *g);
const char *tr_entry_handler(struct gen *g, struct probe *p, struct strbuf *body);
const char *tr_entry_value(struct gen *g, struct node *n);

/* tr_target.c: target variables and the probe table */
const char *tr_target(struct gen *g, struct node *n);
const char *tr_target_set(struct gen *g, struct node *n, const char *val);
const char *tr_target_assign(struct gen *g, struct node *n);
/* ", .pgroup = N" for a row whose probe's $$parms$ differ between its
 * points (r->pgroup, N > 0), else "". */
const char *tr_pgroup(struct gen *g, const struct rprobe *r);
const char *tr_targ_arrays(struct gen *g, struct strbuf *code, const struct rprobe *r,
			   int id, bool parms);
/* "true" when the point was written with "?": the runtime does not warn
 * when it cannot be registered; else "false" */
const char *tr_optional(const struct rprobe *r);
void tr_table_row(struct gen *g, const char *runtime, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void tr_table_macro(struct gen *g, const char *runtime, const char *row);

/* usyms.c: -d/--ldd user objects' symbol and unwind tables */
void usyms_emit(struct session *s, struct strbuf *c);
/* The user objects whose tables usyms_emit writes (-d, the binaries of
 * process probes, with --ldd the libraries they need): their number, at
 * most max, into paths (the module cache keys them). */
int usyms_objects(struct session *s, const char **paths, int max);
#endif /* TRANSLATE_H */
