/*
 * lex.c - pass 1a: the tokenizer. Turns one source file into a token
 * array: identifiers (keywords, $targets and @operators are identifiers
 * too; the parser tells them apart), numbers (strtoull rules, 64-bit
 * wrap), strings (escapes decoded, adjacent literals joined), operators
 * (longest match), and embedded C `%{ ... %}` as one token. Comments are
 * `#`, `//` and C-style. Script arguments `$N` are pasted as raw tokens,
 * `@N` as string literals, `$#`/`@#` as their count.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ast.h"

struct lexer {
	struct session *s;
	const struct source *src;
	const char *p, *end;
	int line;
	const char *line_start;
	struct token_list *out;
	size_t cap;
	bool space;
	struct loc arg_loc;	/* set while lexing a pasted $N argument */
	bool in_arg;
};

static const char *const ops3[] = { "<<<", ">>>", "<<=", ">>=", NULL };
static const char *const ops2[] = {
	"==", "!=", "<=", ">=", "=~", "!~", "+=", "-=", "*=", "/=", "%=",
	"&=", "^=", "|=", ".=", "&&", "||", "++", "--", "->", "<<", ">>",
	"%(", "%?", "%:", "%)", NULL
};

static struct loc here(struct lexer *lx)
{
	struct loc l = { 0 };

	if (lx->in_arg)
		return lx->arg_loc;
	l.src = lx->src;
	l.line = lx->line;
	l.col = (int)(lx->p - lx->line_start) + 1;
	return l;
}

static struct token *push(struct lexer *lx, enum tok_kind k, struct loc loc)
{
	struct token_list *o = lx->out;
	struct token *t;

	if (o->n == lx->cap) {
		lx->cap = lx->cap ? lx->cap * 2 : 256;
		o->v = realloc(o->v, lx->cap * sizeof(*o->v));
		if (!o->v)
			abort();
	}
	t = &o->v[o->n++];
	memset(t, 0, sizeof(*t));
	t->kind = k;
	t->loc = loc;
	t->space_before = lx->space;
	lx->space = false;
	return t;
}

static void newline(struct lexer *lx)
{
	lx->line++;
	lx->line_start = lx->p;
}

/* Skip blanks and comments. */
static void skip_space(struct lexer *lx)
{
	while (lx->p < lx->end) {
		char c = *lx->p;

		if (c == '\n') {
			lx->p++;
			newline(lx);
		} else if (isspace((unsigned char)c)) {
			lx->p++;
		} else if (c == '#' || (c == '/' && lx->p[1] == '/')) {
			while (lx->p < lx->end && *lx->p != '\n')
				lx->p++;
		} else if (c == '/' && lx->p[1] == '*') {
			/* an unclosed comment runs to the end, as upstream */
			lx->p += 2;
			while (lx->p < lx->end &&
			       !(lx->p[0] == '*' && lx->p + 1 < lx->end && lx->p[1] == '/')) {
				if (*lx->p++ == '\n')
					newline(lx);
			}
			if (lx->p >= lx->end)
				return;
			lx->p += 2;
		} else {
			return;
		}
		lx->space = true;
	}
}

static int lex_string(struct lexer *lx)
{
	struct loc loc = here(lx);
	struct strbuf sb;
	struct token *t;

	sb_init(&sb);
	sb_putn(&sb, "", 0);
	lx->p++;
	for (;;) {
		char c;

		if (lx->p >= lx->end || *lx->p == '\n') {
			diag_error(lx->s, loc, "unterminated string literal");
			sb_free(&sb);
			return -1;
		}
		c = *lx->p++;
		if (c == '"')
			break;
		if (c != '\\' || lx->p >= lx->end) {
			sb_putc(&sb, c);
			continue;
		}
		c = *lx->p++;
		switch (c) {
		case 'a': sb_putc(&sb, '\a'); break;
		case 'b': sb_putc(&sb, '\b'); break;
		case 't': sb_putc(&sb, '\t'); break;
		case 'n': sb_putc(&sb, '\n'); break;
		case 'v': sb_putc(&sb, '\v'); break;
		case 'f': sb_putc(&sb, '\f'); break;
		case 'r': sb_putc(&sb, '\r'); break;
		case 'x': {
			int v = 0, k = 0;

			while (k < 2 && lx->p < lx->end &&
			       isxdigit((unsigned char)*lx->p)) {
				char d = *lx->p++;

				v = v * 16 + (isdigit((unsigned char)d) ? d - '0' :
					      tolower((unsigned char)d) - 'a' + 10);
				k++;
			}
			sb_putc(&sb, (char)v);
			break;
		}
		default:
			if (c >= '0' && c <= '7') {
				int v = c - '0', k = 1;

				while (k < 3 && lx->p < lx->end &&
				       *lx->p >= '0' && *lx->p <= '7') {
					v = v * 8 + (*lx->p++ - '0');
					k++;
				}
				sb_putc(&sb, (char)v);
			} else {
				sb_putc(&sb, c);
			}
		}
	}
	t = push(lx, TK_STR, loc);
	t->text = arena_strndup(lx->s->arena, sb.buf, sb.len);
	t->len = sb.len;
	sb_free(&sb);
	return 0;
}

static int lex_number(struct lexer *lx)
{
	struct loc loc = here(lx);
	const char *start = lx->p;
	char buf[64], *endp;
	unsigned long long v;
	struct token *t;
	size_t n;

	while (lx->p < lx->end && isalnum((unsigned char)*lx->p))
		lx->p++;
	n = (size_t)(lx->p - start);
	if (n >= sizeof(buf)) {
		diag_error(lx->s, loc, "number too long");
		return -1;
	}
	memcpy(buf, start, n);
	buf[n] = '\0';
	errno = 0;
	v = strtoull(buf, &endp, 0);
	if (*endp || errno == ERANGE) {
		diag_error(lx->s, loc, "invalid number '%s'%s", buf,
			   errno == ERANGE ? " (out of 64-bit range)" : "");
		return -1;
	}
	t = push(lx, TK_NUM, loc);
	t->num = (int64_t)v;
	t->text = intern(lx->s, buf, n);
	t->len = n;
	return 0;
}

static int lex_embedded(struct lexer *lx)
{
	struct loc loc = here(lx);
	const char *start;
	struct token *t;

	lx->p += 2;
	start = lx->p;
	while (lx->p < lx->end && !(lx->p[0] == '%' && lx->p[1] == '}')) {
		if (*lx->p++ == '\n')
			newline(lx);
	}
	if (lx->p >= lx->end) {
		diag_error(lx->s, loc, "unterminated embedded C block: '%%{' without '%%}'");
		return -1;
	}
	t = push(lx, TK_EMBEDDED, loc);
	t->text = arena_strndup(lx->s->arena, start, (size_t)(lx->p - start));
	t->len = (size_t)(lx->p - start);
	lx->p += 2;
	return 0;
}

static int lex_source_range(struct lexer *lx);

/* $N, @N, $#, @#: command-line script arguments. */
static int lex_script_arg(struct lexer *lx)
{
	struct loc loc = here(lx);
	char sigil = *lx->p++;
	struct session *s = lx->s;
	struct token *t;
	long idx = 0;

	if (*lx->p == '#') {
		lx->p++;
		t = push(lx, sigil == '$' ? TK_NUM : TK_STR, loc);
		t->num = s->nscript_args;
		t->text = arena_printf(s->arena, "%d", s->nscript_args);
		t->len = strlen(t->text);
		return 0;
	}
	while (lx->p < lx->end && isdigit((unsigned char)*lx->p)) {
		if (idx < 1000000)	/* past any argc; no overflow */
			idx = idx * 10 + (*lx->p - '0');
		lx->p++;
	}
	if (lx->in_arg) {
		diag_error(s, loc, "a command line argument cannot refer to another ('%c%ld')",
			   sigil, idx);
		return -1;
	}
	if (idx < 1 || idx > s->nscript_args) {
		/* an error only if it survives the preprocessor's
		 * conditionals (%( $# >= 5 %? @5 %: "" %)): lex_check_args */
		t = push(lx, TK_BADARG, loc);
		t->num = idx;
		t->text = "missing argument";
		return 0;
	}
	if (sigil == '@') {
		t = push(lx, TK_STR, loc);
		t->text = s->script_args[idx - 1];
		t->len = strlen(t->text);
		return 0;
	}
	/* $N: lex the argument's text in place, as raw tokens */
	{
		struct lexer sub = *lx;
		int rc;

		sub.p = s->script_args[idx - 1];
		sub.end = sub.p + strlen(sub.p);
		sub.in_arg = true;
		sub.arg_loc = loc;
		rc = lex_source_range(&sub);
		lx->cap = sub.cap;
		return rc;
	}
}

static int lex_ident(struct lexer *lx)
{
	struct loc loc = here(lx);
	const char *start = lx->p;
	struct token *t;

	lx->p++;
	while (lx->p < lx->end &&
	       (isalnum((unsigned char)*lx->p) || *lx->p == '_' || *lx->p == '$'))
		lx->p++;
	t = push(lx, TK_IDENT, loc);
	t->len = (size_t)(lx->p - start);
	t->text = intern(lx->s, start, t->len);
	return 0;
}

static int lex_op(struct lexer *lx)
{
	struct loc loc = here(lx);
	size_t avail = (size_t)(lx->end - lx->p), n = 1;
	const char *const *o;
	struct token *t;

	/* bytes compared inline: every operator of the tapset library comes
	 * here, and a strncmp() call per table entry was 10% of pass 2 */
	for (o = ops3; *o && avail >= 3; o++) {
		if (lx->p[0] == (*o)[0] && lx->p[1] == (*o)[1] && lx->p[2] == (*o)[2]) {
			n = 3;
			goto found;
		}
	}
	for (o = ops2; *o && avail >= 2; o++) {
		if (lx->p[0] == (*o)[0] && lx->p[1] == (*o)[1]) {
			n = 2;
			goto found;
		}
	}
	if (!strchr("+-*/%=<>!~&|^?:;,.()[]{}", *lx->p)) {
		if (isprint((unsigned char)*lx->p))
			diag_error(lx->s, loc, "unexpected character '%c'", *lx->p);
		else
			diag_error(lx->s, loc, "unexpected byte 0x%02x",
				   (unsigned char)*lx->p);
		return -1;
	}
found:
	t = push(lx, TK_OP, loc);
	t->text = intern(lx->s, lx->p, n);
	t->len = n;
	lx->p += n;
	return 0;
}

static int lex_one(struct lexer *lx)
{
	char c = *lx->p, d = lx->p + 1 < lx->end ? lx->p[1] : 0;

	if (c == '"')
		return lex_string(lx);
	if (isdigit((unsigned char)c))
		return lex_number(lx);
	if (c == '%' && d == '{')
		return lex_embedded(lx);
	if ((c == '$' || c == '@') && (isdigit((unsigned char)d) || d == '#'))
		return lex_script_arg(lx);
	if (isalpha((unsigned char)c) || c == '_' || c == '$' || c == '@')
		return lex_ident(lx);
	return lex_op(lx);
}

static int lex_source_range(struct lexer *lx)
{
	for (;;) {
		skip_space(lx);
		if (lx->p >= lx->end)
			return 0;
		if (lex_one(lx) < 0)
			return -1;	/* one lexical error: no cascade */
	}
}

/* Join adjacent string literals: "a" "b" is "ab" (again after macro
 * expansion, which can put literals side by side). */
void lex_join_strings(struct session *s, struct token_list *tl)
{
	size_t i, j = 0;

	for (i = 0; i < tl->n; i++) {
		struct token *prev = j ? &tl->v[j - 1] : NULL;
		struct token *t = &tl->v[i];

		if (prev && prev->kind == TK_STR && t->kind == TK_STR) {
			char *p = arena_alloc(s->arena, prev->len + t->len + 1);

			memcpy(p, prev->text, prev->len);
			memcpy(p + prev->len, t->text, t->len);
			prev->text = p;
			prev->len += t->len;
			continue;
		}
		tl->v[j++] = *t;
	}
	tl->n = j;
}

/* Where "end of input" is reported: just after the last token (not on
 * the empty line after the file's final newline). */
static struct loc end_loc(struct lexer *lx)
{
	const struct token *last;
	struct loc l;

	if (!lx->out->n)
		return here(lx);
	last = &lx->out->v[lx->out->n - 1];
	l = last->loc;
	l.col += (int)last->len + (last->kind == TK_STR ? 2 : 0) +
		 (last->kind == TK_EMBEDDED ? 4 : 0);
	return l;
}

int lex_source(struct session *s, const struct source *src,
	       struct token_list *out)
{
	struct lexer lx = { 0 };
	struct token *eof;
	int rc;

	out->v = NULL;
	out->n = 0;
	lx.s = s;
	lx.src = src;
	lx.p = lx.line_start = src->text;
	lx.end = src->text + src->len;
	lx.line = 1;
	lx.out = out;
	rc = lex_source_range(&lx);
	eof = push(&lx, TK_EOF, end_loc(&lx));
	eof->text = "end of input";
	lex_join_strings(s, out);
	return rc;
}

/* After preprocessing: report $N/@N beyond the arguments given; then join
 * adjacent strings (macros can put literals side by side). */
int lex_check_args(struct session *s, struct token_list *tl)
{
	int bad = 0;

	for (size_t i = 0; i < tl->n; i++) {
		if (tl->v[i].kind != TK_BADARG)
			continue;
		diag_error(s, tl->v[i].loc, "command line argument index %lld out of range [1-%d]",
			   (long long)tl->v[i].num, s->nscript_args);
		bad++;
	}
	lex_join_strings(s, tl);
	return bad ? -1 : 0;
}

static const char *const keywords[] = {
	"probe", "global", "private", "function", "if", "else", "for",
	"foreach", "in", "limit", "return", "delete", "while", "break",
	"continue", "next", "string", "long", "try", "catch", NULL
};

bool lex_is_keyword(const char *name)
{
	for (const char *const *k = keywords; *k; k++) {
		if (**k == *name && !strcmp(*k, name))
			return true;
	}
	return false;
}

const char *tok_describe(struct session *s, const struct token *t)
{
	switch (t->kind) {
	case TK_EOF:
		return "end of input";
	case TK_IDENT:
		return arena_printf(s->arena, "%s '%s'", lex_is_keyword(t->text) ?
				    "keyword" : "identifier", t->text);
	case TK_NUM:
		return arena_printf(s->arena, "number '%s'", t->text);
	case TK_STR:
		return "string literal";
	case TK_OP:
		return arena_printf(s->arena, "'%s'", t->text);
	case TK_EMBEDDED:
		return "embedded C code";
	case TK_BADARG:
		return "a missing command line argument";
	}
	return "token";
}
