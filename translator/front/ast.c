/*
 * ast.c - syntax-tree constructors and the `-p1` printer. The printer
 * writes a parsed file back as script text in one canonical form: one
 * statement per line ended by ';', tabs for nesting, every binary
 * operation and nested assignment in parentheses, strings with C
 * escapes. Printing, re-parsing and printing again gives the same text.
 */
#include <string.h>

#include "ast.h"

struct node *node_new(struct session *s, enum node_kind k, struct loc loc)
{
	struct node *n = arena_alloc(s->arena, sizeof(*n));

	n->kind = k;
	n->loc = loc;
	n->tmp = -1;
	return n;
}

/* A deep copy of a subtree (and its ->next chain), for bodies used more
 * than once; exp, when given, marks the copies' locations as expanded. */
struct node *ast_clone(struct session *s, const struct node *n,
		       const struct expansion *exp)
{
	struct node *c;

	if (!n)
		return NULL;
	c = arena_alloc(s->arena, sizeof(*c));
	*c = *n;
	if (exp && !c->loc.exp)
		c->loc.exp = exp;
	c->var = NULL;
	c->a = ast_clone(s, n->a, exp);
	c->b = ast_clone(s, n->b, exp);
	c->c = ast_clone(s, n->c, exp);
	c->d = ast_clone(s, n->d, exp);
	c->args = ast_clone(s, n->args, exp);
	c->next = ast_clone(s, n->next, exp);
	return c;
}

/* A probe point as text: kernel.function("f").return */
char *pp_to_string(struct session *s, const struct probe_point *pp)
{
	struct strbuf sb;
	char *r;

	sb_init(&sb);
	for (const struct pp_comp *c = pp->comps; c; c = c->next) {
		sb_puts(&sb, c->name);
		if (c->arg && c->arg->kind == N_NUM)
			sb_printf(&sb, "(%lld)", (long long)c->arg->num);
		else if (c->arg)
			sb_printf(&sb, "(\"%s\")", c->arg->str);
		if (c->next)
			sb_putc(&sb, '.');
	}
	r = arena_strdup(s->arena, sb.buf ? sb.buf : "");
	sb_free(&sb);
	return r;
}

const char *type_name(enum type t)
{
	switch (t) {
	case T_LONG:
		return "long";
	case T_STRING:
		return "string";
	case T_STATS:
		return "stats";
	default:
		return "unknown";
	}
}

static void print_string(FILE *out, const char *p, size_t len)
{
	size_t i;

	fputc('"', out);
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)p[i];

		switch (c) {
		case '"': fputs("\\\"", out); break;
		case '\\': fputs("\\\\", out); break;
		case '\n': fputs("\\n", out); break;
		case '\t': fputs("\\t", out); break;
		case '\r': fputs("\\r", out); break;
		default:
			if (c < 32 || c == 127)
				fprintf(out, "\\%03o", c);
			else
				fputc(c, out);
		}
	}
	fputc('"', out);
}

static void print_args(FILE *out, const struct node *a)
{
	fputc('(', out);
	for (; a; a = a->next) {
		ast_print_expr(out, a);
		if (a->next)
			fputs(", ", out);
	}
	fputc(')', out);
}

static void print_assign(FILE *out, const struct node *n)
{
	ast_print_expr(out, n->a);
	fprintf(out, " %s ", n->op);
	ast_print_expr(out, n->b);
}

/* An expression statement: a top-level assignment needs no parentheses. */
static void print_top_expr(FILE *out, const struct node *n)
{
	if (n->kind == N_ASSIGN)
		print_assign(out, n);
	else
		ast_print_expr(out, n);
}

void ast_print_expr(FILE *out, const struct node *n)
{
	switch (n->kind) {
	case N_NUM:
		/* negative values print as their 64-bit pattern, which
		 * re-parses to the same value (literals are never negative) */
		fprintf(out, n->num < 0 ? "%llu" : "%lld", (unsigned long long)n->num);
		break;
	case N_STR:
		print_string(out, n->str, n->len);
		break;
	case N_VAR:
	case N_TARGET:
		fputs(n->op, out);
		break;
	case N_CALL:
	case N_PRINT:
		fputs(n->op, out);
		print_args(out, n->args);
		break;
	case N_INDEX:
		fputs(n->op, out);
		fputc('[', out);
		for (const struct node *a = n->args; a; a = a->next) {
			ast_print_expr(out, a);
			if (a->next)
				fputs(", ", out);
		}
		fputc(']', out);
		break;
	case N_BINARY:
	case N_LOGICAL:
	case N_COMPARE:
	case N_CONCAT:
		fputc('(', out);
		if (!strcmp(n->op, "in") && n->args && n->args->next) {
			fputc('[', out);
			for (const struct node *a = n->args; a; a = a->next) {
				ast_print_expr(out, a);
				if (a->next)
					fputs(", ", out);
			}
			fputc(']', out);
		} else {
			ast_print_expr(out, strcmp(n->op, "in") ? n->a : n->args);
		}
		fprintf(out, " %s ", n->op);
		ast_print_expr(out, strcmp(n->op, "in") ? n->b : n->a);
		fputc(')', out);
		break;
	case N_UNARY:
		fprintf(out, "%s(", n->op);
		ast_print_expr(out, n->a);
		fputc(')', out);
		break;
	case N_INCDEC:
		if (!n->flags)
			fputs(n->op, out);
		ast_print_expr(out, n->a);
		if (n->flags)
			fputs(n->op, out);
		break;
	case N_ASSIGN:
		/* parenthesised when nested: (x = y) > 0 */
		fputc('(', out);
		print_assign(out, n);
		fputc(')', out);
		break;
	case N_TERNARY:
		fputc('(', out);
		ast_print_expr(out, n->a);
		fputs(" ? ", out);
		ast_print_expr(out, n->b);
		fputs(" : ", out);
		ast_print_expr(out, n->c);
		fputc(')', out);
		break;
	case N_EMBEDDED_EXPR:
		fprintf(out, "%%{%s%%}", n->str);
		break;
	case N_DEREF:
		/* the base in parentheses unless it is a primary: (-a)->x */
		if (n->a->kind == N_TARGET || n->a->kind == N_CALL || n->a->kind == N_INDEX ||
		    (n->a->kind == N_VAR && (n->args || !(n->flags & 3)))) {	/* (v)$, not v$ */
			ast_print_expr(out, n->a);
		} else {
			fputc('(', out);
			ast_print_expr(out, n->a);
			fputc(')', out);
		}
		for (const struct node *c = n->args; c; c = c->next)
			ast_print_expr(out, c);
		if (n->flags & 3)
			fputs(n->flags & 2 ? "$$" : "$", out);
		break;
	case N_MEMBER:
		fprintf(out, "->%s", n->op);
		break;
	case N_SUBSCRIPT:
		fputc('[', out);
		ast_print_expr(out, n->a);
		fputc(']', out);
		break;
	case N_WILDCARD:
		fputc('*', out);
		break;
	default:
		fputs("<?>", out);
	}
}

static void indent(FILE *out, int depth)
{
	while (depth--)
		fputc('\t', out);
}

static void print_stmt(FILE *out, const struct node *n, int depth);
static void print_body(FILE *out, const struct node *n, int depth);

static void print_sort(FILE *out, const struct node *fe, int64_t col)
{
	if (fe->flags && fe->num == col)
		fputc(fe->flags, out);
}

/* foreach (v = [k1, k2-] in arr @sum limit n) body */
static void print_foreach(FILE *out, const struct node *fe, int depth)
{
	int64_t col = 1;

	fputs("foreach (", out);
	if (fe->b) {
		fputs(fe->b->op, out);
		print_sort(out, fe, -1);
		fputs(" = ", out);
	}
	fputc('[', out);
	for (const struct node *k = fe->args; k; k = k->next) {
		fputs(k->op, out);
		print_sort(out, fe, col++);
		if (k->next)
			fputs(", ", out);
	}
	fputs("] in ", out);
	ast_print_expr(out, fe->a);
	if (fe->str)
		fprintf(out, " %s", fe->str);
	if (!fe->b)
		print_sort(out, fe, -1);
	if (fe->c) {
		fputs(" limit ", out);
		ast_print_expr(out, fe->c);
	}
	fputs(fe->d->kind == N_BLOCK ? ") " : ")\n", out);
	print_body(out, fe->d, depth);
}

static void print_body(FILE *out, const struct node *n, int depth)
{
	if (n->kind == N_BLOCK) {
		print_stmt(out, n, depth);
	} else {
		indent(out, depth + 1);
		print_stmt(out, n, depth + 1);
	}
}

static void print_stmt(FILE *out, const struct node *n, int depth)
{
	switch (n->kind) {
	case N_BLOCK:
		fputs("{\n", out);
		for (const struct node *c = n->args; c; c = c->next) {
			indent(out, depth + 1);
			print_stmt(out, c, depth + 1);
		}
		indent(out, depth);
		fputs("}\n", out);
		break;
	case N_EXPR_STMT:
		print_top_expr(out, n->a);
		fputs(";\n", out);
		break;
	case N_IF:
		fputs("if (", out);
		ast_print_expr(out, n->a);
		fputs(n->b->kind == N_BLOCK ? ") " : ")\n", out);
		print_body(out, n->b, depth);
		if (n->c && n->c->kind == N_IF) {
			indent(out, depth);
			fputs("else ", out);
			print_stmt(out, n->c, depth);	/* else if: no deeper */
		} else if (n->c) {
			indent(out, depth);
			fputs(n->c->kind == N_BLOCK ? "else " : "else\n", out);
			print_body(out, n->c, depth);
		}
		break;
	case N_WHILE:
		fputs("while (", out);
		ast_print_expr(out, n->a);
		fputs(n->b->kind == N_BLOCK ? ") " : ")\n", out);
		print_body(out, n->b, depth);
		break;
	case N_FOR:
		fputs("for (", out);
		if (n->a)
			print_top_expr(out, n->a);
		fputs("; ", out);
		if (n->b)
			ast_print_expr(out, n->b);
		fputs("; ", out);
		if (n->c)
			print_top_expr(out, n->c);
		fputs(n->d->kind == N_BLOCK ? ") " : ")\n", out);
		print_body(out, n->d, depth);
		break;
	case N_RETURN:
		fputs("return", out);
		if (n->a) {
			fputc(' ', out);
			ast_print_expr(out, n->a);
		}
		fputs(";\n", out);
		break;
	case N_NEXT:
		fputs("next;\n", out);
		break;
	case N_BREAK:
		fputs("break;\n", out);
		break;
	case N_CONTINUE:
		fputs("continue;\n", out);
		break;
	case N_NULL_STMT:
		fputs(";\n", out);
		break;
	case N_EMBEDDED_STMT:
		fprintf(out, "%%{%s%%}\n", n->str);
		break;
	case N_DELETE:
		fputs("delete ", out);
		ast_print_expr(out, n->a);
		fputs(";\n", out);
		break;
	case N_TRY:
		fputs("try ", out);
		print_stmt(out, n->a, depth);
		indent(out, depth);
		fputs("catch", out);
		if (n->op)
			fprintf(out, " (%s)", n->op);
		fputc(' ', out);
		print_stmt(out, n->b, depth);
		break;
	case N_FOREACH:
		print_foreach(out, n, depth);
		break;
	default:
		fputs("<?>\n", out);
	}
}

/* A literal where a leading '-' is part of the syntax (initialisers,
 * probe point arguments): -5 prints as -5. */
static void print_signed_literal(FILE *out, const struct node *n)
{
	if (n->kind == N_NUM && n->num < 0)
		fprintf(out, "-%llu", 0ULL - (unsigned long long)n->num);
	else
		ast_print_expr(out, n);
}

static void print_probe_point(FILE *out, const struct probe_point *pp)
{
	for (const struct pp_comp *c = pp->comps; c; c = c->next) {
		fputs(c->name, out);
		if (c->arg) {
			fputc('(', out);
			print_signed_literal(out, c->arg);
			fputc(')', out);
		}
		if (c->next)
			fputc('.', out);
	}
	if (pp->sufficient)
		fputc('!', out);
	else if (pp->optional)
		fputc('?', out);
	if (pp->cond) {
		fputs(" if (", out);
		ast_print_expr(out, pp->cond);
		fputc(')', out);
	}
}

static void print_type(FILE *out, enum type t)
{
	if (t != T_UNKNOWN)
		fprintf(out, ":%s", type_name(t));
}

static void print_function(FILE *out, const struct func *f)
{
	fprintf(out, "%sfunction %s", f->private ? "private " : "", f->name);
	print_type(out, f->type);
	fputc('(', out);
	for (const struct var *v = f->params; v; v = v->next) {
		fputs(v->name, out);
		print_type(out, v->type);
		if (v->next)
			fputs(", ", out);
	}
	fputc(')', out);
	if (f->priority)
		fprintf(out, ":%lld", (long long)f->priority);
	fputc(' ', out);
	print_stmt(out, f->body, 0);
}

/* A block without its closing brace and newline. */
static void print_block_open(FILE *out, const struct node *blk)
{
	fputs("{\n", out);
	for (const struct node *c = blk->args; c; c = c->next) {
		indent(out, 1);
		print_stmt(out, c, 1);
	}
}

static void print_points(FILE *out, const struct probe_point *pp)
{
	for (; pp; pp = pp->next) {
		print_probe_point(out, pp);
		if (pp->next)
			fputs(", ", out);
	}
}

static void print_global(FILE *out, const struct var *v)
{
	fprintf(out, "%sglobal %s", v->private ? "private " : "", v->name);
	if (v->wrap)
		fputc('%', out);
	if (v->maxsize)
		fprintf(out, "[%lld]", (long long)v->maxsize);
	if (v->init) {
		fputs(" = ", out);
		print_signed_literal(out, v->init);
	}
	fputc('\n', out);
}

static void print_probe(FILE *out, const struct probe *p)
{
	fputs("probe ", out);
	for (const struct probe_point *n = p->alias_names; n; n = n->next) {
		print_probe_point(out, n);
		if (!n->next)
			fputs(p->epilogue ? " += " : " = ", out);
		else
			fputs(" = ", out);
	}
	print_points(out, p->points);
	fputc(' ', out);
	if (!p->body2) {
		print_stmt(out, p->body, 0);
		return;
	}
	/* prologue and epilogue: "{ ... }, { ... }" */
	print_block_open(out, p->body);
	fputs("}, ", out);
	print_stmt(out, p->body2, 0);
}

void ast_print_file(struct session *s, FILE *out, struct file_ast *f)
{
	(void)s;
	fprintf(out, "# file %s\n", f->src->name);
	for (const struct embed *e = f->embeds; e; e = e->next)
		fprintf(out, "%%{%s%%}\n", e->code);
	for (const struct var *v = f->globals; v; v = v->next)
		print_global(out, v);
	for (const struct func *fn = f->funcs; fn; fn = fn->next)
		print_function(out, fn);
	for (const struct probe *p = f->probes; p; p = p->next)
		print_probe(out, p);
}
