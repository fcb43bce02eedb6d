/*
 * cache.c - the module cache (build/), as SystemTap 4.8's: a module built
 * once is kept in $SYSTEMTAP_DIR/cache (default ~/.systemtap/cache) as
 * xx/stap_HASH_N.{c,ko,meta}, and an identical later stap -p3/-p4/-p5
 * takes it from there, skipping passes 3 and 4.
 *
 * The key is computed after pass 2, over everything that can change the
 * generated C or the module built from it (the same choice as 4.8, which
 * hashes its pass-2 output):
 *   - the translator: its version and its executable (size, mtime);
 *   - the target kernel: release, architecture, build directory, the
 *     identity (size, mtime) of its .config, Module.symvers, Makefile,
 *     generated headers, System.map, vmlinux and /boot files, and the
 *     content of the BTF pass 2 read (the same bytes from the running
 *     kernel's sysfs or from its vmlinuz, so a module built for this
 *     kernel on another machine, or in a test guest, is found);
 *   - gcc (size, mtime) and every file of the runtime and the tapset
 *     directories (-I too), by path, size and mtime;
 *   - the script's text, $1... arguments, -g, -u, -D, -T, -d (and --ldd),
 *     the uid (the hash names the module, as 4.8);
 *   - the elaborated script (what -p2 prints) and the identity of every
 *     binary or module pass 2 read, so that what the script resolved to
 *     on this system is part of the key; for @cast's "<header>" types
 *     (read from a program built in the temporary directory), the
 *     headers named and every file they include (gcc -M); with --ldd,
 *     each library whose tables the module gets.
 * Options that only reach staprun (-o, -S, -s, -c, -x, -G) are not.
 *
 * An entry is trusted only if its .meta names the same key and kernel
 * release and the .c and .ko have the size and SHA-256 it records, the
 * .ko is ELF and its vermagic is the release's; anything else is a miss
 * and the entry is rebuilt. Files are written to a temporary name and
 * renamed, under an exclusive flock of their directory (readers take a
 * shared one), so two stap processes never see half an entry.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <utime.h>

#include "build.h"
#include "kcatalog.h"
#include "translate.h"
#include "ubin.h"

#define CACHE_LIMIT_FILE "cache_mb_limit"
#define CACHE_DEFAULT_MB 256
#define CACHE_INTERVAL_FILE "cache_clean_interval_s"
#define CACHE_DEFAULT_INTERVAL_S 300
#define CACHE_TMP_AGE_S 3600	/* a temporary file older than this is litter */

struct keyer {
	struct sha256 h;
	struct strbuf log;	/* what went in, written to the .meta */
};

static void key_str(struct keyer *k, const char *what, const char *v)
{
	size_t n = v ? strlen(v) + 1 : 0;

	sha256_update(&k->h, what, strlen(what) + 1);
	sha256_update(&k->h, &n, sizeof(n));
	if (v)
		sha256_update(&k->h, v, n);
	sb_printf(&k->log, "%s: %s\n", what, v ? v : "(none)");
}

static void key_int(struct keyer *k, const char *what, long long v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%lld", v);
	key_str(k, what, buf);
}

/* A file by its path, size and modification time (-1 -1 if absent). */
static void key_file(struct keyer *k, const char *what, const char *path)
{
	struct stat st;
	char buf[96];

	if (stat(path, &st) == 0)
		snprintf(buf, sizeof(buf), " %lld %lld.%09ld", (long long)st.st_size,
			 (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
	else
		snprintf(buf, sizeof(buf), " -1 -1");
	sha256_update(&k->h, what, strlen(what) + 1);
	sha256_update(&k->h, path, strlen(path) + 1);
	sha256_update(&k->h, buf, strlen(buf) + 1);
	sb_printf(&k->log, "%s: %s%s\n", what, path, buf);
}

static int name_cmp(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

/* Every file under dir, in name order, down to depth levels. */
static void key_tree(struct keyer *k, const char *what, const char *dir, int depth)
{
	struct dirent **ents;
	int n = scandir(dir, &ents, NULL, name_cmp);

	if (n < 0) {
		key_file(k, what, dir);
		return;
	}
	for (int i = 0; i < n; i++) {
		const char *e = ents[i]->d_name;
		char *path;
		struct stat st;

		if (e[0] == '.' || asprintf(&path, "%s/%s", dir, e) < 0) {
			free(ents[i]);
			continue;
		}
		if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
			if (depth > 0)
				key_tree(k, what, path, depth - 1);
		} else {
			key_file(k, what, path);
		}
		free(path);
		free(ents[i]);
	}
	free(ents);
}

static const char *find_in_path(struct session *s, const char *prog)
{
	const char *path = getenv("PATH");

	while (path && *path) {
		const char *end = strchr(path, ':');
		size_t n = end ? (size_t)(end - path) : strlen(path);
		const char *cand = arena_printf(s->arena, "%.*s/%s", (int)n, path, prog);

		if (access(cand, X_OK) == 0)
			return cand;
		path = end ? end + 1 : NULL;
	}
	return prog;
}

static void key_kernel(struct session *s, struct keyer *k)
{
	static const char *const build_files[] = {
		".config", "Module.symvers", "Makefile", "System.map", "vmlinux",
		"include/generated/utsrelease.h", "include/generated/autoconf.h",
		"include/generated/uapi/linux/version.h", "include/config/kernel.release",
		NULL
	};
	const char *rel = s->kernel_release, *dir = s->kernel_build_dir;
	const void *btf;
	unsigned int size;

	key_str(k, "kernel release", rel);
	key_str(k, "architecture", s->arch);
	key_file(k, "kernel build tree", dir);
	for (const char *const *f = build_files; *f; f++)
		key_file(k, "kernel file", arena_printf(s->arena, "%s/%s", dir, *f));
	key_file(k, "kernel file", arena_printf(s->arena, "/boot/config-%s", rel));
	key_file(k, "kernel file", arena_printf(s->arena, "/boot/System.map-%s", rel));
	key_file(k, "kernel file", arena_printf(s->arena, "/boot/vmlinuz-%s", rel));
	/* the types pass 2 read, by content: the running kernel's
	 * /sys/kernel/btf/vmlinux and its vmlinuz's .BTF are the same bytes,
	 * so a module built for this kernel elsewhere is found here too */
	btf = s->kcat ? kcat_btf_raw(s->kcat, &size) : NULL;
	if (btf) {
		struct sha256 h;
		char hex[65];

		sha256_init(&h);
		sha256_update(&h, btf, size);
		sha256_hex(&h, hex);
		key_str(k, "kernel BTF", hex);
	}
}

/* The files gcc -M says src includes (not src itself), each keyed. */
static void key_includes(struct session *s, struct keyer *k, const char *src)
{
	int fds[2], status;
	pid_t pid;
	FILE *f;
	char *deps, *p, *tok;
	size_t len;

	if (pipe(fds))
		return;
	pid = fork();
	if (pid == 0) {
		dup2(fds[1], 1);
		close(fds[0]);
		close(fds[1]);
		if (!freopen("/dev/null", "w", stderr))
			_exit(127);
		execlp("gcc", "gcc", "-M", src, (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	f = fdopen(fds[0], "r");
	deps = f ? read_stream(f, &len) : NULL;
	if (f)
		fclose(f);
	else
		close(fds[0]);
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status) || !deps) {
		key_str(k, "@cast headers' files", "(gcc -M failed)");
		free(deps);
		return;
	}
	/* "typequery.o: typequery.c /usr/include/stdio.h \\\n ..." */
	p = strchr(deps, ':');
	for (p = p ? p + 1 : deps; (tok = strtok(p, " \t\n\\")); p = NULL)
		if (strcmp(tok, src))
			key_file(k, "@cast header", arena_strdup(s->arena, tok));
	free(deps);
}

/* The program elab/deref.c built for @cast's "<header>" types, in the
 * session's temporary directory: new each run, so not its identity but
 * that of what it was built from (its source names the headers). */
static bool key_header_program(struct session *s, struct keyer *k, const char *bin)
{
	size_t n = s->tmpdir ? strlen(s->tmpdir) : 0;
	const char *base = strrchr(bin, '/'), *src;
	char *text, hex[65];
	size_t len;

	if (!n || strncmp(bin, s->tmpdir, n) || bin[n] != '/' || !base ||
	    strncmp(base + 1, "typequery_", 10))
		return false;
	src = arena_printf(s->arena, "%s.c", bin);
	text = read_file(src, &len);
	if (!text) {
		key_str(k, "@cast headers", "(unreadable)");
		return true;
	}
	sha256_buf_hex(text, len, hex);
	key_str(k, "@cast headers (sha256 of their #includes)", hex);
	free(text);
	key_includes(s, k, src);
	return true;
}

/* What pass 2 made of the script, as -p2 prints it. */
static void key_elaborated(struct session *s, struct keyer *k)
{
	char *text = NULL, hex[65];
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (!f) {
		key_str(k, "elaborated", "(unavailable)");
		return;
	}
	elaborate_print(s, f);
	fclose(f);
	sha256_buf_hex(text, len, hex);
	sha256_update(&k->h, text, len);
	sb_printf(&k->log, "elaborated: %zu bytes, sha256 %s\n", len, hex);
	free(text);
}

static void compute_key(struct session *s, struct keyer *k)
{
	char hex[65];

	sha256_init(&k->h);
	sb_init(&k->log);
	key_str(k, "stap version", STAP_VERSION_STRING);
	key_file(k, "stap", "/proc/self/exe");
	{
		char *self = realpath("/proc/self/exe", NULL);

		if (self)
			key_file(k, "stap", self);
		free(self);
	}
	key_int(k, "uid", (long long)getuid());
	key_kernel(s, k);
	key_file(k, "compiler", find_in_path(s, "gcc"));
	key_tree(k, "runtime", s->runtime_dir, 4);
	if (s->tapset_dir)
		key_tree(k, "tapset", s->tapset_dir, 4);
	for (int i = 0; i < s->ninclude_dirs; i++)
		key_tree(k, "tapset -I", s->include_dirs[i], 3);
	key_str(k, "script name", s->user->name);
	sha256_buf_hex(s->user->text, s->user->len, hex);
	key_str(k, "script sha256", hex);
	for (int i = 0; i < s->nscript_args; i++)
		key_str(k, "script argument", s->script_args[i]);
	key_int(k, "guru (-g)", s->guru);
	if (s->privilege)	/* --privilege: what the module may do, and records */
		key_int(k, "privilege", s->privilege);
	key_int(k, "unoptimized (-u)", s->unoptimized);
	key_int(k, "timeout (-T)", s->timeout_s);
	for (struct define *d = s->defines; d; d = d->next)
		key_str(k, "macro (-D)", d->text);
	for (int i = 0; i < s->nmake_args; i++)
		key_str(k, "make argument (-B)", s->make_args[i]);
	key_int(k, "no global display", s->no_global_display);
	key_int(k, "skip-badvars", s->skip_badvars);
	for (int i = 0; i < s->nmodinfos; i++)
		key_str(k, "modinfo", s->modinfos[i]);
	key_str(k, "compatible", s->compat_version ? s->compat_version : "");
	for (int i = 0; i < s->nusym_objs; i++)
		key_file(k, "symbols (-d)", s->usym_objs[i]);
	key_int(k, "ldd (--ldd)", s->ldd);
	if (s->ldd) {
		const char *objs[64];
		int n = usyms_objects(s, objs, 64);

		for (int i = 0; i < n; i++)
			key_file(k, "user object (--ldd)", objs[i]);
	}
	for (const struct ubin *b = s->ubins; b; b = ubin_next(b))
		if (!key_header_program(s, k, ubin_path(b)))
			key_file(k, "binary", ubin_path(b));
	key_elaborated(s, k);
}

/* ---- the cache directory -------------------------------------------------- */

static int make_dir(const char *path)
{
	struct stat st;

	if (mkdir(path, 0755) == 0)
		return 0;
	if (errno != EEXIST)
		return -1;
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
		return 0;
	errno = ENOTDIR;
	return -1;
}

static void cache_off(struct session *s, const char *what, const char *path)
{
	if (!s->suppress_warnings && !s->no_cache)
		fprintf(s->err, "WARNING: failed to create %s (\"%s\"): %s, disabling cache support.\n",
			what, path, strerror(errno));
	s->cache_dir = NULL;
	s->build_cache_dir = NULL;
}

/* $SYSTEMTAP_DIR/cache, made if needed; the cache is off on failure. With
 * the module cache off (-m) only pass 4's own caches use it, and a
 * failure to make it is not reported (nothing the user asked for is
 * lost). */
void cache_setup(struct session *s)
{
	const char *data = getenv("SYSTEMTAP_DIR");
	const char *dir;

	if (!data || !*data) {
		const char *home = getenv("HOME");
		struct passwd *pw;

		if ((!home || !*home) && (pw = getpwuid(getuid())))
			home = pw->pw_dir;
		data = arena_printf(s->arena, "%s/.systemtap", home ? home : "");
	}
	if (make_dir(data) < 0) {
		cache_off(s, "systemtap data directory", data);
		return;
	}
	dir = arena_printf(s->arena, "%s/cache", data);
	if (make_dir(dir) < 0) {
		cache_off(s, "cache directory", dir);
		return;
	}
	s->build_cache_dir = dir;
	if (!s->no_cache)
		s->cache_dir = dir;
}

/* ---- entries -------------------------------------------------------------- */

static int lock_dir(const char *dir, int how)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd >= 0 && flock(fd, how) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

static void unlock_dir(int fd)
{
	if (fd >= 0)
		close(fd);	/* drops the flock */
}

static const char *entry_dir(struct session *s)
{
	const char *e = s->cache_entry, *slash = strrchr(e, '/');

	return arena_strndup(s->arena, e, (size_t)(slash - e));
}

struct entry_file {
	char *data;
	size_t len;
	char sha[65];
};

static bool read_entry_file(struct session *s, const char *ext, struct entry_file *f)
{
	f->data = read_file(arena_printf(s->arena, "%s%s", s->cache_entry, ext), &f->len);
	if (!f->data)
		return false;
	sha256_buf_hex(f->data, f->len, f->sha);
	return true;
}

/* Why the entry cannot be used, or NULL when it can. */
static const char *check_entry(struct session *s, const char *key, struct entry_file *c,
			       struct entry_file *ko)
{
	struct entry_file meta = { 0 };
	char mkey[65], mrel[256], kosha[65], csha[65];
	unsigned long long kolen, clen;
	const char *why = NULL;
	const char *vermagic;

	if (!read_entry_file(s, ".meta", &meta))
		return "no .meta";
	if (sscanf(meta.data, "stap module cache entry\nkey %64s\nrelease %255s\n"
		   "ko %llu %64s\nc %llu %64s\n", mkey, mrel, &kolen, kosha, &clen, csha) != 6)
		why = "bad .meta";
	else if (strcmp(mkey, key))
		why = "key mismatch";
	else if (strcmp(mrel, s->kernel_release))
		why = "built for another kernel";
	else if (!read_entry_file(s, ".ko", ko) || !read_entry_file(s, ".c", c))
		why = "missing .c or .ko";
	else if (ko->len != kolen || strcmp(ko->sha, kosha))
		why = "corrupt .ko";
	else if (c->len != clen || strcmp(c->sha, csha))
		why = "corrupt .c";
	else if (ko->len < 64 || memcmp(ko->data, "\177ELF", 4))
		why = ".ko is not ELF";
	free(meta.data);
	if (why)
		return why;
	vermagic = arena_printf(s->arena, "vermagic=%s ", s->kernel_release);
	if (!memmem(ko->data, ko->len, vermagic, strlen(vermagic)))
		return "vermagic is not the kernel's";
	return NULL;
}

/* After pass 2: name the module after the key and, unless poisoned, take
 * a valid entry into the temporary directory. True on a hit. */
bool cache_lookup(struct session *s)
{
	struct keyer k;
	struct entry_file c = { 0 }, ko = { 0 };
	char key[65];
	const char *dir, *why;
	int fd;
	bool hit = false;

	if (!s->cache_dir)
		return false;
	compute_key(s, &k);
	{
		unsigned long long total = k.h.len;

		sha256_hex(&k.h, key);
		s->module_name = arena_printf(s->arena, "stap_%.32s_%llu", key, total);
	}
	dir = arena_printf(s->arena, "%s/%.2s", s->cache_dir, key);
	if (make_dir(dir) < 0) {
		cache_off(s, "cache directory", dir);
		sb_free(&k.log);
		return false;
	}
	s->cache_entry = arena_printf(s->arena, "%s/%s", dir, s->module_name);
	s->cache_key = arena_printf(s->arena, "%s\n%s", key, k.log.buf ? k.log.buf : "");
	sb_free(&k.log);
	if (s->poison_cache)
		return false;
	fd = lock_dir(dir, LOCK_SH);
	why = check_entry(s, key, &c, &ko);
	unlock_dir(fd);
	if (why) {
		if (s->verbose > 1 && strcmp(why, "no .meta"))
			fprintf(s->err, "Cache entry %s not used: %s.\n", s->cache_entry, why);
		goto out;
	}
	s->c_file = arena_printf(s->arena, "%s/%s_src.c", s->tmpdir, s->module_name);
	s->ko_file = arena_printf(s->arena, "%s/%s.ko", s->tmpdir, s->module_name);
	if (write_file(s->c_file, c.data, c.len) < 0 ||
	    write_file(s->ko_file, ko.data, ko.len) < 0)
		goto out;
	hit = true;
	s->cache_hit = true;
	if (s->verbose)
		fprintf(s->err, "Pass 3: using cached %s.c\n", s->cache_entry);
	if (s->verbose && s->last_pass != 3)
		fprintf(s->err, "Pass 4: using cached %s.ko\n", s->cache_entry);
out:
	free(c.data);
	free(ko.data);
	return hit;
}

/* Write data to path through a temporary file and a rename. */
static int publish(struct session *s, const char *path, const char *data, size_t len)
{
	char *tmp = arena_printf(s->arena, "%s.tmpXXXXXX", path);
	int fd = mkstemp(tmp);
	ssize_t n = 0;

	if (fd < 0)
		return -1;
	for (size_t done = 0; done < len && n >= 0; done += (size_t)n)
		n = write(fd, data + done, len - done);
	if (n < 0 || fchmod(fd, 0644) < 0 || close(fd) < 0 || rename(tmp, path) < 0) {
		unlink(tmp);
		return -1;
	}
	return 0;
}

/* After a successful pass 4: clean the cache by its limits (before, as
 * 4.8, so the new entry stays), then add the module. */
void cache_store(struct session *s)
{
	struct entry_file c = { 0 }, ko = { 0 };
	const char *key_end, *e = s->cache_entry;
	struct strbuf meta;
	int fd, rc = -1;

	if (!e || !s->cache_dir)
		return;
	cache_clean(s);
	c.data = read_file(s->c_file, &c.len);
	ko.data = read_file(s->ko_file, &ko.len);
	key_end = strchr(s->cache_key, '\n');
	sb_init(&meta);
	if (c.data && ko.data) {
		sha256_buf_hex(c.data, c.len, c.sha);
		sha256_buf_hex(ko.data, ko.len, ko.sha);
		sb_printf(&meta, "stap module cache entry\nkey %.*s\nrelease %s\n"
			  "ko %zu %s\nc %zu %s\n# key:\n%s", (int)(key_end - s->cache_key),
			  s->cache_key, s->kernel_release, ko.len, ko.sha, c.len, c.sha,
			  key_end + 1);
		fd = lock_dir(entry_dir(s), LOCK_EX);
		if (fd >= 0 &&
		    publish(s, arena_printf(s->arena, "%s.c", e), c.data, c.len) == 0 &&
		    publish(s, arena_printf(s->arena, "%s.ko", e), ko.data, ko.len) == 0 &&
		    publish(s, arena_printf(s->arena, "%s.meta", e), meta.buf, meta.len) == 0)
			rc = 0;
		unlock_dir(fd);
	}
	if (rc < 0) {
		if (s->verbose > 1)
			fprintf(s->err, "Cache entry %s not written: %s.\n", e, strerror(errno));
		s->cache_entry = NULL;
	}
	sb_free(&meta);
	free(c.data);
	free(ko.data);
}

/* ---- cleaning ------------------------------------------------------------- */

/* The number in dir/name, or def after writing it there (4.8's defaults). */
static unsigned long limit_file(struct session *s, const char *path, unsigned long def,
				const char *what)
{
	FILE *f = fopen(path, "r");
	unsigned long v = def;

	if (f) {
		if (fscanf(f, "%lu", &v) != 1)
			v = def;
		fclose(f);
		return v;
	}
	f = fopen(path, "w");
	if (f) {
		fprintf(f, "%lu\n", def);
		fclose(f);
	}
	if (s->verbose > 1)
		fprintf(s->err, "%s\n", what);
	return def;
}

struct cache_ent {
	char *prefix;		/* stap_HASH_N, or the file's own path */
	char **paths;
	int npaths;
	long long size;
	time_t mtime;		/* newest of its files */
};

struct cache_ents {
	struct cache_ent *v;
	int n, cap;
};

/* "xx/stap_<32 hex>_<digits>": the group of an entry's files. */
static size_t entry_prefix_len(const char *name)
{
	size_t i = 5;

	if (strncmp(name, "stap_", 5))
		return 0;
	for (; i < 37; i++)
		if (!name[i] || !strchr("0123456789abcdef", name[i]))
			return 0;
	if (name[i++] != '_' || !(name[i] >= '0' && name[i] <= '9'))
		return 0;
	while (name[i] >= '0' && name[i] <= '9')
		i++;
	return i;
}

static void add_file(struct cache_ents *es, const char *path, const char *name,
		     const struct stat *st)
{
	size_t plen = entry_prefix_len(name);
	char *prefix = plen ? strndup(name, plen) : strdup(path);
	struct cache_ent *e = NULL;

	for (int i = 0; plen && i < es->n; i++)
		if (!strcmp(es->v[i].prefix, prefix))
			e = &es->v[i];
	if (e) {
		free(prefix);
	} else {
		if (es->n == es->cap) {
			es->cap = es->cap ? 2 * es->cap : 64;
			es->v = realloc(es->v, (size_t)es->cap * sizeof(*es->v));
		}
		e = &es->v[es->n++];
		memset(e, 0, sizeof(*e));
		e->prefix = prefix;
	}
	e->paths = realloc(e->paths, (size_t)(e->npaths + 1) * sizeof(char *));
	e->paths[e->npaths++] = strdup(path);
	e->size += st->st_size;
	if (st->st_mtime > e->mtime)
		e->mtime = st->st_mtime;
}

static void scan_cache(const char *cache, struct cache_ents *es)
{
	DIR *top = opendir(cache), *sub;
	struct dirent *d, *f;
	time_t now = time(NULL);

	if (!top)
		return;
	while ((d = readdir(top))) {
		char *dir, *path;
		struct stat st;

		if (strlen(d->d_name) != 2 || asprintf(&dir, "%s/%s", cache, d->d_name) < 0)
			continue;
		sub = opendir(dir);
		while (sub && (f = readdir(sub))) {
			if (f->d_name[0] == '.' || asprintf(&path, "%s/%s", dir, f->d_name) < 0)
				continue;
			/* another stap's file being written: not yet */
			if (stat(path, &st) == 0 && S_ISREG(st.st_mode) &&
			    (!strstr(f->d_name, ".tmp") || now - st.st_mtime > CACHE_TMP_AGE_S))
				add_file(es, path, f->d_name, &st);
			free(path);
		}
		if (sub)
			closedir(sub);
		free(dir);
	}
	closedir(top);
}

static int ent_cmp(const void *pa, const void *pb)
{
	const struct cache_ent *a = pa, *b = pb;

	if (a->mtime != b->mtime)
		return a->mtime < b->mtime ? -1 : 1;
	if (a->size != b->size)
		return a->size < b->size ? -1 : 1;
	return strcmp(a->prefix, b->prefix);
}

/* As 4.8: when cache_clean_interval_s has passed since the last cleaning,
 * remove the oldest entries until the cache is under cache_mb_limit. */
void cache_clean(struct session *s)
{
	const char *lim_path, *int_path;
	unsigned long limit_mb, interval;
	struct cache_ents es = { 0 };
	long long total = 0;
	int removed = 0;
	struct stat st;
	time_t now = time(NULL);

	if (!s->cache_dir) {
		if (s->verbose > 1)
			fputs("Cache cleaning skipped, no cache path.\n", s->err);
		return;
	}
	lim_path = arena_printf(s->arena, "%s/%s", s->cache_dir, CACHE_LIMIT_FILE);
	int_path = arena_printf(s->arena, "%s/%s", s->cache_dir, CACHE_INTERVAL_FILE);
	limit_mb = limit_file(s, lim_path, CACHE_DEFAULT_MB, arena_printf(s->arena,
		"Cache limit file %s missing, creating default.", lim_path));
	interval = limit_file(s, int_path, CACHE_DEFAULT_INTERVAL_S, arena_printf(s->arena,
		"Cache clean interval file %s missing, creating default.", int_path));
	if (stat(int_path, &st) < 0) {
		fprintf(s->err, "clean_cache stat error: %s\n", strerror(errno));
		return;
	}
	if (difftime(now, st.st_mtime) < (double)interval) {
		if (s->verbose > 1)
			fprintf(s->err, "Cache cleaning skipped, interval not reached %ld s / %lu s.\n",
				(long)(now - st.st_mtime), interval);
		return;
	}
	if (s->verbose > 1)
		fprintf(s->err, "Cleaning cache, interval reached %ld s > %lu s.\n",
			(long)(now - st.st_mtime), interval);
	scan_cache(s->cache_dir, &es);
	for (int i = 0; i < es.n; i++)
		total += es.v[i].size;
	qsort(es.v, (size_t)es.n, sizeof(*es.v), ent_cmp);
	for (int i = 0; i < es.n; i++) {
		struct cache_ent *e = &es.v[i];

		if (total >= (long long)limit_mb * 1024 * 1024) {
			if (s->verbose > 1 && !removed++)
				fputs("Cache cleaning successful, removed entries: \n", s->err);
			for (int j = 0; j < e->npaths; j++) {
				if (s->verbose > 1)
					fprintf(s->err, "  %s\n", e->paths[j]);
				unlink(e->paths[j]);
			}
			total -= e->size;
		}
		for (int j = 0; j < e->npaths; j++)
			free(e->paths[j]);
		free(e->paths);
		free(e->prefix);
	}
	free(es.v);
	if (utime(int_path, NULL) < 0)
		fprintf(s->err, "clean_cache utime error: %s\n", strerror(errno));
}
