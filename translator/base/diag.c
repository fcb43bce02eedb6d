/*
 * diag.c - diagnostics: `file:line:col: error: message`, then the source
 * line and a caret under the column, in the form gcc and clang use so that
 * editors and CI can parse the first line. Counts errors and warnings in
 * the session; never exits.
 */
#include <stdarg.h>
#include <string.h>

#include "stap.h"

const char *loc_str(struct session *s, struct loc loc)
{
	if (!loc.src)
		return "<unknown>";
	return arena_printf(s->arena, "%s:%d:%d", loc.src->name, loc.line,
			    loc.col);
}

/* Print the source line of loc with a caret under its column. */
static void show_line(struct session *s, struct loc loc)
{
	const char *p, *end, *text;
	int line = 1, i;

	if (!loc.src || !loc.src->text)
		return;
	text = loc.src->text;
	p = text;
	while (line < loc.line && p < text + loc.src->len) {
		if (*p++ == '\n')
			line++;
	}
	end = memchr(p, '\n', (size_t)(text + loc.src->len - p));
	if (!end)
		end = text + loc.src->len;
	fprintf(s->err, "%5d | %.*s\n      | ", loc.line, (int)(end - p), p);
	for (i = 1; i < loc.col && p + i - 1 < end; i++)
		fputc(p[i - 1] == '\t' ? '\t' : ' ', s->err);
	fputs("^\n", s->err);
}

/* For a token that came out of macros: where each was expanded. */
static void show_expansions(struct session *s, const struct expansion *e)
{
	int depth = 0;

	for (; e && depth < 8; e = e->at.exp, depth++) {
		if (e->macro)
			fprintf(s->err, "%s: note: in expansion of macro '@%s'\n",
				loc_str(s, e->at), e->macro);
		else
			fprintf(s->err, "%s: note: in probe alias '%s' used here\n",
				loc_str(s, e->at), e->alias);
		show_line(s, e->at);
	}
}

static void vdiag(struct session *s, struct loc loc, const char *what,
		  const char *fmt, va_list ap)
{
	fprintf(s->err, "%s: %s: ", loc_str(s, loc), what);
	vfprintf(s->err, fmt, ap);
	fputc('\n', s->err);
	show_line(s, loc);
	show_expansions(s, loc.exp);
}

void diag_error(struct session *s, struct loc loc, const char *fmt, ...)
{
	va_list ap;

	s->errors++;
	if (s->errors > 50)
		return;
	va_start(ap, fmt);
	vdiag(s, loc, "error", fmt, ap);
	va_end(ap);
}

void diag_warn(struct session *s, struct loc loc, const char *fmt, ...)
{
	va_list ap;

	if (s->suppress_warnings)
		return;
	s->warnings++;
	va_start(ap, fmt);
	vdiag(s, loc, "warning", fmt, ap);
	va_end(ap);
}

/* A note attached to the diagnostic before it (another place involved). */
void diag_note(struct session *s, struct loc loc, const char *fmt, ...)
{
	va_list ap;

	if (s->errors > 50)
		return;
	va_start(ap, fmt);
	vdiag(s, loc, "note", fmt, ap);
	va_end(ap);
}

/* An error without a source location (files, tools, the kernel). */
void diag_plain(struct session *s, const char *fmt, ...)
{
	va_list ap;

	s->errors++;
	fputs("stap: error: ", s->err);
	va_start(ap, fmt);
	vfprintf(s->err, fmt, ap);
	va_end(ap);
	fputc('\n', s->err);
}
