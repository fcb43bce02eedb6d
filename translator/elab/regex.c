/*
 * regex.c - the regular expressions of `=~` and `!~`: pass 2 parses each
 * regex literal with SystemTap 4.8's syntax (POSIX ERE without
 * back-references, plus `(?:...)` as 4.8 reads it) and reports its errors
 * with 4.8's wording and positions; the parse tree is compiled into a
 * program for the runtime's Pike VM (runtime/regex.c), which pass 3
 * (gen/tr_regex.c) writes into the module as static tables.
 *
 * Positions in messages count characters of the literal as 4.8 sees it:
 * escapes the language knows (`\\`, `\n`, ...) take two characters.
 */
#include <ctype.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "elab.h"

#define RX_MAX_DEPTH 200	/* nested groups */
#define RX_MAX_NUMBER 12345	/* {m,n} bounds must stay below (as 4.8) */
#define RX_MAX_TEXT 8192	/* bounds the parse tree's depth */

enum rx_kind { RX_EMPTY, RX_SET, RX_CAT, RX_ALT, RX_PLUS, RX_REPEAT, RX_GROUP,
	       RX_BOL, RX_EOL };

struct rx_node {
	enum rx_kind kind;
	struct rx_node *a, *b;
	int min, max;		/* RX_REPEAT; max -1: unbounded */
	int group;		/* RX_GROUP: capture number, -1 none */
	uint8_t set[32];	/* RX_SET: bit c set when byte c matches */
};

struct rx_parser {
	struct session *s;
	const char *in;		/* the literal as 4.8 sees it */
	size_t len, pos, last_pos;
	bool finished;
	int next_c;		/* decoded character peeked, -1 none */
	int ngroups;		/* group 0 included */
	int depth;
	jmp_buf fail;
	char msg[160];
	long epos;		/* -1: no position */
};

/* ---- the literal as 4.8's lexer leaves it ---------------------------------- */

/* Our lexer decodes escapes; 4.8 hands the regex compiler the literal with
 * the escapes it knows still spelled out. Re-spell them so positions match
 * the common spelling. */
static char *respell(struct session *s, const char *p, size_t n, size_t *outlen)
{
	static const char ctl[] = "\a\b\t\n\v\f\r", ctlname[] = "abtnvfr";
	struct strbuf sb;
	char *r;

	sb_init(&sb);
	sb_putn(&sb, "", 0);
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)p[i];
		const char *k = c ? strchr(ctl, c) : NULL;

		if (c == '\\')
			sb_puts(&sb, "\\\\");
		else if (k)
			sb_printf(&sb, "\\%c", ctlname[k - ctl]);
		else if (c < 0x20 || c >= 0x7f)
			sb_printf(&sb, "\\%03o", c);
		else
			sb_putc(&sb, (char)c);
	}
	*outlen = sb.len;
	r = arena_strndup(s->arena, sb.buf, sb.len);
	sb_free(&sb);
	return r;
}

/* ---- the cursor: decodes escapes, remembers positions ---------------------- */

static _Noreturn void rx_fail(struct rx_parser *p, long pos, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static _Noreturn void rx_fail(struct rx_parser *p, long pos, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(p->msg, sizeof(p->msg), fmt, ap);
	va_end(ap);
	p->epos = pos;
	longjmp(p->fail, 1);
}

static int digit_in(char c, const char *digits)
{
	const char *d = c ? strchr(digits, tolower((unsigned char)c)) : NULL;

	return d ? (int)(d - digits) : -1;
}

static int decode_numeric(struct rx_parser *p, char c)
{
	const char *in = p->in;
	size_t pos = p->pos;

	if (c == 'x') {
		int d1, d2;

		if (pos + 2 >= p->len)
			rx_fail(p, (long)pos, "two hex digits required in escape sequence");
		d1 = digit_in(in[pos + 1], "0123456789abcdef");
		d2 = digit_in(in[pos + 2], "0123456789abcdef");
		if (d1 < 0 || d2 < 0)
			rx_fail(p, (long)pos + (d1 >= 0 ? 1 : 2),
				"two hex digits required in escape sequence");
		p->pos += 2;
		return d1 * 16 + d2;
	}
	if (c >= '4' && c <= '7')
		rx_fail(p, (long)pos, "octal escape sequence out of range");
	{
		int d0, d1, d2;

		if (pos + 2 >= p->len)
			rx_fail(p, (long)pos, "three octal digits required in escape sequence");
		d0 = digit_in(in[pos], "01234567");
		d1 = digit_in(in[pos + 1], "01234567");
		d2 = digit_in(in[pos + 2], "01234567");
		if (d0 < 0 || d1 < 0 || d2 < 0)
			rx_fail(p, (long)pos + (d1 >= 0 ? 1 : 2),
				"three octal digits required in escape sequence");
		p->pos += 2;
		return (d0 << 6 | d1 << 3 | d2) & 0xff;
	}
}

/* Read one character at pos into next_c, decoding the string escapes. */
static void cur_fetch(struct rx_parser *p)
{
	static const char names[] = "abtnvfr", values[] = "\a\b\t\n\v\f\r";
	int c;

	p->last_pos = p->pos;
	c = (unsigned char)p->in[p->pos];
	if (c == '\\') {
		const char *k;

		if (++p->pos >= p->len)
			rx_fail(p, (long)p->pos, "unexpected end of regex");
		c = (unsigned char)p->in[p->pos];
		k = strchr(names, c);
		if (c && k)
			c = (unsigned char)values[k - names];
		else if (c == 'x' || (c >= '0' && c <= '7'))
			c = decode_numeric(p, (char)c);
	}
	p->next_c = c;
	p->pos++;
	p->finished = p->pos >= p->len;
}

static int cur_next(struct rx_parser *p)
{
	int c;

	if (p->next_c < 0 && p->finished)
		rx_fail(p, (long)p->pos, "unexpected end of regex");
	if (p->next_c < 0)
		cur_fetch(p);
	c = p->next_c;
	p->next_c = -1;
	return c;
}

/* The next character without taking it; 0 at the end. */
static int cur_peek(struct rx_parser *p)
{
	if (p->next_c < 0 && !p->finished)
		cur_fetch(p);
	return p->next_c < 0 ? 0 : p->next_c;
}

/* At least n more raw characters after pos (4.8's unsigned test). */
static bool cur_has(struct rx_parser *p, size_t n)
{
	return p->len < n || p->pos <= p->len - n;
}

/* ---- parse tree ------------------------------------------------------------ */

static struct rx_node *mk(struct rx_parser *p, enum rx_kind k, struct rx_node *a,
			  struct rx_node *b)
{
	struct rx_node *n = arena_alloc(p->s->arena, sizeof(*n));

	n->kind = k;
	n->a = a;
	n->b = b;
	n->group = -1;
	return n;
}

static void set_range(uint8_t *set, int lo, int hi)
{
	for (int c = lo; c <= hi; c++)
		set[c >> 3] |= (uint8_t)(1u << (c & 7));
}

static struct rx_node *mk_set(struct rx_parser *p, int lo, int hi)
{
	struct rx_node *n = mk(p, RX_SET, NULL, NULL);

	set_range(n->set, lo, hi);
	return n;
}

static struct rx_node *mk_opt(struct rx_parser *p, struct rx_node *a)
{
	return mk(p, RX_ALT, a, mk(p, RX_EMPTY, NULL, NULL));
}

static bool is_special(int c)
{
	return c && strchr(".[{()\\*+?|^$", c);
}

static bool is_closure(int c)
{
	return c == '*' || c == '+' || c == '?' || c == '{';
}

static void expect(struct rx_parser *p, int want)
{
	int c;

	if (p->next_c < 0 && p->finished)
		rx_fail(p, (long)p->last_pos, "expected %c, found end of regex", want);
	c = cur_next(p);
	if (c != want)
		rx_fail(p, (long)p->last_pos, "expected %c, found %c", want, c);
}

/* The named classes of [[:name:]], as 4.8 defines them (ASCII only). */
static bool named_class(const char *name, uint8_t *set)
{
	static const struct { const char *name, *ranges; } classes[] = {
		{ "alpha", "AZaz" }, { "alnum", "AZaz09" }, { "blank", "  \t\t" },
		{ "cntrl", "\x01\x1f\x7f\x7f" }, { "d", "09" }, { "digit", "09" },
		{ "xdigit", "09afAF" }, { "graph", "!~" }, { "l", "az" },
		{ "lower", "az" }, { "print", " ~" },
		{ "punct", "!/:@[`{~" }, { "s", "  \t\r" }, { "space", "  \t\r" },
		{ "u", "AZ" }, { "upper", "AZ" },
	};

	for (size_t i = 0; i < sizeof(classes) / sizeof(classes[0]); i++) {
		const char *r = classes[i].ranges;

		if (strcmp(name, classes[i].name))
			continue;
		for (; *r; r += 2)
			set_range(set, (unsigned char)r[0], (unsigned char)r[1]);
		return true;
	}
	return false;
}

/* One member of a bracket expression, added to set. */
static void parse_range(struct rx_parser *p, uint8_t *set)
{
	int c = cur_peek(p), lb, ub;

	if (c == '\\') {
		cur_next(p);
		c = cur_peek(p);
		cur_next(p);
	} else if (c == '[') {
		cur_next(p);
		c = cur_peek(p);
		if (c == ':') {
			struct strbuf name;
			char *nm;

			sb_init(&name);
			sb_putn(&name, "", 0);
			cur_next(p);
			c = cur_peek(p);
			for (;;) {
				if (p->finished) {
					nm = arena_strdup(p->s->arena, name.buf);
					sb_free(&name);
					rx_fail(p, (long)p->pos, "unclosed character class '[:%s'", nm);
				}
				if (cur_has(p, 2) && c == ':' && p->in[p->pos] == ']')
					break;
				sb_putc(&name, (char)c);
				cur_next(p);
				c = cur_peek(p);
			}
			cur_next(p);
			cur_next(p);
			nm = arena_strdup(p->s->arena, name.buf);
			sb_free(&name);
			if (!named_class(nm, set))
				rx_fail(p, -1, "unknown character class '%s'", nm);
			return;
		}
		c = '[';
	} else {
		cur_next(p);
	}
	lb = ub = c;
	if (cur_has(p, 2) && cur_peek(p) == '-' && p->in[p->pos] != ']') {
		cur_next(p);
		ub = cur_peek(p);
		if (ub < lb)
			rx_fail(p, (long)p->pos, "Inverted character range %c-%c", lb, ub);
		cur_next(p);
	}
	set_range(set, lb, ub);
}

/* [...] after the '[': members until ']' (a ']' first is a member). */
static struct rx_node *parse_bracket(struct rx_parser *p)
{
	struct rx_node *n = mk(p, RX_SET, NULL, NULL);
	bool invert = false;

	if (cur_peek(p) == '^') {
		invert = true;
		cur_next(p);
	}
	do {
		if (p->finished)
			rx_fail(p, (long)p->last_pos, "unclosed character class");
		parse_range(p, n->set);
	} while (cur_peek(p) != ']');
	if (invert) {
		for (int i = 0; i < 32; i++)
			n->set[i] = (uint8_t)~n->set[i];
	}
	n->set[0] &= (uint8_t)~1u;	/* never the terminating NUL */
	return n;
}

static unsigned parse_number(struct rx_parser *p)
{
	char digits[32];
	size_t n = 0;
	int c = cur_peek(p);
	unsigned long v;

	while (c && isdigit(c)) {
		cur_next(p);
		if (n < sizeof(digits) - 1)
			digits[n++] = (char)c;
		c = cur_peek(p);
	}
	digits[n] = 0;
	if (!n)
		rx_fail(p, (long)p->pos, "expected number");
	v = strtoul(digits, NULL, 10);
	if (n > 9 || v >= RX_MAX_NUMBER)
		rx_fail(p, (long)p->pos, "%s is too large", digits);
	return (unsigned)v;
}

/* {m}, {m,}, {m,n} after the '{'. */
static struct rx_node *parse_braces(struct rx_parser *p, struct rx_node *r)
{
	int min = (int)parse_number(p), max, c = cur_next(p);
	struct rx_node *n;

	if (c == ',') {
		c = cur_peek(p);
		if (c == '}') {
			cur_next(p);
			max = -1;
		} else if (c && isdigit(c)) {
			max = (int)parse_number(p);
			expect(p, '}');
		} else {
			rx_fail(p, (long)p->pos, "expected '}' or number");
		}
	} else if (c == '}') {
		max = min;
	} else {
		rx_fail(p, (long)p->last_pos, "expected ',' or '}'");
	}
	if (max >= 0 && max < min)	/* 4.8 aborts on these */
		rx_fail(p, (long)p->last_pos, "invalid repetition {%d,%d}", min, max);
	if (min == 0 && max == -1)
		return mk_opt(p, mk(p, RX_PLUS, r, NULL));
	if (min == 1 && max == -1)
		return mk(p, RX_PLUS, r, NULL);
	n = mk(p, RX_REPEAT, r, NULL);
	n->min = min;
	n->max = max;
	return n;
}

static struct rx_node *parse_alt(struct rx_parser *p);

/* A run of ordinary (or escaped) characters; the last one is split off
 * when a closure follows, so the closure applies to it alone. */
static struct rx_node *parse_literal(struct rx_parser *p, int c, struct rx_node **head)
{
	struct rx_node *run = NULL;
	int d = 0;

	while (c && (!is_special(c) || c == '\\')) {
		if (c == '\\') {
			cur_next(p);
			c = cur_peek(p);
		}
		cur_next(p);
		d = cur_peek(p);
		if (is_closure(d)) {
			d = c;
			break;
		}
		{
			struct rx_node *ch = mk_set(p, c, c);

			run = run ? mk(p, RX_CAT, run, ch) : ch;
		}
		c = d;
		d = 0;
	}
	if (!run)
		run = mk(p, RX_EMPTY, NULL, NULL);
	if (!d)
		return run;
	*head = run;
	return mk_set(p, d, d);
}

static struct rx_node *parse_group(struct rx_parser *p)
{
	struct rx_node *n;
	int group = p->ngroups;

	if (cur_peek(p) == '?') {
		int c3;

		cur_next(p);
		c3 = cur_peek(p);
		if (c3 != ':')
			rx_fail(p, (long)p->last_pos, "unexpected '(?%c'", c3);
		group = -1;	/* as 4.8: the ':' stays and is matched */
	} else {
		p->ngroups++;
	}
	if (++p->depth > RX_MAX_DEPTH)
		rx_fail(p, (long)p->last_pos, "groups nested too deeply");
	n = mk(p, RX_GROUP, parse_alt(p), NULL);
	p->depth--;
	n->group = group;
	expect(p, ')');
	return n;
}

static struct rx_node *parse_factor(struct rx_parser *p)
{
	struct rx_node *r, *head = NULL;
	int c = cur_peek(p);

	if (!c || c == '|' || c == ')')
		return mk(p, RX_EMPTY, NULL, NULL);
	if (is_closure(c))
		rx_fail(p, (long)p->last_pos, "unexpected '%c'", c);
	if (is_special(c) && c != '\\')
		cur_next(p);
	if (c == '.') {
		r = mk_set(p, 1, 255);
	} else if (c == '[') {
		r = parse_bracket(p);
		expect(p, ']');
	} else if (c == '(') {
		r = parse_group(p);
	} else if (c == '^' || c == '$') {
		r = mk(p, c == '^' ? RX_BOL : RX_EOL, NULL, NULL);
	} else {
		r = parse_literal(p, c, &head);
	}
	for (c = cur_peek(p); is_closure(c); c = cur_peek(p)) {
		cur_next(p);
		if (r->kind == RX_BOL || r->kind == RX_EOL)
			rx_fail(p, (long)p->last_pos,
				"postfix closure '%c' applied to anchoring operator", c);
		if (c == '*')
			r = mk_opt(p, mk(p, RX_PLUS, r, NULL));
		else if (c == '+')
			r = mk(p, RX_PLUS, r, NULL);
		else if (c == '?')
			r = mk_opt(p, r);
		else
			r = parse_braces(p, r);
	}
	return head ? mk(p, RX_CAT, head, r) : r;
}

static struct rx_node *parse_term(struct rx_parser *p)
{
	struct rx_node *r = parse_factor(p);
	int c;

	while ((c = cur_peek(p)) && c != '|' && c != ')')
		r = mk(p, RX_CAT, r, parse_factor(p));
	return r;
}

static struct rx_node *parse_alt(struct rx_parser *p)
{
	struct rx_node *r = parse_term(p);

	while (cur_peek(p) == '|') {
		cur_next(p);
		r = mk(p, RX_ALT, r, parse_term(p));
	}
	return r;
}

/* The whole regex; a ')' as its very last character is ignored, as 4.8
 * does. */
static struct rx_node *parse_regex(struct rx_parser *p)
{
	struct rx_node *r = mk(p, RX_GROUP, parse_alt(p), NULL);

	r->group = 0;
	if (!p->finished) {
		if (cur_peek(p) == ')')
			rx_fail(p, (long)p->pos, "unbalanced ')'");
		rx_fail(p, (long)p->pos, "BUG -- regex parse failed to finish for unknown reasons");
	}
	return r;
}

/* ---- code generation: the Pike VM program ---------------------------------- */

struct rx_emit {
	struct rx_parser *p;
	struct rx_insn *v;
	int n, cap;
	struct rx_prog *prog;
};

static int emit(struct rx_emit *e, enum rx_op op, int x, int y)
{
	if (e->n >= RX_MAX_INSNS)
		rx_fail(e->p, -1, "regex too large (more than %d instructions)", RX_MAX_INSNS);
	if (e->n == e->cap) {
		e->cap = e->cap ? 2 * e->cap : 64;
		e->v = realloc(e->v, (size_t)e->cap * sizeof(*e->v));
		if (!e->v)
			abort();
	}
	e->v[e->n] = (struct rx_insn){ op, x, y };
	return e->n++;
}

static int set_index(struct rx_emit *e, const uint8_t *set)
{
	struct rx_prog *pr = e->prog;
	int i;

	for (i = 0; i < pr->nsets; i++) {
		if (!memcmp(pr->sets[i], set, 32))
			return i;
	}
	if (pr->nsets == RX_MAX_SETS)
		rx_fail(e->p, -1, "regex too large (more than %d character sets)", RX_MAX_SETS);
	memcpy(pr->sets[pr->nsets], set, 32);
	return pr->nsets++;
}

static void gen(struct rx_emit *e, const struct rx_node *n);

/* r{min,max} with max >= 0: min copies, then max - min nested optional
 * ones; max -1: min copies and a star. */
static void gen_repeat(struct rx_emit *e, const struct rx_node *n)
{
	int *pend;

	for (int i = 0; i < n->min; i++)
		gen(e, n->a);
	if (n->max < 0) {
		int split = emit(e, RX_SPLIT, 0, 0), loop = e->n;

		gen(e, n->a);
		emit(e, RX_SPLIT, loop, e->n + 1);
		e->v[split].x = loop;
		e->v[split].y = e->n;
		return;
	}
	pend = arena_alloc(e->p->s->arena, ((size_t)(n->max - n->min) + 1) * sizeof(*pend));
	for (int i = 0; i < n->max - n->min; i++) {
		pend[i] = emit(e, RX_SPLIT, e->n + 1, 0);
		gen(e, n->a);
	}
	for (int i = 0; i < n->max - n->min; i++)
		e->v[pend[i]].y = e->n;
}

static void gen(struct rx_emit *e, const struct rx_node *n)
{
	int a, b;

	switch (n->kind) {
	case RX_EMPTY:
		break;
	case RX_SET:
		emit(e, RX_CHAR, set_index(e, n->set), 0);
		break;
	case RX_CAT:
		gen(e, n->a);
		gen(e, n->b);
		break;
	case RX_ALT:
		a = emit(e, RX_SPLIT, 0, 0);
		e->v[a].x = e->n;
		gen(e, n->a);
		b = emit(e, RX_JMP, 0, 0);
		e->v[a].y = e->n;
		gen(e, n->b);
		e->v[b].x = e->n;
		break;
	case RX_PLUS:
		a = e->n;
		gen(e, n->a);
		emit(e, RX_SPLIT, a, e->n + 1);
		break;
	case RX_REPEAT:
		gen_repeat(e, n);
		break;
	case RX_GROUP:
		if (n->group >= 0)
			emit(e, RX_SAVE, 2 * n->group, 0);
		gen(e, n->a);
		if (n->group >= 0)
			emit(e, RX_SAVE, 2 * n->group + 1, 0);
		break;
	case RX_BOL:
		emit(e, RX_BOL_OP, 0, 0);
		break;
	case RX_EOL:
		emit(e, RX_EOL_OP, 0, 0);
		break;
	}
}

/* ---- pass 2: compile every regex of the program ---------------------------- */

/* Parser and emitter state live in the arena, so nothing the longjmp of an
 * error skips over is a local of the function that called setjmp. */
struct rx_job {
	struct rx_parser p;
	struct rx_emit e;
};

static struct rx_prog *compile(struct session *s, const struct node *lit)
{
	struct rx_job *const j = arena_alloc(s->arena, sizeof(*j));
	struct rx_prog *const pr = arena_alloc(s->arena, sizeof(*pr));
	struct rx_parser *const p = &j->p;
	struct rx_emit *const e = &j->e;

	p->s = s;
	p->next_c = -1;
	p->ngroups = 1;
	p->epos = -1;
	p->in = respell(s, lit->str, lit->len, &p->len);
	p->finished = p->len == 0;
	e->p = p;
	e->prog = pr;
	if (setjmp(p->fail)) {
		free(e->v);
		if (p->epos >= 0)
			diag_error(s, lit->loc, "regex compilation error (at position %ld): %s",
				   p->epos, p->msg);
		else
			diag_error(s, lit->loc, "regex compilation error: %s", p->msg);
		return NULL;
	}
	if (p->len > RX_MAX_TEXT)
		rx_fail(p, -1, "regex too large (more than %d characters)", RX_MAX_TEXT);
	gen(e, parse_regex(p));
	emit(e, RX_MATCH, 0, 0);
	if ((long)e->n * 2 * p->ngroups > RX_MAX_SLOTS)
		rx_fail(p, -1, "regex too large (%d instructions with %d groups)",
			e->n, p->ngroups - 1);
	pr->insns = arena_alloc(s->arena, (size_t)e->n * sizeof(*pr->insns));
	memcpy(pr->insns, e->v, (size_t)e->n * sizeof(*pr->insns));
	free(e->v);
	pr->ninsns = e->n;
	pr->ngroups = p->ngroups;
	pr->text = arena_strndup(s->arena, lit->str, lit->len);
	return pr;
}

/* The compiled regex of a literal: the same text shares one program. */
static int regex_for(struct session *s, const struct node *lit)
{
	struct rx_prog *pr;

	for (int i = 0; i < s->nregexes; i++) {
		pr = s->regexes[i];
		if (strlen(pr->text) == lit->len && !memcmp(pr->text, lit->str, lit->len))
			return i;
	}
	pr = compile(s, lit);
	if (!pr)
		return -1;
	if (s->nregexes % 16 == 0) {
		struct rx_prog **v = arena_alloc(s->arena, (size_t)(s->nregexes + 16) * sizeof(*v));

		if (s->nregexes)
			memcpy(v, s->regexes, (size_t)s->nregexes * sizeof(*v));
		s->regexes = v;
	}
	s->regexes[s->nregexes] = pr;
	return s->nregexes++;
}

static void walk(struct session *s, struct node *n)
{
	for (; n; n = n->next) {
		if (n->kind == N_COMPARE && n->op[1] == '~' && n->b && n->b->kind == N_STR)
			n->num = regex_for(s, n->b);
		walk(s, n->a);
		walk(s, n->b);
		walk(s, n->c);
		walk(s, n->d);
		walk(s, n->args);
	}
}

/* Compile the regexes of the probes and used functions; a script that
 * uses the submatch functions (pragma:tagged_dfa) needs the captures. */
void regex_compile_all(struct session *s)
{
	for (struct probe *p = s->probes; p; p = p->next)
		walk(s, p->body);
	for (struct func *f = s->funcs; f; f = f->next_used) {
		if (f->body && f->body->kind == N_EMBEDDED_STMT) {
			if (f->body->str && strstr(f->body->str, "pragma:tagged_dfa"))
				s->regex_tags = true;
			continue;
		}
		walk(s, f->body);
	}
}
