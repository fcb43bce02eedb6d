/*
 * bpf_cache.c - pass 4's cache for --runtime=bpf: the object clang made
 * from the same BPF C (past its first line, which names the module) with
 * the same runtime headers (each of runtime/bpf/'s, which the C includes),
 * clang and optimisation level, under
 * $SYSTEMTAP_DIR/cache/bpf (or ~/.systemtap/cache/bpf) as KEY.c and
 * KEY.bpf.o. A hit compares the C
 * byte for byte, so a hash collision is a miss; files are written under
 * temporary names and renamed. Off with --disable-cache, -m and -k.
 * An empty file cache/bpf-hint/KEY, KEY the command line's and the
 * script's hash, says the last run of that command found or put its object
 * here: then bpf_clang.c does not start clang before pass 1.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bpf.h"

/* $SYSTEMTAP_DIR/cache/LEAF, made if need be, or NULL */
static const char *cache_dir(struct session *s, const char *leaf)
{
	const char *data = getenv("SYSTEMTAP_DIR"), *home = getenv("HOME"), *d;

	if (s->no_cache || s->keep_tmp)
		return NULL;
	if (!data || !*data) {
		if (!home || !*home)
			return NULL;
		data = arena_printf(s->arena, "%s/.systemtap", home);
	}
	mkdir(data, 0755);
	d = arena_printf(s->arena, "%s/cache", data);
	mkdir(d, 0755);
	d = arena_printf(s->arena, "%s/cache/%s", data, leaf);
	if (mkdir(d, 0755) < 0 && errno != EEXIST)
		return NULL;
	return d;
}

static void fnv(unsigned long long *h, const void *p, size_t n)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < n; i++)
		*h = (*h ^ b[i]) * 0x100000001b3ULL;
}

static void fnv_file(unsigned long long *h, const char *path)
{
	struct stat st;

	fnv(h, path, strlen(path) + 1);
	if (stat(path, &st) == 0) {
		fnv(h, &st.st_size, sizeof(st.st_size));
		fnv(h, &st.st_mtim, sizeof(st.st_mtim));
	}
}

/* every header of the BPF runtime, runtime/bpf/ (stapbpf.h,
 * stapbpf_maps.h...), in name order */
static void fnv_headers(struct session *s, unsigned long long *h)
{
	const char *dir = arena_printf(s->arena, "%s/bpf", s->runtime_dir);
	struct dirent **names;
	int n = scandir(dir, &names, NULL, alphasort);

	for (int i = 0; i < n; i++) {
		size_t len = strlen(names[i]->d_name);

		if (len > 2 && !strcmp(names[i]->d_name + len - 2, ".h"))
			fnv_file(h, arena_printf(s->arena, "%s/%s", dir, names[i]->d_name));
		free(names[i]);
	}
	if (n >= 0)
		free(names);
}

bool bpf_cache_hinted(struct session *s, int argc, char **argv)
{
	const char *dir = cache_dir(s, "bpf-hint");
	unsigned long long h = 0xcbf29ce484222325ULL;

	if (!dir)
		return false;
	for (int i = 1; i < argc; i++)
		fnv(&h, argv[i], strlen(argv[i]) + 1);
	if (s->user)
		fnv(&h, s->user->text, s->user->len);
	s->bpf_hint = arena_printf(s->arena, "%s/%016llx", dir, h);
	return access(s->bpf_hint, F_OK) == 0;
}

static void set_hint(struct session *s)
{
	const char *hint = s->bpf_hint;
	int fd = hint ? open(hint, O_WRONLY | O_CREAT | O_CLOEXEC, 0644) : -1;

	if (fd >= 0)
		close(fd);
}

/* prog as found in $PATH (for its size and time in the key) */
static const char *in_path(struct session *s, const char *prog)
{
	const char *path = getenv("PATH");

	if (strchr(prog, '/') || !path)
		return prog;
	for (const char *p = path, *e; *p; p = *e ? e + 1 : e) {
		const char *f;

		e = strchrnul(p, ':');
		f = arena_printf(s->arena, "%.*s/%s", (int)(e - p), p, prog);
		if (access(f, X_OK) == 0)
			return f;
	}
	return prog;
}

/* the C past its first line */
static const char *body(const char *c, size_t len, size_t *n)
{
	const char *nl = memchr(c, '\n', len);

	*n = nl ? len - (size_t)(nl + 1 - c) : len;
	return nl ? nl + 1 : c;
}

/* "DIR/KEY" for the C file of s, or NULL (no cache); its text in *c */
static const char *entry(struct session *s, const char *clang, char **c, size_t *len)
{
	const char *dir = cache_dir(s, "bpf"), *b;
	unsigned long long h1 = 0xcbf29ce484222325ULL, h2 = 0x84222325cbf29ce4ULL;
	size_t n;

	if (!dir || !(*c = read_file(s->c_file, len)))
		return NULL;
	b = body(*c, *len, &n);
	fnv(&h1, b, n);
	fnv(&h2, "stapbpf", 8);
	fnv(&h2, b, n);
	fnv_headers(s, &h1);
	fnv_file(&h1, in_path(s, clang));
	fnv(&h1, BPF_CLANG_OPT, sizeof(BPF_CLANG_OPT));
	return arena_printf(s->arena, "%s/%016llx%016llx", dir, h1, h2);
}

bool bpf_cache_get(struct session *s, const char *clang, const char *out)
{
	size_t len, clen, n1, n2;
	char *c, *cached = NULL, *obj = NULL;
	const char *e = entry(s, clang, &c, &len), *b1, *b2;
	bool hit = false;

	if (!e)
		return false;
	cached = read_file(arena_printf(s->arena, "%s.c", e), &clen);
	if (cached) {
		b1 = body(c, len, &n1);
		b2 = body(cached, clen, &n2);
		if (n1 == n2 && !memcmp(b1, b2, n1) &&
		    (obj = read_file(arena_printf(s->arena, "%s.bpf.o", e), &clen)) &&
		    write_file(out, obj, clen) == 0) {
			hit = true;
			set_hint(s);
		}
	}
	free(obj);
	free(cached);
	free(c);
	return hit;
}

static void put(struct session *s, const char *path, const char *data, size_t len)
{
	const char *tmp = arena_printf(s->arena, "%s.%d.tmp", path, (int)getpid());

	if (write_file(tmp, data, len) == 0 && rename(tmp, path) < 0)
		unlink(tmp);
}

void bpf_cache_put(struct session *s, const char *clang, const char *out)
{
	size_t len, olen;
	char *c, *obj;
	const char *e = entry(s, clang, &c, &len);

	if (!e)
		return;
	obj = read_file(out, &olen);
	if (obj) {	/* the object first: a .c names a complete entry */
		put(s, arena_printf(s->arena, "%s.bpf.o", e), obj, olen);
		put(s, arena_printf(s->arena, "%s.c", e), c, len);
		set_hint(s);
		/* dropped if the compiler, still running, fails after all */
		s->child.made[0] = arena_printf(s->arena, "%s.c", e);
		s->child.made[1] = arena_printf(s->arena, "%s.bpf.o", e);
	}
	free(obj);
	free(c);
}
