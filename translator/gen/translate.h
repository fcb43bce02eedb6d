/*
 * translate.h - what pass 3's files share: the generator state and the
 * helpers that write C (translate.c), used by the array and statistics
 * code generation (tr_maps.c).
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
	struct utab *utabs;	/* uprobes.c: user symbol tables written */
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
};

void tr_line(struct gen *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
const char *tr_cstr(struct gen *g, const char *s);
const char *tr_mangle(struct gen *g, const char *prefix, const char *name);
const char *tr_new_tmp(struct gen *g, enum type t);
const char *tr_new_decl(struct gen *g, const char *ctype, const char *suffix);
const char *tr_where(struct gen *g, const struct node *n);
const char *tr_stmt_where(struct gen *g, const struct node *n);
void tr_error_check(struct gen *g, const struct node *n);
const char *tr_var_ref(struct gen *g, const struct var *v);
const char *tr_gen_expr(struct gen *g, struct node *n);
void tr_gen_stmt(struct gen *g, struct node *n);
void tr_store(struct gen *g, const char *dst, const char *val, enum type t);
int64_t stmt_count(struct gen *g, const struct node *n);
int64_t tr_func_count(struct gen *g, struct func *f);
const char *tr_act_where(struct gen *g, const struct node *n);
void tr_act_record(struct gen *g, int k, const char *where, bool update);
void tr_loop_body(struct gen *g, struct node *body, int label);
void tr_unsupported(struct gen *g, const struct node *n);

/* tr_regex.c: =~ and !~ (the programs elab/regex.c compiled) */
void regex_defines(struct session *s, struct strbuf *c);
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

/* usyms.c: -d/--ldd user objects' symbol and unwind tables */
void usyms_emit(struct session *s, struct strbuf *c);
#endif /* TRANSLATE_H */
