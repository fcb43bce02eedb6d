/*
 * tapset.c - the tapset library's search path: every -I directory, then
 * the installed (or build-tree) tapset directory, each with its linux/,
 * <arch>/, linux/<arch>/ and <kernel version>/ subdirectories.
 * .stpm files there define macros for every script (read before pass 1);
 * .stp files are the library proper (read in pass 2).
 */
#include <dirent.h>
#include <stdint.h>
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

/*
 * The lazy load. Parsing the whole library was most of pass 2 for a small
 * script (12 of 14 ms for a one-line one, the time to first output of
 * --runtime=bpf's cached runs). A library file is parsed only when it
 * declares (`function NAME`, `global NAME...`, `probe NAME... =`, found
 * in its text without parsing it) a name some parsed source uses: an
 * identifier token of the script after preprocessing, then of each file
 * parsed, to a fixed point. Over-approximating (a word in a comment) only
 * parses more. Loaded files keep tapset_load's order, so lookups find
 * what they found. The whole library is parsed, as before, for -l/-L,
 * the dumps, -I directories' files (their parse errors are still
 * reported whatever the script), and a probe point whose first component
 * is a pattern (it may name any alias); the suggestions of an error
 * message load the rest first.
 */
struct tapset_decl {
	const char *name;	/* interned */
	size_t file;
	struct tapset_decl *next;
};

struct tapset_index {
	const char **want;	/* names used (interned): an open-addressed set */
	size_t nwant, wcap;
	struct tapset_decl **decls;	/* by name; NULL until the index is built */
	size_t dcap;
	struct tapset_file {
		struct source *src;
		struct file_ast *ast;
		bool need, parsed;
	} *files;
	size_t nfiles;
	bool collecting;	/* parsing a library file: its names count */
	bool all;		/* every file is needed */
};

static size_t ptr_hash(const char *p)
{
	uintptr_t v = (uintptr_t)p;

	v ^= v >> 17;
	v *= 0x9e3779b97f4a7c15ULL;
	return (size_t)(v >> 20);
}

static void match_decls(struct tapset_index *ix, const char *name)
{
	if (!ix->decls)
		return;
	for (struct tapset_decl *d = ix->decls[ptr_hash(name) & (ix->dcap - 1)]; d; d = d->next)
		if (d->name == name)
			ix->files[d->file].need = true;
}

static void want(struct session *s, struct tapset_index *ix, const char *name)
{
	size_t j;

	if ((ix->nwant + 1) * 2 > ix->wcap) {
		size_t cap = ix->wcap ? ix->wcap * 2 : 1024;
		const char **v = arena_alloc(s->arena, cap * sizeof(*v));

		for (size_t i = 0; i < ix->wcap; i++) {
			if (!ix->want[i])
				continue;
			for (j = ptr_hash(ix->want[i]) & (cap - 1); v[j]; j = (j + 1) & (cap - 1))
				;
			v[j] = ix->want[i];
		}
		ix->want = v;
		ix->wcap = cap;
	}
	for (j = ptr_hash(name) & (ix->wcap - 1); ix->want[j]; j = (j + 1) & (ix->wcap - 1))
		if (ix->want[j] == name)
			return;
	ix->want[j] = name;
	ix->nwant++;
	match_decls(ix, name);
}

static struct tapset_index *index_of(struct session *s)
{
	if (!s->tapset_index)
		s->tapset_index = arena_alloc(s->arena, sizeof(*s->tapset_index));
	return s->tapset_index;
}

/* Called by parse_source with a source's preprocessed tokens: the
 * script's names, and a library file's while the lazy load parses it
 * (not the .stpm files': their macros count where they are used). */
void tapset_want_tokens(struct session *s, const struct source *src,
			const struct token_list *tl)
{
	struct tapset_index *ix;

	if (src->tapset && !(s->tapset_index && s->tapset_index->collecting))
		return;
	ix = index_of(s);
	for (size_t i = 0; i < tl->n; i++)
		if (tl->v[i].kind == TK_IDENT)
			want(s, ix, tl->v[i].text);
}

static bool word_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_';
}

static void add_decl(struct session *s, struct tapset_index *ix, size_t file,
		     const char *name)
{
	struct tapset_decl *d = arena_alloc(s->arena, sizeof(*d));
	size_t j;

	d->name = name;
	d->file = file;
	j = ptr_hash(d->name) & (ix->dcap - 1);
	d->next = ix->decls[j];
	ix->decls[j] = d;
}

/* past a comment, a string or embedded C at p (the text they hold
 * declares nothing), or p itself */
static const char *skip_inert(const char *p, const char *e)
{
	const char *q;

	if (*p == '#' || (*p == '/' && p + 1 < e && p[1] == '/')) {
		q = memchr(p, '\n', (size_t)(e - p));
		return q ? q : e;
	}
	if (*p == '/' && p + 1 < e && p[1] == '*') {
		for (q = p + 2; q + 1 < e && !(q[0] == '*' && q[1] == '/'); q++)
			;
		return q + 1 < e ? q + 2 : e;
	}
	if (*p == '%' && p + 1 < e && p[1] == '{') {
		for (q = p + 2; q + 1 < e && !(q[0] == '%' && q[1] == '}'); q++)
			;
		return q + 1 < e ? q + 2 : e;
	}
	if (*p == '"') {
		for (q = p + 1; q < e && *q != '"'; q++)
			if (*q == '\\' && q + 1 < e)
				q++;
		return q < e ? q + 1 : e;
	}
	return p;
}

static void add_name(struct session *s, struct tapset_index *ix, size_t file,
		     const char *p, size_t n)
{
	const char *name = intern(s, p, n);

	if (!lex_is_keyword(name))
		add_decl(s, ix, file, name);
}

/* the next word in [p, e), outside comments and strings; NULL at end or
 * at a character of stop first */
static const char *next_word(const char *p, const char *e, const char *stop, size_t *n)
{
	while (p < e) {
		const char *q = skip_inert(p, e);

		if (q != p) {
			p = q;
			continue;
		}
		if (strchr(stop, *p))
			return NULL;
		if (word_char(*p) && !(*p >= '0' && *p <= '9')) {
			for (q = p; q < e && word_char(*q); q++)
				;
			*n = (size_t)(q - p);
			return p;
		}
		p++;
	}
	return NULL;
}

/* the names a library file declares, from its text: each `function`'s
 * name, the words of a `global` declaration (to the end of its line, and
 * of the next while a line ends with a comma), and the first component
 * of each name of a probe alias (what a probe point must spell out to
 * reach it: one starting with a pattern loads every file) */
static void scan_decls(struct session *s, struct tapset_index *ix, size_t file,
		       const char *text, size_t len)
{
	const char *p = text, *e = text + len, *w;
	size_t n;

	while ((w = next_word(p, e, "", &n))) {
		p = w + n;
		if (n == 8 && !memcmp(w, "function", 8)) {
			w = next_word(p, e, "(:{;", &n);
			if (w)
				add_name(s, ix, file, w, n);
		} else if (n == 6 && !memcmp(w, "global", 6)) {
			const char *q, *last = p;

			for (q = p; q < e; q++) {
				if (*q == '\n' && *last != ',')
					break;
				if (!strchr(" \t\r\n", *q))
					last = q;
			}
			while ((w = next_word(p, q, "", &n))) {
				add_name(s, ix, file, w, n);
				p = w + n;
			}
			p = q;
		} else if (n == 5 && !memcmp(w, "probe", 5)) {
			const char *q = p, *eq;

			while (q < e && *q != '{' && *q != '=')
				q = skip_inert(q, e) == q ? q + 1 : skip_inert(q, e);
			if (q >= e || *q != '=')
				continue;
			eq = q;
			/* each name's first word: the first, then one after each comma */
			for (q = p; (w = next_word(q, eq, "", &n)); ) {
				const char *c;

				add_name(s, ix, file, w, n);
				for (c = w + n; c < eq && *c != ','; c = skip_inert(c, eq) == c ? c + 1 :
				     skip_inert(c, eq))
					;
				q = c;
			}
		}
	}
}

/* Is the first component of one of these probes' points a pattern? */
static bool pattern_point(const struct file_ast *f)
{
	for (const struct probe *p = f ? f->probes : NULL; p; p = p->next)
		for (const struct probe_point *pp = p->points; pp; pp = pp->next)
			if (pp->comps && strpbrk(pp->comps->name, "*?["))
				return true;
	return false;
}

/* parse the needed files, in order, until no more are needed; then the
 * list of the parsed ones, in tapset_load's order */
static void load_needed(struct session *s, struct tapset_index *ix)
{
	bool more = true;

	while (more) {
		more = false;
		for (size_t i = 0; i < ix->nfiles; i++) {
			struct tapset_file *tf = &ix->files[i];

			if (ix->all)
				tf->need = true;
			if (!tf->need || tf->parsed)
				continue;
			tf->parsed = more = true;
			if (!tf->src)
				continue;
			ix->collecting = true;
			tf->ast = parse_source(s, tf->src);
			ix->collecting = false;
			if (!tf->ast)
				poison_file(s, tf->src);
			else if (pattern_point(tf->ast))
				ix->all = true;
		}
	}
	s->tapset_asts = NULL;
	for (size_t i = 0; i < ix->nfiles; i++) {
		if (ix->files[i].ast) {
			ix->files[i].ast->next = s->tapset_asts;
			s->tapset_asts = ix->files[i].ast;
		}
	}
}

void tapset_load_needed(struct session *s)
{
	struct tapset_index *ix = index_of(s);
	size_t n, lib = s->tapset_dir ? strlen(s->tapset_dir) : 0;
	char **names;

	if (s->listing || s->dump || pattern_point(s->user_ast)) {
		tapset_load(s);
		return;
	}
	names = tapset_files(s, ".stp", &n);
	ix->files = arena_alloc(s->arena, (n ? n : 1) * sizeof(*ix->files));
	ix->nfiles = n;
	ix->dcap = 4096;
	ix->decls = arena_alloc(s->arena, ix->dcap * sizeof(*ix->decls));
	for (size_t i = 0; i < n; i++) {
		struct tapset_file *tf = &ix->files[i];

		tf->src = source_from_file(s, names[i], true);
		if (!tf->src || !lib || strncmp(names[i], s->tapset_dir, lib) ||
		    names[i][lib] != '/')
			tf->need = true;	/* -I's: parsed whatever the script */
		else
			scan_decls(s, ix, i, tf->src->text, tf->src->len);
	}
	free(names);
	for (size_t i = 0; i < ix->wcap; i++)
		if (ix->want[i])
			match_decls(ix, ix->want[i]);
	load_needed(s, ix);
}

void tapset_load_rest(struct session *s)
{
	struct tapset_index *ix = s->tapset_index;

	if (!ix || !ix->files || ix->all)
		return;
	ix->all = true;
	load_needed(s, ix);
}
