/*
 * autocast.c - pass 2 of autocasts: '->member' and '[i]' on any value
 * whose C type is known, as SystemTap 4.8 does with its "type details":
 * `f = $file; f->f_flags`, `h()->mm`, `(&$p->x)[1]`,
 * `(@cast(p, "T")->arr)[0]`.
 *
 * A value has a type when it is a target variable, a typed chain
 * ($var->m, @cast(...)->m, an autocast itself), '&' of one,
 * '&@cast(p, "T")', `v = E` (as an expression), a local or global all of
 * whose typed assignments `v = E` agree, a call of a function all of
 * whose typed `return E` agree, or E + 0 and the other forms 4.8 folds
 * to E. Parameters, array elements, @entry, ternaries and the other
 * operators have none. As in 4.8 the types flow through the whole
 * script, in no order, to a fixed point; then an access on a value of
 * no type (or of two types) is "unknown type in dereference".
 */
#include <stdlib.h>
#include <string.h>

#include <bpf/btf.h>

#include "elab.h"
#include "elaborate.h"
#include "kcatalog.h"

static const struct autocast conflict = { .conflict = true };

/* an autocast's error, said in the last walk: 4.8 reports them all in
 * the order of the script, with the accesses left untyped */
struct ac_err {
	const struct node *n;
	struct loc at;
	const char *msg;
	struct ac_err *next;
};

struct ac_pass {
	struct session *s;
	bool changed;
	bool casts;	/* this walk types the autocasts (else the variables) */
	bool final;	/* the last walk: report what is left */
	struct ac_err *errs;
};

bool elab_is_autocast(const struct node *n)
{
	return n->kind == N_DEREF && n->a && !deref_is_typed(n) &&
	       !resolve_is_hist_bucket(n);
}

static bool same_type(const struct autocast *a, const struct autocast *b)
{
	return a->btf == b->btf && a->type == b->type && a->lv == b->lv &&
	       a->cast == b->cast && a->user == b->user;
}

/* The same C type, but for typedefs and qualifiers (char * and
 * const char *)? */
static bool same_c_type(const struct btf *btf, unsigned int a, unsigned int b, int depth)
{
	const struct btf_type *ta = deref_skip(btf, &a), *tb = deref_skip(btf, &b);

	if (a == b)
		return true;
	return ta && tb && depth < 8 && btf_is_ptr(ta) && btf_is_ptr(tb) &&
	       same_c_type(btf, ta->type, tb->type, depth + 1);
}

/* $name alone: the type of the variable, the same at every point of p
 * (4.8 types each point's copy of the handler alone). */
static const struct autocast *target_type(struct session *s, struct probe *p,
					  const struct node *n)
{
	struct autocast t = { 0 }, *r;
	bool first = true;
	size_t len = strlen(n->op);

	if (!p || n->op[1] == '$' || n->op[len - 1] == '$')
		return NULL;
	for (const struct rprobe *rp = s->rprobes; rp; rp = rp->next) {
		const struct kcat_arg *a;
		struct autocast u = { 0 };
		unsigned int id;
		const struct btf_type *bt;

		if (rp->probe != p)
			continue;
		a = elab_target_arg(s, rp, n->op + 1);
		if (!a || !a->btf || !a->type_id || targ_lvalue(s, rp, n->op + 1))
			return NULL;
		id = a->type_id;
		bt = deref_skip(a->btf, &id);
		if (!bt || !(btf_is_ptr(bt) || btf_is_int(bt) || btf_is_any_enum(bt)))
			return NULL;
		u.btf = a->btf;
		u.type = a->type_id;
		u.user = (rp->flags & RF_DWARF) && (rp->flags & RF_USER);
		if (!first && (t.btf != u.btf || t.user != u.user ||
			       !same_c_type(t.btf, t.type, u.type, 0)))
			return NULL;
		if (first)
			t = u;
		first = false;
	}
	if (first)
		return NULL;
	r = arena_alloc(s->arena, sizeof(*r));
	*r = t;
	return r;
}

static bool is_lit(const struct node *n, int64_t v)
{
	return n && n->kind == N_NUM && n->num == v;
}

/* The type of n's value in probe p (NULL in a function), or NULL. */
static const struct autocast *value_type(struct ac_pass *x, struct probe *p,
					 struct node *n)
{
	const struct autocast *t = NULL;

	if (n->ac)
		return n->ac->conflict ? NULL : n->ac;
	switch (n->kind) {
	case N_DEREF:
		if (n->deref) {
			struct autocast u, *r;

			if (!deref_value_type(n->deref, &u))
				return NULL;
			r = arena_alloc(x->s->arena, sizeof(*r));
			*r = u;
			n->ac = r;	/* a resolved chain does not change */
			return r;
		}
		return NULL;
	case N_TARGET:
		return n->deref ? NULL : target_type(x->s, p, n);
	case N_VAR:
		t = n->var ? n->var->ac : NULL;
		break;
	case N_CALL:
		t = n->op[0] != '@' && n->func ? n->func->ac : NULL;
		break;
	case N_ASSIGN:
		return strcmp(n->op, "=") ? NULL : value_type(x, p, n->b);
	case N_UNARY:	/* &$p->m, &@cast(p, "T")->m */
		return n->op[0] == '&' && n->a->kind == N_DEREF ? value_type(x, p, n->a) : NULL;
	case N_BINARY:
		/* what 4.8's constant folder reduces to one operand */
		if ((is_lit(n->a, 0) && !strcmp(n->op, "+")) ||
		    (is_lit(n->a, 1) && !strcmp(n->op, "*")))
			return value_type(x, p, n->b);
		if ((is_lit(n->b, 0) && (!strcmp(n->op, "+") || !strcmp(n->op, "-") ||
					 !strcmp(n->op, "<<") || !strcmp(n->op, ">>"))) ||
		    (is_lit(n->b, 1) && (!strcmp(n->op, "*") || !strcmp(n->op, "/"))))
			return value_type(x, p, n->a);
		return NULL;
	default:
		return NULL;
	}
	return t && !t->conflict ? t : NULL;
}

static void merge(struct ac_pass *x, const struct autocast **dst, const struct autocast *t)
{
	if (!t || (*dst && (*dst)->conflict))
		return;
	if (!*dst) {
		*dst = t;
		x->changed = true;
	} else if (!same_type(*dst, t)) {
		*dst = &conflict;
		x->changed = true;
	}
}

/* An error of the typed access n ($x->m, @cast), said by the autocasts'
 * last walk (or elab_flush_typed()) in 4.8's order. */
void elab_defer_typed(struct session *s, const struct node *n, struct loc at, const char *msg)
{
	struct deferred_error *d = arena_alloc(s->arena, sizeof(*d)), **tail;

	d->loc = at;
	d->msg = msg;
	d->node = n;
	d->live = true;
	d->next = NULL;
	for (tail = &s->typed_errs; *tail; tail = &(*tail)->next)
		;
	*tail = d;
	s->ntyped_errs++;
}

/* Those not said yet, in the order they were found. */
void elab_flush_typed(struct session *s)
{
	for (struct deferred_error *d = s->typed_errs; d; d = d->next)
		if (d->live) {
			diag_error(s, d->loc, "%s", d->msg);
			d->live = false;
		}
}

static void say_error(struct ac_pass *x, const struct node *n)
{
	for (struct ac_err *e = x->errs; e; e = e->next)
		if (e->n == n && e->msg) {
			diag_error(x->s, e->at, "%s", e->msg);
			e->msg = NULL;	/* once, though a function be walked again */
		}
	for (struct deferred_error *d = x->s->typed_errs; d; d = d->next)
		if (d->node == n && d->live) {
			diag_error(x->s, d->loc, "%s", d->msg);
			d->live = false;
		}
}

static void walk(struct ac_pass *x, struct probe *p, struct func *f, struct node *n)
{
	const struct autocast *t;

	for (; n; n = n->next) {
		walk(x, p, f, n->a);
		walk(x, p, f, n->b);
		walk(x, p, f, n->c);
		walk(x, p, f, n->d);
		walk(x, p, f, n->args);
		if (!x->casts) {
			if (n->kind == N_ASSIGN && !strcmp(n->op, "=") && n->a->kind == N_VAR &&
			    n->a->var && !n->a->var->array)
				merge(x, &n->a->var->ac, value_type(x, p, n->b));
			else if (n->kind == N_RETURN && f && n->a)
				merge(x, &f->ac, value_type(x, p, n->a));
			continue;
		}
		if (x->final)
			say_error(x, n);
		if (!elab_is_autocast(n) || n->deref || n->ac)
			continue;
		t = value_type(x, p, n->a);
		if (t) {
			struct ac_err *e = arena_alloc(x->s->arena, sizeof(*e));

			e->n = n;
			if (!elab_autocast(x->s, n, t, &e->at, &e->msg)) {
				n->ac = &conflict;	/* failed: not again */
				e->next = x->errs;
				x->errs = e;
			}
			x->changed = true;
		} else if (x->final) {
			diag_error(x->s, elab_autocast_loc(n, NULL),
				   "unknown type in dereference");
			n->ac = &conflict;
		}
	}
}

static int by_name(const void *a, const void *b)
{
	return strcmp((*(struct func *const *)a)->name, (*(struct func *const *)b)->name);
}

/* The final walk says the errors in 4.8's order: the functions by name
 * (overloads in their order), then the probes. */
static void walk_final(struct ac_pass *x)
{
	size_t n = 0, k = 0;
	struct func **fs;

	for (struct func *f = x->s->funcs; f; f = f->next_used)
		n++;
	fs = arena_alloc(x->s->arena, (n + 1) * sizeof(*fs));
	for (struct func *f = x->s->funcs; f; f = f->next_used)
		fs[k++] = f;
	qsort(fs, n, sizeof(*fs), by_name);
	for (k = 0; k < n; k++)
		if (fs[k]->body->kind != N_EMBEDDED_STMT)
			walk(x, NULL, fs[k], fs[k]->body);
	for (struct probe *p = x->s->probes; p; p = p->next)
		if (!elab_no_points(x->s, p))
			walk(x, p, NULL, p->body);
}

static void walk_all(struct ac_pass *x)
{
	if (x->final) {
		walk_final(x);
		return;
	}
	for (struct probe *p = x->s->probes; p; p = p->next)
		if (!elab_no_points(x->s, p))
			walk(x, p, NULL, p->body);
	for (struct func *f = x->s->funcs; f; f = f->next_used)
		if (f->body->kind != N_EMBEDDED_STMT)
			walk(x, NULL, f, f->body);
}

void elab_autocasts(struct session *s)
{
	struct ac_pass x = { .s = s };

	/* the variables' types to a fixed point, then the autocasts those
	 * type, whose values may type more variables */
	do {
		x.casts = false;
		do {
			x.changed = false;
			walk_all(&x);
		} while (x.changed);
		x.casts = true;
		walk_all(&x);
	} while (x.changed);
	x.final = true;
	walk_all(&x);
	elab_flush_typed(s);
}
