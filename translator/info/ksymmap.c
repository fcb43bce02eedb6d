// SPDX-License-Identifier: GPL-2.0
/*
 * ksymmap.c - the kernel's text symbols from a symbol map, for the names
 * kprobe.function() may take that the BTF catalog lacks (assembly
 * functions, the __x64_sys_ and __ia32_sys_ stubs, aliases). As SystemTap
 * 4.8 does, the map is the System.map of the -r build directory, else
 * /boot/System.map-RELEASE when it is a real one (Debian's is a stub), else
 * /proc/kallsyms when RELEASE is the running kernel. Without one, only the
 * BTF's functions (and compiler clones, on trust) can be probed.
 */
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "kcatalog.h"

struct ksymmap {
	const char **names;	/* sorted, unique */
	size_t n;
};

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
