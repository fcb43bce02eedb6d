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

/*
 * Was a warning of this text printed already (wherever it was)? A probe
 * alias's body is checked once per probe it makes, a blacklisted
 * function is met by each point matching it: as 4.8, each text is
 * printed once, at its first place, and the repeats counted
 * (diag_summary), unless -v asks for all of them.
 */
static bool warned_before(struct session *s, const char *fmt, va_list ap)
{
	va_list cp;
	char msg[512];
	const char *key;

	if (s->verbose)
		return false;
	va_copy(cp, ap);
	vsnprintf(msg, sizeof(msg), fmt, cp);
	va_end(cp);
	key = arena_strdup(s->arena, msg);
	for (int i = 0; i < s->nwarned; i++) {
		if (!strcmp(s->warned[i], key)) {
			s->warnings_repeated++;
			return true;
		}
	}
	if (s->nwarned == s->capwarned) {
		const char **v = arena_alloc(s->arena, sizeof(*v) * (size_t)(s->capwarned * 2 + 16));

		if (s->nwarned)
			memcpy(v, s->warned, sizeof(*v) * (size_t)s->nwarned);
		s->warned = v;
		s->capwarned = s->capwarned * 2 + 16;
	}
	s->warned[s->nwarned++] = key;
	return false;
}

void diag_warn(struct session *s, struct loc loc, const char *fmt, ...)
{
	va_list ap;

	if (s->suppress_warnings)
		return;
	va_start(ap, fmt);
	if (!warned_before(s, fmt, ap)) {
		s->warnings++;
		vdiag(s, loc, "warning", fmt, ap);
	}
	va_end(ap);
}

/* After a pass: how many repeated warnings were left out, as 4.8 says it. */
void diag_summary(struct session *s)
{
	if (!s->warnings_repeated)
		return;
	fprintf(s->err, "Number of similar warning messages suppressed: %d.\n"
		"Rerun with -v to see them.\n", s->warnings_repeated);
	s->warnings_repeated = 0;
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
