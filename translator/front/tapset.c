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
