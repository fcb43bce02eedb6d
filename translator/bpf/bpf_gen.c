/*
 * bpf_gen.c - pass 3 of --runtime=bpf: statements and expressions as BPF
 * C. Every value is first put in a temporary, in the script's order of
 * evaluation (clang folds them away); integers are C longs, strings
 * pointers to a MAXSTRINGLEN buffer: a per-CPU scratch slot (bg_slot), a
 * global, or a literal in .rodata. A run-time error sends its message's
 * index to the loader and leaves the handler (S->err); loops count
 * actions against MAXACTION, which also bounds them for the verifier.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "bpf.h"

void bg_line(struct bgen *g, const char *fmt, ...)
{
	va_list ap;
	char *p;

	for (int i = 0; i < g->indent + 1; i++)
		sb_putc(g->body, '\t');
	va_start(ap, fmt);
	if (vasprintf(&p, fmt, ap) >= 0) {
		sb_puts(g->body, p);
		free(p);
	}
	va_end(ap);
	sb_putc(g->body, '\n');
}

const char *bg_hex(struct bgen *g, const char *p, size_t n)
{
	char *h = arena_alloc(g->s->arena, 2 * n + 2);

	for (size_t i = 0; i < n; i++)
		sprintf(h + 2 * i, "%02x", (unsigned char)p[i]);
	if (!n)
		strcpy(h, "-");
	return h;
}

const char *bg_slot(struct bgen *g)
{
	return arena_printf(g->s->arena, "S->s[%d]", g->nstr++);
}

static const char *tmp(struct bgen *g)
{
	return arena_printf(g->s->arena, "t%d", g->ntmp++);
}

int bg_msg(struct bgen *g, const char *text)
{
	sb_printf(&g->meta, "msg %d %s\n", g->nmsg, bg_hex(g, text, strlen(text)));
	return g->nmsg++;
}

/* a C string literal of text in .rodata: its name */
static const char *rodata(struct bgen *g, const char *text)
{
	struct strbuf sb;
	const char *t = arena_printf(g->s->arena, "e%d", g->ntmp++);

	sb_init(&sb);
	sb_c_string(&sb, text);
	bg_line(g, "static const char %s[] STP_RODATA = %s;", t, sb.buf);
	sb_free(&sb);
	return t;
}

const char *bg_errlabel(struct bgen *g)
{
	return g->errlabel ? g->errlabel : "out";
}

/* An error of kind 1 (try catches it) or 2: "MSG near PLACE" raised, MSG
 * what catch (msg) sees, the place printed after it when uncaught. */
static void fail(struct bgen *g, const char *text, int kind)
{
	const char *near = strstr(text, " near "), *lit;
	int loc = near ? bg_msg(g, near) : -1;

	bg_line(g, "{");
	g->indent++;
	lit = rodata(g, near ? arena_strndup(g->s->arena, text, (size_t)(near - text)) : text);
	bg_line(g, "stp_raise(S, %d, %d, %s);", kind, loc, lit);
	bg_line(g, "goto %s;", kind == 1 ? bg_errlabel(g) : "out");
	g->indent--;
	bg_line(g, "}");
}

void bg_fail(struct bgen *g, const char *text)
{
	fail(g, text, 1);
}

/* a fault at the address addr raised: "PRE0x...POST", then near (" near
 * identifier 'x' at F:L:C") when uncaught */
void bg_fault_msg(struct bgen *g, const char *pre, const char *post, const char *near,
		  const char *addr)
{
	const char *p, *q;
	int loc = bg_msg(g, near);

	bg_line(g, "{");
	g->indent++;
	p = rodata(g, pre);
	q = rodata(g, post);
	g->need_hex = true;
	bg_line(g, "stp_raise_fault(S, %d, %s, %s, %s);", loc, p, addr, q);
	bg_line(g, "goto %s;", bg_errlabel(g));
	g->indent--;
	bg_line(g, "}");
}

/* the next statement: a fault at addr of the tapset function call n,
 * "PRE0x... [man error::fault]" near the function's definition */
void bg_call_fault(struct bgen *g, const struct node *n, const char *pre, const char *addr)
{
	g->indent++;
	bg_fault_msg(g, pre, " [man error::fault]",
		     arena_printf(g->s->arena, " near identifier '%s' at %s", n->op,
				  loc_str(g->s, n->func->loc)), addr);
	g->indent--;
}

/* a read fault of a target expression at addr, near n */
void bg_fault(struct bgen *g, const struct node *n, const char *addr)
{
	bg_fault_msg(g, "read fault [man error::fault] at ", "",
		     arena_printf(g->s->arena, " near identifier '%s' at %s", n->op,
				  loc_str(g->s, n->loc)), addr);
}

static bool is_cast(const struct node *n)
{
	return n && n->kind == N_CALL && n->op && !strcmp(n->op, "@cast");
}

/* a read fault at addr of the target expression d ($v->..., @cast(...)->...
 * or an autocast v->...), near what the module runtime's tr_deref.c names */
void bg_deref_fault(struct bgen *g, const struct node *d, const char *addr)
{
	struct loc at = is_cast(d->a) ? d->a->loc : d->args ? d->args->loc : d->loc;
	const char *op = is_cast(d->a) ? "@cast" : !d->args ? "$" :
			 d->args->kind == N_MEMBER ? "->" : "[";

	if (d->a->kind == N_TARGET) {
		bg_fault(g, d->a, addr);
		return;
	}
	if (!is_cast(d->a) && d->args && d->args->kind == N_MEMBER && d->args->num)
		at.col = (int)d->args->num;
	bg_fault_msg(g, "read fault [man error::fault] at ", "",
		     arena_printf(g->s->arena, " near operator '%s' at %s", op,
				  loc_str(g->s, at)), addr);
}

/* Was what at n said already? A probe of several points reading $vars
 * gets a handler each, and would say it once per point */
static bool said_before(struct bgen *g, const struct node *n, const char *what)
{
	const char *key = arena_printf(g->s->arena, "%s: %s", loc_str(g->s, n->loc), what);
	const char **v;

	for (int i = 0; i < g->nunsup; i++)
		if (!strcmp(g->unsup[i], key))
			return true;
	v = arena_alloc(g->s->arena, sizeof(*v) * (size_t)(g->nunsup + 1));
	if (g->nunsup)
		memcpy(v, g->unsup, sizeof(*v) * (size_t)g->nunsup);
	v[g->nunsup++] = key;
	g->unsup = v;
	return false;
}

void bg_unsupported(struct bgen *g, const struct node *n, const char *what)
{
	if (g->fentry) {	/* an fentry twin: the point just has none */
		g->fentry_bad = true;
		return;
	}
	g->errors++;
	if (said_before(g, n, what))
		return;
	diag_error(g->s, n->loc, "%s is not supported by --runtime=bpf: use the kernel "
		   "module runtime (--runtime=kernel)", what);
}

static const char *where(struct bgen *g, const struct node *n, const char *kind)
{
	return arena_printf(g->s->arena, "%s '%s' at %s", kind, n->op,
			    loc_str(g->s, n->loc));
}

/* the C name of a script variable */
const char *bg_var_ref(struct bgen *g, const struct var *v)
{
	int i = 0;

	if (!v->global && g->lv && v->type != T_STRING)
		for (const struct var *l = g->lv; l; l = l->next, i++)
			if (l == v)
				return arena_printf(g->s->arena, "LV[%d]", i);
	return arena_printf(g->s->arena, "%s_%s", v->global ? "g" : "l", v->name);
}

#define var_ref bg_var_ref

static const char *str_lit(struct bgen *g, const struct node *n)
{
	struct strbuf sb;
	const char *t = tmp(g);

	sb_init(&sb);
	sb_c_string(&sb, n->str ? n->str : "");
	bg_line(g, "static const char %s_lit[] STP_RODATA = %s;", t, sb.buf);
	sb_free(&sb);
	return arena_printf(g->s->arena, "%s_lit", t);
}

/* what 4.8 names in an error at n: "identifier 'x' at F:L:C"... */
static const char *where_node(struct bgen *g, const struct node *n)
{
	if (n->kind == N_NUM)
		return arena_printf(g->s->arena, "number '%lld' at %s", (long long)n->num,
				    loc_str(g->s, n->loc));
	if (n->kind == N_VAR || n->kind == N_CALL)
		return where(g, n, "identifier");
	if (n->kind == N_STR)
		return arena_printf(g->s->arena, "string at %s", loc_str(g->s, n->loc));
	return where(g, n, "operator");
}

static const char *arith(struct bgen *g, struct node *n, const char *op,
			 const char *a, const char *b)
{
	const char *t = tmp(g);

	if (!strcmp(op, "/") || !strcmp(op, "%")) {
		bg_line(g, "if (!%s)", b);
		g->indent++;
		bg_fail(g, arena_printf(g->s->arena, "division by 0 near %s",
					n->kind == N_ASSIGN ? where_node(g, n->b) :
					where(g, n, "operator")));
		g->indent--;
		bg_line(g, "long %s = stp_%s(%s, %s);", t, *op == '/' ? "div" : "mod", a, b);
	} else if (!strcmp(op, "<<")) {
		bg_line(g, "long %s = (long)((unsigned long)%s << (%s & 63));", t, a, b);
	} else if (!strcmp(op, ">>")) {
		bg_line(g, "long %s = %s >> (%s & 63);", t, a, b);
	} else if (!strcmp(op, ">>>")) {
		bg_line(g, "long %s = (long)((unsigned long)%s >> (%s & 63));", t, a, b);
	} else if (!strcmp(op, "+") || !strcmp(op, "-") || !strcmp(op, "*")) {
		bg_line(g, "long %s = (long)((unsigned long)%s %s (unsigned long)%s);",
			t, a, op, b);
	} else {
		bg_line(g, "long %s = %s %s %s;", t, a, op, b);
	}
	return t;
}

/* the value of a string expression copied into a new slot */
static const char *str_copy(struct bgen *g, const char *v)
{
	const char *t = tmp(g);

	bg_line(g, "char *%s = %s;", t, bg_slot(g));
	bg_line(g, "stp_strcpy(%s, %s);", t, v);
	return t;
}

static const char *print(struct bgen *g, struct node *n);

/* nodes after n (n itself excluded) that may change a variable */
static bool changes_after(const struct node *n)
{
	for (n = n ? n->next : NULL; n; n = n->next)
		if (n->kind != N_NUM && n->kind != N_STR && n->kind != N_VAR)
			return true;
	return false;
}

/* a string operand read before what follows it runs (4.8's order) */
static const char *str_stable(struct bgen *g, struct node *n, bool later)
{
	const char *v = bg_expr(g, n);

	if (n->kind == N_VAR && n->type == T_STRING && later)
		return str_copy(g, v);
	return v;
}

static const char *call(struct bgen *g, struct node *n);

static const char *logical(struct bgen *g, struct node *n)
{
	const char *t = tmp(g), *a;
	bool and = !strcmp(n->op, "&&");

	bg_line(g, "long %s = %d;", t, and ? 0 : 1);
	a = bg_expr(g, n->a);
	bg_line(g, "if (%s%s) {", and ? "" : "!", a);
	g->indent++;
	bg_line(g, "%s = %s != 0;", t, bg_expr(g, n->b));
	g->indent--;
	bg_line(g, "}");
	return t;
}

static const char *ternary(struct bgen *g, struct node *n)
{
	const char *t = tmp(g), *c;
	bool str = n->type == T_STRING;

	if (str)
		bg_line(g, "char *%s = %s;", t, bg_slot(g));
	else
		bg_line(g, "long %s = 0;", t);
	c = bg_expr(g, n->a);
	bg_line(g, "if (%s) {", c);
	g->indent++;
	if (str)
		bg_line(g, "stp_strcpy(%s, %s);", t, bg_expr(g, n->b));
	else
		bg_line(g, "%s = %s;", t, bg_expr(g, n->b));
	g->indent--;
	bg_line(g, "} else {");
	g->indent++;
	if (str)
		bg_line(g, "stp_strcpy(%s, %s);", t, bg_expr(g, n->c));
	else
		bg_line(g, "%s = %s;", t, bg_expr(g, n->c));
	g->indent--;
	bg_line(g, "}");
	return t;
}

/* A value of width bytes (1, 2, 4, 8) as a long, sign-extended or not. */
static const char *widen(struct bgen *g, const char *v, int width, bool is_signed)
{
	static const char *const s[] = { "char", "short", "int", "long" };
	int i = width == 1 ? 0 : width == 2 ? 1 : width == 4 ? 2 : 3;

	return arena_printf(g->s->arena, "(long)(%s%s)(%s)", is_signed ? "signed " : "unsigned ",
			    s[i], v);
}

/* $name of a tracepoint: its argument, from the raw tracepoint's ctx */
static const char *target(struct bgen *g, struct node *n)
{
	struct targ tg;
	const char *t;

	if (g->rp && !g->func && !strcmp(n->op, "$$parms") && bu_is_func(g->rp))
		return bu_target(g, n);
	if (!g->rp || g->func || n->op[1] == '$' || n->op[strlen(n->op) - 1] == '$') {
		bg_unsupported(g, n, arena_printf(g->s->arena, "the target variable %s here",
						  n->op));
		return "0";
	}
	if (bu_is_func(g->rp))
		return bu_target(g, n);
	tg = targ_find(g->s, g->rp, n->op + 1);
	if (tg.src < 0) {
		bg_unsupported(g, n, arena_printf(g->s->arena, "the target variable %s", n->op));
		return "0";
	}
	t = tmp(g);
	bg_line(g, "long %s = %s;", t, widen(g, arena_printf(g->s->arena,
			"((__u64 *)ctx)[%d]", tg.src), tg.width ? tg.width : 8, tg.is_signed));
	return t;
}

/* $p->a->b[i]: the steps pass 2 laid out from the BTF, each load a
 * fault-checked bpf_probe_read_kernel */
static const char *deref(struct bgen *g, struct node *n)
{
	const struct deref *d = n->deref;
	const char *acc;
	const char *rd = d && d->user ? "stp_probe_read_user" : "bpf_probe_read_kernel";

	if (!d || d->bit_size || d->res == DR_PRETTY || !n->a) {
		bg_unsupported(g, n, !d ? "this target expression (its type is unknown)" :
			       d->bit_size ? "reading a bit field" :
			       "pretty printing a target expression ($var$, $$vars...)");
		return "0";
	}
	if (n->a->kind == N_TARGET) {
		acc = target(g, n->a);
	} else {	/* @cast(v, ...)->..., or an autocast v->...: from v */
		const char *v = bg_expr(g, is_cast(n->a) ? n->a->args : n->a);

		acc = tmp(g);
		bg_line(g, "long %s = %s;", acc, v);
	}
	for (int i = bc_deref(g, d, acc, n) ? d->nsteps : 0; i < d->nsteps; i++) {
		const struct dstep *st = &d->steps[i];

		if (st->op == DS_LOAD) {
			bg_line(g, "if (%s(&%s, 8, (void *)%s))", rd, acc, acc);
			g->indent++;
			bg_deref_fault(g, n, acc);
			g->indent--;
		} else if (st->op == DS_ADD) {
			bg_line(g, "%s += %lldLL;", acc, (long long)st->n);
		} else {
			bg_line(g, "%s += %s * %lldLL;", acc, bg_expr(g, st->idx), (long long)st->n);
		}
	}
	if (d->res == DR_READ) {
		const char *v = tmp(g);

		bg_line(g, "__u64 %s = 0;", v);
		bg_line(g, "if (%s(&%s, %d, (void *)%s))", rd, v, d->width, acc);
		g->indent++;
		bg_deref_fault(g, n, acc);
		g->indent--;
		bg_line(g, "%s = %s;", acc, widen(g, v, d->width, d->is_signed));
	}
	return acc;
}

/* @count(s), @sum, @min, @max, @avg of a scalar statistic */
static const char *stat_op(struct bgen *g, struct node *n)
{
	const char *st, *t, *op = n->op + 1;
	bool known = !strcmp(op, "count") || !strcmp(op, "sum") || !strcmp(op, "min") ||
		     !strcmp(op, "max") || !strcmp(op, "avg");

	if (!strcmp(op, "variance")) {
		t = bm_variance(g, n, where(g, n, "operator"));
		if (!t) {
			bg_unsupported(g, n, "'@variance' here");
			return "0";
		}
		return t;
	}
	if (known && n->args && n->args->kind == N_INDEX && n->args->var) {
		st = bm_stat_get(g, n->args);	/* a row of a statistics array */
	} else if (known && n->args && n->args->kind == N_VAR && !n->args->var->array) {
		st = tmp(g);
		bg_line(g, "struct stp_stat %s;", st);
		bg_line(g, "stp_stat_get(&g_%s, &%s);", n->args->var->name, st);
	} else {
		bg_unsupported(g, n, arena_printf(g->s->arena, "'%s' here", n->op));
		return "0";
	}
	t = tmp(g);
	if (strcmp(op, "count") && strcmp(op, "sum")) {
		bg_line(g, "if (!%s.count)", st);
		g->indent++;
		bg_fail(g, arena_printf(g->s->arena, "empty aggregate near %s",
					where(g, n, "operator")));
		g->indent--;
	}
	if (!strcmp(op, "avg"))
		bg_line(g, "long %s = stp_div(%s.sum, %s.count);", t, st, st);
	else
		bg_line(g, "long %s = %s.%s;", t, st, op);
	return t;
}

static const char *assign(struct bgen *g, struct node *n)
{
	const char *dst, *v, *op = n->op;

	if (!strcmp(op, "<<<") && n->a->kind == N_VAR && !n->a->var->array) {
		v = bg_expr(g, n->b);
		if (bm_stat_add(g, n->a->var, v))
			return v;
		bg_line(g, "stp_stat_add(&g_%s, %s);", n->a->var->name, v);
		return v;
	}

	if (n->a->kind == N_INDEX && n->a->var && n->a->var->global)
		return bm_assign(g, n, arith);
	if (n->a->kind != N_VAR) {
		bg_unsupported(g, n->a, n->a->kind == N_TARGET ?
			       arena_printf(g->s->arena, "writing the target variable %s",
					    n->a->op) :
			       n->a->kind == N_DEREF ? "writing a target expression" :
			       "this assignment");
		return "0";
	}
	dst = var_ref(g, n->a->var);
	v = bg_expr(g, n->b);
	if (n->a->type == T_STRING) {
		if (!strcmp(op, "="))
			bg_line(g, "stp_strcpy(%s, %s);", dst, v);
		else
			bg_line(g, "stp_strcat(S, %s, %s);", dst, v);
		return dst;
	}
	if (!strcmp(op, "=")) {
		bg_line(g, "%s = %s;", dst, v);
		return dst;
	}
	bg_line(g, "%s = %s;", dst, arith(g, n, arena_strndup(g->s->arena, op,
						       strlen(op) - 1), dst, v));
	return dst;
}

static const char *compare(struct bgen *g, struct node *n)
{
	const char *a, *b, *t;

	if (!strcmp(n->op, "=~") || !strcmp(n->op, "!~")) {
		bg_unsupported(g, n, arena_printf(g->s->arena, "regular expression matching "
						  "(%s)", n->op));
		return "0";
	}
	a = bg_expr(g, n->a);
	b = bg_expr(g, n->b);
	t = tmp(g);
	if (n->a->type == T_STRING)
		bg_line(g, "long %s = stp_strcmp(%s, %s) %s 0;", t, a, b, n->op);
	else
		bg_line(g, "long %s = %s %s %s;", t, a, n->op, b);
	return t;
}

const char *bg_expr(struct bgen *g, struct node *n)
{
	struct arena *ar = g->s->arena;
	const char *a, *t;

	switch (n->kind) {
	case N_NUM:
		return arena_printf(ar, "((long)%lldLL)", (long long)n->num);
	case N_STR:
		return str_lit(g, n);
	case N_VAR:
		if (n->var->array || n->var->type == T_STATS)
			break;
		if (n->type == T_STRING)
			return var_ref(g, n->var);
		t = tmp(g);	/* read now, before later operands run */
		bg_line(g, "long %s = %s;", t, var_ref(g, n->var));
		return t;
	case N_TARGET:
		return target(g, n);
	case N_DEREF:
		if (n->a && n->a->kind == N_CALL && n->a->op && !strncmp(n->a->op, "@hist_", 6) &&
		    n->args && n->args->kind == N_SUBSCRIPT && !n->args->next) {
			t = bm_hist_bucket(g, n->a, bg_expr(g, n->args->a),
					   where(g, n->a, "operator"));
			if (!t)
				bg_unsupported(g, n, "this histogram bucket");
			return t ? t : "0";
		}
		return deref(g, n);
	case N_CALL:
		if (!strcmp(n->op, "@entry"))
			return bu_entry_value(g, n);
		if (n->op[0] == '@')
			return stat_op(g, n);
		return call(g, n);
	case N_PRINT:
		return print(g, n);
	case N_BINARY:
		if (!strcmp(n->op, "in"))
			return n->a->kind == N_VAR && n->a->var->global ? bm_in(g, n) :
			       (bg_unsupported(g, n, "'in' here"), "0");
		a = bg_expr(g, n->a);
		return arith(g, n, n->op, a, bg_expr(g, n->b));
	case N_LOGICAL:
		return logical(g, n);
	case N_COMPARE:
		return compare(g, n);
	case N_CONCAT:
		a = str_copy(g, bg_expr(g, n->a));	/* read before n->b runs */
		bg_line(g, "stp_strcat(S, %s, %s);", a, bg_expr(g, n->b));
		return a;
	case N_UNARY:
		if (n->op[0] == '&' && n->a->kind == N_DEREF)	/* DEREF_ADDR: its address */
			return bg_expr(g, n->a);
		a = bg_expr(g, n->a);
		t = tmp(g);
		if (n->op[0] == '-')
			bg_line(g, "long %s = (long)(0UL - (unsigned long)%s);", t, a);
		else
			bg_line(g, "long %s = %s%s;", t, n->op[0] == '+' ? "" : n->op, a);
		return t;
	case N_INDEX:
		if (!n->var || !n->var->global || n->var->type == T_STATS)
			break;
		return bm_read(g, n);
	case N_INCDEC:
		if (n->a->kind == N_INDEX && n->a->var && n->a->var->global)
			a = bm_lvalue(g, n->a);	/* the row, inserted if absent */
		else if (n->a->kind == N_VAR)
			a = var_ref(g, n->a->var);
		else
			break;
		t = tmp(g);
		if (n->flags & 1)
			bg_line(g, "long %s = %s; %s = (long)((unsigned long)%s %c 1UL);",
				t, a, a, a, n->op[0]);
		else
			bg_line(g, "%s = (long)((unsigned long)%s %c 1UL); long %s = %s;",
				a, a, n->op[0], t, a);
		return t;
	case N_ASSIGN:
		return assign(g, n);
	case N_TERNARY:
		return ternary(g, n);
	default:
		break;
	}
	bg_unsupported(g, n, n->kind == N_TARGET || n->kind == N_DEREF ?
		       "this target variable" : n->kind == N_EMBEDDED_EXPR ?
		       "an embedded C expression (%{ ... %})" : n->op ?
		       arena_printf(ar, "'%s'", n->op) : "this expression");
	return "0";
}

/* ---- the print family --------------------------------------------------- */
struct parg {
	char conv;		/* 0: a literal */
	int flags, width, prec;
	const char *lit;
	size_t litlen;
	const char *w, *p, *v;	/* C values: '*' width, '*' precision, the value */
	bool str;
};

static int print_args(struct bgen *g, struct node *n, struct parg **out)
{
	struct node *a = n->args;
	struct parg *v;
	int k = 0, max = 4;

	for (struct node *x = a; x; x = x->next)
		max += 4;
	v = arena_alloc(g->s->arena, (size_t)max * sizeof(*v));
	*out = v;
	if (n->flags & PR_FORMAT) {
		const char *err;
		struct fmt_piece *p = fmt_parse(g->s, a->str, a->len, &err);

		a = a->next;
		for (; p; p = p->next, k++) {
			v[k] = (struct parg){ p->conv, p->flags, p->width, p->prec,
					      p->lit, p->litlen, NULL, NULL, NULL, false };
			if (!p->conv)
				continue;
			if (!strchr("diuxXocsp", p->conv)) {
				bg_unsupported(g, n, arena_printf(g->s->arena,
						"the printf conversion %%%c", p->conv));
				return 0;
			}
			if (p->width == -2) {
				v[k].w = bg_expr(g, a);
				a = a->next;
			}
			if (p->prec == -2) {
				v[k].p = bg_expr(g, a);
				a = a->next;
			}
			v[k].str = a->type == T_STRING;
			v[k].v = str_stable(g, a, changes_after(a));
			a = a->next;
		}
		return k;
	}
	const char *delim = NULL;

	if (n->flags & PR_DELIM) {
		delim = a->str;
		a = a->next;
	}
	for (; a; a = a->next) {
		if (a->kind == N_CALL && a->op[0] == '@' && strstr(a->op, "hist")) {
			if (k || a->next ||
			    !bm_print_hist(g, a, where(g, n, "identifier"))) {
				bg_unsupported(g, a, "printing a histogram");
				return 0;
			}
			continue;
		}
		v[k] = (struct parg){ a->type == T_STRING ? 's' : 'd', 0, -1, -1,
				      NULL, 0, NULL, NULL, NULL, a->type == T_STRING };
		v[k++].v = str_stable(g, a, changes_after(a));
		if (delim && a->next)
			v[k++] = (struct parg){ 0, 0, 0, 0, delim, strlen(delim),
						NULL, NULL, NULL, false };
	}
	if (n->flags & PR_LN)
		v[k++] = (struct parg){ 0, 0, 0, 0, "\n", 1, NULL, NULL, NULL, false };
	return k;
}

/* sprintf and the like: formatted here, into a slot */
static const char *print_string(struct bgen *g, struct parg *v, int k)
{
	const char *t = tmp(g), *len = tmp(g);

	bg_line(g, "char *%s = %s; long %s = 0;", t, bg_slot(g), len);
	for (int i = 0; i < k; i++) {
		const char *w = v[i].w ? v[i].w : arena_printf(g->s->arena, "%d", v[i].width);
		const char *p = v[i].p ? v[i].p : arena_printf(g->s->arena, "%d", v[i].prec);

		if (!v[i].conv) {
			for (size_t j = 0; j < v[i].litlen; j++)
				bg_line(g, "stp_put(%s, &%s, %d);", t, len,
					(int)(signed char)v[i].lit[j]);
		} else if (v[i].str) {
			bg_line(g, "stp_sfmt_str(S, %s, &%s, %s, %d, %s, %s);", t, len, v[i].v,
				v[i].flags, w, p);
		} else {
			bg_line(g, "stp_sfmt_long(%s, &%s, %s, '%c', %d, %s, %s);", t, len,
				v[i].v, v[i].conv, v[i].flags, w, p);
		}
	}
	bg_line(g, "stp_sfmt_end(%s, %s);", t, len);
	return t;
}

/* print, printf...: a ring buffer record of the format's number and its
 * values, which the loader formats (its pieces are in the metadata) */
static const char *print(struct bgen *g, struct node *n)
{
	struct parg *v;
	int k = print_args(g, n, &v), id, field = 0;
	struct strbuf st;

	if (g->errors)
		return "0";
	if (n->flags & PR_STRING)
		return print_string(g, v, k);
	id = g->nfmt++;
	sb_printf(&g->meta, "fmt %d %d\n", id, k);
	sb_init(&st);
	for (int i = 0; i < k; i++) {
		if (!v[i].conv) {
			sb_printf(&g->meta, " lit %s\n", bg_hex(g, v[i].lit, v[i].litlen));
			continue;
		}
		sb_printf(&g->meta, " conv %c %d %d %d %c\n", v[i].conv, v[i].flags,
			  v[i].width, v[i].prec, v[i].str ? 's' : 'l');
		if (v[i].w)
			sb_printf(&st, " long f%d;", field++);
		if (v[i].p)
			sb_printf(&st, " long f%d;", field++);
		sb_printf(&st, v[i].str ? " char f%d[STP_MAXSTR];" : " long f%d;", field++);
	}
	bg_line(g, "{");
	g->indent++;
	bg_line(g, "struct { __u32 id, pad;%s } *r = bpf_ringbuf_reserve(&stp_rb, sizeof(*r), 0);",
		st.buf ? st.buf : "");
	sb_free(&st);
	bg_line(g, "if (r) {");
	g->indent++;
	bg_line(g, "r->id = %d;", id);
	field = 0;
	for (int i = 0; i < k; i++) {
		if (!v[i].conv)
			continue;
		if (v[i].w)
			bg_line(g, "r->f%d = %s;", field++, v[i].w);
		if (v[i].p)
			bg_line(g, "r->f%d = %s;", field++, v[i].p);
		if (v[i].str)
			bg_line(g, "bpf_probe_read_kernel_str(r->f%d, STP_MAXSTR, %s);",
				field++, v[i].v);
		else
			bg_line(g, "r->f%d = %s;", field++, v[i].v);
	}
	bg_line(g, "bpf_ringbuf_submit(r, 0);");
	g->indent--;
	bg_line(g, "}");
	g->indent--;
	bg_line(g, "}");
	return "0L";
}

/* ---- calls --------------------------------------------------------------- */
/* The tapset's embedded-C functions this runtime has: name, C of the
 * value (string ones write into dst, %s). */
static const struct builtin {
	const char *name;
	int nargs;
	enum type type;
	const char *c;
} builtins[] = {
	{ "exit", 0, T_UNKNOWN, "stp_exit()" },
	{ "pid", 0, T_LONG, "(long)(bpf_get_current_pid_tgid() >> 32)" },
	{ "tid", 0, T_LONG, "(long)(__u32)bpf_get_current_pid_tgid()" },
	{ "uid", 0, T_LONG, "(long)(__u32)bpf_get_current_uid_gid()" },
	{ "gid", 0, T_LONG, "(long)(bpf_get_current_uid_gid() >> 32)" },
	{ "cpu", 0, T_LONG, "(long)bpf_get_smp_processor_id()" },
	{ "execname", 0, T_STRING, "bpf_get_current_comm(%s, 16)" },
	{ "gettimeofday_ns", 0, T_LONG, "(long)(bpf_ktime_get_ns() + stp_real_offset)" },
	{ "gettimeofday_us", 0, T_LONG,
	  "(long)((bpf_ktime_get_ns() + stp_real_offset) / 1000)" },
	{ "gettimeofday_ms", 0, T_LONG,
	  "(long)((bpf_ktime_get_ns() + stp_real_offset) / 1000000)" },
	{ "gettimeofday_s", 0, T_LONG,
	  "(long)((bpf_ktime_get_ns() + stp_real_offset) / 1000000000)" },
	{ "local_clock_ns", 0, T_LONG, "(long)bpf_ktime_get_ns()" },
	{ "target", 0, T_LONG, "stp_target" },
	{ "task_current", 0, T_LONG, "(long)((__u64 (*)(void))35)()" },	/* get_current_task */
	{ "jiffies", 0, T_LONG, "(long)((__u64 (*)(void))118)()" },	/* jiffies64 */
	{ "isdigit", 1, T_LONG, "({ const char *p_ = %s; (long)(p_[0] >= '0' && p_[0] <= '9'); })" },
	{ "strlen", 1, T_LONG, "stp_strlen(S, %s)" },
	{ "warn", 1, T_UNKNOWN, "stp_warn(%s)" },
	{ NULL, 0, T_UNKNOWN, NULL },
};

/* probefunc() in a probe whose points are all kernel functions: the
 * function the running program probes, from the table stp_pfn[] that
 * bpf_out.c writes (S->pp its index) */
static bool probefunc_here(struct bgen *g)
{
	int n = 0;

	if (g->func || !g->probe)
		return false;
	for (const struct rprobe *r = g->s->rprobes; r; r = r->next)
		if (r->probe == g->probe && (n++, !bu_is_kprobe(r)))
			return false;
	return n > 0;
}

static const char *probefunc(struct bgen *g)
{
	const char *t = tmp(g);

	g->need_pfn = true;
	bg_line(g, "char *%s = %s;", t, bg_slot(g));
	bg_line(g, "stp_probefunc(%s, S->pp);", t);
	return t;
}

/* pp(): the running program's probe point, from bpf_out.c's stp_ppt[] */
const char *bg_pp(struct bgen *g)
{
	const char *t = tmp(g);

	g->need_pfn = true;
	g->need_pp = true;
	bg_line(g, "char *%s = %s;", t, bg_slot(g));
	bg_line(g, "stp_pp(%s, S->pp);", t);
	return t;
}

bool bg_has_builtin(const struct func *f)
{
	static const char *const special[][2] = {
		{ "error", "1" }, { "abort", "0" }, { "kernel_string", "1" }, { "probefunc", "0" },
		{ "pp", "0" },
	};

	for (size_t i = 0; i < sizeof(special) / sizeof(special[0]); i++)
		if (!strcmp(f->name, special[i][0]) && f->nparams == special[i][1][0] - '0')
			return true;
	if (bt_has(f) || bs_has(f))
		return true;
	for (const struct builtin *b = builtins; b->name; b++)
		if (!strcmp(b->name, f->name) && b->nargs == f->nparams)
			return true;
	return false;
}

static const char *builtin(struct bgen *g, struct node *n)
{
	const struct builtin *b;
	const char *arg = NULL, *t;

	if (!strcmp(n->op, "error") && n->func->nparams == 1) {
		bg_line(g, "stp_raise(S, 1, -1, %s);", bg_expr(g, n->args));
		bg_line(g, "goto %s;", bg_errlabel(g));
		return "0L";
	}
	if (!strcmp(n->op, "abort") && !n->func->nparams) {	/* exit(), and out: no catch */
		bg_line(g, "stp_exit();");
		bg_line(g, "S->err = 3;");
		bg_line(g, "goto %s;", bg_errlabel(g));
		return "0L";
	}
	if (!strcmp(n->op, "kernel_string") && n->func->nparams == 1) {
		arg = bg_expr(g, n->args);
		t = tmp(g);
		bg_line(g, "char *%s = %s;", t, bg_slot(g));
		bg_line(g, "if (bpf_probe_read_kernel_str(%s, STP_MAXSTR, (void *)%s) < 0)", t, arg);
		bg_call_fault(g, n, "kernel string copy fault at ", arg);
		return t;
	}
	if (!strcmp(n->op, "probefunc") && !n->func->nparams && probefunc_here(g))
		return probefunc(g);
	if (!strcmp(n->op, "pp") && !n->func->nparams)
		return bg_pp(g);
	t = bs_call(g, n);
	if (!t)
		t = bt_call(g, n);
	if (t)
		return t;
	for (b = builtins; b->name; b++)
		if (!strcmp(b->name, n->op) && b->nargs == n->func->nparams)
			break;
	if (!b->name) {
		bg_unsupported(g, n, arena_printf(g->s->arena, "the function %s()", n->op));
		return "0";
	}
	if (b->nargs)
		arg = bg_expr(g, n->args);
	t = tmp(g);
	if (b->type == T_STRING) {
		bg_line(g, "char *%s = %s;", t, bg_slot(g));
		bg_line(g, "%s;", arena_printf(g->s->arena, b->c, t));
	} else if (b->type == T_LONG) {
		bg_line(g, "long %s = %s;", t, arena_printf(g->s->arena, b->c, arg));
	} else {
		bg_line(g, "%s;", arena_printf(g->s->arena, b->c, arg));
		return "0L";
	}
	return t;
}

const char *bg_fn_name(struct bgen *g, const struct func *f)
{
	return arena_printf(g->s->arena, "fn_%s_%d", f->name, f->nparams);
}

static const char *call(struct bgen *g, struct node *n)
{
	struct func *f = n->func;
	struct strbuf args;
	const char *t, *ret = NULL;

	if (!f || !f->body)
		return builtin(g, n);
	if (f->body->kind == N_EMBEDDED_STMT)
		return builtin(g, n);
	if ((t = bsc2_script(g, n)))
		return t;
	t = bus_script(g, n);	/* ucallers(), ustack(): the handler's ctx */
	if (t)
		return t;
	sb_init(&args);
	sb_puts(&args, "S");
	for (struct node *a = n->args; a; a = a->next)
		sb_printf(&args, ", %s", bg_expr(g, a));
	t = tmp(g);
	if (f->type == T_STRING) {
		ret = bg_slot(g);
		sb_printf(&args, ", %s", ret);
	}
	bg_line(g, "long %s = %s(%s);", t, bg_fn_name(g, f), args.buf);
	sb_free(&args);
	bg_line(g, "if (S->err) goto %s;", bg_errlabel(g));
	return ret ? ret : t;
}

/* ---- statements ---------------------------------------------------------- */
/* an action of a loop's iteration counted against MAXACTION: an error
 * no try catches, as in the module runtime */
void bg_act(struct bgen *g, const struct node *n)
{
	bg_line(g, "if (++S->act > STP_MAXACTION)");
	g->indent++;
	fail(g, arena_printf(g->s->arena, "MAXACTION exceeded near keyword at %s",
			     loc_str(g->s, n->loc)), 2);
	g->indent--;
}

/* Can n (a loop's condition, body or step) be written in a function of
 * its own: no $vars, @entry, return, nor a call that reads the probe's
 * context (backtraces, the syscall helpers)? */
static bool ctx_free(const struct node *n)
{
	for (; n; n = n->next) {
		if (n->kind == N_TARGET || n->kind == N_DEREF || n->kind == N_RETURN)
			return false;
		if (n->kind == N_CALL && (!strcmp(n->op, "@entry") ||
		    (n->func && (bs_has(n->func) || bsc_has(n->func)))))
			return false;
		if (!ctx_free(n->a) || !ctx_free(n->b) || !ctx_free(n->c) ||
		    !ctx_free(n->d) || !ctx_free(n->args))
			return false;
	}
	return true;
}

bool bg_loop_infn(const struct node *n)
{
	if (n->kind == N_WHILE)
		return ctx_free(n->a) && ctx_free(n->b);
	return ctx_free(n->b) && ctx_free(n->c) && ctx_free(n->d);
}

/* A for or while loop whose locals are in scratch (g->lv): each iteration
 * a global function, which the verifier checks once rather than at each
 * iteration (as foreach's, bm_foreach()), called by a bpf_loop() step.
 * It runs the step (after the first), counts the action, tests the
 * condition and runs the body, returning 0 to go on, 1 at the end or a
 * break, 2 on an error; the actions are counted as the inline loop
 * counts them. */
static void loop_fn(struct bgen *g, struct node *n, struct node *cond,
		    struct node *body, struct node *step, int l)
{
	struct strbuf fb, *saved = g->body, *code;
	int saved_indent = g->indent, id;
	const char *saved_err = g->errlabel, *rc;
	bool saved_ctx = g->no_ctx;

	code = bm_code(g, &id);
	sb_init(&fb);
	g->body = &fb;
	g->indent = 1;
	g->errlabel = NULL;	/* the function's out: returns 2 */
	g->no_ctx = true;
	if (step) {
		bg_line(g, "if (!first) {");
		g->indent++;
		bg_expr(g, step);
		g->indent--;
		bg_line(g, "}");
	}
	bg_act(g, n);
	if (cond)
		bg_line(g, "if (!%s) return 1;", bg_expr(g, cond));
	g->loops[g->nloops++] = -1 - l;	/* break returns 1, continue 0 */
	bg_stmt(g, body);
	g->nloops--;
	bg_line(g, "return 0;");
	/* no unused parameter: clang would pass it undefined, which the
	 * verifier refuses */
	sb_printf(code, "__attribute__((noinline)) long stp_loop_%d(%s)\n{\n"
		  "\t__u32 cpu = bpf_get_smp_processor_id();\n"
		  "\tstruct stp_scratch *S = bpf_map_lookup_elem(&stp_scratch, &cpu);\n"
		  "\tvoid *ctx = 0;\n\n\tif (!S)\n\t\treturn 2;\n\t(void)ctx;\n"
		  "%s%s\tgoto out;\nout:\n\treturn 2;\n}\n\n", id, step ? "long first" : "void",
		  g->ldecl.buf ? g->ldecl.buf : "", fb.buf ? fb.buf : "");
	sb_free(&fb);
	g->body = saved;
	g->indent = saved_indent;
	g->errlabel = saved_err;
	g->no_ctx = saved_ctx;
	/* the iterations: a bpf_loop() whose callback the verifier checks
	 * once, however big MAXACTION is; its result in the scratch, which a
	 * verifier before 6.2 does not take as unchanged by the loop */
	rc = bg_slot(g);
	sb_printf(code, "static long stp_loop_cb_%d(__u32 i, void *unused)\n{\n"
		  "\t__u32 cpu = bpf_get_smp_processor_id();\n"
		  "\tstruct stp_scratch *S = bpf_map_lookup_elem(&stp_scratch, &cpu);\n\n"
		  "\tif (!S)\n\t\treturn 1;\n"
		  "\t*(long *)%s = stp_loop_%d(%s);\n\treturn *(long *)%s != 0;\n}\n\n",
		  id, rc, id, step ? "i == 0" : "", rc);
	bg_line(g, "*(long *)%s = 0;", rc);
	bg_line(g, "bpf_loop(STP_MAXACTION + 2, stp_loop_cb_%d, 0, 0);", id);
	bg_line(g, "if (*(long *)%s == 2) goto %s;", rc, bg_errlabel(g));
}

static void loop(struct bgen *g, struct node *n, struct node *cond,
		 struct node *body, struct node *step)
{
	int l = g->label++;

	if (g->nloops == 64) {
		bg_unsupported(g, n, "this loop nesting");
		return;
	}
	if (g->lv && !g->at_entry && bg_loop_infn(n)) {
		loop_fn(g, n, cond, body, step, l);
		return;
	}
	bg_line(g, "for (int it%d = 0; it%d < STP_MAXACTION + 1; it%d++) {", l, l, l);
	g->indent++;
	bg_act(g, n);
	if (cond)
		bg_line(g, "if (!%s) break;", bg_expr(g, cond));
	g->loops[g->nloops++] = l;
	bg_stmt(g, body);
	g->nloops--;
	bg_line(g, "cont%d: ;", l);
	if (step)
		bg_expr(g, step);
	g->indent--;
	bg_line(g, "}");
}

static void foreach_body(struct bgen *g, struct node *n, int label)
{
	(void)label;
	bg_stmt(g, n);
}

/* foreach ([v =] b in @hist_*(s) [limit n]): every bucket index in
 * ascending order, whatever the sort (as 4.8 and the module runtime), v
 * its count */
static void foreach_hist(struct bgen *g, struct node *n, int l)
{
	long nb = bm_hist_nbuckets(n->a);
	const char *lim = n->c ? bg_expr(g, n->c) : "-1L", *left = tmp(g), *i = tmp(g);

	if (!nb || !n->args || n->args->kind != N_VAR) {
		bg_unsupported(g, n, "this 'foreach' over a histogram");
		return;
	}
	bg_line(g, "long %s = %s;", left, lim);
	bg_line(g, "for (long %s = 0; %s < %ld; %s++) {", i, i, nb, i);
	g->indent++;
	bg_act(g, n);
	bg_line(g, "if (%s >= 0 && %s-- == 0) break;", left, left);
	bg_line(g, "%s = %s;", var_ref(g, n->args->var), i);
	if (n->b)
		bg_line(g, "%s = %s;", var_ref(g, n->b->var),
			bm_hist_bucket(g, n->a, i, where(g, n->a, "operator")));
	bg_stmt(g, n->d);
	bg_line(g, "cont%d: ;", l);
	g->indent--;
	bg_line(g, "}");
}

/* try { a } catch (var) { b }: an error raised in a (kind 1) jumps to
 * the catch, which takes its message; others go on outwards */
static void try_stmt(struct bgen *g, struct node *n)
{
	const char *saved = g->errlabel;
	int l = g->label++;

	bg_line(g, "{");
	g->indent++;
	g->errlabel = arena_printf(g->s->arena, "catch%d", l);
	bg_stmt(g, n->a);
	g->errlabel = saved;
	bg_line(g, "goto tryend%d;", l);
	g->indent--;
	bg_line(g, "catch%d:", l);
	g->indent++;
	bg_line(g, "if (S->err != 1) goto %s;", bg_errlabel(g));
	bg_line(g, "S->err = 0;");
	if (n->var) {
		if (n->var->type == T_STRING)
			bg_line(g, "stp_strcpy(%s, S->errmsg);", var_ref(g, n->var));
		else
			bg_unsupported(g, n, "a catch variable that is not a string");
	}
	bg_stmt(g, n->b);
	g->indent--;
	bg_line(g, "tryend%d: ;", l);
	bg_line(g, "}");
}

void bg_stmt(struct bgen *g, struct node *n)
{
	if (!n)
		return;
	switch (n->kind) {
	case N_BLOCK:
		bg_line(g, "{");
		g->indent++;
		for (struct node *x = n->args; x; x = x->next)
			bg_stmt(g, x);
		g->indent--;
		bg_line(g, "}");
		return;
	case N_EXPR_STMT:
		bg_line(g, "{");
		g->indent++;
		bg_expr(g, n->a);
		g->indent--;
		bg_line(g, "}");
		return;
	case N_NULL_STMT:
		return;
	case N_IF:
		bg_line(g, "{");
		g->indent++;
		bg_line(g, "if (%s) {", bg_expr(g, n->a));
		g->indent++;
		bg_stmt(g, n->b);
		g->indent--;
		if (n->c) {
			bg_line(g, "} else {");
			g->indent++;
			bg_stmt(g, n->c);
			g->indent--;
		}
		bg_line(g, "}");
		g->indent--;
		bg_line(g, "}");
		return;
	case N_WHILE:
		loop(g, n, n->a, n->b, NULL);
		return;
	case N_FOR:
		bg_line(g, "{");
		g->indent++;
		if (n->a)
			bg_expr(g, n->a);
		loop(g, n, n->b, n->d, n->c);
		g->indent--;
		bg_line(g, "}");
		return;
	case N_BREAK:	/* a foreach body function (label < 0) returns */
		bg_line(g, "%s", g->nloops && g->loops[g->nloops - 1] < 0 ? "return 1;" : "break;");
		return;
	case N_CONTINUE:
		if (g->nloops && g->loops[g->nloops - 1] < 0)
			bg_line(g, "return 0;");
		else
			bg_line(g, "goto cont%d;", g->loops[g->nloops - 1]);
		return;
	case N_NEXT:
		if (g->func) {
			bg_unsupported(g, n, "'next' in a function");
			return;
		}
		bg_line(g, "goto out;");
		return;
	case N_RETURN:
		if (n->a) {
			const char *v = bg_expr(g, n->a);

			if (g->func->type == T_STRING)
				bg_line(g, "stp_strcpy(ret, %s);", v);
			else
				bg_line(g, "rv = %s;", v);
		}
		bg_line(g, "goto done;");
		return;
	case N_FOREACH:
		if (g->nloops == 64) {
			bg_unsupported(g, n, "this loop nesting");
			return;
		}
		bg_line(g, "{");
		g->indent++;
		{
			int l = g->label++;

			g->loops[g->nloops++] = l;
			if (n->a && n->a->kind == N_CALL)
				foreach_hist(g, n, l);
			else
				bm_foreach(g, n, l, foreach_body);
			g->nloops--;
		}
		g->indent--;
		bg_line(g, "}");
		return;
	case N_TRY:
		try_stmt(g, n);
		return;
	case N_DELETE:
		if (n->a->kind == N_VAR && n->a->var && !n->a->var->array) {
			const struct var *v = n->a->var;

			if (v->type == T_STATS && (v->hist || v->variance))
				bg_line(g, "stp_xstat_clear(&g_%s, sizeof(struct stp_h_%s));",
					v->name, v->name);
			else if (v->type == T_STATS)
				bg_line(g, "stp_stat_clear(&g_%s);", v->name);
			else if (v->type == T_STRING)
				bg_line(g, "%s[0] = 0;", var_ref(g, v));
			else
				bg_line(g, "%s = 0;", var_ref(g, v));
			return;
		}
		if ((n->a->kind == N_INDEX || n->a->kind == N_VAR) && n->a->var &&
		    n->a->var->global && n->a->var->array) {
			bg_line(g, "{");
			g->indent++;
			bm_delete(g, n);
			g->indent--;
			bg_line(g, "}");
			return;
		}
		/* fall through */
	default:
		bg_unsupported(g, n, n->kind == N_FOREACH ? "'foreach'" :
			       n->kind == N_DELETE ? "'delete'" : n->kind == N_TRY ?
			       "'try'" : "embedded C");
	}
}

/* A script function: an inlined C function (the verifier has no
 * recursion); string parameters are copied into its own slots. */
void bg_function(struct bgen *g, struct strbuf *out, struct func *f)
{
	struct strbuf body, sig, *saved = g->body;

	sb_init(&body);
	g->body = &body;
	g->func = f;
	g->ntmp = 0;
	g->errlabel = NULL;
	sb_init(&sig);
	sb_printf(&sig, "static __always_inline long %s(struct stp_scratch *S",
		  bg_fn_name(g, f));
	for (struct var *v = f->locals; v; v = v->next) {
		if (v->param)
			sb_printf(&sig, ", %s %s_%s", v->type == T_STRING ? "const char *" : "long",
				  v->type == T_STRING ? "a" : "l", v->name);
	}
	if (f->type == T_STRING)
		sb_puts(&sig, ", char *ret");
	sb_puts(&sig, ")");
	/* declared before the foreach bodies, which may call it */
	sb_printf(&g->protos, "%s;\n", sig.buf);
	sb_puts(out, sig.buf);
	sb_free(&sig);
	sb_puts(out, "\n{\n\tlong rv = 0;\n");
	for (struct var *v = bm_fn_locals(g, f, out) ? NULL : f->locals; v; v = v->next) {
		if (v->type == T_STRING) {
			const char *slot = bg_slot(g);

			sb_printf(out, "\tchar *l_%s = %s;\n", v->name, slot);
			if (v->param)
				sb_printf(out, "\tstp_strcpy(l_%s, a_%s);\n", v->name, v->name);
			else
				sb_printf(out, "\tl_%s[0] = 0;\n", v->name);
		} else if (!v->param) {
			sb_printf(out, "\tlong l_%s = 0;\n", v->name);
		}
	}
	if (f->type == T_STRING)
		sb_puts(out, "\tret[0] = 0;\n");
	bg_stmt(g, f->body);
	sb_puts(out, body.buf ? body.buf : "");
	sb_puts(out, "\tgoto done;\nout:\n\treturn 0;\ndone:\n\treturn rv;\n}\n\n");
	sb_free(&body);
	g->body = saved;
	g->func = NULL;
	g->lv = NULL;
}
