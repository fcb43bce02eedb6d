/*
 * rtobj.c - the runtime as an object of its own (issue 17). With the
 * module cache on, a module is two objects: the script's C, and
 * RTOBJ_NAME.c, the runtime (runtime/stp_runtime.c) with the defines it
 * depends on (s->rt_defines: families, privilege, regex sizes; the user's
 * -D options are in the flags), both compiled with -DSTP_RUNTIME_SPLIT
 * (runtime/stp_runtime.h). When kdirect.c replays kbuild's commands, the
 * runtime's object comes from $SYSTEMTAP_DIR/cache/kbuild/RECIPE.rt-KEY.o
 * when it was compiled before (a third of the C compiler's time on a
 * small script). KEY hashes all that changes the object: this stap, the
 * recipe (the kernel tree, named by kdirect.c's key), the command that
 * compiles it (flags, defines, paths), RTOBJ_NAME.c's text, the contents
 * of the runtime's sources, the compiler's and objtool's files. A kept
 * object starts with a line holding its length and SHA-256; one that
 * does not match is compiled again, never linked.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "build.h"

#define RTOBJ_FORMAT "rtobj 1"
#define RTOBJ_MAGIC "stprtobj1"

/* the runtime is split whenever kdirect.c may build (its commands come
 * from a make run with the same shape) */
bool rtobj_split(struct session *s)
{
	return s->build_cache_dir && !s->nmake_args;
}

int rtobj_write_c(struct session *s)
{
	const char *path = arena_printf(s->arena, "%s/%s.c", s->tmpdir, RTOBJ_NAME);
	const char *text = arena_printf(s->arena,
					"/* the runtime of a split module (stap %s) */\n"
					"#define STP_RUNTIME_OBJ\n%s"
					"#include \"stp_runtime.h\"\n#include \"stp_runtime.c\"\n",
					STAP_VERSION_STRING, s->rt_defines ? s->rt_defines : "");

	if (write_file(path, text, strlen(text)) < 0) {
		diag_plain(s, "cannot write %s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

static void key_bytes(struct sha256 *h, const char *what, const void *data, size_t n)
{
	sha256_update(h, what, strlen(what) + 1);
	sha256_update(h, &n, sizeof(n));
	sha256_update(h, data, n);
}

/* a file's size and modification time (the compiler, objtool) */
static void key_stat(struct sha256 *h, const char *path)
{
	struct stat st;
	long long v[3] = { -1, -1, -1 };

	if (path && stat(path, &st) == 0) {
		v[0] = (long long)st.st_size;
		v[1] = (long long)st.st_mtim.tv_sec;
		v[2] = st.st_mtim.tv_nsec;
	}
	key_bytes(h, path ? path : "", v, sizeof(v));
}

static int name_cmp(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

/* the contents of the runtime's sources: dir's .c and .h files, and
 * those of its subdirectories (transport/) but bpf/ */
static void key_sources(struct session *s, struct sha256 *h, const char *dir, int depth)
{
	struct dirent **ents;
	int n = scandir(dir, &ents, NULL, name_cmp);

	for (int i = 0; i < n; i++) {
		const char *e = ents[i]->d_name;
		const char *path = arena_printf(s->arena, "%s/%s", dir, e);
		size_t len = strlen(e), size;
		struct stat st;
		char *text;

		if (e[0] == '.' || stat(path, &st) < 0) {
			free(ents[i]);
			continue;
		}
		if (S_ISDIR(st.st_mode) && depth > 0 && strcmp(e, "bpf")) {
			key_sources(s, h, path, depth - 1);
		} else if (S_ISREG(st.st_mode) && len > 2 &&
			   (!strcmp(e + len - 2, ".c") || !strcmp(e + len - 2, ".h"))) {
			text = read_file(path, &size);
			key_bytes(h, path, text ? text : "", text ? size : 0);
			free(text);
		}
		free(ents[i]);
	}
	if (n >= 0)
		free(ents);
}

/* the program a command runs first (gcc-12 ...), found in PATH */
static const char *first_program(struct session *s, const char *cmd)
{
	const char *path = getenv("PATH");
	size_t n;

	cmd += strspn(cmd, " ");
	n = strcspn(cmd, " ;");
	if (memchr(cmd, '/', n))
		return arena_strndup(s->arena, cmd, n);
	while (path && *path) {
		size_t d = strcspn(path, ":");
		const char *p = arena_printf(s->arena, "%.*s/%.*s", (int)d, path, (int)n, cmd);

		if (access(p, X_OK) == 0)
			return p;
		path += d + (path[d] == ':');
	}
	return NULL;
}

static void compute_key(struct session *s, const char *recipe, const char *cmd,
			const char *flags, char key[65])
{
	const char *c = arena_printf(s->arena, "%s/%s.c", s->tmpdir, RTOBJ_NAME);
	struct sha256 h;
	size_t len;
	char *text = read_file(c, &len);

	sha256_init(&h);
	key_bytes(&h, "format", RTOBJ_FORMAT STAP_VERSION_STRING,
		  sizeof(RTOBJ_FORMAT STAP_VERSION_STRING));
	key_bytes(&h, "recipe", recipe, strlen(recipe));
	key_bytes(&h, "command", cmd, strlen(cmd));
	key_bytes(&h, "flags", flags, strlen(flags));
	key_bytes(&h, "file", text ? text : "", text ? len : 0);
	free(text);
	key_sources(s, &h, s->runtime_dir, 1);
	key_stat(&h, first_program(s, cmd));
	key_stat(&h, arena_printf(s->arena, "%s/tools/objtool/objtool", s->kernel_build_dir));
	sha256_hex(&h, key);
}

static const char *kept_path(struct session *s, const char *recipe, const char *key)
{
	return arena_printf(s->arena, "%s.rt-%.32s.o", recipe, key);
}

/*
 * The runtime's object for the command cmd (RTOBJ_NAME.c to
 * RTOBJ_NAME.o, placeholders in, flags those of the script's C) into the
 * module's directory from the cache: true if it was there, else its key
 * for rtobj_store() once compiled (a kept object that is not whole is
 * removed).
 */
bool rtobj_lookup(struct session *s, const char *recipe, const char *cmd, const char *flags,
		  char key[65])
{
	const char *path;
	char *data, *obj, want[65], got[65];
	unsigned long n;
	size_t len;
	bool whole = false, hit;

	compute_key(s, recipe, cmd, flags, key);
	path = kept_path(s, recipe, key);
	data = read_file(path, &len);
	if (!data)
		return false;
	obj = memchr(data, '\n', len);
	if (obj && sscanf(data, RTOBJ_MAGIC " %lu %64s", &n, want) == 2 &&
	    n == len - (size_t)(obj + 1 - data)) {
		sha256_buf_hex(obj + 1, n, got);
		whole = !strcmp(got, want);
	}
	if (!whole) {
		unlink(path);
		if (s->verbose > 1)
			fprintf(s->err, "Pass 4: the kept runtime object %s is damaged: "
				"compiling it\n", path);
		free(data);
		return false;
	}
	hit = write_file(arena_printf(s->arena, "%s/%s.o", s->tmpdir, RTOBJ_NAME),
			 obj + 1, n) == 0;
	if (hit && s->verbose > 1)
		fprintf(s->err, "Pass 4: using the kept runtime object %s\n", path);
	free(data);
	return hit;
}

/* Keep the runtime's object just compiled (atomically: a reader sees
 * the old file or the new one). */
void rtobj_store(struct session *s, const char *recipe, const char *key)
{
	const char *path = kept_path(s, recipe, key);
	const char *tmp = arena_printf(s->arena, "%s.%d.tmp", path, (int)getpid());
	size_t len;
	char *obj = read_file(arena_printf(s->arena, "%s/%s.o", s->tmpdir, RTOBJ_NAME), &len);
	char hex[65];
	struct strbuf b;

	if (!obj)
		return;
	sha256_buf_hex(obj, len, hex);
	sb_init(&b);
	sb_printf(&b, RTOBJ_MAGIC " %zu %s\n", len, hex);
	sb_putn(&b, obj, len);
	if (write_file(tmp, b.buf, b.len) < 0 || rename(tmp, path) < 0)
		unlink(tmp);
	else if (s->verbose > 1)
		fprintf(s->err, "Pass 4: kept the runtime object as %s\n", path);
	sb_free(&b);
	free(obj);
}
