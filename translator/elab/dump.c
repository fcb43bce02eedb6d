/*
 * dump.c - the catalogue dumps of the tapset library: --dump-functions
 * (`name:type (param:type, ...)`, with upstream's "unprivileged" mark)
 * and --dump-probe-aliases (`name = point, point?`), sorted by name as
 * upstream prints them. Names starting with `_` (internal) and private
 * functions are left out, as upstream leaves them out.
 */
#include <stdlib.h>
#include <string.h>

#include "elab.h"

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void print_sorted(char **lines, size_t n)
{
	qsort(lines, n, sizeof(*lines), cmp_str);
	for (size_t i = 0; i < n; i++) {
		if (i == 0 || strcmp(lines[i], lines[i - 1]))
			puts(lines[i]);
	}
}

static char *function_line(struct session *s, const struct func *f)
{
	struct strbuf sb;
	char *r;

	sb_init(&sb);
	sb_printf(&sb, "%s:%s (", f->name, type_name(f->type));
	for (const struct var *p = f->params; p && p->param; p = p->next)
		sb_printf(&sb, "%s%s:%s", p == f->params ? "" : ", ", p->name,
			  type_name(p->type));
	sb_putc(&sb, ')');
	if (f->body->kind == N_EMBEDDED_STMT && strstr(f->body->str, "/* unprivileged */"))
		sb_puts(&sb, " /* unprivileged */");
	r = arena_strdup(s->arena, sb.buf);
	sb_free(&sb);
	return r;
}

int dump_functions(struct session *s)
{
	char **lines = NULL;
	size_t n = 0;

	for (struct file_ast *f = s->tapset_asts; f; f = f->next) {
		for (struct func *fn = f->funcs; fn; fn = fn->next) {
			if (fn->private || fn->name[0] == '_')
				continue;
			lines = realloc(lines, (n + 1) * sizeof(*lines));
			lines[n++] = function_line(s, fn);
		}
	}
	print_sorted(lines, n);
	free(lines);
	return 0;
}

static char *alias_line(struct session *s, const struct probe *p,
			const struct probe_point *name)
{
	struct strbuf sb;
	char *r;

	sb_init(&sb);
	sb_printf(&sb, "%s %s ", pp_to_string(s, name), p->epilogue ? "+=" : "=");
	for (const struct probe_point *pp = p->points; pp; pp = pp->next) {
		sb_puts(&sb, pp_to_string(s, pp));
		if (pp->sufficient)
			sb_putc(&sb, '!');
		else if (pp->optional)
			sb_putc(&sb, '?');
		if (pp->next)
			sb_puts(&sb, ", ");
	}
	r = arena_strdup(s->arena, sb.buf);
	sb_free(&sb);
	return r;
}

int dump_probe_aliases(struct session *s)
{
	char **lines = NULL;
	size_t n = 0;

	for (struct file_ast *f = s->tapset_asts; f; f = f->next) {
		for (struct probe *p = f->probes; p; p = p->next) {
			for (struct probe_point *nm = p->alias_names; nm; nm = nm->next) {
				if (nm->comps->name[0] == '_')
					continue;
				lines = realloc(lines, (n + 1) * sizeof(*lines));
				lines[n++] = alias_line(s, p, nm);
			}
		}
	}
	print_sorted(lines, n);
	free(lines);
	return 0;
}
