/*
 * tr_print.c - pass 3: the print family (print, printf, sprintf... as
 * runtime emitter calls, runtime/README.md) and strings written straight
 * into their destination (x = sprintf(...), x = c ? a : b).
 */
#include <string.h>

#include "translate.h"

/* A conversion's spec, as a compound literal: &(struct stp_spec){ ... },
 * or STP_SPEC(conv) for one without flags, width and precision */
static const char *spec(struct gen *g, const struct fmt_piece *p,
			const char *width, const char *prec)
{
	if (!p->flags && !strcmp(width, "-1") && !strcmp(prec, "-1"))
		return arena_printf(g->s->arena, "STP_SPEC('%c')", p->conv);
	return arena_printf(g->s->arena, "&(struct stp_spec){ '%c', %d, %s, %s }",
			    p->conv, p->flags, width, prec);
}

/* A value the later arguments (from `later` on) cannot change: temporaries
 * and literals as they are; other values copied to a temporary if a later
 * argument has side effects. */
static const char *stable(struct gen *g, const char *v, enum type t,
			  const struct node *later)
{
	const char *tmp;
	bool effects = false;

	if (v[0] == '"' || !strncmp(v, "l->t_", 5))
		return v;
	for (; later && !effects; later = later->next)
		effects = tr_has_effects(later);
	if (!effects)
		return v;
	tmp = tr_new_tmp(g, t);
	tr_store(g, tmp, v, t);
	return tmp;
}

static const char *format_count(struct gen *g, int count, struct node **a)
{
	const char *v;

	if (count != -2)
		return arena_printf(g->s->arena, "%d", count);
	v = stable(g, tr_gen_expr(g, *a), T_LONG, (*a)->next);
	*a = (*a)->next;
	return arena_printf(g->s->arena, "(int)%s", v);
}

static const char *emitter(char conv)
{
	switch (conv) {
	case 's':
		return "str";
	case 'b':
		return "bin";
	case 'm':
	case 'M':
		return "mem";
	default:
		return "long";
	}
}

/* A literal piece of len bytes: STP_LIT("...") into sk when it holds no
 * NUL (its length is then the literal's size) */
static void emit_lit(struct gen *g, const char *sink, const char *lit, size_t len)
{
	if (!strcmp(sink, "&sk") && strlen(lit) == len)
		tr_line(g, "STP_LIT(%s);", tr_cstr(g, lit));
	else
		tr_line(g, "stp_emit_lit(%s, %s, %zu);", sink, tr_cstr(g, lit), len);
}

/* printf family: all the arguments are evaluated first, in order (an error
 * in one prints nothing, and %m/%M check their memory then), then one
 * runtime call per piece of the parsed format. */
static void gen_format(struct gen *g, struct node *n, const char *sink)
{
	const char *err;
	struct fmt_piece *head = fmt_parse(g->s, n->args->str, n->args->len, &err), *p;
	struct node *a = n->args->next;
	int npieces = 0, i;
	const char **w, **pr, **v;

	for (p = head; p; p = p->next)
		npieces++;
	w = arena_alloc(g->s->arena, 3 * (npieces + 1) * sizeof(*w));
	pr = w + npieces + 1;
	v = pr + npieces + 1;
	for (p = head, i = 0; p; p = p->next, i++) {
		if (!p->conv)
			continue;
		w[i] = format_count(g, p->width, &a);
		pr[i] = format_count(g, p->prec, &a);
		v[i] = stable(g, tr_gen_expr(g, a), a->type, a->next);
		a = a->next;
		if (p->conv == 'm' || p->conv == 'M') {
			tr_line(g, "stp_mem_check(c, %s, %s);", v[i], spec(g, p, w[i], pr[i]));
			tr_error_check(g, n);
		}
	}
	for (p = head, i = 0; p; p = p->next, i++) {
		const char *sp;

		if (!p->conv) {
			emit_lit(g, sink, p->lit, p->litlen);
			continue;
		}
		sp = spec(g, p, w[i], pr[i]);
		/* the shorthands of the common pieces (tr_sites.c) */
		if (!strcmp(sink, "&sk") && !strchr(v[i], '{') && !strncmp(sp, "STP_SPEC(", 9)) {
			if (p->conv == 's')
				tr_line(g, "STP_STR(%s);", v[i]);
			else if (!strcmp(emitter(p->conv), "long"))
				tr_line(g, "STP_LONG(%s, %.*s);", v[i], (int)strlen(sp) - 10, sp + 9);
			else
				tr_line(g, "stp_emit_%s(%s, %s, %s);", emitter(p->conv), sink,
					v[i], sp);
			continue;
		}
		tr_line(g, "stp_emit_%s(%s, %s, %s);", emitter(p->conv), sink, v[i], sp);
	}
}

/* print, println, printd and their s- forms: values one after another,
 * all evaluated before anything is printed (as printf). */
static void gen_values(struct gen *g, struct node *n, const char *sink)
{
	struct node *a = n->args, *first;
	const char *delim = NULL, **v;
	int nargs = 0, i;

	if (n->flags & PR_DELIM) {
		delim = tr_cstr(g, a->str);
		a = a->next;
	}
	first = a;
	for (; a; a = a->next)
		nargs++;
	v = arena_alloc(g->s->arena, (nargs + 1) * sizeof(*v));
	for (a = first, i = 0; a; a = a->next, i++) {
		if (tr_is_hist(a))
			tr_hist_check(g, a, n);
		else
			v[i] = stable(g, tr_gen_expr(g, a), a->type, a->next);
	}
	for (a = first, i = 0; a; a = a->next, i++) {
		if (tr_is_hist(a))
			tr_print_hist(g, a, sink);
		else if (a->type == T_STRING)
			tr_line(g, "stp_emit_lit(%s, %s, strlen(%s));", sink, v[i], v[i]);
		else
			tr_line(g, "stp_emit_long(%s, %s, &(struct stp_spec){ 'd', 0, -1, -1 });",
				sink, v[i]);
		if (delim && a->next)
			tr_line(g, "stp_emit_lit(%s, %s, %zu);", sink, delim, strlen(n->args->str));
	}
}

/* The print family; sprint*'s string goes to dst, or a new temporary
 * when dst is NULL. */
const char *tr_print(struct gen *g, struct node *n, const char *dst)
{
	const char *t = NULL;

	tr_line(g, "{");
	g->indent++;
	g->used_print = true;
	if (n->flags & PR_STRING) {
		t = dst ? dst : tr_new_tmp(g, T_STRING);
		tr_line(g, "STP_SINK(%s);", t);
	} else {
		tr_line(g, "STP_SINK_OUT();");
	}
	if (n->flags & PR_FORMAT)
		gen_format(g, n, "&sk");
	else
		gen_values(g, n, "&sk");
	if (n->flags & PR_LN)
		tr_line(g, "STP_LIT(\"\\n\");");
	g->indent--;
	tr_line(g, "}");
	return t ? t : "((int64_t)0)";
}


/* Does n read or write the variable v? */
static bool uses_var(const struct node *n, const struct var *v)
{
	for (; n; n = n->next)
		if (n->var == v || uses_var(n->a, v) || uses_var(n->b, v) ||
		    uses_var(n->c, v) || uses_var(n->d, v) || uses_var(n->args, v))
			return true;
	return false;
}

/* A string written straight into dst: sprintf, ?: (each branch) */
static bool into_dst(const struct node *n)
{
	if (n->kind == N_PRINT)
		return n->flags & PR_STRING;
	return n->kind == N_TERNARY;
}

void tr_into(struct gen *g, struct node *n, const char *dst)
{
	const char *cond;

	if (n->kind == N_PRINT) {
		tr_print(g, n, dst);
		return;
	}
	if (n->kind != N_TERNARY) {
		if (n->kind == N_CALL && n->func && n->op[0] != '@')
			tr_call(g, n, dst);
		else
			tr_store(g, dst, tr_gen_expr(g, n), T_STRING);
		return;
	}
	cond = tr_gen_expr(g, n->a);
	tr_line(g, "if (%s) {", cond);
	g->indent++;
	tr_into(g, n->b, dst);
	g->indent--;
	tr_line(g, "} else {");
	g->indent++;
	tr_into(g, n->c, dst);
	g->indent--;
	tr_line(g, "}");
}

/* x = n as a statement, written into the local x (dst) as it is made:
 * n is sprintf(...) or ?:, and does not use x. */
bool tr_into_ok(const struct node *n, const struct var *x)
{
	return into_dst(n) && !uses_var(n, x);
}
