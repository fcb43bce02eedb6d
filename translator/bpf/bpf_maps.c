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

/* The array's types and map, and its exit-display line. */
void bm_decl(struct bgen *g, struct strbuf *c, struct var *v)
{
	const char *n = v->name;
	char kinds[10];

	if (v->wrap || (stat_array(v) && (v->hist || v->variance))) {
		diag_error(g->s, v->loc, "%s are not supported by --runtime=bpf yet: use the "
			   "kernel module runtime (--runtime=kernel)",
			   v->wrap ? "wrapping arrays (%)" : "histograms and @variance");
		g->errors++;
		return;
	}
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
		  v->type == T_STATS ? "struct stp_stat val;" : "long val;");
	sb_printf(c, "typedef char stp_mk_%s[sizeof(struct stp_k_%s) > STP_HASH_KEY_MAX ? 16 : "
		  "sizeof(struct stp_k_%s)];\n", n, n, n);
	sb_printf(c, "STP_ARRAY(g_%s, stp_mk_%s, struct stp_v_%s, %s, %d);\n", n, n, n,
		  v->maxsize > 0 ? arena_printf(g->s->arena, "%lld", (long long)v->maxsize) :
		  "STP_MAXMAPENTRIES", stat_array(v) ? 5 : 1);
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
const char *bm_in(struct bgen *g, struct node *n)
{
	struct var *v = n->a->var;
	const char *ks, *kp = keys(g, n->args, v, &ks), *t = tmpname(g);

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

/* a[k...]++ and friends */
const char *bm_incdec(struct bgen *g, struct node *n)
{
	const char *ks, *kp = keys(g, n->a->args, n->a->var, &ks);
	const char *r = row(g, n->a, kp, ks), *t = tmpname(g);

	if (n->flags & 1)
		bg_line(g, "long %s = %s->val; %s->val = (long)((unsigned long)%s %c 1UL);",
			t, r, r, t, n->op[0]);
	else
		bg_line(g, "%s->val = (long)((unsigned long)%s->val %c 1UL); long %s = %s->val;",
			r, r, n->op[0], t, r);
	return t;
}

static int delete_cb_decl;

/* delete a[k...] | delete a */
void bm_delete(struct bgen *g, struct node *n)
{
	struct node *a = n->a;
	const char *ks, *kp;

	if (a->kind == N_VAR) {
		bg_line(g, "bpf_for_each_map_elem(&g_%s, stp_delete_cb, 0, 0);", a->var->name);
		delete_cb_decl = 1;
		return;
	}
	kp = keys(g, a->args, a->var, &ks);
	bg_line(g, "bpf_map_delete_elem(&g_%s, %s);", a->var->name, kp);
}

/* the definitions the array code needs before the handlers */
void bm_prelude(struct bgen *g, struct strbuf *c)
{
	(void)g;
	if (delete_cb_decl)
		sb_puts(c, "static long stp_delete_cb(void *map, void *key, void *val, void *ctx)\n"
			"{\n\tbpf_map_delete_elem(map, key);\n\treturn 0;\n}\n\n");
	delete_cb_decl = 0;
}

/* @count(a[k...]) and the other extractors of a statistics row */
const char *bm_stat_op(struct bgen *g, struct node *n, const char *op)
{
	struct node *ix = n->args;
	struct var *v = ix->var;
	const char *ks, *kp = keys(g, ix->args, v, &ks), *st = tmpname(g), *t = tmpname(g);

	bg_line(g, "struct stp_stat %s;", st);
	bg_line(g, "stp_astat_get(&g_%s, %s, &%s, __builtin_offsetof(struct stp_v_%s, val));",
		v->name, kp, st, v->name);
	if (strcmp(op, "count") && strcmp(op, "sum")) {
		bg_line(g, "if (!%s.count)", st);
		g->indent++;
		bg_fail(g, arena_printf(g->s->arena, "empty aggregate near operator '%s' at %s",
					n->op, loc_str(g->s, n->loc)));
		g->indent--;
	}
	if (!strcmp(op, "avg"))
		bg_line(g, "long %s = stp_div(%s.sum, %s.count);", t, st, st);
	else
		bg_line(g, "long %s = %s.%s;", t, st, op);
	return t;
}
