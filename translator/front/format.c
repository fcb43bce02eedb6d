/*
 * format.c - printf format strings, parsed at translate time into pieces:
 * literal runs and directives `%[flags][width][.prec][l]conv`. Pass 2 uses
 * the pieces to check argument counts and types; pass 3 compiles each
 * piece into a runtime call, so no format string is parsed in the kernel.
 */
#include <stdint.h>
#include <ctype.h>
#include <string.h>

#include "ast.h"

static struct fmt_piece *piece(struct session *s)
{
	struct fmt_piece *p = arena_alloc(s->arena, sizeof(*p));

	p->width = p->prec = -1;
	return p;
}

/* One flag character at most, as SystemTap 4.8 parses formats: in "%#08x"
 * the 0 is part of the width, and "%-#x" is an error. */
static int parse_flags(const char **pp, const char *end)
{
	static const char chars[] = "-+ #0";
	static const int bits[] = { FMT_LEFT, FMT_PLUS, FMT_SPACE, FMT_ALT, FMT_ZERO };
	const char *c;

	if (*pp >= end || !**pp || !(c = strchr(chars, **pp)))
		return 0;
	(*pp)++;
	return bits[c - chars];
}

/*
 * A width or precision: digits, or '*' (-2), or none (-1). Digits are read
 * as SystemTap 4.8's runtime reads them (skip_atoi into an int, wrapping)
 * and clamped to 0..FMT_MAX_COUNT as it clamps them: "%2147483647d" has a
 * width of 8192, "%2147483648d" (wrapped negative) a width of 0.
 */
#define FMT_MAX_COUNT 8192	/* 4.8's STP_BUFFER_SIZE */

static int parse_count(const char **pp, const char *end)
{
	uint32_t v = 0;

	if (*pp < end && **pp == '*') {
		(*pp)++;
		return -2;
	}
	if (*pp >= end || !isdigit((unsigned char)**pp))
		return -1;
	while (*pp < end && isdigit((unsigned char)**pp)) {
		v = v * 10 + (uint32_t)(**pp - '0');
		(*pp)++;
	}
	if ((int32_t)v < 0)
		return 0;
	return v > FMT_MAX_COUNT ? FMT_MAX_COUNT : (int)v;
}

/* Parse one directive after its '%'; NULL with *err set on a bad one. */
static struct fmt_piece *directive(struct session *s, const char **pp,
				   const char *end, const char **err)
{
	struct fmt_piece *d = piece(s);

	d->flags = parse_flags(pp, end);
	d->width = parse_count(pp, end);
	if (*pp < end && **pp == '.') {
		(*pp)++;
		d->prec = parse_count(pp, end);
		if (d->prec == -1)
			d->prec = 0;
	}
	if (*pp < end && **pp == 'l')
		(*pp)++;
	if (*pp >= end) {
		*err = "incomplete format directive at the end";
		return NULL;
	}
	d->conv = *(*pp)++;
	if (!d->conv || !strchr("diuoxXpcsbmM", d->conv)) {
		*err = arena_printf(s->arena, "invalid format directive '%%%c'", d->conv);
		return NULL;
	}
	return d;
}

struct fmt_piece *fmt_parse(struct session *s, const char *f, size_t len,
			    const char **err)
{
	const char *p = f, *end = f + len;
	struct fmt_piece *head = NULL, **tail = &head;
	struct strbuf lit;

	sb_init(&lit);
	*err = NULL;
	while (p < end) {
		if (*p != '%' || (p + 1 < end && p[1] == '%')) {
			sb_putc(&lit, *p);
			p += *p == '%' ? 2 : 1;
			continue;
		}
		p++;
		if (lit.len) {
			struct fmt_piece *l = piece(s);

			l->lit = arena_strndup(s->arena, lit.buf, lit.len);
			l->litlen = lit.len;
			*tail = l;
			tail = &l->next;
			lit.len = 0;
		}
		*tail = directive(s, &p, end, err);
		if (!*tail) {
			sb_free(&lit);
			return NULL;
		}
		tail = &(*tail)->next;
	}
	if (lit.len) {
		struct fmt_piece *l = piece(s);

		l->lit = arena_strndup(s->arena, lit.buf, lit.len);
		l->litlen = lit.len;
		*tail = l;
	}
	sb_free(&lit);
	return head;
}

/* How many arguments the pieces consume ('*' widths count). */
int fmt_nargs(const struct fmt_piece *p)
{
	int n = 0;

	for (; p; p = p->next) {
		if (!p->conv)
			continue;
		n += 1 + (p->width == -2) + (p->prec == -2);
	}
	return n;
}
