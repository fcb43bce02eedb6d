/*
 * kmodule.c - the target kernel's loadable modules, without debuginfo:
 * their names and .ko files from /lib/modules/REL/modules.dep, and the
 * functions each one defines, with prototypes, from the split BTF in its
 * .ko (the .BTF section, on top of the kernel's own BTF), for
 * module("M").function("F") and kprobe.module("M").function("F").
 *
 * A module's BTF is read on its first use (about 1 ms for ext4, 1.2 s for
 * all 4000 modules of a distribution kernel); kmod_close() frees them.
 */
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/btf.h>

#include "kcatalog.h"

struct kmodule {
	const char *name;	/* as the kernel names it: '-' and ',' become '_' */
	const char *path;	/* its .ko */
	bool tried;		/* BTF read, or found unreadable */
	struct btf *btf;	/* split BTF on the kernel's, or NULL */
	const char **names;	/* its functions: sorted, unique */
	unsigned int *ids;	/* the BTF FUNC of each */
	const struct kcat_func **funcs;	/* prototypes, built on demand */
	size_t n;
};

struct kmodules {
	struct btf *base;	/* the kernel's BTF, under every module's */
	bool base_tried;
	struct kmodule *v;	/* sorted by name */
	size_t n;
};

/* ---- the module list -------------------------------------------------------- */

/* "kernel/fs/ext4/ext4.ko" -> "ext4"; "nf-nat.ko.xz" -> "nf_nat" */
static const char *module_name(struct session *s, const char *path)
{
	const char *base = strrchr(path, '/');
	char *name = arena_strdup(s->arena, base ? base + 1 : path);
	char *dot = strstr(name, ".ko");

	if (dot)
		*dot = '\0';
	for (char *p = name; *p; p++) {
		if (*p == '-' || *p == ',')
			*p = '_';
	}
	return name;
}

static int by_name(const void *a, const void *b)
{
	const struct kmodule *x = a, *y = b;

	return strcmp(x->name, y->name);
}

/* One module per line of modules.dep: "kernel/fs/ext4/ext4.ko: deps..." */
static void read_modules_dep(struct session *s, struct kmodules *km)
{
	const char *dir = arena_printf(s->arena, "/lib/modules/%s", s->kernel_release);
	size_t len, cap = 0;
	char *text = read_file(arena_printf(s->arena, "%s/modules.dep", dir), &len);

	for (char *line = text; line && *line;) {
		char *end = strchr(line, '\n'), *colon = strchr(line, ':');
		struct kmodule *m;

		if (end)
			*end = '\0';
		if (colon) {
			*colon = '\0';
			if (km->n == cap) {
				cap = cap ? cap * 2 : 1024;
				km->v = realloc(km->v, cap * sizeof(*km->v));
				if (!km->v)
					abort();
			}
			m = &km->v[km->n++];
			memset(m, 0, sizeof(*m));
			m->path = line[0] == '/' ? arena_strdup(s->arena, line) :
				  arena_printf(s->arena, "%s/%s", dir, line);
			m->name = module_name(s, line);
		}
		line = end ? end + 1 : NULL;
	}
	free(text);
	if (km->n)
		qsort(km->v, km->n, sizeof(*km->v), by_name);
}

static struct kmodules *kmodules(struct session *s)
{
	if (!s->kmods) {
		s->kmods = arena_alloc(s->arena, sizeof(*s->kmods));
		read_modules_dep(s, s->kmods);
	}
	return s->kmods;
}

static struct kmodule *find_module(struct session *s, const char *name)
{
	struct kmodules *km = kmodules(s);
	struct kmodule key = { .name = name };

	return km->n ? bsearch(&key, km->v, km->n, sizeof(key), by_name) : NULL;
}

/*
 * Module names matching glob, sorted. An out-of-tree module given by the
 * path of its .ko ("/tmp/mine.ko") matches itself, if the file exists.
 */
size_t kmod_match_modules(struct session *s, const char *glob,
			  const char ***out)
{
	struct kmodules *km = kmodules(s);
	size_t n = 0;

	*out = arena_alloc(s->arena, sizeof(**out) * (km->n + 2));
	if (strchr(glob, '/')) {
		if (!path_exists(glob))
			return 0;
		if (!find_module(s, module_name(s, glob))) {
			km->v = realloc(km->v, (km->n + 1) * sizeof(*km->v));
			if (!km->v)
				abort();
			memset(&km->v[km->n], 0, sizeof(*km->v));
			km->v[km->n].name = module_name(s, glob);
			km->v[km->n++].path = glob;
			qsort(km->v, km->n, sizeof(*km->v), by_name);
		}
		(*out)[n++] = module_name(s, glob);
		return n;
	}
	for (size_t i = 0; i < km->n; i++) {
		if (!fnmatch(glob, km->v[i].name, 0))
			(*out)[n++] = km->v[i].name;
	}
	return n;
}

/* The .ko of module `name` (from modules.dep, or as a path), or NULL. */
const char *kmod_path(struct session *s, const char *name)
{
	struct kmodule *m = find_module(s, name);

	return m ? m->path : NULL;
}

/* ---- a module's functions ------------------------------------------------------ */

struct named_id {
	const char *name;
	unsigned int id;
};

static int by_name_then_id(const void *a, const void *b)
{
	const struct named_id *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : (x->id > y->id) - (x->id < y->id);
}

/* The FUNCs the module's own BTF adds to the kernel's (defined ones only). */
static void build_functions(struct session *s, struct kmodule *m, unsigned int first)
{
	unsigned int ntypes = btf__type_cnt(m->btf);
	struct named_id *v = malloc(sizeof(*v) * (ntypes - first + 1));
	size_t n = 0, u = 0;

	if (!v)
		abort();
	for (unsigned int i = first; i < ntypes; i++) {
		const struct btf_type *t = btf__type_by_id(m->btf, i);

		const char *name = btf__name_by_offset(m->btf, t->name_off);

		if (btf_is_func(t) && btf_vlen(t) != BTF_FUNC_EXTERN && name)
			v[n++] = (struct named_id){ name, i };
	}
	qsort(v, n, sizeof(*v), by_name_then_id);
	m->names = arena_alloc(s->arena, sizeof(*m->names) * (n + 1));
	m->ids = arena_alloc(s->arena, sizeof(*m->ids) * (n + 1));
	for (size_t i = 0; i < n; i++) {
		if (u && !strcmp(m->names[u - 1], v[i].name))
			continue;
		m->names[u] = v[i].name;
		m->ids[u++] = v[i].id;
	}
	m->n = u;
	m->funcs = arena_alloc(s->arena, sizeof(*m->funcs) * (u + 1));
	free(v);
}

/* The module's BTF, read once; false if it has none we can read (a
 * compressed .ko, a module built without BTF, no kernel BTF). */
static bool load_module(struct session *s, struct kmodule *m)
{
	struct kmodules *km = kmodules(s);
	const char *origin;

	if (m->tried)
		return m->btf != NULL;
	m->tried = true;
	if (!km->base_tried) {
		km->base_tried = true;
		km->base = kbtf_load(s, &origin);
	}
	if (!km->base)
		return false;
	m->btf = btf__parse_elf_split(m->path, km->base);
	if (!m->btf)
		return false;
	build_functions(s, m, btf__type_cnt(km->base));
	return true;
}

/* Module `name`'s BTF (split on the kernel's), or NULL; for @cast. */
const struct btf *kmod_btf(struct session *s, const char *name)
{
	struct kmodule *m = find_module(s, name);

	return m && load_module(s, m) ? m->btf : NULL;
}

/*
 * Functions of module `name` matching glob, sorted: their count, or -1
 * when the module's BTF cannot be read (its functions are unknown).
 */
long kmod_match_functions(struct session *s, const char *name,
			  const char *glob, const char ***out)
{
	struct kmodule *m = find_module(s, name);
	size_t n = 0;

	*out = NULL;
	if (!m || !load_module(s, m))
		return -1;
	*out = arena_alloc(s->arena, sizeof(**out) * (m->n + 1));
	for (size_t i = 0; i < m->n; i++) {
		if (!fnmatch(glob, m->names[i], 0))
			(*out)[n++] = m->names[i];
	}
	return (long)n;
}

static const struct kcat_func *make_func(struct session *s, struct kmodule *m,
					 size_t i)
{
	const struct btf_type *fn = btf__type_by_id(m->btf, m->ids[i]);
	const struct btf_type *proto = btf__type_by_id(m->btf, fn->type);
	const struct btf_param *p = btf_params(proto);
	struct kcat_func *f = arena_alloc(s->arena, sizeof(*f));
	struct kcat_arg *args;
	int n = btf_vlen(proto);

	f->name = m->names[i];
	f->ret = kbtf_type_name(s, m->btf, proto->type);
	f->retv = (struct kcat_arg){ "return", f->ret, m->btf, proto->type };
	if (n && p[n - 1].type == 0) {
		f->varargs = true;
		n--;
	}
	args = arena_alloc(s->arena, sizeof(*args) * (size_t)(n + 1));
	for (int k = 0; k < n; k++) {
		const char *an = btf__name_by_offset(m->btf, p[k].name_off);

		args[k].name = an && *an ? an : arena_printf(s->arena, "arg%d", k + 1);
		args[k].type = kbtf_type_name(s, m->btf, p[k].type);
		args[k].btf = m->btf;
		args[k].type_id = p[k].type;
	}
	f->args = args;
	f->nargs = n;
	return f;
}

/* The prototype of function `fn` of module `name`, or NULL. */
const struct kcat_func *kmod_function(struct session *s, const char *name,
				      const char *fn)
{
	struct kmodule *m = find_module(s, name);
	size_t lo = 0, hi;

	if (!m || !load_module(s, m))
		return NULL;
	hi = m->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(m->names[mid], fn);

		if (!c) {
			if (!m->funcs[mid])
				m->funcs[mid] = make_func(s, m, mid);
			return m->funcs[mid];
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

void kmod_close(struct session *s)
{
	struct kmodules *km = s->kmods;

	if (!km)
		return;
	for (size_t i = 0; i < km->n; i++)
		btf__free(km->v[i].btf);
	btf__free(km->base);
	free(km->v);
	s->kmods = NULL;
}

/* The kernel catalog, opened on first use; NULL (reported once) when the
 * kernel's BTF cannot be read. */
struct kcatalog *kernel_catalog(struct session *s)
{
	if (!s->kcat_tried) {
		s->kcat_tried = true;
		s->kcat = kcat_open(s);
	}
	return s->kcat;
}

void kernel_catalog_close(struct session *s)
{
	kcat_close(s->kcat);
	s->kcat = NULL;
	kmod_close(s);
}
