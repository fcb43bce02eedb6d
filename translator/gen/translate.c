/*
 * translate.c - pass 3: write the module's C from the resolved program.
 *
 * Layout of the output (see runtime/README.md): limits, the runtime
 * header, top-level embedded C, globals, one locals struct per probe and
 * function (locals and temporaries live in the per-CPU context, never on
 * the kernel stack), the handlers, the probe table, and the runtime
 * implementation. Expressions compile to C expression text; anything with
 * a side effect, a possible error or a string result is first evaluated
 * into a temporary by statements emitted ahead of its use, so evaluation
 * stays left to right and every error can `goto out` before output is
 * produced.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "translate.h"
#include "ubin.h"


void tr_line(struct gen *g, const char *fmt, ...)
{
	va_list ap;
	char *p;
	int n;

	for (n = 0; n < g->indent; n++)
		sb_putc(g->body, '\t');
	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	p = malloc((size_t)n + 1);
	va_start(ap, fmt);
	vsnprintf(p, (size_t)n + 1, fmt, ap);
	va_end(ap);
	sb_puts(g->body, p);
	sb_putc(g->body, '\n');
	free(p);
}

const char *tr_cstr(struct gen *g, const char *s)
{
	struct strbuf sb;
	const char *r;

	sb_init(&sb);
	sb_c_string(&sb, s);
	r = arena_strdup(g->s->arena, sb.buf);
	sb_free(&sb);
	return r;
}

const char *tr_mangle(struct gen *g, const char *prefix, const char *name)
{
	struct strbuf sb;
	const char *r;

	sb_init(&sb);
	sb_puts(&sb, prefix);
	for (; *name; name++) {
		if (*name == '$')
			sb_puts(&sb, "_S_");
		else
			sb_putc(&sb, *name);
	}
	r = arena_strdup(g->s->arena, sb.buf);
	sb_free(&sb);
	return r;
}

/* A temporary of any C type: "struct stp_key t_3[2]" is
 * tr_new_decl(g, "struct stp_key", "[2]"). */
const char *tr_new_decl(struct gen *g, const char *ctype, const char *suffix)
{
	int n = g->ntmp++;

	sb_printf(&g->tmps, "\t%s t_%d%s;\n", ctype, n, suffix);
	return arena_printf(g->s->arena, "l->t_%d", n);
}

const char *tr_new_tmp(struct gen *g, enum type t)
{
	int n = g->ntmp++;

	if (t == T_STRING)
		sb_printf(&g->tmps, "\tchar t_%d[MAXSTRINGLEN];\n", n);
	else
		sb_printf(&g->tmps, "\tint64_t t_%d;\n", n);
	return arena_printf(g->s->arena, "l->t_%d", n);
}

/* "operator '/' at file:1:2": where a run-time error happened. */
const char *tr_where_text(struct gen *g, const struct node *n)
{
	const char *what;

	switch (n->kind) {
	case N_BINARY:
	case N_ASSIGN:
		what = arena_printf(g->s->arena, "operator '%s'", n->op);
		break;
	case N_CALL:
	case N_VAR:
	case N_INDEX:
	case N_PRINT:
		what = arena_printf(g->s->arena, "%s '%s'",
				    n->op[0] == '@' ? "operator" : "identifier", n->op);
		break;
	case N_NUM:
		what = arena_printf(g->s->arena, "number '%lld'", (long long)n->num);
		break;
	default:
		what = "statement";
	}
	return arena_printf(g->s->arena, "%s at %s", what, loc_str(g->s, n->loc));
}

const char *tr_where(struct gen *g, const struct node *n)
{
	return tr_loc(g, tr_where_text(g, n));
}

void tr_error_check(struct gen *g, const struct node *n)
{
	tr_line(g, "if (unlikely(c->last_error)) {");
	tr_line(g, "\tif (!c->last_stmt)");
	tr_line(g, "\t\tc->last_stmt = %s;", tr_where(g, n));
	tr_line(g, "\tgoto %s;", g->err_label);
	tr_line(g, "}");
}

const char *tr_var_ref(struct gen *g, const struct var *v)
{
	if (v->global)
		return tr_mangle(g, "g_", v->name);
	return tr_mangle(g, tr_shared_var(g, v) ? "l->b.l_" : "l->l_", v->name);
}



/* What pass 2 accepts but this version cannot run yet. */
void tr_unsupported(struct gen *g, const struct node *n)
{
	const char *what;

	switch (n->kind) {
	case N_INDEX:
	case N_FOREACH:
	case N_DELETE:
		what = "arrays";
		break;
	case N_TRY:
		what = "'try'";
		break;
	case N_CALL:
		what = arena_printf(g->s->arena, "'%s'", n->op);
		break;
	default:
		what = "this construct";
	}
	diag_error(g->s, n->loc, "%s %s not supported by the runtime of this version yet",
		   what, n->kind == N_TRY || n->kind == N_CALL ||
		   n->kind == N_EXPR_STMT ? "is" : "are");
}

/* Store the value text `val` of type t into the lvalue text `dst`. */
void tr_store(struct gen *g, const char *dst, const char *val, enum type t)
{
	if (t == T_STRING) {
		if (strcmp(dst, val))
			tr_line(g, "stp_str_copy(%s, %s);", dst, val);
	} else {
		tr_line(g, "%s = %s;", dst, val);
	}
}


/* Does evaluating n assign a variable (a call cannot change our locals)? */
static bool has_assign(const struct node *n)
{
	if (!n)
		return false;
	if (n->kind == N_ASSIGN || n->kind == N_INCDEC)
		return true;
	if (has_assign(n->a) || has_assign(n->b) || has_assign(n->c))
		return true;
	for (const struct node *a = n->args; a; a = a->next)
		if (has_assign(a))
			return true;
	return false;
}

/* Can evaluating `later` change the value v: a literal or temporary never,
 * a local only by an assignment (a call cannot), anything else (a global,
 * an array element) by a call too. */
static bool may_change(const char *v, const struct node *later)
{
	size_t lit = strlen("((int64_t)");

	if (v[0] == '"' || !strncmp(v, "l->t_", 5) ||
	    (!strncmp(v, "((int64_t)", lit) &&
	     v[lit + strspn(v + lit, "-0123456789abcdefxABCDEFUL")] == ')'))
		return false;
	if (!strncmp(v, "l->l_", 5) || !strncmp(v, "l->b.l_", 7))
		return has_assign(later);
	return tr_has_effects(later);
}

/* v, copied to a temporary if evaluating `later` or the nodes after it can
 * change it: `x % x++` and `f(x & 1, --x)` read x first, as 4.8 does. */
const char *tr_stable(struct gen *g, const char *v, enum type t,
		      const struct node *later)
{
	const char *tmp;
	bool change = false;

	for (; later && !change; later = later->next)
		change = may_change(v, later);
	if (!change)
		return v;
	tmp = tr_new_tmp(g, t);
	tr_store(g, tmp, v, t);
	return tmp;
}

/* The left operand's value v before the right one, `later`, runs. */
static const char *left_first(struct gen *g, const char *v, enum type t,
			      const struct node *later)
{
	const char *tmp;

	if (!may_change(v, later))
		return v;
	tmp = tr_new_tmp(g, t);
	tr_store(g, tmp, v, t);
	return tmp;
}

/* a op b; n is blamed for an error, d is the right operand's node */
static const char *gen_arith(struct gen *g, struct node *n, const char *op,
			     const char *a, const char *b, const struct node *d)
{
	struct arena *ar = g->s->arena;
	const char *t;

	if (!strcmp(op, "+") || !strcmp(op, "-") || !strcmp(op, "*"))
		return arena_printf(ar, "((int64_t)((uint64_t)(%s) %s (uint64_t)(%s)))",
				    a, op, b);
	if (!strcmp(op, "&") || !strcmp(op, "|") || !strcmp(op, "^"))
		return arena_printf(ar, "((%s) %s (%s))", a, op, b);
	if (!strcmp(op, "<<"))
		return arena_printf(ar, "((int64_t)((uint64_t)(%s) << ((%s) & 63)))", a, b);
	if (!strcmp(op, ">>"))
		return arena_printf(ar, "((int64_t)(%s) >> ((%s) & 63))", a, b);
	if (!strcmp(op, ">>>"))
		return arena_printf(ar, "((int64_t)((uint64_t)(%s) >> ((%s) & 63)))", a, b);
	/* / and % by a constant other than 0 and -1 cannot fail: plain C,
	 * which truncates toward zero as stp_div()/stp_mod() do */
	if (d->kind == N_NUM && d->num != 0 && d->num != -1)
		return arena_printf(ar, "((int64_t)(%s) %s (int64_t)%lldLL)", a, op,
				    (long long)d->num);
	/* / and %: may fail */
	t = tr_new_tmp(g, T_LONG);
	tr_line(g, "%s = %s(c, %s, %s);", t, op[0] == '/' ? "stp_div" : "stp_mod", a, b);
	tr_error_check(g, n);
	return t;
}

static const char *gen_logical(struct gen *g, struct node *n)
{
	const char *t = tr_new_tmp(g, T_LONG), *a;
	bool and = !strcmp(n->op, "&&");

	tr_line(g, "%s = %d;", t, and ? 0 : 1);
	a = tr_gen_expr(g, n->a);
	tr_line(g, "if (%s(%s)) {", and ? "" : "!", a);
	g->indent++;
	tr_line(g, "%s = (%s) != 0;", t, tr_gen_expr(g, n->b));
	g->indent--;
	tr_line(g, "}");
	return t;
}

static const char *gen_compare(struct gen *g, struct node *n)
{
	const char *a, *b;

	if (n->op[1] == '~')
		return tr_regex_match(g, n);
	a = left_first(g, tr_gen_expr(g, n->a), n->a->type == T_STRING ? T_STRING : T_LONG,
		       n->b);
	b = tr_gen_expr(g, n->b);
	if (n->a->type == T_STRING)
		return arena_printf(g->s->arena, "((int64_t)(strcmp(%s, %s) %s 0))",
				    a, b, n->op);
	return arena_printf(g->s->arena, "((int64_t)((%s) %s (%s)))", a, n->op, b);
}

static const char *gen_concat(struct gen *g, struct node *n)
{
	const char *a = left_first(g, tr_gen_expr(g, n->a), T_STRING, n->b);
	const char *b = tr_gen_expr(g, n->b);
	const char *t = tr_new_tmp(g, T_STRING);

	tr_line(g, "stp_str_copy(%s, %s);", t, a);
	tr_line(g, "stp_str_cat(%s, %s);", t, b);
	return t;
}

static const char *gen_unary(struct gen *g, struct node *n)
{
	const char *a = tr_gen_expr(g, n->a);

	switch (n->op[0]) {
	case '-':
		return arena_printf(g->s->arena, "((int64_t)(0 - (uint64_t)(%s)))", a);
	case '!':
		return arena_printf(g->s->arena, "((int64_t)!(%s))", a);
	case '~':
		return arena_printf(g->s->arena, "(~(%s))", a);
	default:
		return a;
	}
}

static const char *gen_incdec(struct gen *g, struct node *n)
{
	if (n->a->kind == N_INDEX)
		return tr_index_incdec(g, n);
	if (n->a->kind == N_TARGET && !(n->a->flags & TARGET_NF_LOCAL))
		return "((int64_t)0)";	/* refused by pass 2 (4.8: '=' only) */
	if (n->a->kind == N_DEREF)
		return "((int64_t)0)";
	if (n->a->kind == N_TARGET) {	/* netfilter's $verdict++ (guru) */
		const char *old = tr_target(g, n->a);
		const char *t = tr_new_tmp(g, T_LONG);

		tr_line(g, "%s = (int64_t)((uint64_t)%s %s 1);", t, old,
			n->op[0] == '+' ? "+" : "-");
		tr_target_set(g, n->a, t);
		return n->flags ? old : t;
	}
	const char *x = tr_var_ref(g, n->a->var), *t;
	const char *op = n->op[0] == '+' ? "+" : "-";

	if (n->value_unused) {		/* i++; as a statement or a for step */
		tr_line(g, "%s = (int64_t)((uint64_t)%s %s 1);", x, x, op);
		return x;
	}
	t = tr_new_tmp(g, T_LONG);
	if (n->flags)
		tr_line(g, "%s = %s;", t, x);
	tr_line(g, "%s = (int64_t)((uint64_t)%s %s 1);", x, x, op);
	if (!n->flags)
		tr_line(g, "%s = %s;", t, x);
	return t;
}

static const char *gen_assign(struct gen *g, struct node *n)
{
	const char *x, *b, *t;
	char aop[4] = { 0 };

	if (strcmp(n->op, "=") && strcmp(n->op, ".=") && strcmp(n->op, "<<<"))
		memcpy(aop, n->op, strlen(n->op) - 1);
	if (n->a->kind == N_INDEX)
		return tr_index_assign(g, n, aop[0] ? aop : NULL, gen_arith);
	if (n->a->kind == N_TARGET && (t = tr_target_assign(g, n)))
		return t;
	if (!strcmp(n->op, "<<<"))
		return tr_stat_add(g, n);
	if (n->a->kind == N_DEREF && n->a->deref)	/* guru: kernel memory */
		return tr_deref_assign(g, n);
	if (n->a->kind == N_DEREF)	/* in a probe without points */
		return tr_gen_expr(g, n->b);
	if (n->a->kind == N_TARGET && aop[0]) {	/* netfilter's $verdict op= v */
		x = tr_target(g, n->a);
		return tr_target_set(g, n->a, gen_arith(g, n->b, aop, x,
							tr_gen_expr(g, n->b), n->b));
	}
	if (n->a->kind == N_TARGET)	/* guru: a parameter's register, rax */
		return tr_target_set(g, n->a, tr_gen_expr(g, n->b));
	x = tr_var_ref(g, n->a->var);
	/* x = f(...); as a statement: the result straight into x (the
	 * call function copies the arguments before it writes it, and
	 * leaves it alone on an error; a local: nothing sees it if the
	 * MAXACTION charge after the call fails) */
	if (n->value_unused && !strcmp(n->op, "=") && !n->a->var->global &&
	    n->b->kind == N_CALL && n->b->func &&
	    n->b->op[0] != '@' && n->b->type == n->a->var->type &&
	    (n->b->type == T_LONG || n->b->type == T_STRING))
		return tr_call(g, n->b, x);
	/* x = sprintf(...) or a ?: of them, as a statement: written into a
	 * local x that the right side does not use (an error ends the
	 * function or probe, outside a try: nothing sees x half written) */
	if (n->value_unused && !strcmp(n->op, "=") && !n->a->var->global &&
	    n->type == T_STRING && !strcmp(g->err_label, "out") &&
	    tr_into_ok(n->b, n->a->var)) {
		tr_into(g, n->b, x);
		return x;
	}
	b = tr_gen_expr(g, n->b);

	if (!strcmp(n->op, ".=")) {
		tr_line(g, "stp_str_cat(%s, %s);", x, b);
		return x;
	}
	if (aop[0])	/* a division error is blamed on the operand, as 4.8 */
		b = gen_arith(g, n->b, aop, x, b, n->b);
	if (n->type == T_STRING) {
		tr_store(g, x, b, T_STRING);
		return x;
	}
	if (n->value_unused) {		/* x = v; as a statement */
		tr_line(g, "%s = %s;", x, b);
		return x;
	}
	t = tr_new_tmp(g, T_LONG);
	tr_line(g, "%s = %s;", t, b);
	tr_line(g, "%s = %s;", x, t);
	return t;
}

static const char *gen_ternary(struct gen *g, struct node *n)
{
	const char *t = tr_new_tmp(g, n->type), *cond = tr_gen_expr(g, n->a);

	tr_line(g, "if (%s) {", cond);
	g->indent++;
	tr_store(g, t, tr_gen_expr(g, n->b), n->type);
	g->indent--;
	tr_line(g, "} else {");
	g->indent++;
	tr_store(g, t, tr_gen_expr(g, n->c), n->type);
	g->indent--;
	tr_line(g, "}");
	return t;
}

/* C names of a script function and its frame: name and arity, since
 * functions overload by the number of arguments. */
const char *tr_fn_cname(struct gen *g, const char *prefix, const struct func *f)
{
	if (f->overload)	/* the later overloads of one name and arity */
		return arena_printf(g->s->arena, "%s__%d_%d", tr_mangle(g, prefix, f->name),
				    f->nparams, f->overload);
	return arena_printf(g->s->arena, "%s__%d", tr_mangle(g, prefix, f->name),
			    f->nparams);
}

const char *tr_frame_type(struct gen *g, const struct func *f)
{
	return tr_fn_cname(g, "struct stp_locals_fn_", f);
}

/* Can evaluating n change a variable (assignments, ++/--, calls)? */
bool tr_has_effects(const struct node *n)
{
	if (!n)
		return false;
	if (n->kind == N_ASSIGN || n->kind == N_INCDEC || n->kind == N_CALL ||
	    n->kind == N_PRINT)
		return true;
	if (tr_has_effects(n->a) || tr_has_effects(n->b) || tr_has_effects(n->c))
		return true;
	for (const struct node *a = n->args; a; a = a->next)
		if (tr_has_effects(a))
			return true;
	return false;
}
const char *tr_gen_expr(struct gen *g, struct node *n)
{
	struct arena *ar = g->s->arena;

	switch (n->kind) {
	case N_NUM:	/* decimal when an int holds it, else hex */
		if (n->num > -2147483647LL && n->num < 2147483647LL)
			return arena_printf(ar, "((int64_t)%lld)", (long long)n->num);
		return arena_printf(ar, "((int64_t)0x%llxULL)",
				    (unsigned long long)n->num);
	case N_STR:
		return tr_cstr(g, n->str);
	case N_VAR:
		return tr_var_ref(g, n->var);
	case N_TARGET:
		return tr_target(g, n);
	case N_INDEX:
		return tr_index_get(g, n);
	case N_CALL:
		if (!strcmp(n->op, "@entry"))
			return tr_entry_value(g, n);
		if (n->op[0] == '@' && !tr_is_hist(n))
			return tr_stat_op(g, n);
		if (n->op[0] == '@') {
			tr_unsupported(g, n);
			return "0";
		}
		return tr_call(g, n, NULL);
	case N_DEREF:
		if (n->deref)
			return tr_deref(g, n);
		if (deref_is_typed(n))
			return "((int64_t)0)";	/* in a probe without points */
		if (tr_is_hist(n->a) && n->args && n->args->kind == N_SUBSCRIPT && !n->args->next)
			return tr_hist_bucket(g, n->a, n->args->a);
		tr_unsupported(g, n);
		return "0";
	case N_PRINT:
		return tr_print(g, n, NULL);
	case N_BINARY:
		if (!strcmp(n->op, "in"))
			return tr_in(g, n);
		{
			/* left operand first, as 4.8 (C leaves argument order open) */
			const char *a = left_first(g, tr_gen_expr(g, n->a), T_LONG, n->b);

			return gen_arith(g, n, n->op, a, tr_gen_expr(g, n->b), n->b);
		}
	case N_LOGICAL:
		return gen_logical(g, n);
	case N_COMPARE:
		return gen_compare(g, n);
	case N_CONCAT:
		return gen_concat(g, n);
	case N_UNARY:
		if (n->op[0] == '&' && n->a->kind == N_DEREF && n->a->deref)
			return tr_deref(g, n->a);
		return gen_unary(g, n);
	case N_INCDEC:
		return gen_incdec(g, n);
	case N_ASSIGN:
		return gen_assign(g, n);
	case N_TERNARY:
		return gen_ternary(g, n);
	case N_EMBEDDED_EXPR:
		if (n->type == T_STRING)
			return arena_printf(ar, "(%s)", n->str);
		return arena_printf(ar, "((int64_t)(%s))", n->str);
	default:
		tr_unsupported(g, n);
		return "0";
	}
}

/* How upstream names a statement in messages: by its first token. */
const char *tr_stmt_where(struct gen *g, const struct node *n)
{
	const char *what;

	while (n->kind == N_BLOCK && n->args) {
		n = n->args;
		while (n->next)
			n = n->next;
	}
	if (n->kind == N_EXPR_STMT)
		n = n->a;
	while ((n->kind == N_ASSIGN || n->kind == N_BINARY || n->kind == N_COMPARE ||
		n->kind == N_LOGICAL || n->kind == N_CONCAT || n->kind == N_TERNARY ||
		(n->kind == N_INCDEC && n->flags)) && n->a)
		n = n->a;
	switch (n->kind) {
	case N_VAR:
	case N_CALL:
	case N_PRINT:
		what = arena_printf(g->s->arena, "identifier '%s'", n->op);
		break;
	case N_UNARY:
	case N_INCDEC:
		what = arena_printf(g->s->arena, "operator '%s'", n->op);
		break;
	case N_NUM:
		what = arena_printf(g->s->arena, "number '%lld'", (long long)n->num);
		break;
	case N_STR:
		what = "string";
		break;
	default:
		what = "keyword";
	}
	return arena_printf(g->s->arena, "%s at %s", what, loc_str(g->s, n->loc));
}

/*
 * MAXACTION, counted as SystemTap 4.8 counts (observed in the C it
 * generates): a probe or function without loops (nor calls of functions
 * with loops, nor recursion) only checks at entry that the budget covers
 * its static count (stmt_count); the others keep a translator-time count of
 * actions (g->act_pending) that code in emission order adds to, and charge
 * it at the points where 4.8 does (tr_act_record with update): loop entry
 * and back edge, if, try and catch, break, continue, return, next, the
 * call of a loop-free function (its count), the end of the body, and
 * whenever 10 are pending. A loop iteration costs 1, a for loop's step is
 * counted (once) where the next charge after the loop falls. Neither error
 * can be caught by try/catch (they go straight to `out`).
 */
static int64_t calls_count(struct gen *g, const struct node *n);

/* 4.8's static count of a loop-free statement list; -1: unbounded */
static int64_t stmts_count(struct gen *g, const struct node *n)
{
	int64_t k = 0, x;

	for (; n; n = n->next) {
		x = stmt_count(g, n);
		if (x < 0)
			return -1;
		k += x;
	}
	return k;
}

static int64_t add_counts(int64_t a, int64_t b)
{
	return a < 0 || b < 0 ? -1 : a + b;
}

int64_t stmt_count(struct gen *g, const struct node *n)
{
	int64_t t, e;

	switch (n->kind) {
	case N_BLOCK:
		return stmts_count(g, n->args);
	case N_WHILE:
	case N_FOR:
	case N_FOREACH:
		return -1;
	case N_IF:
		t = stmt_count(g, n->b);
		e = n->c ? stmt_count(g, n->c) : 0;
		if (t < 0 || e < 0)
			return -1;
		return add_counts(1 + (t > e ? t : e), calls_count(g, n->a));
	case N_TRY:
		return add_counts(stmt_count(g, n->a), stmt_count(g, n->b));
	case N_NULL_STMT:
		return 0;
	default:	/* expression, return, next, break, continue, delete, %{ %} */
		return add_counts(1, calls_count(g, n->a));
	}
}

/* A function's count: its body's; an embedded body counts 0. */
int64_t tr_func_count(struct gen *g, struct func *f)
{
	if (f->act_state == 2)
		return f->act_count;
	if (f->act_state == 1)
		return -1;		/* recursion */
	if (f->chained)
		return -1;		/* overloads charge their own actions */
	f->act_state = 1;
	f->act_count = f->body->kind == N_EMBEDDED_STMT ? 0 : stmt_count(g, f->body);
	f->act_state = 2;
	return f->act_count;
}

/* The counts of the script functions an expression calls, each call. */
static int64_t calls_count(struct gen *g, const struct node *n)
{
	int64_t k = 0;

	for (; n; n = n->next) {
		if (n->kind == N_CALL && n->func)
			k = add_counts(k, tr_func_count(g, n->func));
		k = add_counts(k, calls_count(g, n->a));
		k = add_counts(k, calls_count(g, n->b));
		k = add_counts(k, calls_count(g, n->c));
		k = add_counts(k, calls_count(g, n->args));
		if (k < 0)
			return -1;
	}
	return k;
}

/* How 4.8 names the place of a charge: a block by its '{', or by its only
 * statement; a statement by its first token. */
const char *tr_act_where(struct gen *g, const struct node *n)
{
	if (n->kind == N_BLOCK && n->args && !n->args->next)
		return tr_act_where(g, n->args);
	if (n->kind == N_BLOCK)
		return arena_printf(g->s->arena, "operator '{' at %s", loc_str(g->s, n->loc));
	return tr_stmt_where(g, n);
}

void tr_act_record(struct gen *g, int k, const char *where, bool update)
{
	if (g->act_finite)
		return;
	g->act_pending += k;
	if (!(update && g->act_pending > 0) && g->act_pending < 10)
		return;
	tr_line(g, "STP_ACT_CHARGE(%d, %d);", g->act_pending, tr_loc_index(g, where));
	g->act_pending = 0;
}

/* A loop's body (after its condition): the iteration's action, the body,
 * the charge at the back edge, then the `continue` label. */
void tr_loop_body(struct gen *g, struct node *body, int label)
{
	tr_loop_body_at(g, body, label, tr_act_where(g, body));
}

/* ... charged at `where`: 4.8 charges an empty `for` or `while` body at
 * the loop's keyword (its optimiser makes the body a null statement) */
void tr_loop_body_at(struct gen *g, struct node *body, int label,
		     const char *where)
{
	if (g->nloops < 64)
		g->loops[g->nloops++] = label;
	g->act_pending++;
	tr_gen_stmt(g, body);
	g->nloops--;
	tr_act_record(g, 0, where, true);
	tr_line(g, "cont_%d: __attribute__((unused));", label);
}

/* The start of a probe or function body: the check of a loop-free one. */
static void act_begin(struct gen *g, struct node *body, int64_t count)
{
	g->act_pending = 0;
	g->act_finite = count >= 0;
	if (count <= 0)
		return;
	tr_line(g, "STP_ACT_ENTRY(%lld);", (long long)count);
	(void)body;
}

static void act_end(struct gen *g, struct node *body)
{
	tr_act_record(g, 0, tr_act_where(g, body), true);
	g->act_finite = false;
}

static void gen_branch(struct gen *g, struct node *n)
{
	tr_gen_stmt(g, n);
	tr_act_record(g, 0, tr_act_where(g, n), true);
}

static void gen_loop(struct gen *g, struct node *cond, struct node *body,
		     struct node *step, const char *where)
{
	int label = g->label++;
	bool empty = (body->kind == N_BLOCK && !body->args) ||
		     body->kind == N_NULL_STMT;

	tr_line(g, "for (;;) {");
	g->indent++;
	if (cond)
		tr_line(g, "if (!(%s))\n\t\tbreak;", tr_gen_expr(g, cond));
	tr_loop_body_at(g, body, label,
			empty ? where : tr_act_where(g, body));
	if (step) {
		tr_gen_expr(g, step);
		tr_act_record(g, 1, tr_stmt_where(g, step), false);
	}
	g->indent--;
	tr_line(g, "}");
}

static void gen_stmts(struct gen *g, struct node *n)
{
	for (; n; n = n->next)
		tr_gen_stmt(g, n);
}

static void gen_return(struct gen *g, struct node *n)
{
	if (n->a && g->func && g->func->type != T_UNKNOWN)
		tr_store(g, "l->__retvalue", tr_gen_expr(g, n->a), g->func->type);
	tr_act_record(g, 1, tr_act_where(g, n), true);
	tr_line(g, "goto out;");
}

/* try { ... } catch (msg) { ... }: errors inside jump to the catch, which
 * takes the message and clears the error (not MAXACTION, nor abort()). */
static void gen_try(struct gen *g, struct node *n)
{
	int label = g->label++;
	const char *saved = g->err_label;

	g->err_label = arena_printf(g->s->arena, "catch_%d", label);
	tr_act_record(g, 0, tr_act_where(g, n), true);
	tr_line(g, "{");
	g->indent++;
	tr_gen_stmt(g, n->a);
	tr_act_record(g, 0, tr_act_where(g, n->a), true);
	g->indent--;
	tr_line(g, "}");
	g->err_label = saved;
	tr_line(g, "goto end_try_%d;", label);
	tr_line(g, "catch_%d: __attribute__((unused));", label);
	tr_line(g, "if (c->last_error == stp_msg_maxaction ||\n\t    c->last_error == stp_msg_aborted)");
	tr_line(g, "\tgoto %s;", saved);
	if (n->var)
		tr_line(g, "stp_str_copy(%s, c->last_error ? c->last_error : \"\");",
			tr_var_ref(g, n->var));
	tr_line(g, "c->last_error = NULL;");
	tr_line(g, "c->last_stmt = NULL;");
	tr_act_record(g, 1, tr_act_where(g, n), true);
	tr_line(g, "{");
	g->indent++;
	tr_gen_stmt(g, n->b);
	tr_act_record(g, 0, tr_act_where(g, n->b), true);
	g->indent--;
	tr_line(g, "}");
	tr_line(g, "end_try_%d: ;", label);
}

void tr_gen_stmt(struct gen *g, struct node *n)
{
	const char *where = tr_act_where(g, n);

	switch (n->kind) {
	case N_BLOCK:
		if (n == g->shared) {
			tr_shared_call(g, n);
			break;
		}
		/* no C block: what declares C variables has braces of its own */
		gen_stmts(g, n->args);
		break;
	case N_EXPR_STMT:
		tr_gen_expr(g, n->a);
		tr_act_record(g, 1, where, false);
		break;
	case N_IF:
		tr_act_record(g, 1, where, true);
		tr_line(g, "if (%s) {", tr_gen_expr(g, n->a));
		g->indent++;
		gen_branch(g, n->b);
		g->indent--;
		if (n->c) {
			tr_line(g, "} else {");
			g->indent++;
			gen_branch(g, n->c);
			g->indent--;
		}
		tr_line(g, "}");
		break;
	case N_WHILE:
		tr_act_record(g, 1, where, true);
		gen_loop(g, n->a, n->b, NULL, where);
		break;
	case N_FOR:
		if (n->a) {
			tr_gen_expr(g, n->a);
			tr_act_record(g, 1, tr_stmt_where(g, n->a), false);
		}
		tr_act_record(g, 1, where, true);
		gen_loop(g, n->b, n->d, n->c, where);
		break;
	case N_RETURN:
		gen_return(g, n);
		break;
	case N_NEXT:
		tr_act_record(g, 1, where, true);
		/* in a function: on to the next overload; there is none, so
		 * the caller reports "all functions exhausted" */
		if (g->func)
			tr_line(g, "c->last_error = stp_msg_no_overload;");
		/* in a shared body: the handler ends (tr_shared.c) */
		tr_line(g, "goto %s;", g->in_shared ? "next" : "out");
		g->shared_next |= g->in_shared;
		break;
	case N_BREAK:
	case N_CONTINUE:
		if (!g->nloops) {
			diag_error(g->s, n->loc, "'%s' outside a loop",
				   n->kind == N_BREAK ? "break" : "continue");
			break;
		}
		tr_act_record(g, 1, where, true);
		if (n->kind == N_BREAK)
			tr_line(g, "break;");
		else
			tr_line(g, "goto cont_%d;", g->loops[g->nloops - 1]);
		break;
	case N_EMBEDDED_STMT:
		tr_line(g, "{\n%s\n}", n->str);
		tr_act_record(g, 1, where, false);
		break;
	case N_NULL_STMT:
		break;
	case N_DELETE:
		tr_delete(g, n);
		tr_act_record(g, 1, where, false);
		break;
	case N_TRY:
		gen_try(g, n);
		break;
	case N_FOREACH:
		tr_foreach(g, n);
		break;
	default:
		tr_unsupported(g, n);
		break;
	}
}

/* ---- scopes: probes and functions ---------------------------------------- */

struct output {
	struct strbuf structs, protos, code;
	/* the frame structs written: their members (interned) and names */
	struct frame_def {
		const char *members, *name;
	} *frames;
	int nframes;
	/* the last function written was embedded C, its closing
	 * TR_OPT_EXPR_END at code.buf + embed_end (reopen_embed) */
	bool embed_open;
	size_t embed_end;
};

/* A string parameter the function never assigns is passed by reference,
 * as 4.8 does: it is not truncated to MAXSTRINGLEN (strlen() of a longer
 * literal is its length). */
bool tr_param_by_ref(const struct var *v)
{
	return v->param && v->type == T_STRING && !v->assigned;
}

/* The members of a locals struct: locals, return value, temporaries. */
static void locals_members(struct gen *g, struct strbuf *sb, struct var *locals,
			   enum type ret)
{
	if (g->shared_id >= 0)	/* the variables the user's body uses */
		sb_printf(sb, "\tstruct stp_locals_body_%d b;\n", g->shared_id);
	for (struct var *v = locals; v; v = v->next) {
		const char *m = tr_mangle(g, "l_", v->name);

		if (g->shared_id >= 0 && tr_shared_var(g, v))
			continue;
		if (tr_param_by_ref(v))
			sb_printf(sb, "\tconst char *%s;\n", m);
		else if (v->type == T_STRING)
			sb_printf(sb, "\tchar %s[MAXSTRINGLEN];\n", m);
		else
			sb_printf(sb, "\tint64_t %s;\n", m);
	}
	if (ret == T_STRING)
		sb_puts(sb, "\tchar __retvalue[MAXSTRINGLEN];\n");
	else if (ret == T_LONG)
		sb_puts(sb, "\tint64_t __retvalue;\n");
	if (g->tmps.buf)
		sb_puts(sb, g->tmps.buf);
	else if (!locals && ret == T_UNKNOWN && g->shared_id < 0)
		sb_puts(sb, "\tchar __dummy;\n");	/* no empty struct */
}

static void locals_struct(struct gen *g, struct output *o, const char *name,
			  struct var *locals, enum type ret)
{
	struct strbuf m;
	const char *key;
	int i;

	sb_init(&m);
	locals_members(g, &m, locals, ret);
	key = intern(g->s, m.buf ? m.buf : "", m.len);
	sb_free(&m);
	/* a frame like one written before is that struct, by a macro */
	for (i = 0; i < o->nframes && o->frames[i].members != key; i++)
		;
	if (i < o->nframes) {
		sb_printf(&o->structs, "#define %s %s\n\n", name, o->frames[i].name);
		return;
	}
	if (!(o->nframes & (o->nframes - 1))) {
		o->frames = realloc(o->frames, (size_t)(o->nframes ? 2 * o->nframes : 1) *
				    sizeof(*o->frames));
		if (!o->frames)
			abort();
	}
	o->frames[o->nframes].members = key;
	o->frames[o->nframes++].name = name;
	sb_printf(&o->structs, "struct %s {\n%s};\n\n", name, key);
}

static void begin_scope(struct gen *g, struct strbuf *body, struct func *f)
{
	sb_init(&g->tmps);
	g->body = body;
	g->ntmp = 0;
	g->indent = 1;
	g->nloops = 0;
	g->label = 0;		/* labels are local to the C function */
	g->func = f;
	g->err_label = "out";
	g->shared = NULL;
	g->shared_id = -1;
	g->nsvars = 0;
}

/* The names embedded C in a function uses (CONTEXT, STAP_RETVALUE,
 * STAP_RETURN, STAP_ERROR), defined once around all the functions; so is
 * STAP_ARG_<param> (l->l_<param> in any function: arg_defs). */
static const char embedded_defs[] =
	"#define CONTEXT c\n"
	"#define STAP_RETVALUE l->__retvalue\n"
	"#define STAP_RETURN(v) do { STAP_RETVALUE = (v); goto out; } while (0)\n"
	"#define STAP_ERROR(...) do { snprintf(c->error_buffer, MAXSTRINGLEN, __VA_ARGS__); c->last_error = c->error_buffer; goto out; } while (0)\n\n";
static const char embedded_undefs[] =
	"#undef STAP_ERROR\n#undef STAP_RETURN\n#undef STAP_RETVALUE\n#undef CONTEXT\n\n";

static void embedded_body(struct gen *g, struct func *f)
{
	bool this = strstr(f->body->str, "THIS") != NULL;

	/* --privilege=stapusr: only in a process of the user's (runtime) */
	if (g->s->privilege == PR_STAPUSR && strstr(f->body->str, "/* myproc-unprivileged */"))
		tr_line(g, "stp_assert_is_myproc(c);");
	/* 4.8's old-style access: THIS->l_<param>, THIS->__retvalue */
	if (this)
		tr_line(g, "#define THIS l");
	tr_line(g, "{\n%s\n}", f->body->str);
	if (this)
		tr_line(g, "#undef THIS");
}

/* #define (#undef when undef) STAP_ARG_<name> for each name a parameter
 * of embedded-C functions has, once */
static void arg_defs(struct gen *g, struct strbuf *o, bool undef)
{
	const char **seen = NULL;
	size_t n = 0;

	for (struct func *f = g->s->funcs; f; f = f->next_used) {
		if (f->body->kind != N_EMBEDDED_STMT)
			continue;
		for (struct var *p = f->params; p && p->param; p = p->next) {
			size_t i;

			for (i = 0; i < n && strcmp(seen[i], p->name); i++)
				;
			if (i < n)
				continue;
			if (!(n & (n - 1))) {
				seen = realloc(seen, (n ? 2 * n : 1) * sizeof(*seen));
				if (!seen)
					abort();
			}
			seen[n++] = p->name;
			if (undef)
				sb_printf(o, "#undef STAP_ARG_%s\n", p->name);
			else
				sb_printf(o, "#define STAP_ARG_%s %s\n", p->name,
					  tr_mangle(g, "l->l_", p->name));
		}
	}
	free(seen);
}

/* Consecutive embedded-C functions share one bracket: the last one's
 * closing TR_OPT_EXPR_END is taken out again when only parameter
 * #define and #undef lines were written since. */
static bool reopen_embed(struct output *o)
{
	size_t n = strlen(TR_OPT_EXPR_END "\n"), at = o->embed_end;
	const char *p, *nl;

	if (!o->embed_open || at + n > o->code.len ||
	    strncmp(o->code.buf + at, TR_OPT_EXPR_END "\n", n))
		return false;
	for (p = o->code.buf + at + n; *p; p = nl + 1)
		if ((strncmp(p, "#define STAP_ARG_", 17) && strncmp(p, "#undef STAP_ARG_", 16)) ||
		    !(nl = strchr(p, '\n')))
			return false;
	memmove(o->code.buf + at, o->code.buf + at + n, o->code.len - at - n + 1);
	o->code.len -= n;
	return true;
}

static void gen_function(struct gen *g, struct output *o, struct func *f)
{
	const char *st = tr_fn_cname(g, "stp_locals_fn_", f);
	struct strbuf body;
	bool embedded, expr;

	sb_init(&body);
	begin_scope(g, &body, f);
	if (f->body->kind == N_EMBEDDED_STMT) {
		embedded_body(g, f);
	} else {
		act_begin(g, f->body, tr_func_count(g, f));
		tr_gen_stmt(g, f->body);
		act_end(g, f->body);
	}
	locals_struct(g, o, st, f->locals, f->type);
	/* the frame comes as a restrict parameter (see gen_probe) */
	sb_printf(&o->protos, "STP_FUNCTION(%s);\n", tr_fn_cname(g, "", f));
	/* embedded C at the kernel's -O2 (at -O1 in a big script): its
	 * compile-time checks (clamp()'s signedness...) need the folding; a
	 * function with an embedded-C expression at -Og (stp_runtime.h) */
	embedded = f->body->kind == N_EMBEDDED_STMT;
	expr = !embedded && tr_has_embed_expr(f->body);
	sb_printf(&o->code, "%sSTP_FUNCTION(%s)\n{\n%s"
		  "STP_OUT;\n}\n",
		  embedded && reopen_embed(o) ? "" : embedded ? TR_OPT_EMBED_BEGIN :
		  expr ? TR_OPT_EXPR_BEGIN : "",
		  tr_fn_cname(g, "", f), body.buf ? body.buf : "");
	o->embed_open = embedded;
	o->embed_end = o->code.len;
	sb_printf(&o->code, "%s\n", embedded || expr ? TR_OPT_EXPR_END : "");
	sb_free(&body);
	sb_free(&g->tmps);
}

/*
 * A handler's identity: everything its C says but its number (locals and
 * temporaries, pn(), locks, body, @entry code). Probes with the same one
 * share the handler functions (the probe_%d of their table rows), as
 * SystemTap 4.8 does: the copies of an alias's body for each of its points
 * are often byte-identical (the __x64_sys_ and __ia32_sys_ probes of a
 * syscall). Interned: compared by address.
 */
static const char *handler_key(struct gen *g, struct probe *p, struct strbuf *body,
			       struct strbuf *lock, struct strbuf *unlock,
			       struct strbuf *entry)
{
	struct strbuf k;
	const char *r;

	sb_init(&k);
	locals_members(g, &k, p->locals, T_UNKNOWN);
	sb_printf(&k, "\001%s\001%s\001%s\001%s\001%s", p->listed ? p->listed : "\002",
		  lock->buf ? lock->buf : "", body->buf ? body->buf : "",
		  unlock->buf ? unlock->buf : "", entry->buf ? entry->buf : "");
	r = intern(g->s, k.buf, k.len);
	sb_free(&k);
	return r;
}

bool tr_has_embed_expr(const struct node *n)
{
	for (; n; n = n->next)
		if (n->kind == N_EMBEDDED_EXPR || tr_has_embed_expr(n->a) ||
		    tr_has_embed_expr(n->b) || tr_has_embed_expr(n->c) ||
		    tr_has_embed_expr(n->d) || tr_has_embed_expr(n->args))
			return true;
	return false;
}

/* Does embedded C in n read CONTEXT->probe_name? */
static bool embeds_pn(const struct node *n)
{
	for (; n; n = n->next) {
		if ((n->kind == N_EMBEDDED_STMT || n->kind == N_EMBEDDED_EXPR) &&
		    n->str && strstr(n->str, "probe_name"))
			return true;
		if (embeds_pn(n->a) || embeds_pn(n->b) || embeds_pn(n->c) ||
		    embeds_pn(n->d) || embeds_pn(n->args))
			return true;
	}
	return false;
}

/* Is pn() (c->probe_name) read anywhere? Else handlers do not set it. */
static bool pn_read(struct session *s)
{
	for (struct func *f = s->funcs; f; f = f->next_used)
		if (embeds_pn(f->body))
			return true;
	for (struct probe *p = s->probes; p; p = p->next)
		if (embeds_pn(p->body))
			return true;
	for (struct embed *e = s->embeds; e; e = e->next)
		if (strstr(e->code, "probe_name"))
			return true;
	return false;
}

/* Write p's handler as probe_<p->index>, or, when an earlier probe's is
 * identical, give p that one's index and write nothing: false. */
static bool gen_probe(struct gen *g, struct output *o, struct probe *p)
{
	const char *st = arena_printf(g->s->arena, "stp_locals_probe_%d", p->index);
	struct strbuf body, lock, unlock, entry;
	const char *key, *locked;
	bool fresh = true, expr;

	sb_init(&body);
	sb_init(&lock);
	sb_init(&unlock);
	begin_scope(g, &body, NULL);
	sb_init(&entry);
	tr_shared_find(g, p);
	p->entry_size = tr_entry_handler(g, p, &entry);
	act_begin(g, p->body, stmt_count(g, p->body));
	tr_gen_stmt(g, p->body);
	act_end(g, p->body);
	tr_probe_locks(g, p, &lock, &unlock);
	/* one function takes the locks of all the handlers that need the
	 * same (tr_shared.c), another releases them */
	tr_lockset(g, &lock, &unlock);
	locked = "";
	key = handler_key(g, p, &body, &lock, &unlock, &entry);
	for (int i = 0; i < g->nhandlers && fresh; i++) {
		if (g->handlers[i] == key) {
			p->index = i;
			fresh = false;
		}
	}
	if (fresh) {
		if (g->nhandlers == g->caphandlers) {
			g->caphandlers = g->caphandlers ? 2 * g->caphandlers : 64;
			g->handlers = realloc(g->handlers, (size_t)g->caphandlers *
					      sizeof(*g->handlers));
			if (!g->handlers)
				abort();
		}
		g->handlers[g->nhandlers++] = key;
	}
	/* -Og for embedded-C expressions (stp_runtime.h) */
	expr = fresh && tr_has_embed_expr(p->body);
	if (expr)
		sb_puts(&o->code, TR_OPT_EXPR_BEGIN);
	if (fresh && p->entry_size)	/* @entry values, evaluated at entry */
		sb_printf(&o->code, "static void probe_%d_entry(struct stp_context *c)\n{\n"
			  "\tstruct %s *l = STP_FRAME(c, 0);\n%s\n"
			  "\t__builtin_memset(l, 0, sizeof(*l));\n%s"
			  "%s"
			  "STP_OUT;\n%s}\n\n",
			  p->index, st, locked, lock.buf ? lock.buf : "", entry.buf,
			  unlock.buf ? unlock.buf : "");
	sb_free(&entry);
	if (fresh)
		locals_struct(g, o, st, p->locals, T_UNKNOWN);
	/* the handler and its locals, frame 0, zeroed: at -Og its body is
	 * a function of its own that gets them as a restrict parameter, so
	 * that GCC keeps locals and globals in registers across loops; at
	 * -O0 one function (tr_sites.c STP_PROBE_BODY) */
	if (fresh)
		sb_printf(&o->code, "STP_PROBE_BODY(%d)\n{\n\tSTP_PROBE_FRAME(%d);\n"
			  "%s%s"
			  "%s%s%s"
			  "STP_OUT;\n%s}\n\n",
			  p->index, p->index, locked, *locked ? "\n" : "",
			  /* pn(): the alias as the script named it, for derived probes */
			  p->listed && g->pn_read ? arena_printf(g->s->arena, "\tc->probe_name = %s;\n",
						   tr_cstr(g, p->listed)) : "",
			  lock.buf ? lock.buf : "", body.buf ? body.buf : "",
			  unlock.buf ? unlock.buf : "");
	if (expr)
		sb_puts(&o->code, TR_OPT_EXPR_END);
	sb_free(&body);
	sb_free(&lock);
	sb_free(&unlock);
	sb_free(&g->tmps);
	return fresh;
}

/* Globals written but never read are printed at exit, as upstream does;
 * not those a tapset declares (argv[] of argv.stp, say). */
static void gen_display(struct gen *g, struct output *o, int index)
{
	struct strbuf body;
	bool any = false;

	sb_init(&body);
	begin_scope(g, &body, NULL);
	tr_line(g, "struct stp_sink sk;");
	tr_line(g, "struct stp_spec sp = { 'd', 0, -1, -1 };");
	tr_line(g, "stp_sink_print_all(&sk);");
	for (struct var *v = g->s->globals; v; v = v->next) {
		const char *ref = tr_mangle(g, "g_", v->name);

		if (!v->written || v->read || (v->loc.src && v->loc.src->tapset))
			continue;
		any = true;
		if (v->array || v->type == T_STATS) {
			tr_display_global(g, v);
			continue;
		}
		tr_line(g, "stp_emit_lit(&sk, %s, %zu);",
		     tr_cstr(g, arena_printf(g->s->arena, "%s=%s", v->name,
					  v->type == T_STRING ? "\"" : "")),
		     strlen(v->name) + 1 + (v->type == T_STRING));
		if (v->type == T_STRING)
			tr_line(g, "stp_emit_lit(&sk, %s, strlen(%s));\n\tstp_emit_lit(&sk, \"\\\"\\n\", 2);",
			     ref, ref);
		else
			tr_line(g, "stp_emit_long(&sk, %s, &sp);\n\tstp_emit_lit(&sk, \"\\n\", 1);", ref);
	}
	if (any) {
		locals_struct(g, o, arena_printf(g->s->arena, "stp_locals_probe_%d", index),
			      NULL, T_UNKNOWN);
		sb_printf(&o->code, "static void probe_%d(struct stp_context *c)\n{\n"
			  "\tstruct stp_locals_probe_%d *l = STP_FRAME(c, 0);\n\n"
			  "\t__builtin_memset(l, 0, sizeof(*l));\n%s}\n\n",
			  index, index, body.buf);
		tr_table_row(g, NULL, "STP_PROBE_END, .handler = probe_%d, .pp = \"end\", .order = 0",
			     index);
	}
	sb_free(&body);
	sb_free(&g->tmps);
}

/* The probe table: each resolved probe's rows, written by its family. */
static void gen_table(struct gen *g, struct output *o)
{
	for (struct rprobe *r = g->s->rprobes; r; r = r->next) {
		int before = g->ntable;

		if (!r->fam->emit)
			continue;
		r->fam->emit(g, &o->code, r, g->npoints++);
		for (int i = before; g->s->timing && i < g->ntable; i++)
			sb_printf(&g->table_locs, "\t%s,\n",
				  tr_cstr(g, loc_str(g->s, r->probe->loc)));
	}
}

static void gen_globals(struct gen *g, struct strbuf *out)
{
	tr_globals_decl(g, out);
	for (struct var *v = g->s->globals; v; v = v->next) {
		const char *m = tr_mangle(g, "g_", v->name);

		if (v->array || v->type == T_STATS)
			continue;
		/* each scalar is a module parameter too: stap -G NAME=VALUE;
		 * registered with __module_param_call() itself, where NAME is
		 * only stringified and pasted, never macro-expanded (a global
		 * may be called like a kernel macro: VM_FAULT_OOM) */
		if (v->type == T_STRING) {
			sb_printf(out, "static char %s[MAXSTRINGLEN] = %s;\n", m,
				  v->init ? tr_cstr(g, v->init->str) : "\"\"");
			sb_printf(out, "static const struct kparam_string %s_kps = "
				  "{ MAXSTRINGLEN, %s };\n", m, m);
			sb_printf(out, "__module_param_call(MODULE_PARAM_PREFIX, %s, "
				  "&param_ops_string, .str = &%s_kps, 0, -1, 0);\n",
				  v->name, m);
		} else {
			sb_printf(out, "static int64_t %s = %lldLL;\n", m,
				  v->init ? (long long)v->init->num : 0LL);
			sb_printf(out, "__module_param_call(MODULE_PARAM_PREFIX, %s, "
				  "&stp_param_ops_int64, &%s, 0, -1, 0);\n", v->name, m);
		}
	}
}

static void assemble(struct gen *g, struct output *o, struct strbuf *c)
{
	struct session *s = g->s;
	struct strbuf rt;	/* the runtime's defines */

	sb_printf(c, "/* generated by stap %s from %s */\n", STAP_VERSION_STRING,
		  s->user->name);
	sb_printf(c, "#define STP_NPROBES %d\n", g->ntable);
	/* call depth; -DMAXNESTING=N overrides, as upstream */
	sb_printf(c, "#ifndef MAXNESTING\n#define MAXNESTING %d\n#endif\n"
		  "#if MAXNESTING < 0\n#error \"MAXNESTING must be positive\"\n#endif\n"
		  "#define STP_MAXNESTING MAXNESTING\n", s->maxnesting);
	sb_init(&rt);
	tr_runtime_defines(g, &rt);
	s->rt_defines = arena_strdup(s->arena, rt.buf ? rt.buf : "");
	sb_puts(c, s->rt_defines);
	sb_free(&rt);
	/* a big script's code at -O0 (stp_runtime.h), or any with
	 * -DSTP_SCRIPT_O0 (its handlers then in one function too) */
	g->script_o0 = g->stubs.len + g->shared_code.len + o->code.len >= TR_O0_BYTES;
	for (struct define *d = s->defines; d && !g->script_o0; d = d->next)
		g->script_o0 = !strcmp(d->text, "STP_SCRIPT_O0") ||
			       !strncmp(d->text, "STP_SCRIPT_O0=", 14);
	if (g->script_o0)
		sb_puts(c, "#ifndef STP_SCRIPT_O0\n#define STP_SCRIPT_O0\n#endif\n");
	sb_puts(c, "#include \"stp_runtime.h\"\n\n");
	tr_shorthands(g, c);
	/* where run-time errors happen (c->last_stmt), by index */
	sb_printf(c, "static const char *const stp_locs[] __maybe_unused = {\n%s};\n\n",
		  g->locs.buf ? g->locs.buf : "\tNULL,\n");
	usyms_emit(s, c);
	regex_tables(s, c);
	for (struct embed *e = s->embeds; e; e = e->next)
		sb_printf(c, "%s\n", e->code);
	gen_globals(g, c);
	sb_puts(c, "\n");
	tr_globals_init(g, c);
	sb_puts(c, g->shared_structs.buf ? g->shared_structs.buf : "");
	sb_puts(c, o->structs.buf ? o->structs.buf : "");
	/* a frame holds any function's or handler's locals: the union of
	 * the frame structs, several a line */
	sb_puts(c, "#define STP_UF(f, n) struct stp_locals_fn_##f f##n\n"
		"#define STP_UP(n) struct stp_locals_probe_##n p##n\n"
		"union stp_locals {\n\tchar __dummy;\n");
	for (int i = 0; i < o->nframes; i++) {
		const char *name = o->frames[i].name;

		sb_puts(c, i % 6 ? " " : "\t");
		if (!strncmp(name, "stp_locals_fn_", 14))
			sb_printf(c, "STP_UF(%s, %d);", name + 14, i);
		else if (!strncmp(name, "stp_locals_probe_", 17))
			sb_printf(c, "STP_UP(%s);", name + 17);
		else
			sb_printf(c, "struct %s m%d;", name, i);
		if (i % 6 == 5 || i == o->nframes - 1)
			sb_puts(c, "\n");
	}
	sb_puts(c, "};\n\n#define STP_LOCALS_SIZE (sizeof(union stp_locals) * (STP_MAXNESTING + 1))\n"
		"#define STP_FRAME(c, n) ((void *)((char *)(c)->locals + sizeof(union stp_locals) * (n)))\n\n");
	sb_puts(c, o->protos.buf ? o->protos.buf : "");
	/* the script's code at -Og (-O0 if big), embedded C at -O2
	 * (stp_runtime.h) */
	sb_puts(c, "\nSTP_OPT_SCRIPT\n");
	sb_puts(c, g->stubs.buf ? g->stubs.buf : "");
	sb_puts(c, g->shared_code.buf ? g->shared_code.buf : "");
	sb_puts(c, o->code.buf ? o->code.buf : "");
	sb_puts(c, "STP_OPT_KERNEL\n\n");
	sb_puts(c, "static const struct stp_probe stp_probes[STP_NPROBES] = {\n");
	sb_puts(c, g->table.buf ? g->table.buf : "");
	sb_puts(c, "};\n\n");
	if (s->timing)		/* stap -t: where each probe is written */
		sb_printf(c, "static const char *const stp_probe_locs[STP_NPROBES] = {\n%s};\n\n",
			  g->table_locs.buf ? g->table_locs.buf : "");
	kdwarf_emit_ksyms(s, c);
	sb_puts(c, "#include \"stp_runtime.c\"\n");
	for (int i = 0; i < s->nmodinfos; i++) {	/* --modinfo NAME=VALUE */
		const char *eq = strchr(s->modinfos[i], '=');

		sb_printf(c, "MODULE_INFO(%.*s, %s);\n", (int)(eq - s->modinfos[i]),
			  s->modinfos[i], tr_cstr(g, eq + 1));
	}
}

int translate(struct session *s)
{
	struct gen g = { .s = s };
	struct output o;
	struct strbuf c;
	int errors = s->errors, index = 0;
	char *path;

	memset(&o, 0, sizeof(o));
	sb_init(&c);

	g.pn_read = pn_read(s);
	sb_puts(&o.code, embedded_defs);
	arg_defs(&g, &o.code, false);
	tr_entry_slots(&g);
	for (struct func *f = s->funcs; f; f = f->next_used)
		gen_function(&g, &o, f);
	sb_puts(&o.code, embedded_undefs);
	arg_defs(&g, &o.code, true);
	for (struct probe *p = s->probes; p; p = p->next) {
		p->index = index;
		if (gen_probe(&g, &o, p))
			index++;
	}
	gen_table(&g, &o);
	if (!g.s->no_global_display)
		gen_display(&g, &o, index);
	assemble(&g, &o, &c);
	if (s->errors == errors) {
		path = arena_printf(s->arena, "%s/%s_src.c", s->tmpdir, s->module_name);
		if (write_file(path, c.buf, c.len) < 0)
			diag_plain(s, "cannot write %s", path);
		s->c_file = path;
	}
	sb_free(&c);
	sb_free(&o.structs);
	sb_free(&o.protos);
	sb_free(&o.code);
	free(o.frames);
	sb_free(&g.table);
	sb_free(&g.table_locs);
	sb_free(&g.locs);
	free(g.loc_hash);
	free(g.loc_files);
	free(g.handlers);
	free(g.targs);
	sb_free(&g.stubs);
	sb_free(&g.shared_structs);
	sb_free(&g.shared_code);
	free(g.bodies);
	free(g.locksets);
	return s->errors - errors;
}
