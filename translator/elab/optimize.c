/*
 * optimize.c - pass 2's optimisations, as upstream does them (skipped
 * with -u):
 *  - before name resolution, opt_fold: @defined decided (a target
 *    variable, typed access or @cast is defined when it resolves at every
 *    point of the probe, see elab_defined(); anything else is),
 *    integer constant folding, and dead code dropped (if/while/ternary on
 *    a constant), so code behind `@defined($x) ? $x : 0` never needs $x;
 *  - a comparison that the minimum or maximum long decides whatever the
 *    other side is (`x >= -9223372036854775808`) becomes that constant
 *    when the other side has no side effect, as 4.8 folds it: a pure
 *    function that might raise an error counts as side-effect free, so
 *    the call is gone; folding runs again after type inference, when the
 *    purity of script and tapset functions is known;
 *  - after type inference, opt_elide: assignments to locals nobody reads
 *    and expression statements with no side effect are removed with a
 *    warning, and globals nobody uses are dropped. As upstream, a division
 *    counts as free of side effects: `x = 1/0` with x unused never runs.
 */
#include <string.h>

#include "elab.h"

/* ---- folding ------------------------------------------------------------------ */

static bool is_num(const struct node *n)
{
	return n && n->kind == N_NUM;
}

static struct node *make_num(struct session *s, const struct node *at, int64_t v)
{
	struct node *n = node_new(s, N_NUM, at->loc);

	n->num = v;
	n->type = T_LONG;
	n->next = at->next;
	return n;
}

static bool effects(const struct node *n, bool locals);

/* One expression's side effects, not those of the list it heads. */
static bool node_effects(struct node *n)
{
	struct node *next = n->next;
	bool r;

	n->next = NULL;
	r = effects(n, true);
	n->next = next;
	return r;
}

/* `a OP b` decided by an extreme long on one side alone: 1 or 0, or -1. */
static int extreme_compare(struct node *n)
{
	const char *op = n->op;
	bool le = !strcmp(op, "<="), ge = !strcmp(op, ">="),
	     lt = !strcmp(op, "<"), gt = !strcmp(op, ">");
	int r = -1;

	if (is_num(n->a) && n->a->num == INT64_MIN && (le || gt))
		r = le;
	else if (is_num(n->a) && n->a->num == INT64_MAX && (ge || lt))
		r = ge;
	else if (is_num(n->b) && n->b->num == INT64_MIN && (ge || lt))
		r = ge;
	else if (is_num(n->b) && n->b->num == INT64_MAX && (le || gt))
		r = le;
	if (r >= 0 && node_effects(is_num(n->a) ? n->b : n->a))
		r = -1;
	return r;
}

/* a OP b for literals; false when it must stay for run time (x / 0). */
static bool fold_binary(const char *op, int64_t a, int64_t b, int64_t *r)
{
	uint64_t ua = (uint64_t)a, ub = (uint64_t)b;

	if (!strcmp(op, "+")) *r = (int64_t)(ua + ub);
	else if (!strcmp(op, "-")) *r = (int64_t)(ua - ub);
	else if (!strcmp(op, "*")) *r = (int64_t)(ua * ub);
	else if (!strcmp(op, "&")) *r = a & b;
	else if (!strcmp(op, "|")) *r = a | b;
	else if (!strcmp(op, "^")) *r = a ^ b;
	/* 4.8 folds a shift by a count outside 0..63 to the left operand */
	else if (!strcmp(op, "<<")) *r = b < 0 || b > 63 ? a : (int64_t)(ua << b);
	else if (!strcmp(op, ">>")) *r = b < 0 || b > 63 ? a : a >> b;
	else if ((!strcmp(op, "/") || !strcmp(op, "%")) && b != 0 &&
		 !(a == INT64_MIN && b == -1))
		*r = op[0] == '/' ? a / b : a % b;
	else
		return false;
	return true;
}

static bool fold_compare(const char *op, int64_t a, int64_t b, int64_t *r)
{
	if (!strcmp(op, "<")) *r = a < b;
	else if (!strcmp(op, "<=")) *r = a <= b;
	else if (!strcmp(op, ">")) *r = a > b;
	else if (!strcmp(op, ">=")) *r = a >= b;
	else if (!strcmp(op, "==")) *r = a == b;
	else if (!strcmp(op, "!=")) *r = a != b;
	else
		return false;
	return true;
}

static void fold(struct session *s, struct probe *p, struct node **np);

static void fold_list(struct session *s, struct probe *p, struct node **np)
{
	for (; *np; np = &(*np)->next)
		fold(s, p, np);
}

/* @defined(e) in probe p (NULL in a function). */
static bool is_defined(struct session *s, struct probe *p, struct node *e)
{
	return elab_defined(s, p, e);
}

/* An expression node whose operands are folded already. */
static struct node *fold_expr(struct session *s, struct probe *p, struct node *n)
{
	int64_t r;

	switch (n->kind) {
	case N_CALL:
		if (!strcmp(n->op, "@defined"))
			return make_num(s, n, is_defined(s, p, n->args));
		break;
	case N_BINARY:
		/* 4.8's folder knows no '>>>': two literals are an error
		 * if still live after elision (opt_elide) */
		if (is_num(n->a) && is_num(n->b) && strcmp(n->op, "in") &&
		    strcmp(n->op, ">>>") && fold_binary(n->op, n->a->num, n->b->num, &r))
			return make_num(s, n, r);
		/* 4.8: x << -n and x >> -n are x (>>> is not folded) */
		if (is_num(n->b) && n->b->num < 0 &&
		    (!strcmp(n->op, "<<") || !strcmp(n->op, ">>"))) {
			n->a->next = n->next;
			return n->a;
		}
		break;
	case N_COMPARE:
		if (is_num(n->a) && is_num(n->b) && fold_compare(n->op, n->a->num, n->b->num, &r))
			return make_num(s, n, r);
		if (n->a->type != T_STRING && n->b->type != T_STRING &&
		    (r = extreme_compare(n)) >= 0)
			return make_num(s, n, r);
		break;
	case N_LOGICAL:
		if (is_num(n->a) && is_num(n->b))
			return make_num(s, n, n->op[0] == '&' ? (n->a->num && n->b->num) :
					(n->a->num || n->b->num));
		break;
	case N_UNARY:
		if (is_num(n->a) && n->op[0] != '&')
			return make_num(s, n, n->op[0] == '-' ? (int64_t)(0 - (uint64_t)n->a->num) :
					n->op[0] == '!' ? !n->a->num :
					n->op[0] == '~' ? ~n->a->num : n->a->num);
		break;
	case N_CONCAT:
		/* "a" . "b" is one literal, as 4.8 folds it: not truncated to
		 * MAXSTRINGLEN where a literal is not */
		if (n->a->kind == N_STR && n->b->kind == N_STR) {
			struct node *c = node_new(s, N_STR, n->a->loc);
			char *t = arena_alloc(s->arena, n->a->len + n->b->len + 1);

			memcpy(t, n->a->str, n->a->len);
			memcpy(t + n->a->len, n->b->str, n->b->len);
			c->str = t;
			c->len = n->a->len + n->b->len;
			c->type = T_STRING;
			c->next = n->next;
			return c;
		}
		break;
	case N_TERNARY:
		if (is_num(n->a)) {
			struct node *keep = n->a->num ? n->b : n->c;

			keep->next = n->next;
			return keep;
		}
		break;
	default:
		break;
	}
	return n;
}

/* A statement whose condition is constant: the branch it takes (or none). */
static struct node *fold_stmt(struct session *s, struct node *n)
{
	struct node *keep;

	if (n->kind == N_IF && is_num(n->a)) {
		keep = n->a->num ? n->b : n->c;
		if (!keep)
			keep = node_new(s, N_NULL_STMT, n->loc);
		keep->next = n->next;
		return keep;
	}
	/* 4.8 drops a foreach whose limit is a literal <= 0: its array may
	 * then be unread, and printed at the end */
	/* for (init; 0; step) body is its init alone, as in 4.8 */
	if (n->kind == N_FOR && is_num(n->b) && !n->b->num) {
		keep = node_new(s, n->a ? N_EXPR_STMT : N_NULL_STMT, n->loc);
		keep->a = n->a;
		keep->flags = STMT_QUIET;	/* 4.8 elides what is left silently */
		keep->next = n->next;
		return keep;
	}
	if ((n->kind == N_WHILE && is_num(n->a) && !n->a->num) ||
	    (n->kind == N_FOREACH && n->c && is_num(n->c) && n->c->num <= 0)) {
		keep = node_new(s, N_NULL_STMT, n->loc);
		keep->next = n->next;
		return keep;
	}
	return n;
}

static void fold(struct session *s, struct probe *p, struct node **np)
{
	struct node *n = *np;

	if (!n)
		return;
	if (n->kind == N_CALL && !strcmp(n->op, "@defined")) {
		*np = fold_expr(s, p, n);	/* before its argument is touched */
		return;
	}
	fold(s, p, &n->a);
	fold(s, p, &n->b);
	fold(s, p, &n->c);
	fold(s, p, &n->d);
	fold_list(s, p, &n->args);
	n = fold_expr(s, p, n);
	*np = fold_stmt(s, n);
}

void opt_fold(struct session *s, struct probe *p, struct node **body)
{
	fold(s, p, body);
}

/* ---- elision -------------------------------------------------------------------- */

static bool func_pure(struct func *f);

static bool declared_pure(const char *code)
{
	return code && strstr(code, "/* pure */");
}

/* Does the value of n (an lvalue) live beyond the handler: a global, or
 * an element of one? */
static bool global_target(const struct node *n)
{
	return n && (n->kind == N_VAR || n->kind == N_INDEX) && n->var && n->var->global;
}

/* Effects outside the expression's own value, as upstream judges them:
 * output, writes to globals, embedded C not marked pure, leaving the
 * handler, and calls to functions that have any of these. With `locals`,
 * writes to locals count too (a statement's effect on the handler). */
static bool effects(const struct node *n, bool locals)
{
	for (; n; n = n->next) {
		switch (n->kind) {
		case N_CALL:
			if (n->op[0] != '@' && (!n->func || !func_pure(n->func)))
				return true;
			break;
		case N_PRINT:
			if (!(n->flags & PR_STRING))
				return true;	/* sprint* only make a string */
			break;
		case N_DELETE:
		case N_NEXT:
			return true;
		case N_ASSIGN:
		case N_INCDEC:
			if (locals || global_target(n->a) || n->a->kind == N_TARGET)
				return true;
			break;
		case N_EMBEDDED_EXPR:
		case N_EMBEDDED_STMT:
			if (!declared_pure(n->str))
				return true;
			break;
		default:
			break;
		}
		if (effects(n->a, locals) || effects(n->b, locals) || effects(n->c, locals) ||
		    effects(n->d, locals) || effects(n->args, locals))
			return true;
	}
	return false;
}

/* A function whose calls may go when their value is unused (decided by
 * decide_purity()). */
static bool func_pure(struct func *f)
{
	return f->purity == 2;
}

/* Every used function is side-effect-free until its body shows an effect,
 * through calls too: the greatest fixed point, so that recursion alone
 * is no effect, as upstream judges it. */
static void decide_purity(struct session *s)
{
	bool changed = true;

	for (struct func *f = s->funcs; f; f = f->next_used)
		f->purity = 2;
	while (changed) {
		changed = false;
		for (struct func *f = s->funcs; f; f = f->next_used) {
			if (f->purity == 2 && effects(f->body, false)) {
				f->purity = 3;
				changed = true;
			}
		}
	}
}

static bool side_effects(const struct node *n)
{
	return effects(n, true);
}

static void elide_list(struct session *s, struct node **np);

/* Elisions are reported only in the user's script, as 4.8 does: the
 * tapsets' probe aliases set many variables a given probe never reads. */
static bool user_code(struct loc loc)
{
	return !loc.src || !loc.src->tapset;
}

/* An assignment (= or <<<) to a local nobody reads, anywhere in an
 * expression, is its right side alone, as upstream: `x = y = 1`,
 * `println(y = 1)`, `x <<< y <<< 4`. The innermost go first. */
static void elide_dead_assign(struct session *s, struct node **np)
{
	for (; *np; np = &(*np)->next) {
		struct node *e = *np;

		elide_dead_assign(s, &e->a);
		elide_dead_assign(s, &e->b);
		elide_dead_assign(s, &e->c);
		elide_dead_assign(s, &e->d);
		elide_dead_assign(s, &e->args);
		if (e->kind != N_ASSIGN || (strcmp(e->op, "=") && strcmp(e->op, "<<<")) ||
		    e->a->kind != N_VAR || !e->a->var || e->a->var->global || e->a->var->read)
			continue;
		if (user_code(e->loc))
			diag_warn(s, e->loc, "eliding assignment to '%s'", e->a->op);
		e->b->next = e->next;
		*np = e->b;
	}
}

/* One statement: an assignment to a local nobody reads keeps only its
 * right side's effects; an expression with no effect goes. */
static void elide_stmt(struct session *s, struct node **np)
{
	struct node *n = *np, *e;
	bool quiet;

	switch (n->kind) {
	case N_EXPR_STMT:
		quiet = s->suppress_warnings;
		if (n->flags & STMT_QUIET)
			s->suppress_warnings = true;
		elide_dead_assign(s, &n->a);
		e = n->a;
		if (!side_effects(e)) {
			/* at the statement's first token, as 4.8 says it */
			if (user_code(n->loc))
				diag_warn(s, n->loc, "eliding side-effect-free expression");
			n->kind = N_NULL_STMT;
			n->a = NULL;
		}
		s->suppress_warnings = quiet;
		break;
	case N_BLOCK:
		elide_list(s, &n->args);
		break;
	case N_IF:
	case N_WHILE:
		elide_stmt(s, &n->b);
		if (n->c)
			elide_stmt(s, &n->c);
		break;
	case N_FOR:
	case N_FOREACH:
		elide_stmt(s, &n->d);
		break;
	case N_TRY:
		elide_stmt(s, &n->a);
		elide_stmt(s, &n->b);
		break;
	default:
		break;
	}
}

static void elide_list(struct session *s, struct node **np)
{
	for (; *np; np = &(*np)->next)
		elide_stmt(s, np);
}

static void mark_referenced(struct node *n)
{
	for (; n; n = n->next) {
		if (n->var)
			n->var->referenced = true;
		mark_referenced(n->a);
		mark_referenced(n->b);
		mark_referenced(n->c);
		mark_referenced(n->d);
		mark_referenced(n->args);
	}
}

/* Locals whose every use was elided are gone too, as upstream lists. */
static void drop_unreferenced(struct var **vp, struct node *body)
{
	for (struct var *v = *vp; v; v = v->next)
		v->referenced = false;
	mark_referenced(body);
	while (*vp) {
		if (!(*vp)->param && !(*vp)->referenced)
			*vp = (*vp)->next;
		else
			vp = &(*vp)->next;
	}
}

static bool is_empty(const struct node *n)
{
	if (!n || n->kind == N_NULL_STMT)
		return true;
	if (n->kind != N_BLOCK)
		return false;
	for (const struct node *k = n->args; k; k = k->next)
		if (!is_empty(k))
			return false;
	return true;
}

/* A probe left with nothing to do goes, with its points, as upstream. */
static void elide_probes(struct session *s)
{
	struct rprobe **rp;

	for (struct probe **pp = &s->probes; *pp;) {
		struct probe *p = *pp;

		if (!is_empty(p->body)) {
			pp = &p->next;
			continue;
		}
		diag_warn(s, p->loc, "probe '%s' has been elided", p->points->comps->name);
		*pp = p->next;
		for (rp = &s->rprobes; *rp;) {
			if ((*rp)->probe == p) {
				*rp = (*rp)->next;
				s->nrprobes--;
			} else {
				rp = &(*rp)->next;
			}
		}
	}
}

static void prune(struct session *s);

/* A local statistic left after elision (one that is read): upstream has
 * none. */
static void check_stat_locals(struct session *s, struct var *v)
{
	for (; v; v = v->next)
		if (v->type == T_STATS)
			diag_error(s, v->loc, "stat locals not supported, missing global declaration?");
}

static void elide(struct session *s);

static bool literal_ushift(const struct node *n);

/* One node n: x >>> y of two literals in it? unused: its value is
 * unused, where 4.8's void statement reducer (which runs, -u or not,
 * before its constant folder) splits an operator into its operands: an
 * expression statement, through arithmetic, comparisons, concatenation
 * and unary operators, the branches of ?: and the right of && and ||. */
static bool ushift_node(const struct node *n, bool unused)
{
	if (!n)
		return false;
	if (n->kind == N_EXPR_STMT)
		return ushift_node(n->a, true);
	if (unused) {
		switch (n->kind) {
		case N_BINARY:
		case N_COMPARE:
		case N_CONCAT:
		case N_UNARY:
			return ushift_node(n->a, true) || ushift_node(n->b, true);
		case N_TERNARY:
			return ushift_node(n->a, false) || ushift_node(n->b, true) ||
			       ushift_node(n->c, true);
		case N_LOGICAL:
			return ushift_node(n->a, false) || ushift_node(n->b, true);
		default:
			break;
		}
	}
	if (n->kind == N_BINARY && !strcmp(n->op, ">>>") && is_num(n->a) && is_num(n->b))
		return true;
	return literal_ushift(n->a) || literal_ushift(n->b) || literal_ushift(n->c) ||
	       literal_ushift(n->d) || literal_ushift(n->args);
}

/* x >>> y of two literals, in code left after elision, in the list n */
static bool literal_ushift(const struct node *n)
{
	for (; n; n = n->next)
		if (ushift_node(n, false))
			return true;
	return false;
}

void opt_elide(struct session *s)
{
	bool ushift = false;

	if (!s->unoptimized)
		elide(s);
	/* 4.8's constant folder, which runs after its elision, fails on
	 * `1 >>> 2` (once, with no location) */
	for (struct probe *p = s->probes; p && !ushift; p = p->next)
		ushift = literal_ushift(p->body);
	for (struct func *f = s->funcs; f && !ushift; f = f->next_used)
		ushift = f->body->kind == N_BLOCK && literal_ushift(f->body);
	if (ushift)
		diag_plain(s, "unsupported binary operator >>>");
	for (struct probe *p = s->probes; p; p = p->next)
		check_stat_locals(s, p->locals);
	for (struct func *f = s->funcs; f; f = f->next_used)
		check_stat_locals(s, f->locals);
}

static void elide(struct session *s)
{
	decide_purity(s);
	for (struct probe *p = s->probes; p; p = p->next)
		fold(s, NULL, &p->body);
	for (struct func *f = s->funcs; f; f = f->next_used) {
		if (f->body->kind == N_BLOCK)
			fold(s, NULL, &f->body);
	}
	for (struct probe *p = s->probes; p; p = p->next) {
		elide_stmt(s, &p->body);
		drop_unreferenced(&p->locals, p->body);
	}
	elide_probes(s);
	for (struct func *f = s->funcs; f; f = f->next_used) {
		if (f->body->kind == N_BLOCK) {
			elide_stmt(s, &f->body);
			drop_unreferenced(&f->locals, f->body);
		}
	}
	prune(s);
}

/* The functions still called from a probe, transitively. */
static void reach(struct node *n)
{
	for (; n; n = n->next) {
		if (n->kind == N_CALL && n->func && !n->func->reached) {
			n->func->reached = true;
			reach(n->func->body);
		}
		reach(n->a);
		reach(n->b);
		reach(n->c);
		reach(n->d);
		reach(n->args);
	}
}

/* After elision: functions no longer called and globals no longer named
 * go, as upstream drops them. */
static void prune(struct session *s)
{
	struct func **fp;
	struct var **vp;

	for (struct func *f = s->funcs; f; f = f->next_used)
		f->reached = false;
	for (struct probe *p = s->probes; p; p = p->next)
		reach(p->body);
	for (fp = &s->funcs; *fp;) {
		if ((*fp)->reached)
			fp = &(*fp)->next_used;
		else
			*fp = (*fp)->next_used;
	}
	for (struct var *v = s->globals; v; v = v->next)
		v->referenced = false;
	for (struct probe *p = s->probes; p; p = p->next)
		mark_referenced(p->body);
	for (struct func *f = s->funcs; f; f = f->next_used)
		mark_referenced(f->body);
	for (vp = &s->globals; *vp;) {
		if (!(*vp)->referenced)
			*vp = (*vp)->next;	/* never used, or only by elided code */
		else
			vp = &(*vp)->next;
	}
}
