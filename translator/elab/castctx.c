/*
 * castctx.c - which functions may hold a @cast naming no module, by the
 * call graph, as SystemTap 4.8 decides it.
 *
 * 4.8 gives a @cast(p, "T") without a module the module of the probe it
 * is in (a kernel or module function or statement: its types). In a
 * function it has one only through a probe's copy of the function: a
 * DWARF probe copies each function it calls directly that holds such a
 * @cast or a $var (and, in a copy, each function called that holds one
 * in turn)
 * and calls the copy. A function not copied (called only from begin, a
 * timer..., or only through a function without such a @cast) keeps no
 * module: "type definition 'T' not found in ''". A call from a function
 * that is not copied but that a copying probe reaches goes to that
 * probe's copy too. Checked on the hosts compared (`stap -p2` with the
 * kernel's debuginfo): testsuite/semok/cast_fn_*, semko/cast_fn_*.
 *
 * resolve.c makes those copies where the types differ from the kernel's
 * (a module's or a program's probe) or a $var is read; a function a
 * kernel probe would copy for its @cast alone stays one, resolved in the
 * kernel's types (deref.c), and this pass, once every name is bound,
 * reports the functions 4.8 refuses.
 */
#include <stdlib.h>
#include <string.h>

#include "elab.h"

struct castctx {
	struct session *s;
	struct func **f;	/* the used functions */
	int n;
	const struct node **cast;	/* each one's first module-less @cast */
	unsigned char *copies;	/* copied for a probe: such a @cast or a $var */
	/* for the probe being walked: reached, reached in a copy, copied */
	unsigned char *reach, *in_copy, *copied;
	unsigned char **ok;	/* [i] for a function with such a @cast: the
				 * functions whose calls of it go to a copy */
};

static int cmp_func(const void *a, const void *b)
{
	const struct func *x = *(struct func *const *)a, *y = *(struct func *const *)b;

	return x < y ? -1 : x > y;
}

/* f's index among the used functions (c->f, sorted by address), or -1 */
static int func_index(const struct castctx *c, const struct func *f)
{
	struct func *const *at = bsearch(&f, c->f, (size_t)c->n, sizeof(*c->f), cmp_func);

	return at ? (int)(at - c->f) : -1;
}

static bool is_bare_cast(const struct node *n)
{
	return n->kind == N_CALL && !strcmp(n->op, "@cast") && n->args && n->args->next &&
	       !n->args->next->next;
}

/* The first @cast without a module in the list n (calls not followed). */
const struct node *elab_bare_cast(const struct node *n)
{
	for (; n; n = n->next) {
		const struct node *kids[5] = { n->args, n->a, n->b, n->c, n->d }, *k;

		if (is_bare_cast(n))
			return n;
		for (int i = 0; i < 5; i++)
			if (kids[i] && (k = elab_bare_cast(kids[i])))
				return k;
	}
	return NULL;
}

/* Does the list n name a target variable ($var, $$parms...)? */
bool elab_holds_target(const struct node *n)
{
	for (; n; n = n->next) {
		const struct node *kids[5] = { n->args, n->a, n->b, n->c, n->d };

		if (n->kind == N_TARGET)
			return true;
		for (int i = 0; i < 5; i++)
			if (kids[i] && elab_holds_target(kids[i]))
				return true;
	}
	return false;
}

static void walk_calls(struct castctx *c, const struct node *n, bool copy);

/* Function i called from the probe being walked: from its body or a copy
 * (copy), or from a function not copied. */
static void reach_func(struct castctx *c, int i, bool copy)
{
	const struct func *f = c->f[i];

	copy = copy && c->copies[i];
	if (copy ? c->in_copy[i] : c->reach[i])
		return;
	c->reach[i] = 1;
	if (copy)
		c->in_copy[i] = c->copied[i] = 1;
	if (f->body && f->body->kind != N_EMBEDDED_STMT)
		walk_calls(c, f->body, copy);
}

static void walk_calls(struct castctx *c, const struct node *n, bool copy)
{
	for (; n; n = n->next) {
		const struct node *kids[5] = { n->args, n->a, n->b, n->c, n->d };
		int i;

		if (n->kind == N_CALL && n->func && (i = func_index(c, n->func)) >= 0)
			reach_func(c, i, copy);
		for (int k = 0; k < 5; k++)
			if (kids[k])
				walk_calls(c, kids[k], copy);
	}
}

/* A probe whose points give a module-less @cast their module: it calls
 * copies. */
static void walk_probe(struct castctx *c, const struct probe *p)
{
	memset(c->reach, 0, (size_t)c->n);
	memset(c->in_copy, 0, (size_t)c->n);
	memset(c->copied, 0, (size_t)c->n);
	walk_calls(c, p->body, true);
	for (int i = 0; i < c->n; i++)
		if (c->copied[i] && c->ok[i])	/* a $var's copy: not checked here */
			for (int g = 0; g < c->n; g++)
				c->ok[i][g] |= c->reach[g];
}

/* Mark bad[i] for each function with a module-less @cast that the list
 * n calls where 4.8 calls no copy of it: from a probe without a module
 * (g < 0), or from function g when no copying probe reaches g. */
static void check_calls(struct castctx *c, const struct node *n, int g,
			unsigned char *bad)
{
	for (; n; n = n->next) {
		const struct node *kids[5] = { n->args, n->a, n->b, n->c, n->d };
		int i;

		if (n->kind == N_CALL && n->func && (i = func_index(c, n->func)) >= 0 &&
		    c->cast[i] && (g < 0 || !c->ok[i][g]))
			bad[i] = 1;
		for (int k = 0; k < 5; k++)
			if (kids[k])
				check_calls(c, kids[k], g, bad);
	}
}

void elab_check_cast_functions(struct session *s)
{
	struct castctx c = { .s = s };
	unsigned char *bad;
	bool any = false;

	for (struct func *f = s->funcs; f; f = f->next_used)
		c.n++;
	if (!c.n)
		return;
	c.f = arena_alloc(s->arena, sizeof(*c.f) * (size_t)c.n);
	c.cast = arena_alloc(s->arena, sizeof(*c.cast) * (size_t)c.n);
	c.ok = arena_alloc(s->arena, sizeof(*c.ok) * (size_t)c.n);
	c.copies = arena_alloc(s->arena, (size_t)c.n);
	c.n = 0;
	for (struct func *f = s->funcs; f; f = f->next_used)
		c.f[c.n++] = f;
	qsort(c.f, (size_t)c.n, sizeof(*c.f), cmp_func);
	for (int i = 0; i < c.n; i++) {
		const struct func *f = c.f[i];

		c.ok[i] = NULL;
		c.cast[i] = f->body && f->body->kind != N_EMBEDDED_STMT ? elab_bare_cast(f->body) : NULL;
		c.copies[i] = c.cast[i] || (f->body && elab_holds_target(f->body));
		any |= c.cast[i] != NULL;
	}
	if (!any)
		return;
	c.reach = arena_alloc(s->arena, (size_t)c.n);
	c.in_copy = arena_alloc(s->arena, (size_t)c.n);
	c.copied = arena_alloc(s->arena, (size_t)c.n);
	bad = arena_alloc(s->arena, (size_t)c.n);
	memset(bad, 0, (size_t)c.n);
	for (int i = 0; i < c.n; i++)
		if (c.cast[i]) {
			c.ok[i] = arena_alloc(s->arena, (size_t)c.n);
			memset(c.ok[i], 0, (size_t)c.n);
		}
	for (struct probe *p = s->probes; p; p = p->next)
		if (!elab_no_points(s, p) && elab_cast_probe_module(s, p))
			walk_probe(&c, p);
	for (struct probe *p = s->probes; p; p = p->next)
		if (!elab_no_points(s, p) && !elab_cast_probe_module(s, p))
			check_calls(&c, p->body, -1, bad);
	for (int g = 0; g < c.n; g++)
		if (c.f[g]->body && c.f[g]->body->kind != N_EMBEDDED_STMT)
			check_calls(&c, c.f[g]->body, g, bad);
	for (struct func *f = s->funcs; f; f = f->next_used) {
		int i = func_index(&c, f);

		if (bad[i])
			diag_error(s, c.cast[i]->loc, "type definition '%s' not found in ''",
				   c.cast[i]->args->next->str);
	}
}
