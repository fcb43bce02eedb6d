/*
 * tr_maps.c - pass 3 for global arrays and statistics: element reads and
 * writes, `in`, delete, foreach, `<<<`, @count and friends, histograms;
 * the globals' declarations, creation and locks. Everything goes through
 * the runtime's map and statistics API (runtime/README.md): a map per
 * global array, a per-CPU statistic per scalar `<<<` global, and a
 * read/write lock per global, which each probe handler takes, all or
 * none, for the globals it touches.
 */
#include <string.h>

#include "translate.h"


static int count(const struct node *n)
{
	int k = 0;

	for (; n; n = n->next)
		k++;
	return k;
}

const char *tr_global_ref(struct gen *g, const struct var *v)
{
	return tr_mangle(g, "g_", v->name);
}

/* The keys of a[k1, k2] into a fresh struct stp_key array; *wild gets a
 * bit for each '*'. */
static const char *gen_keys(struct gen *g, const struct node *args,
			    const struct var *v, unsigned *wild)
{
	const char *k = tr_new_decl(g, "struct stp_key",
				    arena_printf(g->s->arena, "[%d]", count(args)));
	int i = 0;

	if (wild)
		*wild = 0;
	for (const struct node *a = args; a; a = a->next, i++) {
		const char *e;

		if (a->kind == N_WILDCARD) {
			if (wild)
				*wild |= 1u << i;
			continue;
		}
		e = tr_gen_expr(g, (struct node *)a);
		tr_line(g, "%s[%d].%c = %s;", k, i, v->keys[i] == T_STRING ? 's' : 'n', e);
	}
	return k;
}

/* upstream's words: the size limit of a sized array, else MAXMAPENTRIES */
static const char *overflow_msg(struct gen *g, const struct var *v)
{
	if (v->maxsize)
		return arena_printf(g->s->arena, "\"Array overflow, check size limit (%lld)\"",
				    (long long)v->maxsize);
	return "\"Array overflow, check MAXMAPENTRIES\"";
}

static void overflow_check(struct gen *g, const char *call, const struct node *at)
{
	tr_line(g, "if (unlikely(%s < 0)) {", call);
	tr_line(g, "\tc->last_error = %s;", overflow_msg(g, at->var));
	tr_line(g, "\tc->last_stmt = %s;", tr_where(g, at));
	tr_line(g, "\tgoto %s;", g->err_label);
	tr_line(g, "}");
}

/* Inside foreach over v whose keys are k1..kn: a[k1, ..., kn] is the
 * current row (the array cannot change in the loop), or NULL. */
static const char *foreach_row(struct gen *g, const struct node *n)
{
	for (int r = g->nrows - 1; r >= 0; r--) {
		const struct fe_row *fr = &g->rows[r];
		const struct node *a = n->args, *k = fr->keys;

		if (fr->arr != n->var)
			continue;
		for (; a && k; a = a->next, k = k->next)
			if (a->kind != N_VAR || a->var != k->var)
				break;
		if (!a && !k)
			return fr->ent;
	}
	return NULL;
}

/* a[k] as a value */
const char *tr_index_get(struct gen *g, struct node *n)
{
	const struct var *v = n->var;
	const char *row = foreach_row(g, n), *k, *t;

	if (row)
		return arena_printf(g->s->arena, "stp_entry_%s(%s)",
				    v->type == T_STRING ? "str" : "long", row);
	k = gen_keys(g, n->args, v, NULL);

	if (v->type == T_STRING) {
		t = tr_new_tmp(g, T_STRING);
		tr_line(g, "stp_map_get_str(%s, %s, %s);", tr_global_ref(g, v), k, t);
		return t;
	}
	t = tr_new_tmp(g, T_LONG);
	tr_line(g, "%s = stp_map_get_long(%s, %s);", t, tr_global_ref(g, v), k);
	return t;
}

static void set_value(struct gen *g, const struct var *v, const char *k,
		      const char *val, const struct node *at)
{
	const char *call = arena_printf(g->s->arena, "stp_map_set_%s(%s, %s, %s)",
					v->type == T_STRING ? "str" : "long",
					tr_global_ref(g, v), k, val);

	overflow_check(g, call, at);	/* at: the a[k] node */
}

/* a[k] = v, a[k] op= v, a[k] <<< v */
const char *tr_index_assign(struct gen *g, struct node *n, const char *arith_op,
			    const char *(*arith)(struct gen *, struct node *,
						 const char *, const char *, const char *,
						 const struct node *))
{
	struct node *lhs = n->a;
	const struct var *v = lhs->var;
	const char *k = gen_keys(g, lhs->args, v, NULL), *b = tr_gen_expr(g, n->b);
	const char *old, *t;

	if (!strcmp(n->op, "<<<")) {
		overflow_check(g, arena_printf(g->s->arena, "stp_map_add_stat(%s, %s, %s)",
					       tr_global_ref(g, v), k, b), lhs);
		return b;
	}
	if (v->type == T_STRING) {
		t = tr_new_tmp(g, T_STRING);
		if (!strcmp(n->op, ".=")) {
			tr_line(g, "stp_map_get_str(%s, %s, %s);", tr_global_ref(g, v), k, t);
			tr_line(g, "stp_str_cat(%s, %s);", t, b);
		} else {
			tr_store(g, t, b, T_STRING);
		}
		set_value(g, v, k, t, lhs);
		return t;
	}
	t = tr_new_tmp(g, T_LONG);
	if (arith_op && (!strcmp(arith_op, "+") || !strcmp(arith_op, "-"))) {
		/* one lookup: the row's value moves by +-b */
		old = tr_new_tmp(g, T_LONG);
		if (arith_op[0] == '-')
			b = arena_printf(g->s->arena, "(int64_t)(0 - (uint64_t)%s)", b);
		overflow_check(g, arena_printf(g->s->arena, "stp_map_add_long(%s, %s, %s, &%s)",
					       tr_global_ref(g, v), k, b, old), lhs);
		tr_line(g, "%s = (int64_t)((uint64_t)%s + (uint64_t)%s);", t, old, b);
		return t;
	}
	if (arith_op) {
		old = tr_new_tmp(g, T_LONG);
		tr_line(g, "%s = stp_map_get_long(%s, %s);", old, tr_global_ref(g, v), k);
		b = arith(g, n->b, arith_op, old, b, n->b);	/* 4.8 blames the operand */
	}
	tr_line(g, "%s = %s;", t, b);
	set_value(g, v, k, t, lhs);
	return t;
}

/* a[k]++ and friends */
const char *tr_index_incdec(struct gen *g, struct node *n)
{
	struct node *lhs = n->a;
	const struct var *v = lhs->var;
	const char *k = gen_keys(g, lhs->args, v, NULL);
	const char *old = tr_new_tmp(g, T_LONG), *nv = tr_new_tmp(g, T_LONG);

	overflow_check(g, arena_printf(g->s->arena, "stp_map_add_long(%s, %s, %s, &%s)",
				       tr_global_ref(g, v), k,
				       n->op[0] == '+' ? "1" : "-1", old), lhs);
	tr_line(g, "%s = (int64_t)((uint64_t)%s %c 1);", nv, old, n->op[0]);
	return n->flags ? old : nv;
}

/* [k1, k2] in a; [k1, *] in a: any row with key 1 k1 */
const char *tr_in(struct gen *g, struct node *n)
{
	const struct var *v = n->a->var;
	unsigned wild;
	const char *k = gen_keys(g, n->args, v, &wild);

	if (wild)
		return arena_printf(g->s->arena, "((int64_t)stp_map_exists_matching(%s, %s, %uu))",
				    tr_global_ref(g, v), k, wild);
	return arena_printf(g->s->arena, "((int64_t)stp_map_exists(%s, %s))",
			    tr_global_ref(g, v), k);
}

/* delete a[k] | a[k, *] | a | scalar */
void tr_delete(struct gen *g, struct node *n)
{
	struct node *a = n->a;
	struct var *v = a->var;
	unsigned wild;
	const char *k;

	if (a->kind == N_INDEX) {
		k = gen_keys(g, a->args, v, &wild);
		if (wild)
			tr_line(g, "stp_map_delete_matching(%s, %s, %uu);", tr_global_ref(g, v),
				k, wild);
		else
			tr_line(g, "stp_map_delete(%s, %s);", tr_global_ref(g, v), k);
	} else if (v->array) {
		tr_line(g, "stp_map_clear(%s);", tr_global_ref(g, v));
	} else if (v->type == T_STATS) {
		tr_line(g, "stp_stat_clear(%s);", tr_global_ref(g, v));
	} else if (v->type == T_STRING) {
		tr_line(g, "%s[0] = '\\0';", tr_var_ref(g, v));
	} else {
		tr_line(g, "%s = 0;", tr_var_ref(g, v));
	}
}

/* s <<< v on a scalar statistic */
const char *tr_stat_add(struct gen *g, struct node *n)
{
	const char *b = tr_gen_expr(g, n->b);

	tr_line(g, "stp_stat_add(%s, %s);", tr_global_ref(g, n->a->var), b);
	return b;
}

/* The statistic an expression (s or a[k]) names: a const struct stp_stat *. */
static const char *stat_of(struct gen *g, struct node *arg)
{
	const char *t = tr_new_decl(g, "const struct stp_stat *", "");

	if (arg->kind == N_INDEX && foreach_row(g, arg)) {
		tr_line(g, "%s = stp_entry_stat(%s);", t, foreach_row(g, arg));
	} else if (arg->kind == N_INDEX) {
		const char *k = gen_keys(g, arg->args, arg->var, NULL);

		tr_line(g, "%s = stp_map_get_stat(%s, %s);", t, tr_global_ref(g, arg->var), k);
	} else {
		tr_line(g, "%s = stp_stat_get(%s);", t, tr_global_ref(g, arg->var));
	}
	return t;
}

static char stat_letter(const char *op)
{
	if (!strcmp(op, "@count"))
		return 'c';
	if (!strcmp(op, "@sum"))
		return 's';
	if (!strcmp(op, "@min"))
		return 'm';
	if (!strcmp(op, "@max"))
		return 'M';
	return 'a';
}

static const char *spec_ref(struct gen *g, const struct var *v)
{
	return arena_printf(g->s->arena, "&%s", tr_mangle(g, "spec_", v->name));
}

/* @count(s) ... @variance(s[, shift]) */
const char *tr_stat_op(struct gen *g, struct node *n)
{
	const char *st = stat_of(g, n->args), *t = tr_new_tmp(g, T_LONG);

	if (!strcmp(n->op, "@variance"))
		tr_line(g, "%s = stp_stat_variance(c, %s, %s);", t, st,
			n->args->next ? tr_gen_expr(g, n->args->next) : "0");
	else
		tr_line(g, "%s = stp_stat_op(c, %s, '%c');", t, st, stat_letter(n->op));
	tr_error_check(g, n);
	return t;
}

/* @hist_log(s)[i] */
const char *tr_hist_bucket(struct gen *g, struct node *hist, struct node *index)
{
	const char *st = stat_of(g, hist->args), *i = tr_gen_expr(g, index);
	const char *t = tr_new_tmp(g, T_LONG);

	tr_line(g, "%s = stp_stat_hist_bucket(c, %s, %s, %s);", t, st,
		spec_ref(g, hist->args->var), i);
	tr_error_check(g, hist);
	return t;
}

/* print(@hist_log(s)): an empty statistic is an error at the print call
 * (`at`), checked with the other arguments, before anything is printed */
void tr_hist_check(struct gen *g, struct node *hist, const struct node *at)
{
	const char *st = stat_of(g, hist->args);

	tr_line(g, "if (!%s || !%s->count) {", st, st);
	tr_line(g, "\tc->last_error = \"empty aggregate\";");
	tr_line(g, "\tc->last_stmt = %s;", tr_where(g, at));
	tr_line(g, "\tgoto %s;", g->err_label);
	tr_line(g, "}");
}

void tr_print_hist(struct gen *g, struct node *hist, const char *sink)
{
	tr_line(g, "stp_stat_print_hist(%s, %s, %s);", sink, stat_of(g, hist->args),
		spec_ref(g, hist->args->var));
}

bool tr_is_hist(const struct node *n)
{
	return n->kind == N_CALL && !strncmp(n->op, "@hist_", 6);
}

/* ---- foreach ----------------------------------------------------------------------- */

static void store_entry(struct gen *g, const char *dst, enum type t,
			const char *ent, int key)
{
	if (key < 0)
		tr_store(g, dst, arena_printf(g->s->arena, "stp_entry_%s(%s)",
					      t == T_STRING ? "str" : "long", ent), t);
	else
		tr_store(g, dst, arena_printf(g->s->arena, "stp_entry_key_%s(%s, %d)",
					      t == T_STRING ? "str" : "long", ent, key), t);
}

/* Slice filter: skip entries whose fixed keys differ. */
static void slice_filter(struct gen *g, struct node *arr, const char *ent)
{
	int i = 0;

	if (arr->kind != N_INDEX)
		return;
	for (struct node *a = arr->args; a; a = a->next, i++) {
		const char *e;

		if (a->kind == N_WILDCARD)
			continue;
		e = tr_gen_expr(g, a);
		if (arr->var->keys[i] == T_STRING)
			tr_line(g, "if (strcmp(stp_entry_key_str(%s, %d), %s))\n\t\t\tcontinue;",
				ent, i, e);
		else
			tr_line(g, "if (stp_entry_key_long(%s, %d) != %s)\n\t\t\tcontinue;",
				ent, i, e);
	}
}

/* A foreach loop's body, `continue` label and action count, and the end of
 * the C loop the caller opened. */
static void foreach_body(struct gen *g, struct node *n, int label)
{
	tr_loop_body(g, n->d, label);
	g->indent--;
	tr_line(g, "}");
}

/* foreach ([v =] b in @hist_log(s) | @hist_linear(s, ...) [limit n]):
 * every bucket index in ascending order, whatever sort is asked (as 4.8:
 * all 128 of a log histogram, and the under- and overflow buckets of a
 * linear one), v its count. */
static void foreach_hist(struct gen *g, struct node *n)
{
	struct node *h = n->a;
	const char *st = stat_of(g, h->args), *spec = spec_ref(g, h->args->var);
	const char *nb = tr_new_tmp(g, T_LONG), *i = tr_new_tmp(g, T_LONG);
	const char *lim = n->c ? tr_gen_expr(g, n->c) : "-1";
	const char *left = tr_new_tmp(g, T_LONG);
	int label = g->label++;

	tr_act_record(g, 1, tr_act_where(g, n), true);
	tr_line(g, "%s = stp_stat_hist_nbuckets(%s);", nb, spec);
	tr_line(g, "%s = %s;", left, lim);
	tr_line(g, "for (%s = 0; %s < %s; %s++) {", i, i, nb, i);
	g->indent++;
	tr_line(g, "if (%s >= 0 && %s-- == 0)", left, left);
	tr_line(g, "	break;");
	tr_line(g, "%s = %s;", tr_var_ref(g, n->args->var), i);
	if (n->b) {
		tr_line(g, "%s = stp_stat_hist_bucket(c, %s, %s, %s);",
			tr_var_ref(g, n->b->var), st, spec, i);
		tr_error_check(g, h);
	}
	foreach_body(g, n, label);
}

static bool is_key_var(const struct node *keys, const struct var *v)
{
	for (; keys; keys = keys->next)
		if (keys->var == v)
			return true;
	return false;
}

/* Could the body of a foreach over arr with these keys leave a[k1..kn]
 * other than the current row: a key variable written, or (statistics, whose
 * rows a new aggregation reuses) arr walked again or a function called? */
static bool row_unstable(const struct node *n, const struct node *keys,
			 const struct var *arr)
{
	for (; n; n = n->next) {
		const struct node *t = NULL;

		if (n->kind == N_ASSIGN || n->kind == N_INCDEC || n->kind == N_DELETE)
			t = n->a;
		if (t && t->kind == N_VAR && is_key_var(keys, t->var))
			return true;
		if ((n->kind == N_TRY || n->kind == N_FOREACH) && n->var &&
		    is_key_var(keys, n->var))
			return true;
		if (n->kind == N_FOREACH) {
			for (const struct node *k = n->args; k; k = k->next)
				if (is_key_var(keys, k->var))
					return true;
			if (n->b && is_key_var(keys, n->b->var))
				return true;
			if (arr->type == T_STATS && n->a->var == arr)
				return true;
		}
		if (arr->type == T_STATS && n->kind == N_CALL && n->func &&
		    n->func->body->kind != N_EMBEDDED_STMT)
			return true;
		if (row_unstable(n->a, keys, arr) || row_unstable(n->b, keys, arr) ||
		    row_unstable(n->c, keys, arr) || row_unstable(n->d, keys, arr) ||
		    row_unstable(n->args, keys, arr))
			return true;
	}
	return false;
}

/* The loop variables of this iteration from row ent, then the body. */
static void foreach_row_body(struct gen *g, struct node *n, const char *ent,
			     int label)
{
	struct var *v = n->a->var;
	int k = 0;
	bool row;

	slice_filter(g, n->a, ent);
	for (struct node *key = n->args; key; key = key->next, k++)
		store_entry(g, tr_var_ref(g, key->var), key->var->type, ent, k);
	if (n->b)
		store_entry(g, tr_var_ref(g, n->b->var), n->b->var->type, ent, -1);
	row = g->nrows < 16 && !row_unstable(n->d, n->args, v);
	if (row)
		g->rows[g->nrows++] = (struct fe_row){ v, n->args, ent };
	foreach_body(g, n, label);
	if (row)
		g->nrows--;
}

/* Unsorted: walk the map's list itself (the body cannot change the map). */
static void foreach_list(struct gen *g, struct node *n, const char *lim)
{
	const char *m = tr_global_ref(g, n->a->var);
	const char *ent = tr_new_decl(g, "struct stp_map_entry *", "");
	const char *left = n->c ? tr_new_tmp(g, T_LONG) : NULL;
	int label = g->label++;

	tr_act_record(g, 1, tr_act_where(g, n), true);
	if (left)
		tr_line(g, "%s = %s;", left, lim);
	tr_line(g, "for (%s = stp_map_first(%s); %s; %s = stp_map_next(%s, %s)) {",
		ent, m, ent, ent, m, ent);
	g->indent++;
	if (left) {
		tr_line(g, "if (%s >= 0 && %s-- == 0)", left, left);
		tr_line(g, "	break;");
	}
	foreach_row_body(g, n, ent, label);
}

static void foreach_map(struct gen *g, struct node *n)
{
	struct var *v = n->a->var;
	const char *ents, *cnt, *i, *ent;
	const char *lim = n->c ? tr_gen_expr(g, n->c) : "-1";
	char agg = n->str ? stat_letter(n->str) : (v && v->type == T_STATS ? 'c' : 0);
	int label;

	if (!v) {
		tr_unsupported(g, n);
		return;
	}
	if (n->num == 0) {
		foreach_list(g, n, lim);
		return;
	}
	ents = tr_new_decl(g, "struct stp_map_entry **", "");
	cnt = tr_new_tmp(g, T_LONG);
	i = tr_new_tmp(g, T_LONG);
	label = g->label++;
	tr_act_record(g, 1, tr_act_where(g, n), true);
	tr_line(g, "%s = stp_map_sorted(%s, %lld, %d, %d, %s, &%s);", cnt,
		tr_global_ref(g, v), (long long)n->num, n->flags == '-' ? -1 : 1,
		agg, lim, ents);
	ent = tr_new_decl(g, "struct stp_map_entry *", "");
	tr_line(g, "for (%s = 0; %s < %s; %s++) {", i, i, cnt, i);
	g->indent++;
	tr_line(g, "%s = %s[%s];", ent, ents, i);
	foreach_row_body(g, n, ent, label);
}

void tr_foreach(struct gen *g, struct node *n)
{
	if (tr_is_hist(n->a) && n->args && !n->args->next)
		foreach_hist(g, n);
	else
		foreach_map(g, n);
}

/* ---- declarations, creation, locks -------------------------------------------------- */

/* "sl...": the kinds of v's keys, in the session arena */
static const char *keykinds(struct gen *g, const struct var *v)
{
	char *buf = arena_alloc(g->s->arena, (size_t)v->arity + 1);

	for (int i = 0; i < v->arity; i++)
		buf[i] = v->keys[i] == T_STRING ? 's' : 'l';
	return buf;
}

/* static declarations of the arrays, statistics and locks */
void tr_globals_decl(struct gen *g, struct strbuf *out)
{
	for (struct var *v = g->s->globals; v; v = v->next) {
		const char *m = tr_global_ref(g, v);

		if (v->type == T_STATS || v->array)
			sb_printf(out, "static const struct stp_stat_spec %s = { %d, %lldLL, %lldLL, %lldLL, %d, %d };\n",
				  tr_mangle(g, "spec_", v->name), v->hist,
				  (long long)v->hist_lo, (long long)v->hist_hi,
				  (long long)v->hist_step, v->variance_shift, v->variance);
		if (v->array)
			sb_printf(out, "static struct stp_map *%s;\n", m);
		else if (v->type == T_STATS)
			sb_printf(out, "static struct stp_stat_var *%s;\n", m);
		sb_printf(out, "static struct stp_lock %s_lock;\n", m);
	}
}

/* stp_globals_init/exit: made at module load, freed at unload */
void tr_globals_init(struct gen *g, struct strbuf *out)
{
	sb_puts(out, "static int stp_globals_init(void)\n{\n");
	for (struct var *v = g->s->globals; v; v = v->next) {
		const char *m = tr_global_ref(g, v);

		sb_printf(out, "\tstp_lock_init(&%s_lock);\n", m);
		if (v->array)
			sb_printf(out, "\t%s = stp_map_new(\"%s\", %s, %lldLL, %s, %s);\n"
				  "\tif (!%s)\n\t\treturn -ENOMEM;\n", m, keykinds(g, v),
				  v->type == T_STRING ? "STP_VAL_STR" :
				  v->type == T_STATS ? "STP_VAL_STAT" : "STP_VAL_LONG",
				  (long long)v->maxsize, v->wrap ? "true" : "false",
				  v->type == T_STATS ? spec_ref(g, v) : "NULL", m);
		else if (v->type == T_STATS)
			sb_printf(out, "\t%s = stp_stat_new(%s);\n\tif (!%s)\n\t\treturn -ENOMEM;\n",
				  m, spec_ref(g, v), m);
	}
	sb_puts(out, "\treturn 0;\n}\n\nstatic void stp_globals_exit(void)\n{\n");
	for (struct var *v = g->s->globals; v; v = v->next) {
		const char *m = tr_global_ref(g, v);

		if (v->array)
			sb_printf(out, "\tif (%s)\n\t\tstp_map_free(%s);\n", m, m);
		else if (v->type == T_STATS)
			sb_printf(out, "\tif (%s)\n\t\tstp_stat_free(%s);\n", m, m);
	}
	sb_puts(out, "}\n\n");
}

/* Which globals a handler touches, and how: reads share a lock, writes
 * (and reading a statistic's aggregate) take it alone. Called functions
 * count as part of the handler. */
struct access {
	struct var **vars;
	int *mode;		/* 0 none, 1 read, 2 write */
	int n;
	const struct func *seen[256];
	int nseen;
};

static void touch(struct access *ac, const struct var *v, int mode)
{
	for (int i = 0; i < ac->n; i++) {
		if (ac->vars[i] == v && ac->mode[i] < mode)
			ac->mode[i] = mode;
	}
}

static void walk_access(struct access *ac, const struct node *n);

static void walk_func(struct access *ac, const struct func *f)
{
	for (int i = 0; i < ac->nseen; i++) {
		if (ac->seen[i] == f)
			return;
	}
	if (ac->nseen < 256)
		ac->seen[ac->nseen++] = f;
	if (f->body->kind != N_EMBEDDED_STMT)
		walk_access(ac, f->body);
}

static bool is_add(const struct node *n)
{
	return n->kind == N_ASSIGN && !strcmp(n->op, "<<<");
}

/* Reading a statistics array merges the CPUs' maps: exclusive. */
static int read_mode(const struct var *v)
{
	return v->type == T_STATS && v->array ? 2 : 1;
}

static void walk_access(struct access *ac, const struct node *n)
{
	for (; n; n = n->next) {
		const struct node *t = NULL;

		if ((n->kind == N_VAR || n->kind == N_INDEX) && n->var && n->var->global)
			touch(ac, n->var, read_mode(n->var));
		if (n->kind == N_ASSIGN || n->kind == N_INCDEC || n->kind == N_DELETE)
			t = n->a;
		/* per-CPU statistics: adds share the lock */
		if (t && t->var && t->var->global)
			touch(ac, t->var, is_add(n) ? 1 : 2);
		if (n->kind == N_CALL && n->op[0] == '@' && n->args && n->args->var)
			touch(ac, n->args->var, 2);
		if (n->kind == N_FOREACH && n->a->var)
			touch(ac, n->a->var, read_mode(n->a->var));
		if (n->kind == N_CALL && n->func)
			walk_func(ac, n->func);
		if (is_add(n) && n->a->kind == N_INDEX) {
			walk_access(ac, n->a->args);	/* not the target itself */
			walk_access(ac, n->b);
			continue;
		}
		walk_access(ac, n->a);
		walk_access(ac, n->b);
		walk_access(ac, n->c);
		walk_access(ac, n->d);
		walk_access(ac, n->args);
	}
}

/* The code a handler starts with (take every lock it needs, or give up
 * and count the probe as skipped) and ends with (release them). */
void tr_probe_locks(struct gen *g, struct probe *p, struct strbuf *lock,
		    struct strbuf *unlock)
{
	struct access ac = { 0 };
	int n = 0, taken = 0;

	for (struct var *v = g->s->globals; v; v = v->next)
		n++;
	ac.vars = arena_alloc(g->s->arena, (size_t)(n + 1) * sizeof(*ac.vars));
	ac.mode = arena_alloc(g->s->arena, (size_t)(n + 1) * sizeof(*ac.mode));
	for (struct var *v = g->s->globals; v; v = v->next)
		ac.vars[ac.n++] = v;
	walk_access(&ac, p->body);
	for (int i = 0; i < ac.n; i++) {
		const char *m, *kind;

		if (!ac.mode[i])
			continue;
		m = tr_global_ref(g, ac.vars[i]);
		kind = ac.mode[i] == 2 ? "write" : "read";
		sb_printf(lock, "\tif (!stp_lock_%s(&%s_lock))\n\t\tgoto unlock_%d;\n",
			  kind, m, taken);
		/* unlock in reverse: prepend */
		{
			struct strbuf u;

			sb_init(&u);
			sb_printf(&u, "\tstp_unlock_%s(&%s_lock);\nunlock_%d: __attribute__((unused));\n",
				  kind, m, taken);
			sb_puts(&u, unlock->buf ? unlock->buf : "");
			sb_free(unlock);
			*unlock = u;
		}
		taken++;
	}
	if (taken) {
		struct strbuf u;

		sb_puts(lock, "\tlocked = 1;\n");
		/* a lock we could not take: release the others, skip the probe */
		sb_init(&u);
		sb_puts(&u, unlock->buf);
		sb_puts(&u, "\tif (!locked)\n\t\tstp_probe_skipped();\n");
		sb_free(unlock);
		*unlock = u;
	}
}

/* ---- the exit display of globals written but never read -------------------------- */

static void emit_lit(struct gen *g, const char *text)
{
	tr_line(g, "stp_emit_lit(&sk, %s, %zu);", tr_cstr(g, text), strlen(text));
}

static void emit_quoted(struct gen *g, const char *expr)
{
	tr_line(g, "{ const char *q = %s; stp_emit_lit(&sk, \"\\\"\", 1); stp_emit_lit(&sk, q, strlen(q)); stp_emit_lit(&sk, \"\\\"\", 1); }",
		expr);
}

/* " @count=2 @min=3 @max=5 @sum=8 @avg=4" of the stat expression st */
static void emit_stat_line(struct gen *g, const char *st)
{
	tr_line(g, "stp_emit_lit(&sk, \" @count=\", 8); stp_emit_long(&sk, %s->count, &sp);", st);
	tr_line(g, "stp_emit_lit(&sk, \" @min=\", 6); stp_emit_long(&sk, %s->min, &sp);", st);
	tr_line(g, "stp_emit_lit(&sk, \" @max=\", 6); stp_emit_long(&sk, %s->max, &sp);", st);
	tr_line(g, "stp_emit_lit(&sk, \" @sum=\", 6); stp_emit_long(&sk, %s->sum, &sp);", st);
	tr_line(g, "stp_emit_lit(&sk, \" @avg=\", 6); stp_emit_long(&sk, stp_stat_op(c, %s, 'a'), &sp);", st);
}

static void display_array(struct gen *g, const struct var *v)
{
	const char *m = tr_global_ref(g, v);

	tr_line(g, "{");
	g->indent++;
	tr_line(g, "struct stp_map_entry **e;");
	tr_line(g, "int64_t n = stp_map_sorted(%s, -1, -1, 'c', -1, &e), i;", m);
	tr_line(g, "for (i = 0; i < n; i++) {");
	g->indent++;
	emit_lit(g, arena_printf(g->s->arena, "%s[", v->name));
	for (int k = 0; k < v->arity; k++) {
		if (k)
			emit_lit(g, ",");
		if (v->keys[k] == T_STRING)
			emit_quoted(g, arena_printf(g->s->arena, "stp_entry_key_str(e[i], %d)", k));
		else
			tr_line(g, "stp_emit_long(&sk, stp_entry_key_long(e[i], %d), &sp);", k);
	}
	if (v->type == T_STATS) {
		emit_lit(g, "]");
		emit_stat_line(g, "stp_entry_stat(e[i])");
	} else if (v->type == T_STRING) {
		emit_lit(g, "]=");
		emit_quoted(g, "stp_entry_str(e[i])");
	} else {
		emit_lit(g, "]=");
		tr_line(g, "stp_emit_long(&sk, stp_entry_long(e[i]), &sp);");
	}
	emit_lit(g, "\n");
	g->indent--;
	tr_line(g, "}");
	g->indent--;
	tr_line(g, "}");
}

/* Arrays and statistics in the exit display (scalars: translate.c). */
void tr_display_global(struct gen *g, const struct var *v)
{
	if (v->array) {
		display_array(g, v);
		return;
	}
	tr_line(g, "{");
	g->indent++;
	tr_line(g, "const struct stp_stat *st = stp_stat_get(%s);", tr_global_ref(g, v));
	tr_line(g, "if (st->count) {");
	emit_lit(g, v->name);
	emit_stat_line(g, "st");
	emit_lit(g, "\n");
	tr_line(g, "}");
	g->indent--;
	tr_line(g, "}");
}
