/*
 * parse.c - pass 1b: recursive-descent parser from tokens to the AST.
 *
 * Each parse_* function starts with the grammar rule it implements, in the
 * SystemTap language reference's terms. Expression precedence follows
 * upstream (lowest first): assignment, ternary, ||, &&, |, ^, &, in,
 * comparison and regex match, shifts, string concatenation `.`, + -,
 * * / %, unary, ++/--, primary. Statements need no separators; `;` is an
 * empty statement. Errors say "expected X, got Y" at the offending token;
 * after an error the parser skips to the next top-level keyword.
 */
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

#include "ast.h"

struct parser {
	struct session *s;
	const struct source *src;
	struct token_list toks;
	size_t pos;
	struct file_ast *ast;
	struct probe **probe_tail;
	struct func **func_tail;
	struct var **global_tail;
	struct embed **embed_tail;
	jmp_buf on_error;	/* syntax errors unwind to the top-level loop */
	int depth;		/* nesting of expressions and statements */
	bool in_function;	/* 'return' is allowed */
};

#define MAX_PARSE_DEPTH 1000

static struct token *peek(struct parser *ps)
{
	return &ps->toks.v[ps->pos];
}

static struct token *next(struct parser *ps)
{
	struct token *t = &ps->toks.v[ps->pos];

	if (t->kind != TK_EOF)
		ps->pos++;
	return t;
}

/* the first bytes compared inline: the tapset library's parse asks this
 * of most tokens, and strcmp() calls were a tenth of pass 2 */
static bool is_op(const struct token *t, const char *op)
{
	return t->kind == TK_OP && t->text[0] == op[0] && !strcmp(t->text, op);
}

static bool is_kw(const struct token *t, const char *kw)
{
	return t->kind == TK_IDENT && t->text[0] == kw[0] && !strcmp(t->text, kw);
}

static bool accept_op(struct parser *ps, const char *op)
{
	if (!is_op(peek(ps), op))
		return false;
	next(ps);
	return true;
}

static _Noreturn void fail(struct parser *ps, struct token *t, const char *what)
{
	diag_error(ps->s, t->loc, "expected %s, got %s", what,
		   tok_describe(ps->s, t));
	longjmp(ps->on_error, 1);
}

static _Noreturn void fail_msg(struct parser *ps, struct loc loc, const char *msg)
{
	diag_error(ps->s, loc, "%s", msg);
	longjmp(ps->on_error, 1);
}

/* Bound the recursion: deep nesting is an error, not a stack overflow. */
static void enter(struct parser *ps)
{
	if (++ps->depth > MAX_PARSE_DEPTH)
		fail_msg(ps, peek(ps)->loc, "expressions or statements nested too deeply (over 1000 levels)");
}

static struct token *expect_op(struct parser *ps, const char *op)
{
	struct token *t = peek(ps);

	if (!is_op(t, op))
		fail(ps, t, arena_printf(ps->s->arena, "'%s'", op));
	return next(ps);
}

static bool is_keyword(const char *name)
{
	return lex_is_keyword(name);
}

/* A plain identifier (not a keyword, $target or @operator). */
static struct token *expect_ident(struct parser *ps, const char *what)
{
	struct token *t = peek(ps);

	if (t->kind != TK_IDENT || is_keyword(t->text) || t->text[0] == '$' ||
	    t->text[0] == '@')
		fail(ps, t, what);
	return next(ps);
}

/* Embedded C is for tapsets and guru mode (-g) only. */
static void check_embedded(struct parser *ps, const struct token *t, bool expr)
{
	/* by the token's own file: a library macro may bring it in */
	if (ps->src->tapset || ps->s->guru || (t->loc.src && t->loc.src->tapset))
		return;
	diag_error(ps->s, t->loc, "embedded %scode in unprivileged script; need stap -g",
		   expr ? "expression " : "");
}

static struct node *mk(struct parser *ps, enum node_kind k, struct loc loc)
{
	return node_new(ps->s, k, loc);
}

static struct node *parse_expr(struct parser *ps);
static struct node *parse_statement(struct parser *ps);
static struct node *parse_statement1(struct parser *ps);
static struct node *parse_postfix(struct parser *ps, struct node *base);
static struct node *parse_block(struct parser *ps);

/* ---- expressions -------------------------------------------------------- */

/* arglist: '(' [ expr { ',' expr } ] ')' */
static struct node *parse_arglist(struct parser *ps)
{
	struct node *head = NULL, **tail = &head;

	expect_op(ps, "(");
	if (accept_op(ps, ")"))
		return NULL;
	for (;;) {
		*tail = parse_expr(ps);
		tail = &(*tail)->next;
		if (accept_op(ps, ")"))
			return head;
		if (!is_op(peek(ps), ","))
			fail(ps, peek(ps), "',' or ')'");
		next(ps);
	}
}

struct print_name {
	const char *name;
	int flags;
};

static const struct print_name print_names[] = {
	{ "print", 0 }, { "println", PR_LN },
	{ "sprint", PR_STRING }, { "sprintln", PR_STRING | PR_LN },
	{ "printf", PR_FORMAT }, { "sprintf", PR_STRING | PR_FORMAT },
	{ "printd", PR_DELIM }, { "printdln", PR_DELIM | PR_LN },
	{ "sprintd", PR_DELIM | PR_STRING },
	{ "sprintdln", PR_DELIM | PR_STRING | PR_LN },
	{ NULL, 0 }
};

static int print_flags(const char *name)
{
	const struct print_name *p;

	for (p = print_names; p->name; p++) {
		if (!strcmp(p->name, name))
			return p->flags;
	}
	return -1;
}

/* print_call: print_name arglist  (printf/printd need a literal first) */
static struct node *parse_print(struct parser *ps, struct token *name, int flags)
{
	struct node *n = mk(ps, N_PRINT, name->loc);

	n->op = name->text;
	n->flags = flags;
	n->args = parse_arglist(ps);
	if ((flags & (PR_FORMAT | PR_DELIM)) &&
	    (!n->args || n->args->kind != N_STR))
		fail_msg(ps, name->loc, arena_printf(ps->s->arena,
			 "%s: the first argument must be a string literal (the %s)",
			 name->text, flags & PR_FORMAT ? "format" : "delimiter"));
	if (!(flags & (PR_FORMAT | PR_DELIM | PR_LN)) && !n->args)
		fail_msg(ps, name->loc, arena_printf(ps->s->arena,
			 "%s: at least one argument is required", name->text));
	if ((flags & PR_DELIM) && (!n->args->next || !n->args->next->next))
		fail_msg(ps, name->loc, arena_printf(ps->s->arena,
			 "%s: a delimiter and at least two values are required", name->text));
	return n;
}

static int count_args(const struct node *a)
{
	int n = 0;

	for (; a; a = a->next)
		n++;
	return n;
}

struct at_operator {
	const char *name;
	int min, max;		/* argument count */
	int strings;		/* bit i: argument i must be a string literal */
	bool guru;
};

static const struct at_operator at_operators[] = {
	{ "@cast", 2, 3, 6, false }, { "@defined", 1, 1, 0, false },
	{ "@probewrite", 1, 1, 0, false }, { "@entry", 1, 1, 0, false },
	{ "@perf", 1, 1, 1, false }, { "@var", 1, 2, 3, false },
	{ "@avg", 1, 1, 0, false }, { "@count", 1, 1, 0, false },
	{ "@sum", 1, 1, 0, false }, { "@min", 1, 1, 0, false },
	{ "@max", 1, 1, 0, false }, { "@variance", 1, 2, 0, false },
	{ "@hist_linear", 4, 4, 0, false }, { "@hist_log", 1, 1, 0, false },
	{ "@const", 1, 1, 1, true }, { "@kregister", 1, 1, 0, true },
	{ "@uregister", 1, 1, 0, true }, { "@kderef", 2, 2, 0, true },
	{ "@uderef", 2, 2, 0, true }, { "@enum", 1, 2, 3, false },
	{ NULL, 0, 0, 0, false }
};

/* at_call: '@'operator arglist, with the operator's own argument rules */
static struct node *parse_at_call(struct parser *ps, struct token *t)
{
	const struct at_operator *op;
	struct node *n;
	int nargs, i = 0;

	for (op = at_operators; op->name && strcmp(op->name, t->text); op++)
		;
	if (!op->name)
		fail_msg(ps, t->loc, arena_printf(ps->s->arena,
			 "unknown macro or operator '%s'", t->text));
	if (!is_op(peek(ps), "("))
		fail(ps, peek(ps), arena_printf(ps->s->arena, "'(' after '%s'", t->text));
	if (op->guru && !ps->s->guru && !ps->src->tapset &&
	    !(t->loc.src && t->loc.src->tapset))
		fail_msg(ps, t->loc, arena_printf(ps->s->arena,
			 "'%s' is only allowed in guru mode (-g)", t->text));
	n = mk(ps, N_CALL, t->loc);
	n->op = t->text;
	n->args = parse_arglist(ps);
	nargs = count_args(n->args);
	if (nargs < op->min || nargs > op->max)
		fail_msg(ps, t->loc, op->min == op->max ?
			 arena_printf(ps->s->arena, "'%s' takes %d argument%s", t->text,
				      op->min, op->min == 1 ? "" : "s") :
			 arena_printf(ps->s->arena, "'%s' takes %d to %d arguments",
				      t->text, op->min, op->max));
	for (struct node *a = n->args; a; a = a->next, i++) {
		if ((op->strings >> i & 1) && a->kind != N_STR)
			fail_msg(ps, a->loc, arena_printf(ps->s->arena,
				 "argument %d of '%s' must be a string literal", i + 1, t->text));
	}
	if (!strcmp(t->text, "@perf") && !n->args->str[0])
		fail_msg(ps, n->args->loc, "'@perf' expects a non-empty string");
	if (!strcmp(t->text, "@probewrite") && n->args->kind != N_VAR)
		fail_msg(ps, n->args->loc, "'@probewrite' takes a variable name");
	return parse_postfix(ps, n);
}

/* '$' or '$$' after an expression: pretty printed (spaced or not, as
 * 4.8 takes it) */
static bool is_pretty(const struct token *t)
{
	return t->kind == TK_IDENT && (!strcmp(t->text, "$") || !strcmp(t->text, "$$"));
}

/* postfix: primary { '->' member | '[' expr ']' }
 * (on $targets, @cast and other calls, and parenthesised expressions) */
static struct node *parse_postfix(struct parser *ps, struct node *base)
{
	struct node *d = NULL, **tail = NULL;

	for (;;) {
		struct token *t = peek(ps);
		struct node *c;

		if (is_op(t, "->")) {
			struct token *m;

			next(ps);
			m = peek(ps);
			if (m->kind != TK_IDENT || m->text[0] == '@')
				fail(ps, m, "a member name");
			next(ps);
			c = mk(ps, N_MEMBER, m->loc);
			c->op = m->text;
			if (t->loc.line == m->loc.line)
				c->num = t->loc.col;	/* the '->' (run-time errors) */
		} else if (is_op(t, "[")) {
			next(ps);
			c = mk(ps, N_SUBSCRIPT, t->loc);
			c->a = parse_expr(ps);
			expect_op(ps, "]");
		} else if (is_pretty(t)) {
			/* @cast(p, "T")$, $var->arr[0]$, (v)$: pretty printed */
			next(ps);
			if (!d) {
				d = mk(ps, N_DEREF, base->loc);
				d->a = base;
				if (t->loc.line == base->loc.line)
					d->num = t->loc.col;	/* the '$' (errors) */
			}
			d->flags = (int)strlen(t->text);
			return d;
		} else {
			return d ? d : base;
		}
		if (!d) {
			d = mk(ps, N_DEREF, base->loc);
			d->a = base;
			tail = &d->args;
		}
		*tail = c;
		tail = &c->next;
	}
}

/* index: expr | '*'   (a wildcard, for delete and foreach slices) */
static struct node *parse_index_arg(struct parser *ps)
{
	struct token *t = peek(ps);

	if (is_op(t, "*") && (is_op(&ps->toks.v[ps->pos + 1], ",") ||
			      is_op(&ps->toks.v[ps->pos + 1], "]"))) {
		next(ps);
		return mk(ps, N_WILDCARD, t->loc);
	}
	return parse_expr(ps);
}

/* index_expr: name '[' index { ',' index } ']' */
static struct node *parse_index(struct parser *ps, struct token *t)
{
	struct node *n = mk(ps, N_INDEX, t->loc), **tail = &n->args;

	n->op = t->text;
	expect_op(ps, "[");
	for (;;) {
		*tail = parse_index_arg(ps);
		tail = &(*tail)->next;
		if (accept_op(ps, "]"))
			return n;
		if (!is_op(peek(ps), ","))
			fail(ps, peek(ps), "',' or ']'");
		next(ps);
	}
}

/*
 * primary: NUMBER | STRING | '(' expr ')' | '%{' C '%}'
 *        | name arglist | print_call | name '[' exprs ']' | name
 *        | '$'target | '@'operator arglist
 */
static struct node *parse_primary(struct parser *ps)
{
	struct token *t = peek(ps);
	struct node *n;
	int pf;

	switch (t->kind) {
	case TK_NUM:
		next(ps);
		n = mk(ps, N_NUM, t->loc);
		n->num = t->num;
		return parse_postfix(ps, n);
	case TK_STR:
		next(ps);
		n = mk(ps, N_STR, t->loc);
		n->str = t->text;
		n->len = t->len;
		return parse_postfix(ps, n);
	case TK_EMBEDDED:
		next(ps);
		check_embedded(ps, t, true);
		n = mk(ps, N_EMBEDDED_EXPR, t->loc);
		n->str = t->text;
		return n;
	case TK_OP:
		if (!is_op(t, "("))
			break;
		next(ps);
		n = parse_expr(ps);
		expect_op(ps, ")");
		return parse_postfix(ps, n);
	case TK_IDENT:
		if (t->text[0] == '$') {
			next(ps);
			n = mk(ps, N_TARGET, t->loc);
			n->op = t->text;
			if (t->len > 1 && t->text[t->len - 1] == '$' &&
			    (is_op(peek(ps), "->") || is_op(peek(ps), "[")))
				fail_msg(ps, peek(ps)->loc, arena_printf(ps->s->arena,
					 "'%s' is a pretty-printed string: it cannot be dereferenced",
					 t->text));
			return parse_postfix(ps, n);
		}
		if (is_keyword(t->text))
			break;
		next(ps);
		if (t->text[0] == '@')
			return parse_at_call(ps, t);
		if (is_op(peek(ps), "(")) {
			pf = print_flags(t->text);
			if (pf >= 0)
				return parse_print(ps, t, pf);
			n = mk(ps, N_CALL, t->loc);
			n->op = t->text;
			n->args = parse_arglist(ps);
			return parse_postfix(ps, n);
		}
		if (is_op(peek(ps), "["))
			return parse_postfix(ps, parse_index(ps, t));
		n = mk(ps, N_VAR, t->loc);
		n->op = t->text;
		/* autocast: a variable holding a typed pointer (v->m, v $) */
		return is_op(peek(ps), "->") || is_pretty(peek(ps)) ? parse_postfix(ps, n) : n;
	default:
		break;
	}
	fail(ps, t, "an expression");
}

/* prefix: ('++' | '--') prefix | primary   (the operand takes no postfix) */
static struct node *parse_prefix(struct parser *ps)
{
	struct token *t = peek(ps);
	struct node *n;

	if (!is_op(t, "++") && !is_op(t, "--"))
		return parse_primary(ps);
	next(ps);
	enter(ps);
	n = mk(ps, N_INCDEC, t->loc);
	n->op = t->text;
	n->a = parse_prefix(ps);
	ps->depth--;
	return n;
}

/* crement: prefix | primary [ '++' | '--' ]
 * (whether the operand can be assigned is checked in pass 2, as upstream) */
static struct node *parse_crement(struct parser *ps)
{
	struct token *t = peek(ps);
	struct node *n;

	if (is_op(t, "++") || is_op(t, "--"))
		return parse_prefix(ps);
	n = parse_primary(ps);
	t = peek(ps);
	if (is_op(t, "++") || is_op(t, "--")) {
		struct node *p = mk(ps, N_INCDEC, t->loc);

		next(ps);
		p->op = t->text;
		p->a = n;
		p->flags = 1;
		return p;
	}
	return n;
}

/* unary: ('+' | '-' | '!' | '~' | '&') unary | crement */
static struct node *parse_unary(struct parser *ps)
{
	struct token *t = peek(ps);
	struct node *n;

	if (is_op(t, "+") || is_op(t, "-") || is_op(t, "!") || is_op(t, "~") ||
	    is_op(t, "&")) {
		next(ps);
		enter(ps);
		n = mk(ps, N_UNARY, t->loc);
		n->op = t->text;
		n->a = parse_unary(ps);
		ps->depth--;
		return n;
	}
	return parse_crement(ps);
}

struct level {
	const char *const ops[8];
	enum node_kind kind;
};

static const struct level levels[] = {
	{ { "||" }, N_LOGICAL },
	{ { "&&" }, N_LOGICAL },
	{ { "|" }, N_BINARY },
	{ { "^" }, N_BINARY },
	{ { "&" }, N_BINARY },
	{ { "in" }, N_BINARY },	/* its right side is an array name */
	{ { "<", ">", "<=", ">=", "==", "!=" }, N_COMPARE },
	{ { "<<", ">>", ">>>" }, N_BINARY },
	{ { "." }, N_CONCAT },
	{ { "+", "-" }, N_BINARY },
	{ { "*", "/", "%" }, N_BINARY },
};
#define NLEVELS (sizeof(levels) / sizeof(levels[0]))
#define IN_LEVEL 5
#define CMP_LEVEL 6

/* The level in [min, max] of the binary operator at the cursor, or NLEVELS. */
static size_t binary_level(struct parser *ps, size_t min, size_t max)
{
	struct token *t = peek(ps);
	const char *const *o;
	size_t lvl;

	if (min <= IN_LEVEL && IN_LEVEL <= max && is_kw(t, "in"))
		return IN_LEVEL;
	if (t->kind != TK_OP)
		return NLEVELS;
	for (lvl = min; lvl <= max; lvl++) {
		for (o = levels[lvl].ops; *o; o++) {
			if (t->text[0] == (*o)[0] && !strcmp(t->text, *o))
				return lvl;
		}
	}
	if (min <= CMP_LEVEL && CMP_LEVEL <= max &&
	    (is_op(t, "=~") || is_op(t, "!~")))
		return CMP_LEVEL;
	return NLEVELS;
}

/* in_tail: 'in' name   (keys is the left side) */
static struct node *parse_in_tail(struct parser *ps, struct node *keys)
{
	struct token *t = next(ps);
	struct node *n = mk(ps, N_BINARY, t->loc);

	n->op = "in";
	n->args = keys;
	n->a = mk(ps, N_VAR, peek(ps)->loc);
	n->a->op = expect_ident(ps, "an array name")->text;
	return n;
}

/* in_keys: '[' index_arg { ',' index_arg } ']' 'in' name */
static struct node *parse_in_keys(struct parser *ps)
{
	struct node *keys, **tail = &keys;

	next(ps);
	for (;;) {
		*tail = parse_index_arg(ps);
		tail = &(*tail)->next;
		if (accept_op(ps, "]"))
			break;
		expect_op(ps, ",");
	}
	if (!is_kw(peek(ps), "in"))
		fail(ps, peek(ps), "'in'");
	return parse_in_tail(ps, keys);
}

/* The right side of =~ and !~: one string literal, as upstream requires. */
static struct node *parse_regex_literal(struct parser *ps)
{
	struct token *t = peek(ps);
	struct node *n;

	if (t->kind != TK_STR)
		fail(ps, t, "literal string");
	next(ps);
	n = mk(ps, N_STR, t->loc);
	n->str = t->text;
	n->len = t->len;
	return n;
}

/* binary(min): operand { op binary(level(op) + 1) }, left-associative,
 * for operators of levels[min] and tighter;
 * operand: in_keys (when min <= IN_LEVEL) | unary.
 * Precedence climbing keeps one C frame per level of actual nesting.
 * The right side of 'in' (a name) and of =~ (a literal) binds nothing
 * tighter, so after them only operators of lower levels may follow. */
static struct node *parse_binary(struct parser *ps, size_t min)
{
	size_t lvl, max = NLEVELS - 1;
	struct node *n;

	if (min <= IN_LEVEL && is_op(peek(ps), "[")) {
		n = parse_in_keys(ps);
		max = IN_LEVEL - 1;
	} else {
		n = parse_unary(ps);
	}
	while (max >= min && (lvl = binary_level(ps, min, max)) < NLEVELS) {
		struct token *t;
		struct node *b;

		if (lvl == IN_LEVEL) {
			n = parse_in_tail(ps, n);
			max = IN_LEVEL - 1;
			continue;
		}
		t = next(ps);
		b = mk(ps, levels[lvl].kind, t->loc);
		b->op = t->text;
		b->a = n;
		if (lvl == CMP_LEVEL && t->text[1] == '~')
			b->b = parse_regex_literal(ps);
		else
			b->b = parse_binary(ps, lvl + 1);
		n = b;
		max = lvl;
	}
	return n;
}

/* ternary: logical_or [ '?' expr ':' ternary ] */
static struct node *parse_ternary(struct parser *ps)
{
	struct node *c = parse_binary(ps, 0), *n;
	struct token *t = peek(ps);

	if (!is_op(t, "?"))
		return c;
	next(ps);
	n = mk(ps, N_TERNARY, t->loc);
	n->a = c;
	n->b = parse_expr(ps);
	expect_op(ps, ":");
	n->c = parse_ternary(ps);
	return n;
}

static const char *const assign_ops[] = {
	"=", "+=", "-=", "*=", "/=", "%=", "<<=", ">>=", "&=", "^=", "|=",
	".=", "<<<", NULL
};

/* expr: ternary [ assign_op expr ]   (right-associative; whether the left
 * side can be assigned is checked in pass 2, as upstream) */
static struct node *parse_expr(struct parser *ps)
{
	struct node *lhs, *n;
	struct token *t;
	const char *const *o;

	enter(ps);
	lhs = parse_ternary(ps);
	t = peek(ps);
	ps->depth--;
	if (t->kind != TK_OP)
		return lhs;
	for (o = assign_ops; *o; o++) {
		if (!strcmp(t->text, *o))
			break;
	}
	if (!*o)
		return lhs;
	next(ps);
	n = mk(ps, N_ASSIGN, t->loc);
	n->op = t->text;
	n->a = lhs;
	enter(ps);
	n->b = parse_expr(ps);
	ps->depth--;
	return n;
}

/* ---- statements --------------------------------------------------------- */

/* if_stmt: 'if' '(' expr ')' statement [ 'else' statement ] */
static struct node *parse_if(struct parser *ps, struct token *kw)
{
	struct node *n = mk(ps, N_IF, kw->loc);

	expect_op(ps, "(");
	n->a = parse_expr(ps);
	expect_op(ps, ")");
	n->b = parse_statement(ps);
	if (is_kw(peek(ps), "else")) {
		next(ps);
		n->c = parse_statement(ps);
	}
	return n;
}

/* while_stmt: 'while' '(' expr ')' statement */
static struct node *parse_while(struct parser *ps, struct token *kw)
{
	struct node *n = mk(ps, N_WHILE, kw->loc);

	expect_op(ps, "(");
	n->a = parse_expr(ps);
	expect_op(ps, ")");
	n->b = parse_statement(ps);
	return n;
}

/* for_stmt: 'for' '(' [expr] ';' [expr] ';' [expr] ')' statement */
static struct node *parse_for(struct parser *ps, struct token *kw)
{
	struct node *n = mk(ps, N_FOR, kw->loc);

	expect_op(ps, "(");
	if (!is_op(peek(ps), ";"))
		n->a = parse_expr(ps);
	expect_op(ps, ";");
	if (!is_op(peek(ps), ";"))
		n->b = parse_expr(ps);
	expect_op(ps, ";");
	if (!is_op(peek(ps), ")"))
		n->c = parse_expr(ps);
	expect_op(ps, ")");
	n->d = parse_statement(ps);
	return n;
}

/* return_stmt: 'return' [ expr ] */
static struct node *parse_return(struct parser *ps, struct token *kw)
{
	struct node *n = mk(ps, N_RETURN, kw->loc);
	struct token *t = peek(ps);

	if (!ps->in_function)
		fail_msg(ps, kw->loc, "'return' outside a function");
	if (is_op(t, ";") || is_op(t, "}") || t->kind == TK_EOF)
		return n;
	if (t->loc.line != kw->loc.line && t->kind == TK_IDENT &&
	    is_keyword(t->text))
		return n;
	n->a = parse_expr(ps);
	accept_op(ps, ";");
	return n;
}

static struct node *simple_stmt(struct parser *ps, enum node_kind k,
				struct token *kw)
{
	accept_op(ps, ";");
	return mk(ps, k, kw->loc);
}

/* sort: [ '+' | '-' ] ; records it on the foreach node as column col */
static void parse_sort(struct parser *ps, struct node *fe, int64_t col)
{
	struct token *t = peek(ps);

	if (!is_op(t, "+") && !is_op(t, "-"))
		return;
	if (fe->flags)
		fail_msg(ps, t->loc, "foreach can sort on one key, value or array only");
	next(ps);
	fe->flags = t->text[0];
	fe->num = col;
}

static struct node *foreach_var(struct parser *ps)
{
	struct token *t = expect_ident(ps, "a variable name");
	struct node *v = mk(ps, N_VAR, t->loc);

	v->op = t->text;
	return v;
}

/* foreach_keys: name [sort] | '[' name [sort] { ',' name [sort] } ']' */
static void parse_foreach_keys(struct parser *ps, struct node *fe)
{
	struct node **tail = &fe->args;
	int64_t col = 1;
	bool list = accept_op(ps, "[");

	do {
		*tail = foreach_var(ps);
		tail = &(*tail)->next;
		parse_sort(ps, fe, col++);
	} while (list && accept_op(ps, ","));
	if (list)
		expect_op(ps, "]");
}

/* foreach_array: name [ '[' index {, index} ']' ] | '@hist_...' arglist */
static struct node *parse_foreach_array(struct parser *ps)
{
	struct token *t = peek(ps);
	struct node *n;

	if (t->kind == TK_IDENT && (!strcmp(t->text, "@hist_linear") ||
				    !strcmp(t->text, "@hist_log"))) {
		next(ps);
		n = mk(ps, N_CALL, t->loc);
		n->op = t->text;
		n->args = parse_arglist(ps);
		return n;
	}
	t = expect_ident(ps, "an array name");
	if (is_op(peek(ps), "["))
		return parse_index(ps, t);
	n = mk(ps, N_VAR, t->loc);
	n->op = t->text;
	return n;
}

/*
 * foreach_stmt: 'foreach' '(' [ name [sort] '=' ] foreach_keys 'in'
 *               foreach_array [ '@'aggregate ] [sort] [ 'limit' expr ] ')'
 *               statement
 */
static struct node *parse_foreach(struct parser *ps, struct token *kw)
{
	struct node *fe = mk(ps, N_FOREACH, kw->loc);
	struct token *t;

	expect_op(ps, "(");
	if (peek(ps)->kind == TK_IDENT && !is_op(peek(ps), "[")) {
		size_t save = ps->pos;
		struct node *v = foreach_var(ps);

		parse_sort(ps, fe, -1);
		if (accept_op(ps, "=")) {
			fe->b = v;
		} else {
			ps->pos = save;
			fe->flags = 0;
			fe->num = 0;
		}
	}
	parse_foreach_keys(ps, fe);
	if (!is_kw(peek(ps), "in"))
		fail(ps, peek(ps), "'in'");
	next(ps);
	fe->a = parse_foreach_array(ps);
	t = peek(ps);
	if (t->kind == TK_IDENT && t->text[0] == '@') {
		static const char *const aggs[] = { "@count", "@sum", "@min", "@max",
						    "@avg", NULL };
		int i;

		for (i = 0; aggs[i] && strcmp(aggs[i], t->text); i++)
			;
		if (!aggs[i])
			fail(ps, t, "an aggregate (@count, @sum, @min, @max or @avg)");
		next(ps);
		fe->str = t->text;
		if (!is_op(peek(ps), "+") && !is_op(peek(ps), "-"))
			fail(ps, peek(ps), arena_printf(ps->s->arena,
			     "'+' or '-' to sort by %s", t->text));
	}
	parse_sort(ps, fe, -1);
	if (is_kw(peek(ps), "limit")) {
		next(ps);
		fe->c = parse_expr(ps);
	}
	expect_op(ps, ")");
	fe->d = parse_statement(ps);
	return fe;
}

/* delete_stmt: 'delete' expr */
static struct node *parse_delete(struct parser *ps, struct token *kw)
{
	struct node *n = mk(ps, N_DELETE, kw->loc);

	n->a = parse_expr(ps);	/* what can be deleted: pass 2 */
	accept_op(ps, ";");
	return n;
}

/* try_stmt: 'try' block 'catch' [ '(' name ')' ] block */
static struct node *parse_try(struct parser *ps, struct token *kw)
{
	struct node *n = mk(ps, N_TRY, kw->loc);

	n->a = parse_block(ps);
	if (!is_kw(peek(ps), "catch"))
		fail(ps, peek(ps), "'catch'");
	next(ps);
	if (accept_op(ps, "(")) {
		n->op = expect_ident(ps, "a variable name")->text;
		expect_op(ps, ")");
	}
	n->b = parse_block(ps);
	return n;
}

/*
 * statement: block | ';' | if_stmt | while_stmt | for_stmt | foreach_stmt
 *          | return_stmt [';'] | delete_stmt [';'] | try_stmt
 *          | ('next' | 'break' | 'continue') [';'] | '%{' C '%}' | expr [';']
 */
static struct node *parse_statement(struct parser *ps)
{
	struct node *n;

	enter(ps);
	n = parse_statement1(ps);
	ps->depth--;
	return n;
}

static struct node *parse_statement1(struct parser *ps)
{
	struct token *t = peek(ps);
	struct node *n;

	if (is_op(t, "{"))
		return parse_block(ps);
	if (is_op(t, ";")) {
		next(ps);
		return mk(ps, N_NULL_STMT, t->loc);
	}
	if (t->kind == TK_EMBEDDED) {
		next(ps);
		check_embedded(ps, t, false);
		n = mk(ps, N_EMBEDDED_STMT, t->loc);
		n->str = t->text;
		return n;
	}
	if (t->kind == TK_IDENT && is_keyword(t->text)) {
		next(ps);
		if (!strcmp(t->text, "if"))
			return parse_if(ps, t);
		if (!strcmp(t->text, "while"))
			return parse_while(ps, t);
		if (!strcmp(t->text, "for"))
			return parse_for(ps, t);
		if (!strcmp(t->text, "return"))
			return parse_return(ps, t);
		if (!strcmp(t->text, "next"))
			return simple_stmt(ps, N_NEXT, t);
		if (!strcmp(t->text, "break"))
			return simple_stmt(ps, N_BREAK, t);
		if (!strcmp(t->text, "continue"))
			return simple_stmt(ps, N_CONTINUE, t);
		if (!strcmp(t->text, "foreach"))
			return parse_foreach(ps, t);
		if (!strcmp(t->text, "delete"))
			return parse_delete(ps, t);
		if (!strcmp(t->text, "try"))
			return parse_try(ps, t);
		ps->pos--;
		fail(ps, t, "a statement");
	}
	n = mk(ps, N_EXPR_STMT, t->loc);
	n->a = parse_expr(ps);
	accept_op(ps, ";");
	return n;
}

/* block: '{' { statement } '}' */
static struct node *parse_block(struct parser *ps)
{
	struct token *open = expect_op(ps, "{");
	struct node *n = mk(ps, N_BLOCK, open->loc), **tail = &n->args;

	while (!is_op(peek(ps), "}")) {
		if (peek(ps)->kind == TK_EOF)
			fail(ps, peek(ps), "'}'");
		if (accept_op(ps, ";"))
			continue;
		*tail = parse_statement(ps);
		tail = &(*tail)->next;
	}
	next(ps);
	return n;
}

/* ---- probes ------------------------------------------------------------- */

/* component_name: (IDENT | NUM | '*')+ with no space between pieces */
static const char *parse_comp_name(struct parser *ps)
{
	struct strbuf sb;
	const char *name;
	bool first = true;

	sb_init(&sb);
	for (;;) {
		struct token *t = peek(ps);

		if (!first && t->space_before)
			break;
		if (t->kind == TK_IDENT && t->text[0] != '$' && t->text[0] != '@')
			sb_puts(&sb, t->text);
		else if (is_op(t, "*"))
			sb_puts(&sb, "*");
		else if (t->kind == TK_NUM && !first)
			sb_puts(&sb, t->text);
		else
			break;
		next(ps);
		first = false;
	}
	if (first) {
		sb_free(&sb);
		fail(ps, peek(ps), "a probe point component");
	}
	name = intern(ps->s, sb.buf, sb.len);
	sb_free(&sb);
	return name;
}

/* component: component_name [ '(' ['-'] literal ')' ] */
static struct pp_comp *parse_component(struct parser *ps)
{
	struct pp_comp *c = arena_alloc(ps->s->arena, sizeof(*c));

	c->name = parse_comp_name(ps);
	if (accept_op(ps, "(")) {
		bool neg = accept_op(ps, "-");
		struct token *t = next(ps);

		if (t->kind != TK_NUM && (neg || t->kind != TK_STR))
			fail(ps, t, neg ? "a number after '-'" : "a number or string literal");
		c->arg = mk(ps, t->kind == TK_NUM ? N_NUM : N_STR, t->loc);
		c->arg->num = neg ? (int64_t)(0 - (uint64_t)t->num) : t->num;
		c->arg->str = t->text;
		c->arg->len = t->len;
		expect_op(ps, ")");
	}
	return c;
}

static struct pp_comp *copy_comps(struct parser *ps, const struct pp_comp *c,
				  struct pp_comp *tail)
{
	struct pp_comp *head = NULL, **t = &head;

	for (; c; c = c->next) {
		*t = arena_alloc(ps->s->arena, sizeof(**t));
		**t = *c;
		t = &(*t)->next;
	}
	*t = tail;
	return head;
}

static struct probe_point *parse_pp_alternatives(struct parser *ps);

/* Every point of `alts` appended to every point of `heads` (a cartesian
 * product: brace expansion). */
static struct probe_point *pp_product(struct parser *ps, struct probe_point *heads,
				      struct probe_point *alts)
{
	struct probe_point *out = NULL, **tail = &out;

	for (struct probe_point *h = heads; h; h = h->next) {
		for (struct probe_point *a = alts; a; a = a->next) {
			struct probe_point *p = arena_alloc(ps->s->arena, sizeof(*p));

			*p = *h;
			p->next = NULL;
			p->comps = copy_comps(ps, h->comps, copy_comps(ps, a->comps, NULL));
			p->optional |= a->optional;
			p->sufficient |= a->sufficient;
			*tail = p;
			tail = &p->next;
		}
	}
	return out;
}

/* segment: component | '{' alternatives '}' ; a list of partial points */
static struct probe_point *parse_segment(struct parser *ps)
{
	struct probe_point *p;

	if (accept_op(ps, "{")) {
		p = parse_pp_alternatives(ps);
		expect_op(ps, "}");
		return p;
	}
	p = arena_alloc(ps->s->arena, sizeof(*p));
	p->loc = peek(ps)->loc;
	p->comps = parse_component(ps);
	return p;
}

static void parse_pp_suffix(struct parser *ps, struct probe_point *pts)
{
	bool opt = false, suff = false;

	if (accept_op(ps, "?"))
		opt = true;
	else if (accept_op(ps, "!"))
		opt = suff = true;
	for (; pts; pts = pts->next) {
		pts->optional |= opt;
		pts->sufficient |= suff;
	}
}

/* pp_body: segment { '.' segment } [ '?' | '!' ] */
static struct probe_point *parse_pp_body(struct parser *ps)
{
	struct loc loc = peek(ps)->loc;
	struct probe_point *pts = parse_segment(ps);

	while (accept_op(ps, "."))
		pts = pp_product(ps, pts, parse_segment(ps));
	parse_pp_suffix(ps, pts);
	for (struct probe_point *p = pts; p; p = p->next)
		p->loc = loc;
	return pts;
}

/* alternatives: pp_body { ',' pp_body }  (inside braces) */
static struct probe_point *parse_pp_alternatives(struct parser *ps)
{
	struct probe_point *head = parse_pp_body(ps), **tail = &head;

	while (accept_op(ps, ",")) {
		while (*tail)
			tail = &(*tail)->next;
		*tail = parse_pp_body(ps);
	}
	return head;
}

/* probe_point: pp_body [ 'if' '(' expr ')' ]  (may expand to several) */
static struct probe_point *parse_probe_point(struct parser *ps)
{
	struct probe_point *pts = parse_pp_body(ps);

	if (is_kw(peek(ps), "if")) {
		struct node *cond;

		next(ps);
		expect_op(ps, "(");
		cond = parse_expr(ps);
		expect_op(ps, ")");
		for (struct probe_point *p = pts; p; p = p->next)
			p->cond = cond;
	}
	return pts;
}

/* probe_points: probe_point { ',' probe_point } */
static struct probe_point *parse_probe_points(struct parser *ps)
{
	struct probe_point *head = NULL, **tail = &head;

	do {
		*tail = parse_probe_point(ps);
		while (*tail)
			tail = &(*tail)->next;
	} while (accept_op(ps, ","));
	return head;
}

static void check_alias_name(struct parser *ps, struct probe_point *pp)
{
	if (pp->next || pp->optional || pp->cond)
		fail_msg(ps, pp->loc, "a probe alias name must be a single probe point without '?', '!' or 'if'");
}

/*
 * probe_decl: 'probe' probe_points block
 *   alias:    'probe' name { '=' name } ( '=' | '+=' ) probe_points block
 *             [ ',' block ]   (prologue and epilogue; '=' only)
 */
static void parse_probe(struct parser *ps, struct token *kw)
{
	struct probe *p = arena_alloc(ps->s->arena, sizeof(*p));
	struct probe_point **names = &p->alias_names;

	p->loc = kw->loc;
	p->tapset = ps->src->tapset;
	p->points = parse_probe_points(ps);
	while (is_op(peek(ps), "=") || is_op(peek(ps), "+=")) {
		check_alias_name(ps, p->points);
		*names = p->points;
		names = &p->points->next;
		p->epilogue = next(ps)->text[0] == '+';
		p->points = parse_probe_points(ps);
	}
	p->body = parse_block(ps);
	if (p->alias_names && !p->epilogue && accept_op(ps, ","))
		p->body2 = parse_block(ps);
	*ps->probe_tail = p;
	ps->probe_tail = &p->next;
}

/* literal initialiser: ['-'] NUMBER | STRING */
static struct node *parse_literal(struct parser *ps)
{
	struct token *t = peek(ps);
	bool neg = accept_op(ps, "-");
	struct node *n;

	t = next(ps);
	if (t->kind != TK_NUM && (neg || t->kind != TK_STR))
		fail(ps, t, neg ? "a number after '-'" : "a number or string literal");
	n = mk(ps, t->kind == TK_NUM ? N_NUM : N_STR, t->loc);
	n->num = neg ? (int64_t)(0 - (uint64_t)t->num) : t->num;
	n->str = t->text;
	n->len = t->len;
	n->type = t->kind == TK_NUM ? T_LONG : T_STRING;
	return n;
}

/* array_size: [ '%' ] [ '[' NUMBER ']' ] */
static void parse_array_size(struct parser *ps, struct var *v)
{
	if (accept_op(ps, "%"))
		v->array = v->wrap = true;
	if (accept_op(ps, "[")) {
		struct token *t = next(ps);

		if (t->kind != TK_NUM || t->num < 1 || t->num > 2147483647)
			fail(ps, t, "an array size from 1 to 2147483647");
		v->maxsize = t->num;
		v->array = true;
		expect_op(ps, "]");
	}
}

/* global_decl: 'global' var_decl { ',' var_decl }
 * var_decl: name array_size | name [ '=' literal ] */
static void parse_global(struct parser *ps, bool private)
{
	do {
		struct token *t = expect_ident(ps, "a global variable name");
		struct var *v = arena_alloc(ps->s->arena, sizeof(*v));

		/* upstream refuses a name this file already declared */
		for (struct var *o = ps->ast->globals; o; o = o->next) {
			if (strcmp(o->name, t->text))
				continue;
			diag_error(ps->s, t->loc, "%s", o->private == private ?
				   "duplicate global name" :
				   "global versus private variable declaration conflict");
			break;
		}
		v->name = t->text;
		v->loc = t->loc;
		v->global = true;
		v->private = private;
		parse_array_size(ps, v);
		if (!v->array && accept_op(ps, "=")) {
			v->init = parse_literal(ps);
			v->type = v->init->type;
		}
		*ps->global_tail = v;
		ps->global_tail = &v->next;
	} while (accept_op(ps, ","));
	accept_op(ps, ";");
}

/* type_annotation: ':' ( 'long' | 'string' ) */
static enum type parse_type_annot(struct parser *ps)
{
	struct token *t;

	if (!is_op(peek(ps), ":") || ps->toks.v[ps->pos + 1].kind == TK_NUM)
		return T_UNKNOWN;
	next(ps);
	t = next(ps);
	if (is_kw(t, "long"))
		return T_LONG;
	if (is_kw(t, "string"))
		return T_STRING;
	fail(ps, t, "'long' or 'string'");
}

/* function_decl: 'function' name [type] '(' [ name [type] { ',' ... } ] ')'
 *                [ ':' NUMBER ] ( block | '%{' C '%}' ) */
static void parse_function(struct parser *ps, bool private)
{
	struct token *t = expect_ident(ps, "a function name");
	struct func *f = arena_alloc(ps->s->arena, sizeof(*f));
	struct var **tail = &f->params;

	f->name = t->text;
	f->loc = t->loc;
	f->tapset = ps->src->tapset;
	f->private = private;
	f->type = parse_type_annot(ps);
	expect_op(ps, "(");
	while (!accept_op(ps, ")")) {
		struct var *v = arena_alloc(ps->s->arena, sizeof(*v));

		if (f->nparams) {
			expect_op(ps, ",");
			if (accept_op(ps, ")"))
				break;	/* a trailing comma, as upstream allows */
		}
		t = expect_ident(ps, "a parameter name");
		for (struct var *o = f->params; o; o = o->next)
			if (!strcmp(o->name, t->text)) {
				diag_error(ps->s, t->loc, "duplicate parameter names");
				break;
			}
		v->name = t->text;
		v->loc = t->loc;
		v->param = true;
		v->written = true;
		v->index = f->nparams++;
		v->type = parse_type_annot(ps);
		*tail = v;
		tail = &v->next;
	}
	if (accept_op(ps, ":")) {
		t = next(ps);
		if (t->kind != TK_NUM || t->num < 1)
			fail(ps, t, "a function priority (a number from 1)");
		f->priority = t->num;
	}
	if (peek(ps)->kind == TK_EMBEDDED) {
		t = next(ps);
		check_embedded(ps, t, false);
		f->body = mk(ps, N_EMBEDDED_STMT, t->loc);
		f->body->str = t->text;
	} else {
		ps->in_function = true;
		f->body = parse_block(ps);
		ps->in_function = false;
	}
	*ps->func_tail = f;
	ps->func_tail = &f->next;
}

/* Skip to the next top-level keyword after a syntax error. */
static void recover(struct parser *ps)
{
	for (;;) {
		struct token *t = peek(ps);

		if (t->kind == TK_EOF)
			return;
		if (t->kind == TK_IDENT && t->loc.col == 1 &&
		    (is_kw(t, "probe") || is_kw(t, "global") ||
		     is_kw(t, "function") || is_kw(t, "private")))
			return;
		next(ps);
	}
}

/* private_decl: 'private' ( 'global' var_decls | 'function' ... | var_decls ) */
static void parse_private(struct parser *ps)
{
	if (is_kw(peek(ps), "function")) {
		next(ps);
		parse_function(ps, true);
		return;
	}
	if (is_kw(peek(ps), "global"))
		next(ps);
	parse_global(ps, true);
}

/* file: { probe_decl | global_decl | private_decl | function_decl
 *        | '%{' C '%}' | ';' } */
static void parse_toplevel(struct parser *ps)
{
	struct token *t = next(ps);

	if (is_kw(t, "probe")) {
		parse_probe(ps, t);
	} else if (is_kw(t, "global")) {
		parse_global(ps, false);
	} else if (is_kw(t, "function")) {
		parse_function(ps, false);
	} else if (is_kw(t, "private")) {
		parse_private(ps);
	} else if (t->kind == TK_EMBEDDED) {
		struct embed *e = arena_alloc(ps->s->arena, sizeof(*e));

		check_embedded(ps, t, false);
		e->code = t->text;
		e->loc = t->loc;
		*ps->embed_tail = e;
		ps->embed_tail = &e->next;
	} else if (!is_op(t, ";")) {
		ps->pos--;
		fail(ps, t, "'probe', 'global', 'private', 'function' or embedded C");
	}
}

/* A script with nothing in it (or nothing left after %( %)) is an error,
 * as upstream says it. */
static bool check_empty(struct session *s, const struct source *src)
{
	struct token_list raw;
	bool had_tokens;
	int errors = s->errors;

	lex_source(s, src, &raw);
	had_tokens = raw.n > 1;
	free(raw.v);
	s->errors = errors;
	diag_plain(s, "input file '%s' is empty%s", src->name,
		   had_tokens ? " after preprocessing" : "");
	return true;
}

struct file_ast *parse_source(struct session *s, const struct source *src)
{
	struct parser ps = { 0 };
	int errors = s->errors;

	ps.s = s;
	ps.src = src;
	if (lex_source(s, src, &ps.toks) < 0 ||
	    preprocess(s, src, &ps.toks) < 0 ||
	    lex_check_args(s, &ps.toks) < 0) {
		free(ps.toks.v);
		return NULL;
	}
	tapset_want_tokens(s, src, &ps.toks);
	if (!src->tapset && ps.toks.n == 1 && check_empty(s, src)) {
		free(ps.toks.v);
		return NULL;
	}
	ps.ast = arena_alloc(s->arena, sizeof(*ps.ast));
	ps.ast->src = src;
	ps.probe_tail = &ps.ast->probes;
	ps.func_tail = &ps.ast->funcs;
	ps.global_tail = &ps.ast->globals;
	ps.embed_tail = &ps.ast->embeds;
	while (peek(&ps)->kind != TK_EOF) {
		if (setjmp(ps.on_error)) {
			ps.depth = 0;
			ps.in_function = false;
			recover(&ps);
			continue;
		}
		parse_toplevel(&ps);
	}
	free(ps.toks.v);
	return s->errors > errors ? NULL : ps.ast;
}
