/*
 * tapset.c - the tapset library's search path: every -I directory, then
 * the installed (or build-tree) tapset directory, each with its linux/,
 * <arch>/, linux/<arch>/ and <kernel version>/ subdirectories.
 * .stpm files there define macros for every script (read before pass 1);
 * .stp files are the library proper (read in pass 2).
 */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "ast.h"

static int cmp_paths(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void scan_dir(struct session *s, const char *dir, const char *ext,
		     char ***names, size_t *n)
{
	DIR *d = opendir(dir);
	size_t elen = strlen(ext), first = *n;
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name);

		if (len <= elen || strcmp(e->d_name + len - elen, ext))
			continue;
		*names = realloc(*names, (*n + 1) * sizeof(**names));
		(*names)[(*n)++] = arena_printf(s->arena, "%s/%s", dir, e->d_name);
	}
	closedir(d);
	if (*n > first)
		qsort(*names + first, *n - first, sizeof(**names), cmp_paths);
}

/* All library files ending in ext, in search-path order; free() the array. */
char **tapset_files(struct session *s, const char *ext, size_t *n)
{
	const char *subdirs[] = { "", "/linux", NULL, NULL, NULL };
	char **names = NULL;
	int ndirs = s->ninclude_dirs + (s->tapset_dir ? 1 : 0);

	subdirs[2] = arena_printf(s->arena, "/%s", s->arch);
	subdirs[3] = arena_printf(s->arena, "/linux/%s", s->arch);
	/* and the kernel version's: 6.1.0-56-amd64 looks in 6.1.0/ */
	subdirs[4] = arena_printf(s->arena, "/%.*s", (int)strcspn(s->kernel_release, "-"),
				  s->kernel_release);
	*n = 0;
	for (int i = 0; i < ndirs; i++) {
		const char *base = i < s->ninclude_dirs ? s->include_dirs[i] : s->tapset_dir;

		for (int j = 0; j < 5; j++)
			scan_dir(s, arena_printf(s->arena, "%s%s", base, subdirs[j]),
				 ext, &names, n);
	}
	return names;
}

struct source *source_from_file(struct session *s, const char *path, bool tapset)
{
	struct source *src = arena_alloc(s->arena, sizeof(*src));
	size_t len;
	char *text = read_file(path, &len);

	if (!text) {
		diag_plain(s, "cannot read %s", path);
		return NULL;
	}
	src->name = path;
	src->text = arena_strndup(s->arena, text, len);
	src->len = len;
	src->tapset = tapset;
	free(text);
	return src;
}

/* Read every .stpm file: their @define's become library macros. */
int tapset_load_macros(struct session *s)
{
	int errors = s->errors;
	size_t n;
	char **names = tapset_files(s, ".stpm", &n);

	for (size_t i = 0; i < n; i++) {
		struct source *src = source_from_file(s, names[i], true);

		if (src)
			parse_source(s, src);
	}
	free(names);
	return s->errors - errors;
}

/* A tapset file that does not parse: remember the functions and probe
 * alias names it declares, so that their absence is not reported again as
 * a cascade of "unresolved" errors (the parse error was the cause). */
static void poison_file(struct session *s, const struct source *src)
{
	struct token_list tl;
	int errors = s->errors;

	lex_source(s, src, &tl);
	s->errors = errors;
	for (size_t i = 0; i + 1 < tl.n; i++) {
		if (tl.v[i].kind != TK_IDENT || tl.v[i + 1].kind != TK_IDENT)
			continue;
		if (strcmp(tl.v[i].text, "function") && strcmp(tl.v[i].text, "probe"))
			continue;
		s->poisoned = realloc(s->poisoned, (s->npoisoned + 1) * sizeof(*s->poisoned));
		s->poisoned[s->npoisoned++] = tl.v[i + 1].text;
	}
	free(tl.v);
}

bool tapset_poisoned(struct session *s, const char *name)
{
	for (size_t i = 0; i < s->npoisoned; i++) {
		if (!strcmp(s->poisoned[i], name))
			return true;
	}
	return false;
}

/* Parse every tapset file into s->tapset_asts. */
void tapset_load(struct session *s)
{
	size_t n;
	char **names = tapset_files(s, ".stp", &n);

	for (size_t i = 0; i < n; i++) {
		struct source *src = source_from_file(s, names[i], true);
		struct file_ast *f = src ? parse_source(s, src) : NULL;

		if (f) {
			f->next = s->tapset_asts;
			s->tapset_asts = f;
		} else if (src) {
			poison_file(s, src);
		}
	}
	free(names);
}
