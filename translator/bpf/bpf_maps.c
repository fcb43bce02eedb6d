/*
 * bpf_maps.c - pass 3 of --runtime=bpf for global arrays: each array a
 * BPF hash map (per-CPU for statistics) of runtime/bpf/stapbpf_maps.h,
 * with a key struct of the script's keys and a value struct (insertion
 * sequence, the key when it is hashed, the value); reads, assignments,
 * ++/--, `in`, delete, `<<<` and @count/@sum/@min/@max/@avg of a row,
 * and the metadata line from which the loader prints the array at exit.
 */
#include <string.h>

#include "bpf.h"

static const char *tmpname(struct bgen *g)
{
	return arena_printf(g->s->arena, "m%d", g->ntmp++);
}

/* "identifier 'a' at F:L:C" */
static const char *at_ident(struct bgen *g, const struct node *n)
{
	return arena_printf(g->s->arena, "identifier '%s' at %s", n->op ? n->op : n->var->name,
			    loc_str(g->s, n->loc));
}

static bool stat_array(const struct var *v)
{
	return v->type == T_STATS;
}

static bool xstat_decl(struct bgen *g, struct strbuf *c, struct var *v);
static long hist_buckets(const struct var *v);
static const char *xstat_args(struct bgen *g, const struct var *v);

/* The array's types and map, and its exit-display line. */
void bm_decl(struct bgen *g, struct strbuf *c, struct var *v)
{
	const char *n = v->name;
	char kinds[10];

	if (v->wrap) {
		diag_error(g->s, v->loc, "wrapping arrays (%%) are not supported by --runtime=bpf "
			   "yet: use the kernel module runtime (--runtime=kernel)");
		g->errors++;
		return;
	}
	if (stat_array(v) && (v->hist || v->variance) && !xstat_decl(g, c, v))
		return;
	sb_printf(c, "struct stp_k_%s {", n);
	for (int k = 0; k < v->arity; k++) {
		kinds[k] = v->keys[k] == T_STRING ? 's' : 'l';
		if (v->keys[k] == T_STRING)
			sb_printf(c, " char k%d[STP_MAXSTR];", k);
		else
			sb_printf(c, " long k%d;", k);
	}
	kinds[v->arity] = 0;
	sb_puts(c, " };\n");
	sb_printf(c, "struct stp_v_%s { long seq; char key[sizeof(struct stp_k_%s) > "
		  "STP_HASH_KEY_MAX ? sizeof(struct stp_k_%s) : 0]; %s };\n", n, n, n,
		  v->type == T_STRING ? "char val[STP_MAXSTR]; char pad[STP_MAXSTR];" :
		  v->type == T_STATS && (v->hist || v->variance) ?
		  arena_printf(g->s->arena, "struct stp_h_%s val;", n) :
		  v->type == T_STATS ? "struct stp_stat val;" : "long val;");
	sb_printf(c, "typedef char stp_mk_%s[sizeof(struct stp_k_%s) > STP_HASH_KEY_MAX ? 16 : "
		  "sizeof(struct stp_k_%s)];\n", n, n, n);
	sb_printf(c, "STP_ARRAY(g_%s, stp_mk_%s, struct stp_v_%s, %s, %d);\n", n, n, n,
		  v->maxsize > 0 ? arena_printf(g->s->arena, "%lld", (long long)v->maxsize) :
		  "STP_MAXMAPENTRIES", stat_array(v) ? 5 : 1);
	if (stat_array(v) && v->hist)	/* @hist_*(a[k...])[i]: -1 when empty */
		sb_printf(c, "struct stp_mkw_%s { stp_mk_%s k; };\n"
			  "__attribute__((noinline)) long stp_hb_%s(struct stp_mkw_%s *kp, long i)\n"
			  "{\n\tlong n = 0, b;\n\n\tif (!kp)\n\t\treturn -1;\n"
			  "\tb = stp_xstat_bucket(&g_%s, kp, __builtin_offsetof(struct stp_v_%s, val), "
			  "%ld, i, &n);\n\treturn n ? b : -1;\n}\n", n, n, n, n, n, n,
			  hist_buckets(v));
	if (v->written && !v->read && !(v->loc.src && v->loc.src->tapset) &&
	    !g->s->no_global_display)
		sb_printf(&g->meta, "array %s g_%s %c %s\n", n, n,
			  v->type == T_STRING ? 's' : v->type == T_STATS ? 't' : 'l', kinds);
}

/*
 * The keys of a[k...] evaluated in order into a key struct in fresh
 * slots; returns the map key's C expression, *kstruct the key struct's.
 */
static const char *keys(struct bgen *g, struct node *args, struct var *v,
			const char **kstruct)
{
	const char *vals[9], *k = tmpname(g), *kh = tmpname(g);
	const char *first = NULL;
	int i = 0, nslots = 2;

	for (struct node *a = args; a && i < 9; a = a->next, i++) {
		if (a->kind == N_WILDCARD) {
			bg_unsupported(g, a, "'*' in array keys");
			vals[i] = "0";
			continue;
		}
		vals[i] = bg_expr(g, a);
		if (a->type == T_STRING && a->next) {	/* read before later keys run */
			const char *t = tmpname(g);

			bg_line(g, "char *%s = %s;", t, bg_slot(g));
			bg_line(g, "stp_strcpy(%s, %s);", t, vals[i]);
			vals[i] = t;
		}
	}
	for (int j = 0; j < v->arity; j++)
		nslots += v->keys[j] == T_STRING;
	for (int j = 0; j < nslots; j++) {
		const char *sl = bg_slot(g);

		if (!first)
			first = sl;
	}
	bg_line(g, "struct stp_k_%s *%s = (void *)%s;", v->name, k, first);
	bg_line(g, "__u64 *%s = (void *)((char *)%s + sizeof(*%s));", kh, k, k);
	for (int j = 0; j < i && j < v->arity; j++) {
		if (v->keys[j] == T_STRING)
			bg_line(g, "stp_key_str(%s->k%d, %s);", k, j, vals[j]);
		else
			bg_line(g, "%s->k%d = %s;", k, j, vals[j]);
	}
	*kstruct = k;
	return arena_printf(g->s->arena, "STP_KEY(%s, %s)", k, kh);
}

/* slots for a value struct of v being inserted */
static const char *value_buf(struct bgen *g, struct var *v)
{
	const char *first = bg_slot(g);
	int n = 4;

	for (int j = 0; j < v->arity; j++)
		n += v->keys[j] == T_STRING;
	for (int j = 1; j < n; j++)
		bg_slot(g);
	return first;
}

/* the row of a[k...], inserted if absent: NULL only on overflow */
static const char *row(struct bgen *g, struct node *ix, const char *kp, const char *ks)
{
	struct var *v = ix->var;
	const char *r = tmpname(g), *full = tmpname(g);

	bg_line(g, "long %s = 0;", full);
	bg_line(g, "struct stp_v_%s *%s = STP_ROW(&g_%s, %s, %s, struct stp_v_%s, %s, &%s);",
		v->name, r, v->name, kp, ks, v->name, value_buf(g, v), full);
	bg_line(g, "if (!%s)", r);
	g->indent++;
	bg_fail(g, arena_printf(g->s->arena, "Array overflow, check %s near %s",
				v->maxsize > 0 ? arena_printf(g->s->arena, "size limit (%lld)",
							      (long long)v->maxsize) :
				"MAXMAPENTRIES", at_ident(g, ix)));
	g->indent--;
	return r;
}

/* a[k...] read: 0 or "" when absent */
const char *bm_read(struct bgen *g, struct node *n)
{
	struct var *v = n->var;
	const char *ks, *kp = keys(g, n->args, v, &ks), *r = tmpname(g), *t = tmpname(g);

	bg_line(g, "struct stp_v_%s *%s = bpf_map_lookup_elem(&g_%s, %s);", v->name, r,
		 v->name, kp);
	if (v->type == T_STRING) {
		bg_line(g, "char *%s = %s;", t, bg_slot(g));
		bg_line(g, "if (%s) stp_strcpy(%s, %s->val); else %s[0] = 0;", r, t, r, t);
	} else {
		bg_line(g, "long %s = %s ? %s->val : 0;", t, r, r);
	}
	return t;
}

/* [k...] in a */
static bool has_wildcard(const struct node *args)
{
	for (; args; args = args->next)
		if (args->kind == N_WILDCARD)
			return true;
	return false;
}

static const char *slice_scan(struct bgen *g, struct node *args, struct var *v, bool del);

const char *bm_in(struct bgen *g, struct node *n)
{
	struct var *v = n->a->var;
	const char *ks, *kp, *t;

	if (has_wildcard(n->args))
		return slice_scan(g, n->args, v, false);
	kp = keys(g, n->args, v, &ks);
	t = tmpname(g);

	bg_line(g, "long %s = bpf_map_lookup_elem(&g_%s, %s) != 0;", t, v->name, kp);
	return t;
}

/* a[k...] = v, op= v, .= v, <<< v */
const char *bm_assign(struct bgen *g, struct node *n, const char *(*arith)(struct bgen *,
		      struct node *, const char *, const char *, const char *))
{
	struct node *ix = n->a;
	struct var *v = ix->var;
	const char *ks, *kp = keys(g, ix->args, v, &ks);	/* keys first, as 4.8 */
	const char *val = bg_expr(g, n->b), *r, *t;
	const char *op = n->op;

	r = row(g, ix, kp, ks);
	if (!strcmp(op, "<<<") && (v->hist || v->variance)) {
		bg_line(g, "stp_xadd_%s(&%s->val, %s);", v->name, r, val);
		return val;
	}
	if (!strcmp(op, "<<<")) {
		bg_line(g, "stp_astat_add(&%s->val, %s);", r, val);
		return val;
	}
	if (v->type == T_STRING) {
		if (!strcmp(op, "="))
			bg_line(g, "stp_strcpy(%s->val, %s);", r, val);
		else
			bg_line(g, "stp_strcat(S, %s->val, %s);", r, val);
		t = tmpname(g);
		bg_line(g, "char *%s = %s;", t, bg_slot(g));
		bg_line(g, "stp_strcpy(%s, %s->val);", t, r);
		return t;
	}
	if (strcmp(op, "=")) {
		const char *old = tmpname(g);

		bg_line(g, "long %s = %s->val;", old, r);
		val = arith(g, n, arena_strndup(g->s->arena, op, strlen(op) - 1), old, val);
	}
	bg_line(g, "%s->val = %s;", r, val);
	return val;
}

/* a[k...] as a long lvalue (++ and --): its row, inserted if absent */
const char *bm_lvalue(struct bgen *g, struct node *ix)
{
	const char *ks, *kp = keys(g, ix->args, ix->var, &ks);

	return arena_printf(g->s->arena, "%s->val", row(g, ix, kp, ks));
}


/*
 * A slice a[k, *...]: its keys evaluated in order into scratch slots, and
 * into test the C of a callback that returns 0 for a row (its key struct
 * K) outside the slice.
 */
static void slice(struct bgen *g, struct node *args, struct var *v, struct strbuf *test)
{
	int j = 0;

	for (struct node *a = args; a && j < v->arity; a = a->next, j++) {
		const char *val, *sl;

		if (a->kind == N_WILDCARD)
			continue;
		val = bg_expr(g, a);
		sl = bg_slot(g);
		if (v->keys[j] == T_STRING) {
			bg_line(g, "stp_strcpy(%s, %s);", sl, val);
			sb_printf(test, "\tif (stp_strcmp(K->k%d, %s))\n\t\treturn 0;\n", j, sl);
		} else {
			bg_line(g, "*(long *)%s = %s;", sl, val);
			sb_printf(test, "\tif (K->k%d != *(long *)%s)\n\t\treturn 0;\n", j, sl);
		}
	}
}

/* [k, *...] in a (1 if a row is in the slice), or delete a[k, *...] */
static const char *slice_scan(struct bgen *g, struct node *args, struct var *v, bool del)
{
	struct strbuf test;
	int id = g->fe_count++;
	const char *t = tmpname(g);

	sb_init(&test);
	slice(g, args, v, &test);
	sb_printf(&g->fe_code, "static long stp_slice_cb_%d(void *map, void *key, struct stp_v_%s *row, "
		  "long *found)\n{\n\t__u32 cpu = bpf_get_smp_processor_id();\n"
		  "\tstruct stp_scratch *S = bpf_map_lookup_elem(&stp_scratch, &cpu);\n"
		  "\tstruct stp_k_%s *K = sizeof(row->key) ? (void *)row->key : key;\n\n"
		  "\tif (!S)\n\t\treturn 1;\n%s", id, v->name, v->name, test.buf ? test.buf : "");
	sb_printf(&g->fe_code, del ? "\tbpf_map_delete_elem(map, key);\n\treturn 0;\n}\n\n" :
		  "\t*found = 1;\n\treturn 1;\n}\n\n");
	sb_free(&test);
	bg_line(g, "long %s = 0;", t);
	bg_line(g, "bpf_for_each_map_elem(&g_%s, stp_slice_cb_%d, &%s, 0);", v->name, id, t);
	return t;
}

/* delete a[k...] | delete a | delete a[k, *...] */
void bm_delete(struct bgen *g, struct node *n)
{
	struct node *a = n->a;
	const char *ks, *kp;

	if (a->kind == N_INDEX && has_wildcard(a->args)) {
		slice_scan(g, a->args, a->var, true);
		return;
	}

	if (a->kind == N_VAR) {
		bg_line(g, "bpf_for_each_map_elem(&g_%s, stp_delete_cb, 0, 0);", a->var->name);
		g->delete_cb = true;
		return;
	}
	kp = keys(g, a->args, a->var, &ks);
	bg_line(g, "bpf_map_delete_elem(&g_%s, %s);", a->var->name, kp);
}

/* the definitions the array code needs before the handlers */
void bm_prelude(struct bgen *g, struct strbuf *c)
{
	if (g->delete_cb)	/* before the loop bodies' functions that call it */
		sb_puts(c, "static long stp_delete_cb(void *map, void *key, void *val, void *ctx)\n"
			"{\n\tbpf_map_delete_elem(map, key);\n\treturn 0;\n}\n\n");
	g->delete_cb = false;
	if (g->fe_code.buf)
		sb_puts(c, g->fe_code.buf);
	sb_free(&g->fe_code);
	sb_init(&g->fe_code);
	g->fe_count = 0;
	g->hist_count = 0;
}

/* a statistics row of every CPU together, for @count(a[k...]) and the
 * other extractors: the C name of its struct stp_stat */
const char *bm_stat_get(struct bgen *g, struct node *ix)
{
	struct var *v = ix->var;
	const char *ks, *kp = keys(g, ix->args, v, &ks), *st = tmpname(g);

	bg_line(g, "struct stp_stat %s;", st);
	bg_line(g, "stp_astat_get(&g_%s, %s, &%s, __builtin_offsetof(struct stp_v_%s, val));",
		v->name, kp, st, v->name);
	return st;
}

/* ---- foreach ---------------------------------------------------------------------- */
/*
 * foreach ([k...] in a [sort] limit n) runs in BPF: each iteration is one
 * bpf_for_each_map_elem pass that picks the row that comes next after
 * the previous one in the order (the sort column, then the insertion
 * sequence: a stable sort, and insertion order without a sort), so no
 * buffer of rows is needed and every row is seen once: O(rows^2) work,
 * bounded by MAXACTION iterations as every loop.
 */
static char agg_letter(const char *agg)
{
	if (!agg)
		return 'c';
	if (!strcmp(agg, "@sum"))
		return 's';
	if (!strcmp(agg, "@min"))
		return 'm';
	if (!strcmp(agg, "@max"))
		return 'M';
	if (!strcmp(agg, "@avg"))
		return 'a';
	return 'c';
}

/* Does the tree at n hold a foreach (f) or a target variable (t)? */
static bool holds(const struct node *n, int kind1, int kind2)
{
	for (; n; n = n->next)
		if ((int)n->kind == kind1 || (int)n->kind == kind2 ||
		    holds(n->a, kind1, kind2) || holds(n->b, kind1, kind2) ||
		    holds(n->c, kind1, kind2) || holds(n->d, kind1, kind2) ||
		    holds(n->args, kind1, kind2))
			return true;
	return false;
}

/* the for and while loops under n that can be a function per iteration
 * (*good) and that cannot (*bad) */
static void count_loops(const struct node *n, int *good, int *bad)
{
	for (; n; n = n->next) {
		if (n->kind == N_FOR || n->kind == N_WHILE)
			++*(bg_loop_infn(n) ? good : bad);
		count_loops(n->a, good, bad);
		count_loops(n->b, good, bad);
		count_loops(n->c, good, bad);
		count_loops(n->d, good, bad);
		count_loops(n->args, good, bad);
	}
}

/* Are body's locals kept in scratch, so that its loops' iterations can be
 * global functions of their own that see them: with a foreach, or with
 * for/while loops that all can be (an inline loop over C locals is one
 * the verifier can follow, its bound often a constant it sees) */
static bool holds_loop(const struct node *body)
{
	int good = 0, bad = 0;

	if (holds(body, N_FOREACH, N_FOREACH))
		return true;
	count_loops(body, &good, &bad);
	return good && !bad;
}

/* the code written before the handlers (foreach's and loops' functions),
 * and the number of the next of them */
struct strbuf *bm_code(struct bgen *g, int *id)
{
	*id = g->fe_count++;
	return &g->fe_code;
}

/* A handler's locals: C locals, or with a loop in its body LV[] in
 * scratch slots (and string slots), so that the loop's body can be a
 * function of its own that sees them. */
void bm_locals(struct bgen *g, struct probe *p)
{
	int n = 0;

	sb_free(&g->ldecl);
	sb_init(&g->ldecl);
	g->lv = holds_loop(p->body) ? p->locals : NULL;
	for (struct var *v = p->locals; v; v = v->next)
		n += v->type != T_STRING;
	if (g->lv && n) {
		const char *first = bg_slot(g);

		for (int i = 1; i < n; i++)	/* one slot per long: MAXSTRINGLEN >= 8 */
			bg_slot(g);
		sb_printf(&g->ldecl, "\tlong *LV = (void *)%s;\n", first);
		bg_line(g, "long *LV = (void *)%s;", first);
		for (int i = 0; i < n; i++)
			bg_line(g, "LV[%d] = 0;", i);
	}
	for (struct var *v = p->locals; v; v = v->next) {
		if (v->type == T_STRING) {
			const char *sl = bg_slot(g);

			bg_line(g, "char *l_%s = %s; l_%s[0] = 0;", v->name, sl, v->name);
			sb_printf(&g->ldecl, "\tchar *l_%s = %s;\n", v->name, sl);
		} else if (!g->lv) {
			bg_line(g, "long l_%s = 0;", v->name);
		}
	}
}

/* A script function's locals (parameters too) in LV[] and string slots
 * when its body has a loop, as a handler's (bm_locals()), so that the
 * loop's iteration can be a global function the verifier checks once:
 * their declarations into out; false (C locals) without a loop. */
bool bm_fn_locals(struct bgen *g, struct func *f, struct strbuf *out)
{
	int i = 0;

	sb_free(&g->ldecl);
	sb_init(&g->ldecl);
	g->lv = holds_loop(f->body) ? f->locals : NULL;
	if (!g->lv)
		return false;
	for (struct var *v = f->locals; v; v = v->next, i++) {
		const char *sl = bg_slot(g);	/* one slot per local: LV[i] is in it */

		if (!i) {
			sb_printf(&g->ldecl, "\tlong *LV = (void *)%s;\n", sl);
			sb_printf(out, "\tlong *LV = (void *)%s;\n", sl);
		}
		if (v->type == T_STRING) {
			sl = bg_slot(g);
			sb_printf(&g->ldecl, "\tchar *l_%s = %s;\n", v->name, sl);
			sb_printf(out, "\tchar *l_%s = %s;\n", v->name, sl);
			if (v->param)
				sb_printf(out, "\tstp_strcpy(l_%s, a_%s);\n", v->name, v->name);
			else
				sb_printf(out, "\tl_%s[0] = 0;\n", v->name);
		} else {
			sb_printf(out, "\tLV[%d] = %s%s;\n", i, v->param ? "l_" : "0",
				  v->param ? v->name : "");
		}
	}
	return true;
}

bool bm_foreach(struct bgen *g, struct node *n, int label,
		void (*body)(struct bgen *g, struct node *n, int label))
{
	struct var *v = n->a && (n->a->kind == N_VAR || n->a->kind == N_INDEX) ? n->a->var : NULL;
	int id = g->fe_count++, col = (int)n->num, dir = n->flags == '-' ? -1 : 1;
	bool str_crit = false, stat = v && v->type == T_STATS;
	const char *prev = NULL, *best = NULL, *bkey, *lim = NULL, *left = NULL;
	const char *crit, *A, *fe, *saved_err = NULL;
	struct strbuf fb, *saved = NULL;
	int i = 0, saved_indent = 0;
	bool infn;

	struct strbuf test;

	if (!v || !v->global || !v->array || (stat && n->b)) {
		bg_unsupported(g, n, "this 'foreach'");
		return false;
	}
	sb_init(&test);
	if (n->a->kind == N_INDEX)	/* a slice: its keys evaluated first */
		slice(g, n->a->args, v, &test);
	A = v->name;
	if (col > 0)
		str_crit = v->keys[col - 1] == T_STRING;
	else if (col < 0)
		str_crit = v->type == T_STRING;
	if (n->c) {
		lim = bg_expr(g, n->c);
		left = lim;
	}
	if (str_crit) {
		prev = bg_slot(g);
		best = bg_slot(g);
	}
	fe = bg_slot(g);
	bkey = bg_slot(g);
	for (int j = 0; j < v->arity + 1; j++)
		bg_slot(g);
	/* the criterion of a row (long or string), in the callback */
	if (col > 0 && str_crit)
		crit = arena_printf(g->s->arena, "K->k%d", col - 1);
	else if (col > 0)
		crit = arena_printf(g->s->arena, "K->k%d", col - 1);
	else if (col < 0 && stat)
		crit = "stv";
	else if (col < 0)
		crit = "row->val";
	else
		crit = "0L";
	sb_printf(&g->fe_code, "struct stp_fe_%d { long first, pseq, pv, bseq, bv, found, left; };\n", id);
	sb_printf(&g->fe_code, "static long stp_fe_cb_%d(void *map, void *key, struct stp_v_%s *row, "
		  "void *ctx)\n{\n", id, A);
	sb_puts(&g->fe_code, "\t__u32 cpu = bpf_get_smp_processor_id();\n"
		"\tstruct stp_scratch *S = bpf_map_lookup_elem(&stp_scratch, &cpu);\n"
		"\tlong seq = row->seq, d = 0;\n");
	sb_printf(&g->fe_code, "\tstruct stp_fe_%d *c;\n", id);
	sb_printf(&g->fe_code, "\tstruct stp_k_%s *K = sizeof(row->key) ? (void *)row->key : key;\n", A);
	sb_printf(&g->fe_code, "\n\tif (!S)\n\t\treturn 1;\n\t(void)K;\n\tc = (void *)%s;\n%s", fe,
		  test.buf ? test.buf : "");
	sb_free(&test);
	if (stat) {
		char l = agg_letter(n->str);

		sb_printf(&g->fe_code, "\tstruct stp_stat st;\n\tlong stv;\n"
			  "\tseq = stp_astat_get_seq(map, key, &st, "
			  "__builtin_offsetof(struct stp_v_%s, val));\n", A);
		sb_printf(&g->fe_code, "\tstv = %s;\n", l == 's' ? "st.sum" : l == 'm' ? "st.min" :
			  l == 'M' ? "st.max" : l == 'a' ? "(st.count ? stp_div(st.sum, st.count) : 0)" :
			  "st.count");
		sb_puts(&g->fe_code, "\tif (!st.count)\n\t\treturn 0;\n");
	}
	if (str_crit) {
		sb_printf(&g->fe_code, "\tif (!c->first) {\n\t\td = %d * stp_strcmp(%s, %s);\n"
			  "\t\tif (d < 0 || (!d && seq <= c->pseq))\n\t\t\treturn 0;\n\t}\n",
			  dir, crit, prev);
		sb_printf(&g->fe_code, "\tif (c->found) {\n\t\td = %d * stp_strcmp(%s, %s);\n"
			  "\t\tif (d > 0 || (!d && seq >= c->bseq))\n\t\t\treturn 0;\n\t}\n",
			  dir, crit, best);
		sb_printf(&g->fe_code, "\tstp_strcpy(%s, %s);\n", best, crit);
	} else {
		sb_printf(&g->fe_code, "\tlong cv = %s;\n", crit);
		sb_printf(&g->fe_code, "\tif (!c->first) {\n\t\td = %d * (cv < c->pv ? -1 : cv > c->pv);\n"
			  "\t\tif (d < 0 || (!d && seq <= c->pseq))\n\t\t\treturn 0;\n\t}\n", dir);
		sb_printf(&g->fe_code, "\tif (c->found) {\n\t\td = %d * (cv < c->bv ? -1 : cv > c->bv);\n"
			  "\t\tif (d > 0 || (!d && seq >= c->bseq))\n\t\t\treturn 0;\n\t}\n", dir);
		sb_puts(&g->fe_code, "\tc->bv = cv;\n");
	}
	sb_printf(&g->fe_code, "\tc->found = 1;\n\tc->bseq = seq;\n"
		  "\tbpf_probe_read_kernel(%s, sizeof(stp_mk_%s), key);\n\treturn 0;\n}\n\n",
		  bkey, A);

	/* 4.8 sorts the array's list in place: the rows visited take new
	 * sequence numbers in their sorted order (negative while the loop
	 * runs, so that the selection skips them), and at its end come first,
	 * the rows a limit or break left follow in their old order */
	if (col && !stat)
		sb_printf(&g->fe_code, "static long stp_fe_fixcb_%d(void *map, void *key, "
			  "struct stp_v_%s *row, long *e)\n{\n\trow->seq = row->seq < 0 ? "
			  "-row->seq : row->seq + *e;\n\treturn 0;\n}\n\n"
			  "__attribute__((noinline)) long stp_fe_fix_%d(long unused)\n{\n"
			  "\tlong e = stp_seq;\n\n"
			  "\tbpf_for_each_map_elem(&g_%s, stp_fe_fixcb_%d, &e, 0);\n"
			  "\tstp_seq = 2 * e;\n\treturn unused;\n}\n\n", id, A, id, A, id);
	/* one selection pass: a global function, which the verifier checks
	 * once rather than at each iteration of the loop */
	sb_printf(&g->fe_code, "__attribute__((noinline)) long stp_fe_next_%d(long first)\n{\n"
		  "\t__u32 cpu = bpf_get_smp_processor_id();\n"
		  "\tstruct stp_scratch *S = bpf_map_lookup_elem(&stp_scratch, &cpu);\n"
		  "\tstruct stp_fe_%d *c;\n\tlong x = 0;\n\n"
		  "\tif (!S)\n\t\treturn 0;\n\tc = (void *)%s;\n"
		  "\tif (first)\n\t\tc->first = 1;\n\tc->found = 0;\n"
		  "\tbpf_for_each_map_elem(&g_%s, stp_fe_cb_%d, &x, 0);\n"
		  "\treturn c->found;\n}\n\n", id, id, fe, A, id);
	infn = g->lv && !holds(n->d, N_TARGET, N_DEREF) &&
	       !holds(n->d, N_RETURN, N_RETURN);
	bg_line(g, "struct stp_fe_%d *fe%d = (void *)%s;", id, id, fe);
	if (left)
		bg_line(g, "fe%d->left = %s;", id, left);
	if (infn) {	/* each iteration a global function: checked once */
		saved = g->body;
		saved_indent = g->indent;
		saved_err = g->errlabel;
		g->errlabel = NULL;	/* the function's out: returns 2 */
		sb_init(&fb);
		g->body = &fb;
		g->indent = 1;
		bg_line(g, "struct stp_fe_%d *fe%d = (void *)%s;", id, id, fe);
	} else {
		bg_line(g, "for (int it%d = 0; it%d < STP_MAXACTION + 1; it%d++) {", label, label,
			label);
		g->indent++;
	}
	bg_act(g, n);
	if (left)
		bg_line(g, "if (fe%d->left-- <= 0) %s", id, infn ? "return 1;" : "break;");
	bg_line(g, "if (!stp_fe_next_%d(%s)) %s", id, infn ? "first" :
		arena_printf(g->s->arena, "it%d == 0", label), infn ? "return 1;" : "break;");
	bg_line(g, "fe%d->first = 0; fe%d->pseq = fe%d->bseq; fe%d->pv = fe%d->bv;", id, id, id, id, id);
	if (str_crit)
		bg_line(g, "stp_strcpy(%s, %s);", prev, best);
	bg_line(g, "struct stp_v_%s *r%d = bpf_map_lookup_elem(&g_%s, %s);", A, id, A, bkey);
	bg_line(g, "if (!r%d) %s", id, infn ? "return 0;" : "continue;");
	if (col && !stat)	/* the sort reorders the rows, as 4.8's (see below) */
		bg_line(g, "r%d->seq = -(++stp_seq);", id);
	bg_line(g, "struct stp_k_%s *k%d = sizeof(r%d->key) ? (void *)r%d->key : (void *)%s;",
		A, id, id, id, bkey);
	for (struct node *k = n->args; k && i < v->arity; k = k->next, i++) {
		if (k->kind != N_VAR)
			continue;
		if (v->keys[i] == T_STRING)
			bg_line(g, "stp_strcpy(%s, k%d->k%d);", bg_var_ref(g, k->var), id, i);
		else
			bg_line(g, "%s = k%d->k%d;", bg_var_ref(g, k->var), id, i);
	}
	if (n->b && n->b->kind == N_VAR) {
		if (v->type == T_STRING)
			bg_line(g, "stp_strcpy(%s, r%d->val);", bg_var_ref(g, n->b->var), id);
		else
			bg_line(g, "%s = r%d->val;", bg_var_ref(g, n->b->var), id);
	}
	if (infn) {
		g->loops[g->nloops - 1] = -1 - label;	/* break/continue return */
		g->no_ctx = true;
		body(g, n->d, label);
		g->no_ctx = false;
		g->loops[g->nloops - 1] = label;
		bg_line(g, "return 0;");
		sb_printf(&g->fe_code, "__attribute__((noinline)) long stp_fe_iter_%d(long first)\n{\n"
			  "\t__u32 cpu = bpf_get_smp_processor_id();\n"
			  "\tstruct stp_scratch *S = bpf_map_lookup_elem(&stp_scratch, &cpu);\n"
			  "\tvoid *ctx = 0;\n\n\tif (!S)\n\t\treturn 2;\n\t(void)ctx;\n%s%s"
			  "\tgoto out;\nout:\n\treturn 2;\n}\n\n", id,
			  g->ldecl.buf ? g->ldecl.buf : "", fb.buf ? fb.buf : "");
		sb_free(&fb);
		g->body = saved;
		g->indent = saved_indent;
		g->errlabel = saved_err;
		bg_line(g, "long rc%d = 0;", id);
		bg_line(g, "for (int it%d = 0; it%d < STP_MAXACTION + 2; it%d++) {", label, label,
			label);
		bg_line(g, "\trc%d = stp_fe_iter_%d(it%d == 0);", id, id, label);
		bg_line(g, "\tif (rc%d) break;", id);
		bg_line(g, "}");
		if (col && !stat)
			bg_line(g, "stp_fe_fix_%d(0);", id);
		bg_line(g, "if (rc%d == 2) goto %s;", id, bg_errlabel(g));
		return true;
	}
	body(g, n->d, label);
	bg_line(g, "cont%d: ;", label);
	g->indent--;
	bg_line(g, "}");
	if (col && !stat)
		bg_line(g, "stp_fe_fix_%d(0);", id);
	return true;
}

/* ---- histograms of scalar statistics ---------------------------------------------- */

/* buckets of v's histogram (as runtime/stat.c), 0 if its parameters are invalid */
static long hist_buckets(const struct var *v)
{
	long long n;

	if (v->hist == 1)
		return 128;
	if (v->hist_step <= 0 || v->hist_hi < v->hist_lo)
		return 0;
	n = (v->hist_hi - v->hist_lo) / v->hist_step + 3;
	return n < 3 || n > 128 ? 0 : (long)n;
}

/* a statistic's struct with buckets or @variance (stp_xstat_add): false
 * (an error given) if its histogram cannot be kept */
static bool xstat_decl(struct bgen *g, struct strbuf *c, struct var *v)
{
	long nb = v->hist ? hist_buckets(v) : 0;

	if (v->hist && !nb) {
		diag_error(g->s, v->loc, "these @hist_linear parameters are not supported by "
			   "--runtime=bpf: use the kernel module runtime (--runtime=kernel)");
		g->errors++;
		return false;
	}
	sb_printf(c, "struct stp_h_%s { long count, sum, min, max; long hist[%ld];%s };\n",
		  v->name, nb, v->variance ? " long avg_s, m2, variance_s;" : "");
	/* <<<: a BPF subprogram the verifier checks once, not at each use */
	sb_printf(c, "__attribute__((noinline)) long stp_xadd_%s(struct stp_h_%s *st, long x)\n"
		  "{\n\tif (st)\n\t\tstp_xstat_add((long *)st, x, %s);\n\treturn 0;\n}\n",
		  v->name, v->name, xstat_args(g, v));
	return true;
}

/* stp_xstat_add's parameters for v: kind, lo, step, nb, shift, var */
static const char *xstat_args(struct bgen *g, const struct var *v)
{
	return arena_printf(g->s->arena, "%d, %lldLL, %lldLL, %ld, %d, %d", v->hist,
			    (long long)v->hist_lo, (long long)v->hist_step,
			    v->hist ? hist_buckets(v) : 0L, v->variance_shift, v->variance ? 1 : 0);
}

/* the map of a scalar statistic with buckets or @variance; false if v has
 * neither */
bool bm_stat_decl(struct bgen *g, struct strbuf *c, struct var *v)
{
	if ((!v->hist && !v->variance) || v->array)
		return false;
	if (!xstat_decl(g, c, v))
		return true;
	sb_printf(c, "STP_STATH(g_%s, struct stp_h_%s);\n", v->name, v->name);
	if (v->hist)	/* @hist_*(s)[i]: -1 when s is empty */
		sb_printf(c, "__attribute__((noinline)) long stp_hb_%s(long i)\n{\n"
			  "\t__u32 k = 0;\n\tlong n = 0, b;\n\n"
			  "\tb = stp_xstat_bucket(&g_%s, &k, 0, %ld, i, &n);\n"
			  "\treturn n ? b : -1;\n}\n", v->name, v->name, hist_buckets(v));
	return true;
}

/* s <<< x for a statistic with buckets or @variance; NULL if s has neither */
const char *bm_stat_add(struct bgen *g, struct var *v, const char *x)
{
	if ((!v->hist && !v->variance) || v->array)
		return NULL;
	const char *k = tmpname(g);

	bg_line(g, "__u32 %s = 0;", k);
	bg_line(g, "stp_xadd_%s(bpf_map_lookup_elem(&g_%s, &%s), %s);", v->name, v->name, k, x);
	return x;
}

/* the statistic s or a[k...] (arg): its map, the map key's C expression
 * (*kp) and its offset in the value (*off); the key struct's type in
 * *ktype for a row */
static const char *stat_where(struct bgen *g, struct node *arg, const char **kp,
			      const char **off, const char **ktype)
{
	struct var *v = arg->var;
	const char *ks;

	if (arg->kind == N_INDEX) {
		*kp = keys(g, arg->args, v, &ks);
		*off = arena_printf(g->s->arena, "__builtin_offsetof(struct stp_v_%s, val)",
				    v->name);
		*ktype = arena_printf(g->s->arena, "stp_mk_%s", v->name);
	} else {
		const char *k = tmpname(g);

		bg_line(g, "__u32 %s = 0;", k);
		*kp = arena_printf(g->s->arena, "&%s", k);
		*off = "0";
		*ktype = NULL;
	}
	return arena_printf(g->s->arena, "&g_%s", v->name);
}

static bool xstat_node(const struct node *a)
{
	return a && a->var && a->var->type == T_STATS && (a->var->hist || a->var->variance) &&
	       ((a->kind == N_VAR && !a->var->array) || (a->kind == N_INDEX && a->var->array));
}

/* @variance(s) or @variance(a[k...]); an empty statistic an error (at) */
const char *bm_variance(struct bgen *g, struct node *n, const char *at)
{
	struct node *a = n->args;
	const char *kp, *off, *kt, *map, *t = tmpname(g), *cnt = tmpname(g);

	if (!xstat_node(a) || !a->var->variance)
		return NULL;
	map = stat_where(g, a, &kp, &off, &kt);
	bg_line(g, "long %s = 0;", cnt);
	bg_line(g, "long %s = stp_xstat_variance(%s, %s, %s, %ld, %d, %d, &%s);", t, map, kp,
		off, a->var->hist ? hist_buckets(a->var) : 0L, a->var->variance_shift,
		a->kind == N_INDEX, cnt);
	bg_line(g, "if (!%s)", cnt);
	g->indent++;
	bg_fail(g, arena_printf(g->s->arena, "empty aggregate near %s", at));
	g->indent--;
	return t;
}

/* @hist_*(s)[i] (index: i's C value); an empty statistic or an index out
 * of its range an error (at) */
const char *bm_hist_bucket(struct bgen *g, struct node *hist, const char *i, const char *at)
{
	struct node *a = hist->args;
	const char *kp, *off, *kt, *t = tmpname(g), *cnt = tmpname(g);
	long nb;

	if (!xstat_node(a) || !a->var->hist)
		return NULL;
	nb = hist_buckets(a->var);
	if (a->kind == N_VAR) {
		bg_line(g, "long %s = stp_hb_%s(%s);", t, a->var->name, i);
	} else {	/* a BPF subprogram: checked once, not at each bucket */
		stat_where(g, a, &kp, &off, &kt);
		bg_line(g, "long %s = stp_hb_%s((void *)%s, %s);", t, a->var->name, kp, i);
	}
	bg_line(g, "long %s = %s >= 0;", cnt, t);
	bg_line(g, "if (!%s)", cnt);
	g->indent++;
	bg_fail(g, arena_printf(g->s->arena, "empty aggregate near %s", at));
	g->indent--;
	bg_line(g, "if (%s < 0 || %s >= %ld)", i, i, nb);
	g->indent++;
	bg_fail(g, arena_printf(g->s->arena, "histogram index out of range near %s", at));
	g->indent--;
	return t;
}

/* the number of buckets of @hist_*(s) (foreach over them), 0 if not one */
long bm_hist_nbuckets(const struct node *hist)
{
	return xstat_node(hist->args) && hist->args->var->hist ? hist_buckets(hist->args->var) : 0;
}

/* print(@hist_log(s)): an empty statistic is an error at the print (at);
 * the loader reads the map (a row of it: the record has the row's key)
 * and prints it with runtime/stp_fmt.c */
bool bm_print_hist(struct bgen *g, struct node *hist, const char *at)
{
	struct node *a = hist->args;
	struct var *v = a ? a->var : NULL;
	const char *st = tmpname(g), *kp, *off, *kt, *map;
	int id;

	if (!xstat_node(a) || !v->hist)
		return false;
	id = g->hist_count++;
	map = stat_where(g, a, &kp, &off, &kt);
	sb_printf(&g->meta, "hist %d g_%s %d %lld %lld %lld %ld %d\n", id, v->name, v->hist,
		  (long long)v->hist_lo, (long long)v->hist_hi, (long long)v->hist_step,
		  hist_buckets(v), kt ? 1 : 0);
	bg_line(g, "struct stp_stat %s;", st);
	if (kt)
		bg_line(g, "stp_astat_get(%s, %s, &%s, %s);", map, kp, st, off);
	else
		bg_line(g, "stp_stat_get(%s, &%s);", map, st);
	bg_line(g, "if (!%s.count)", st);
	g->indent++;
	bg_fail(g, arena_printf(g->s->arena, "empty aggregate near %s", at));
	g->indent--;
	if (kt)
		bg_line(g, "STP_HIST_PRINT_ROW(%d, %s, %s, %s);", id, kt, kp, off);
	else
		bg_line(g, "stp_hist_print(%d);", id);
	return true;
}
