// SPDX-License-Identifier: GPL-2.0
/*
 * ksymmap.c - the kernel's text symbols from a symbol map, for the names
 * kprobe.function() may take that the BTF catalog lacks (assembly
 * functions, the __x64_sys_ and __ia32_sys_ stubs, aliases). As SystemTap
 * 4.8 does, the map is the System.map of the -r build directory, else
 * /boot/System.map-RELEASE when it is a real one (Debian's is a stub), else
 * /proc/kallsyms when RELEASE is the running kernel. Without one, only the
 * BTF's functions (and compiler clones, on trust) can be probed.
 *
 * The map's addresses (ksymmap_addr) let a kprobe be registered by address
 * rather than by name, sparing the kernel a look-up per probe. They come
 * from the same maps, or from the kernel debuginfo package's System.map,
 * and the runtime relocates them by the address of one exported function
 * (STP_KMAP_ANCHOR, for KASLR) and checks each against kallsyms before
 * probing it (runtime/kprobes.c).
 */
#include <fnmatch.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "kcatalog.h"

struct ksymaddr {
	const char *name;
	uint64_t addr;
	bool usable;		/* text, no other name at its address */
};

struct ksymmap {
	const char **names;	/* sorted, unique */
	size_t n;
	struct ksymaddr *addrs;	/* by name, then address; read on first use */
	size_t naddrs;
	bool addrs_read, addrs_used;
	uint64_t anchor;	/* STP_KMAP_ANCHOR's function, sprint_symbol */
};

/* The function whose address the runtime relocates the map's by: exported,
 * so the module has its address without a look-up. */
#define KMAP_ANCHOR "sprint_symbol"

static int by_name(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The text symbols (t, T, W) of a map's "ADDR TYPE NAME [MODULE]" lines,
 * module symbols left out; false when it has none. */
static bool read_map(struct session *s, const char *path, struct ksymmap *m)
{
	size_t len, cap = 0;
	char *text = read_file(path, &len), *line, *save = NULL;

	if (!text)
		return false;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *sp = strchr(line, ' '), *name;

		if (!sp || !strchr("tTwW", sp[1]) || sp[2] != ' ')
			continue;
		name = sp + 3;
		if (strchr(name, '\t') || strchr(name, ' ') || !*name)
			continue;	/* a module's symbol ([mod]) */
		if (m->n == cap) {
			const char **v = arena_alloc(s->arena, (cap * 2 + 4096) * sizeof(*v));

			if (m->n)
				memcpy(v, m->names, m->n * sizeof(*v));
			m->names = v;
			cap = cap * 2 + 4096;
		}
		m->names[m->n++] = arena_strdup(s->arena, name);
	}
	free(text);
	if (m->n < 100)		/* a stub ("The real System.map is in ...") */
		return m->n = 0, false;
	qsort(m->names, m->n, sizeof(*m->names), by_name);
	len = 0;
	for (size_t i = 0; i < m->n; i++)
		if (!len || strcmp(m->names[len - 1], m->names[i]))
			m->names[len++] = m->names[i];
	m->n = len;
	return true;
}

static struct ksymmap *ksymmap(struct session *s)
{
	struct ksymmap *m;
	struct utsname u;

	if (s->ksymmap)
		return s->ksymmap;
	m = arena_alloc(s->arena, sizeof(*m));
	memset(m, 0, sizeof(*m));
	s->ksymmap = m;
	if (s->kernel_build_dir &&
	    read_map(s, arena_printf(s->arena, "%s/System.map", s->kernel_build_dir), m))
		return m;
	if (read_map(s, arena_printf(s->arena, "/boot/System.map-%s", s->kernel_release), m))
		return m;
	if (!uname(&u) && !strcmp(u.release, s->kernel_release))
		read_map(s, "/proc/kallsyms", m);
	return m;
}

static int addr_by_addr(const void *a, const void *b)
{
	const struct ksymaddr *x = a, *y = b;

	return x->addr != y->addr ? (x->addr < y->addr ? -1 : 1) : strcmp(x->name, y->name);
}

static int addr_by_name(const void *a, const void *b)
{
	const struct ksymaddr *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : x->addr != y->addr ? (x->addr < y->addr ? -1 : 1) : 0;
}

/* Every symbol of a map's "ADDR TYPE NAME" lines (any type: the kernel's
 * look-up by name takes the first of a name, by address, whatever its
 * type), module symbols left out; false when it has too few. */
static bool read_addrs(struct session *s, const char *path, struct ksymmap *m)
{
	size_t len, cap = 0, n = 0;
	char *text = read_file(path, &len), *line, *save = NULL;
	struct ksymaddr *v = NULL;

	if (!text)
		return false;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *sp = strchr(line, ' '), *name, *end;
		uint64_t a = strtoull(line, &end, 16);

		if (!sp || end != sp || !sp[1] || sp[2] != ' ')
			continue;
		name = sp + 3;
		if (strchr(name, '\t') || strchr(name, ' ') || !*name)
			continue;
		if (n == cap) {
			struct ksymaddr *w = arena_alloc(s->arena, (cap * 2 + 4096) * sizeof(*w));

			if (n)
				memcpy(w, v, n * sizeof(*w));
			v = w;
			cap = cap * 2 + 4096;
		}
		v[n].name = arena_strdup(s->arena, name);
		v[n].addr = a;
		v[n++].usable = a && strchr("tTwW", sp[1]);
	}
	free(text);
	if (n < 100)
		return false;
	/* an alias: kallsyms names an address after one of its symbols only,
	 * which the runtime's check could not tell from a wrong map */
	qsort(v, n, sizeof(*v), addr_by_addr);
	for (size_t i = 1; i < n; i++)
		if (v[i].addr == v[i - 1].addr && strcmp(v[i].name, v[i - 1].name))
			v[i].usable = v[i - 1].usable = false;
	qsort(v, n, sizeof(*v), addr_by_name);
	m->addrs = v;
	m->naddrs = n;
	return true;
}

/* The first entry of name (lowest address), NULL if none. */
static const struct ksymaddr *addr_find(const struct ksymmap *m, const char *name)
{
	size_t lo = 0, hi = m->naddrs;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(m->addrs[mid].name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < m->naddrs && !strcmp(m->addrs[lo].name, name) ? &m->addrs[lo] : NULL;
}

static void ksymmap_read_addrs(struct session *s, struct ksymmap *m)
{
	const char *paths[3] = {
		s->kernel_build_dir ? arena_printf(s->arena, "%s/System.map", s->kernel_build_dir) : NULL,
		arena_printf(s->arena, "/boot/System.map-%s", s->kernel_release),
		arena_printf(s->arena, "/usr/lib/debug/boot/System.map-%s", s->kernel_release),
	};
	const struct ksymaddr *a;
	struct utsname u;
	bool got = false;

	m->addrs_read = true;
	for (int i = 0; i < 3 && !got; i++)
		got = paths[i] && read_addrs(s, paths[i], m);
	if (!got && !uname(&u) && !strcmp(u.release, s->kernel_release))
		got = read_addrs(s, "/proc/kallsyms", m);
	a = got ? addr_find(m, KMAP_ANCHOR) : NULL;
	if (!a || !a->usable)
		m->naddrs = 0;
	else
		m->anchor = a->addr;
}

uint64_t ksymmap_addr(struct session *s, const char *name)
{
	struct ksymmap *m = ksymmap(s);
	const struct ksymaddr *a;

	if (!m->addrs_read)
		ksymmap_read_addrs(s, m);
	a = addr_find(m, name);
	if (!a || !a->usable)
		return 0;
	m->addrs_used = true;
	return a->addr;
}

void ksymmap_emit_anchor(struct session *s, struct strbuf *c)
{
	if (s->ksymmap && s->ksymmap->addrs_used)
		sb_printf(c, "#define STP_KMAP_ANCHOR 0x%" PRIx64 "UL\n", s->ksymmap->anchor);
}

size_t ksymmap_match(struct session *s, const char *glob, const char ***out)
{
	struct ksymmap *m = ksymmap(s);
	size_t k = 0;

	*out = arena_alloc(s->arena, (m->n + 1) * sizeof(**out));
	for (size_t i = 0; i < m->n; i++)
		if (!fnmatch(glob, m->names[i], 0))
			(*out)[k++] = m->names[i];
	return k;
}
