/*
 * types.c - pass 2c: type inference to a fixed point over longs, strings,
 * statistics and arrays (key and value types), function parameters and
 * returns; then the checks that need types: mismatches (noting where a
 * variable got its type), printf arguments, values that are not values
 * (a function that returns nothing, a statistic read as a number), and
 * anything left without a type.
 */
#include <string.h>

#include "elaborate.h"

struct infer {
	struct session *s;
	struct scope *sc;
	bool changed;
	bool report;		/* final round: report mismatches */
	bool reported;		/* one mismatch per statement: no cascades */
};

static bool report_now(struct infer *in)
{
	if (!in->report || in->reported)
		return false;
	in->reported = true;
	return true;
}

/* ---- type inference ----------------------------------------------------- */

static void unify(struct infer *in, enum type *a, enum type b, struct loc loc,
		  const char *what)
{
	if (b == T_UNKNOWN || *a == b)
		return;
	if (*a == T_UNKNOWN) {
		*a = b;
		in->changed = true;
		return;
	}
	if (report_now(in))
		diag_error(in->s, loc, "type mismatch: %s is %s here but %s elsewhere",
			   what, type_name(b), type_name(*a));
}

static enum type infer(struct infer *in, struct node *n, enum type want);

static void infer_list(struct infer *in, struct node *n)
{
	for (; n; n = n->next)
		infer(in, n, T_UNKNOWN);
}

static void infer_print(struct infer *in, struct node *n)
{
	struct node *a = n->args;

	if (n->flags & (PR_FORMAT | PR_DELIM)) {
		infer(in, a, T_STRING);
		a = a->next;
	}
	if (n->flags & PR_FORMAT) {
		const char *err;
		struct fmt_piece *p = fmt_parse(in->s, n->args->str,
						n->args->len, &err);

		if (!p && err) {
			if (in->report)
				diag_error(in->s, n->args->loc, "%s", err);
			return;
		}
		for (; p; p = p->next) {
			if (!p->conv)
				continue;
			if (p->width == -2 && a) {
				infer(in, a, T_LONG);
				a = a->next;
			}
			if (p->prec == -2 && a) {
				infer(in, a, T_LONG);
				a = a->next;
			}
			if (!a)
				break;
			infer(in, a, p->conv == 's' ? T_STRING : T_LONG);
			a = a->next;
		}
		return;
	}
	infer_list(in, a);
}

/* A variable's type comes from its first typed use; a clash names both
 * places. */
static enum type infer_var(struct infer *in, struct node *n, enum type want)
{
	struct var *v = n->var;

	if (!v)
		return T_UNKNOWN;
	if (want != T_UNKNOWN && v->type != T_UNKNOWN && v->type != want) {
		if (report_now(in)) {
			diag_error(in->s, n->loc, "type mismatch: variable '%s' is %s here but %s elsewhere",
				   n->op, type_name(want), type_name(v->type));
			if (v->type_loc.src)
				diag_note(in->s, v->type_loc, "'%s' is %s from here", n->op,
					  type_name(v->type));
		}
		return v->type;
	}
	if (v->type == T_UNKNOWN && want != T_UNKNOWN) {
		v->type = want;
		v->type_loc = n->loc;
		in->changed = true;
	}
	return v->type;
}

static enum type infer_call(struct infer *in, struct node *n)
{
	struct func *f = n->func;
	struct node *a;
	struct var *p;

	if (!f) {
		infer_list(in, n->args);
		return T_UNKNOWN;
	}
	for (a = n->args, p = f->params; a && p; a = a->next, p = p->next) {
		enum type t = infer(in, a, p->type);

		unify(in, &p->type, t, a->loc, arena_printf(in->s->arena,
		      "argument '%s' of '%s'", p->name, f->name));
	}
	return f->type;
}

static enum type infer_assign(struct infer *in, struct node *n)
{
	enum type t;

	if (!strcmp(n->op, "<<<")) {
		infer(in, n->a, T_STATS);
		infer(in, n->b, T_LONG);
		return T_LONG;
	}
	if (!strcmp(n->op, ".=")) {
		infer(in, n->b, T_STRING);
		return infer(in, n->a, T_STRING);
	}
	if (strcmp(n->op, "=")) {
		infer(in, n->b, T_LONG);
		return infer(in, n->a, T_LONG);
	}
	t = infer(in, n->b, T_UNKNOWN);
	t = infer(in, n->a, t);
	infer(in, n->b, t);
	return t;
}

static enum type infer_compare(struct infer *in, struct node *n)
{
	enum type ta = infer(in, n->a, T_UNKNOWN);
	enum type tb = infer(in, n->b, ta);

	if (ta == T_UNKNOWN)
		infer(in, n->a, tb);
	if (ta != T_UNKNOWN && tb != T_UNKNOWN && ta != tb && report_now(in))
		diag_error(in->s, n->loc, "type mismatch: comparing %s with %s",
			   type_name(ta), type_name(tb));
	return T_LONG;
}

/* a[k1, k2]: keys against the array's key types; the value's type */
static enum type infer_index(struct infer *in, struct node *n, enum type want)
{
	struct var *v = n->var;
	int i = 0;

	for (struct node *k = n->args; k && v; k = k->next, i++) {
		enum type t;

		if (k->kind == N_WILDCARD)
			continue;
		t = infer(in, k, v->keys[i]);
		unify(in, &v->keys[i], t, k->loc, arena_printf(in->s->arena,
		      "key %d of array '%s'", i + 1, v->name));
	}
	if (!v)
		return T_UNKNOWN;
	unify(in, &v->type, want, n->loc, arena_printf(in->s->arena,
	      "the value of array '%s'", v->name));
	return v->type;
}

/* [k1, k2] in a */
static enum type infer_in(struct infer *in, struct node *n)
{
	struct var *v = n->a->var;
	int i = 0;

	for (struct node *k = n->args; k && v; k = k->next, i++) {
		enum type t;

		if (k->kind == N_WILDCARD)
			continue;
		t = infer(in, k, v->keys[i]);
		unify(in, &v->keys[i], t, k->loc, arena_printf(in->s->arena,
		      "key %d of array '%s'", i + 1, v->name));
	}
	return T_LONG;
}

/* @count(s) and friends: a statistic in, a long out */
static enum type infer_stat_op(struct infer *in, struct node *n)
{
	struct node *a = n->args;

	if (!a)
		return T_UNKNOWN;
	infer(in, a, T_STATS);
	for (a = a->next; a; a = a->next)
		infer(in, a, T_LONG);
	return strncmp(n->op, "@hist", 5) ? T_LONG : T_UNKNOWN;
}

static enum type infer_kind(struct infer *in, struct node *n, enum type want)
{
	enum type t;

	switch (n->kind) {
	case N_INDEX:
		return infer_index(in, n, want);
	case N_DEREF:
		if (n->deref) {
			for (struct node *c = n->args; c; c = c->next)
				if (c->kind == N_SUBSCRIPT)
					infer(in, c->a, T_LONG);
			if (elab_is_autocast(n))
				infer(in, n->a, T_LONG);
			else if (n->a->kind == N_CALL)
				infer(in, n->a->args, T_LONG);
			return n->deref->res == DR_PRETTY ? T_STRING : T_LONG;
		}
		if (!resolve_is_hist_bucket(n))
			return T_UNKNOWN;
		infer(in, n->a, T_UNKNOWN);
		infer(in, n->args->a, T_LONG);
		return T_LONG;
	case N_NUM:
		return T_LONG;
	case N_STR:
		return T_STRING;
	case N_TARGET:
		return n->deref && n->deref->pretty ? T_STRING : elab_target_type(n);
	case N_VAR:
		return infer_var(in, n, want);
	case N_CALL:
		if (!strcmp(n->op, "@entry"))
			return infer(in, n->args, want);
		if (n->op[0] == '@')
			return infer_stat_op(in, n);
		return infer_call(in, n);
	case N_PRINT:
		infer_print(in, n);
		return n->flags & PR_STRING ? T_STRING : T_LONG;
	case N_BINARY:
		if (!strcmp(n->op, "in"))
			return infer_in(in, n);
		/* fall through */
	case N_LOGICAL:
	case N_UNARY:
	case N_INCDEC:
		infer(in, n->a, T_LONG);
		if (n->b)
			infer(in, n->b, T_LONG);
		return T_LONG;
	case N_CONCAT:
		infer(in, n->a, T_STRING);
		infer(in, n->b, T_STRING);
		return T_STRING;
	case N_COMPARE:
		if (n->op[1] == '~') {
			infer(in, n->a, T_STRING);
			return T_LONG;
		}
		return infer_compare(in, n);
	case N_ASSIGN:
		return infer_assign(in, n);
	case N_TERNARY:
		infer(in, n->a, T_LONG);
		t = infer(in, n->b, want);
		t = infer(in, n->c, t);
		want = infer(in, n->b, t);
		return want != T_UNKNOWN ? want : t;	/* r(n - 1) : 0 is long */
	case N_EMBEDDED_EXPR:
		return strstr(n->str, "/* string */") ? T_STRING : T_LONG;
	default:
		return T_UNKNOWN;
	}
}

static const char *describe(struct session *s, const struct node *n)
{
	if (n->kind == N_VAR)
		return arena_printf(s->arena, "variable '%s'", n->op);
	if (n->kind == N_CALL)
		return arena_printf(s->arena, "the value of '%s()'", n->op);
	return "the expression";
}

static enum type infer(struct infer *in, struct node *n, enum type want)
{
	enum type t;

	if (!n)
		return T_UNKNOWN;
	t = infer_kind(in, n, want);
	if (t != T_UNKNOWN && n->type == T_UNKNOWN)
		in->changed = true;
	if (t != T_UNKNOWN)
		n->type = t;
	if (want != T_UNKNOWN && t != T_UNKNOWN && want != t && report_now(in))
		diag_error(in->s, n->loc, "type mismatch: %s is %s, but %s is needed here",
			   describe(in->s, n), type_name(t), type_name(want));
	return t;
}

static void infer_stmt(struct infer *in, struct node *n);

/* foreach: key variables take the array's key types, the value variable
 * its value type (both ways, to a fixed point) */
static void infer_foreach(struct infer *in, struct node *n)
{
	struct var *arr = n->a->kind == N_CALL ? NULL : n->a->var;
	int i = 0;

	if (n->a->kind == N_CALL)
		infer(in, n->a, T_UNKNOWN);
	else if (n->a->kind == N_INDEX)
		infer_index(in, n->a, T_UNKNOWN);
	for (struct node *k = n->args; k; k = k->next, i++) {
		enum type *kt = arr ? &arr->keys[i] : NULL;

		if (!k->var)
			continue;
		if (!arr) {
			unify(in, &k->var->type, T_LONG, k->loc, "the bucket index");
			continue;
		}
		unify(in, &k->var->type, *kt, k->loc, arena_printf(in->s->arena,
		      "variable '%s'", k->op));
		unify(in, kt, k->var->type, k->loc, arena_printf(in->s->arena,
		      "key %d of array '%s'", i + 1, arr->name));
	}
	/* foreach (k in a @sum+): the aggregate needs an array of statistics */
	if (n->str && arr && arr->type != T_UNKNOWN && arr->type != T_STATS &&
	    report_now(in))
		diag_error(in->s, n->a->loc, "invalid type %s for '%s': array '%s' does not hold statistics",
			   type_name(arr->type), n->str, arr->name);
	if (n->b && n->b->var) {
		enum type vt = arr ? arr->type : T_LONG;

		if (vt == T_STATS) {
			if (report_now(in))
				diag_error(in->s, n->b->loc, "a foreach value variable cannot hold statistics");
		}
		else
			unify(in, &n->b->var->type, vt, n->b->loc, arena_printf(in->s->arena,
			      "variable '%s'", n->b->op));
	}
	infer(in, n->c, T_LONG);
	infer_stmt(in, n->d);
}

static void infer_stmt(struct infer *in, struct node *n)
{
	for (; n; n = n->next) {
		in->reported = false;
		switch (n->kind) {
		case N_BLOCK:
			infer_stmt(in, n->args);
			break;
		case N_EXPR_STMT:
			infer(in, n->a, T_UNKNOWN);
			break;
		case N_IF:
		case N_WHILE:
			infer(in, n->a, T_LONG);
			infer_stmt(in, n->b);
			if (n->c)
				infer_stmt(in, n->c);
			break;
		case N_FOR:
			infer(in, n->a, T_UNKNOWN);
			infer(in, n->b, T_LONG);
			infer(in, n->c, T_UNKNOWN);
			infer_stmt(in, n->d);
			break;
		case N_FOREACH:
			infer_foreach(in, n);
			break;
		case N_DELETE:	/* the keys of an element or a slice */
			if (n->a->kind == N_INDEX)
				infer_index(in, n->a, T_UNKNOWN);
			break;
		case N_TRY:
			if (n->var)
				unify(in, &n->var->type, T_STRING, n->loc, "the catch variable");
			infer_stmt(in, n->a);
			infer_stmt(in, n->b);
			break;
		case N_NEXT:	/* to the next overload: see resolve.c */
		case N_RETURN:
			if (in->sc->func && n->a) {
				enum type t = infer(in, n->a, in->sc->func->type);

				unify(in, &in->sc->func->type, t, n->loc,
				      arena_printf(in->s->arena, "the return value of '%s'",
						   in->sc->func->name));
			}
			break;
		default:
			break;
		}
	}
}

/* Infer through a statement without following its ->next chain. */
static void infer_one(struct infer *in, struct node *n)
{
	struct node *saved = n->next;

	n->next = NULL;
	infer_stmt(in, n);
	n->next = saved;
}

static void infer_round(struct session *s, struct infer *in)
{
	struct scope sc = { 0 };

	in->sc = &sc;
	for (struct func *f = s->funcs; f; f = f->next_used) {
		sc.func = f;
		if (f->body->kind != N_EMBEDDED_STMT)
			infer_one(in, f->body);
		/* embedded C without a type annotation returns nothing */
	}
	sc.func = NULL;
	for (struct probe *p = s->probes; p; p = p->next)
		infer_one(in, p->body);
	in->sc = NULL;
}


/* The assigned local of p or the global nearest to name (a misspelt
 * variable, as 4.8's "similar:"), or NULL. */
static const char *nearest_var(struct session *s, const struct probe *p, const char *name)
{
	const struct var *lists[2] = { p->locals, s->globals };
	struct nearest n;

	nearest_init(&n, name, -1);
	for (int i = 0; i < 2; i++) {
		for (const struct var *v = lists[i]; v; v = v->next) {
			if (v->written && strcmp(v->name, name))
				nearest_offer(&n, v->name);
		}
	}
	return n.best;
}

static void check_unresolved(struct session *s)
{
	for (struct var *v = s->globals; v; v = v->next) {
		if (!v->read && !v->written)
			continue;	/* unused: elided, typeless */
		if (v->type == T_UNKNOWN)
			diag_error(s, v->loc, "unresolved type for global '%s'", v->name);
		for (int i = 0; i < v->arity; i++) {
			if (v->keys[i] == T_UNKNOWN)
				diag_error(s, v->loc, "unresolved type for key %d of array '%s'",
					   i + 1, v->name);
			else if (v->keys[i] == T_STATS)
				diag_error(s, v->loc, "key %d of array '%s' cannot be statistics",
					   i + 1, v->name);
		}
	}
	for (struct func *f = s->funcs; f; f = f->next_used) {
		for (struct var *v = f->locals; v; v = v->next) {
			if (v->type == T_UNKNOWN)
				diag_error(s, v->loc, "unresolved type for %s '%s' in function '%s'",
					   v->param ? "parameter" : "local", v->name, f->name);
		}
	}
	for (struct probe *p = s->probes; p; p = p->next) {
		for (struct var *v = p->locals; v; v = v->next) {
			const char *hint = v->written ? NULL : nearest_var(s, p, v->name);

			if (hint)
				diag_warn(s, v->loc, "never-assigned local variable '%s'; did you mean '%s'?",
					  v->name, hint);
			else if (!v->written)
				diag_warn(s, v->loc, "never-assigned local variable '%s'",
					  v->name);
			if (v->type == T_UNKNOWN && !s->errors)	/* else a cascade */
				diag_error(s, v->loc, "unresolved type for local '%s'", v->name);
		}
	}
}

/* ---- checks ------------------------------------------------------------- */

static void check_print_args(struct session *s, struct node *n)
{
	const char *err;
	struct fmt_piece *p;
	int nargs = -1, want;

	for (struct node *a = n->args; a; a = a->next)
		nargs++;
	if (!(n->flags & PR_FORMAT))
		return;
	p = fmt_parse(s, n->args->str, n->args->len, &err);
	if (!p && err)
		return;		/* reported by inference */
	want = fmt_nargs(p);
	if (want != nargs)
		diag_error(s, n->loc, "wrong number of arguments to '%s': the format needs %d, got %d",
			   n->op, want, nargs);
}

/* Where an expression's value is taken, a function that returns nothing
 * or a statistic read like a number is an error (upstream: unresolved
 * type, invalid type stats). */
static void check_value(struct session *s, const struct node *n)
{
	if (s->errors)
		return;		/* most likely a consequence of the first */
	if (n->kind == N_CALL && n->func && n->func->type == T_UNKNOWN &&
	    !n->truth_only)
		diag_error(s, n->loc, "function '%s' returns no value", n->op);
	else if ((n->kind == N_VAR || n->kind == N_INDEX) && n->type == T_STATS &&
		 n->var && n->var->global)
		diag_error(s, n->loc, "'%s' is a statistic: read it with @count, @sum, @min, @max or @avg",
			   n->op);
}

/* A call whose value is only tested for truth (an operand of && || !, a
 * condition) may return nothing: upstream takes it as 0 (`count && exit()`). */
static void mark_truth(struct node *n)
{
	struct node *t[2] = { NULL, NULL };

	if (n->kind == N_LOGICAL) {
		t[0] = n->a;
		t[1] = n->b;
	} else if (n->kind == N_UNARY && !strcmp(n->op, "!")) {
		t[0] = n->a;
	} else if (n->kind == N_IF || n->kind == N_WHILE) {
		t[0] = n->a;
	} else if (n->kind == N_FOR) {
		t[0] = n->b;
	}
	for (int i = 0; i < 2; i++)
		if (t[i] && t[i]->kind == N_CALL)
			t[i]->truth_only = true;
}

/* The operands whose values are used (not: a statement's own expression,
 * the left of '<<<', the argument of @count and friends, delete). */
static void check_operands(struct session *s, struct node *n)
{
	mark_truth(n);
	if (n->kind == N_ASSIGN) {
		if (strcmp(n->op, "<<<"))
			check_value(s, n->a);
		check_value(s, n->b);
	} else if (n->kind == N_CALL && n->op[0] == '@') {
		if (!strcmp(n->op, "@entry"))
			check_value(s, n->args);
		for (struct node *a = n->args ? n->args->next : NULL; a; a = a->next)
			check_value(s, a);
	} else if (n->kind == N_PRINT) {
		for (struct node *a = n->args; a; a = a->next) {
			if (a->kind != N_CALL || strncmp(a->op, "@hist_", 6))
				check_value(s, a);
		}
	} else if (n->kind != N_EXPR_STMT && n->kind != N_DELETE &&
		   n->kind != N_FOREACH && n->kind != N_BLOCK) {
		struct node *kids[4] = { n->a, n->b, n->c, n->d };

		for (int i = 0; i < 4; i++) {
			if (kids[i] && kids[i]->kind != N_BLOCK)
				check_value(s, kids[i]);
		}
		if (n->kind != N_BINARY || strcmp(n->op, "in"))
			for (struct node *a = n->args; a; a = a->next)
				check_value(s, a);
	}
}

static void check_node(struct session *s, struct node *n)
{
	for (; n; n = n->next) {
		if (n->kind == N_PRINT)
			check_print_args(s, n);
		check_operands(s, n);
		check_node(s, n->args);
		check_node(s, n->a);
		check_node(s, n->b);
		check_node(s, n->c);
		check_node(s, n->d);
	}
}

/* `return;` in a function that returns a value elsewhere */
static void check_returns(struct session *s, const struct func *f, const struct node *n)
{
	for (; n; n = n->next) {
		if (n->kind == N_RETURN && !n->a && f->type != T_UNKNOWN)
			diag_error(s, n->loc, "type mismatch: 'return' without a value in function '%s', which returns %s",
				   f->name, type_name(f->type));
		check_returns(s, f, n->a);
		check_returns(s, f, n->b);
		check_returns(s, f, n->c);
		check_returns(s, f, n->d);
		check_returns(s, f, n->args);
	}
}

/* The longest call chain from f; *rec set when a cycle is found. */

/* Rounds until nothing changes, one reporting round, then the checks. */
void types_infer(struct session *s)
{
	struct infer in = { .s = s };

	for (int round = 0; round < 50; round++) {
		in.changed = false;
		infer_round(s, &in);
		if (!in.changed)
			break;
	}
	in.report = true;
	infer_round(s, &in);
	for (struct probe *p = s->probes; p; p = p->next)
		check_node(s, p->body);
	for (struct func *f = s->funcs; f; f = f->next_used) {
		check_node(s, f->body);
		if (f->body->kind != N_EMBEDDED_STMT)
			check_returns(s, f, f->body);
	}
	check_unresolved(s);
}
