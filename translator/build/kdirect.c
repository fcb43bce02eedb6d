/*
 * kdirect.c - pass 4 without make (issue 17). A make run of kbuild
 * (kbuild.c) leaves in the module's directory one .cmd file per step
 * holding the exact command it ran: gcc and objtool on the C, the link
 * of the module's object, modules.order, modpost, gcc on the .mod.c and
 * the final link. Those commands are taken once per kernel build tree,
 * the module's directory, name and compiler flags replaced by
 * placeholders, and kept in $SYSTEMTAP_DIR/cache/kbuild/KEY; later
 * builds run them with sh in the tree as make would, without make
 * reading the kernel's Makefiles and running its compiler-option probes
 * (about a second of CPU a module); the .mod.o comes from assembly kept
 * beside them where it can (kmodc.c). KEY hashes what the commands depend
 * on: the tree (its Makefile, .config, Module.symvers, modpost), the
 * environment kbuild reads and this stap. Also with -m (which only turns
 * off the module cache); not with -k, -B or --disable-cache, which use
 * make. The
 * runtime's object (rtobj.c) is compiled only when none is kept for it.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "build.h"

#define KDIRECT_FORMAT "kdirect 2"
#define P_DIR "@STP_DIR@"
#define P_MOD "@STP_MOD@"
#define P_FLAGS "@STP_FLAGS@"
#define RT_LINE "#rt "	/* the runtime object's command (rtobj.c) */

/* the steps' targets in make's order (%s: the module's name) */
static const char *const steps[] = {
	"%s_src.o", RTOBJ_NAME ".o", "%s.mod", "%s.o", "modules.order", "Module.symvers",
	"%s.mod.o", "%s.ko",
};
#define STEP_RT 1

static const char *const key_files[] = {
	"Makefile", ".config", "Module.symvers", "scripts/mod/modpost",
	"include/config/auto.conf", "arch/x86/module.lds",
};

static const char *const key_env[] = {
	"PATH", "ARCH", "CROSS_COMPILE", "LLVM", "KCFLAGS", "KCPPFLAGS", "KAFLAGS",
	"KBUILD_EXTRA_SYMBOLS", "KBUILD_MODPOST_WARN", "KBUILD_VERBOSE",
};

/* $SYSTEMTAP_DIR/cache/kbuild/KEY for this tree, or NULL */
static const char *recipe_path(struct session *s, const char *kdir)
{
	char real[PATH_MAX], hex[65];
	struct sha256 h;
	struct stat st;
	const char *dir;

	if (!s->build_cache_dir || s->nmake_args || !realpath(kdir, real))
		return NULL;
	sha256_init(&h);
	sha256_update(&h, KDIRECT_FORMAT STAP_VERSION_STRING, sizeof(KDIRECT_FORMAT STAP_VERSION_STRING));
	sha256_update(&h, real, strlen(real) + 1);
	for (size_t i = 0; i < sizeof(key_files) / sizeof(key_files[0]); i++) {
		long v[4] = { 0, 0, 0, 0 };

		if (stat(arena_printf(s->arena, "%s/%s", real, key_files[i]), &st) == 0) {
			v[0] = (long)st.st_ino;
			v[1] = (long)st.st_size;
			v[2] = (long)st.st_mtim.tv_sec;
			v[3] = st.st_mtim.tv_nsec;
		}
		sha256_update(&h, v, sizeof(v));
	}
	for (size_t i = 0; i < sizeof(key_env) / sizeof(key_env[0]); i++) {
		const char *e = getenv(key_env[i]);

		sha256_update(&h, e ? e : "\001", strlen(e ? e : "\001") + 1);
	}
	sha256_hex(&h, hex);
	dir = arena_printf(s->arena, "%s/kbuild", s->build_cache_dir);
	if (mkdir(dir, 0755) < 0 && errno != EEXIST)
		return NULL;
	return arena_printf(s->arena, "%s/%.32s", dir, hex);
}

/* text with each from replaced by to, appended to out */
static void replace_into(struct strbuf *out, const char *text, size_t len, const char *from,
			 const char *to)
{
	size_t n = strlen(from);
	const char *end = text + len, *p;

	while ((p = memmem(text, (size_t)(end - text), from, n))) {
		sb_putn(out, text, (size_t)(p - text));
		sb_puts(out, to);
		text = p + n;
	}
	sb_putn(out, text, (size_t)(end - text));
}

static char *replace(const char *text, const char *from, const char *to)
{
	struct strbuf b;

	sb_init(&b);
	replace_into(&b, text, strlen(text), from, to);
	return b.buf ? b.buf : strdup("");
}

/* a command as make ran it: kbuild's .cmd files have $$ for $ and
 * $(pound) for # */
static char *unescape(const char *text)
{
	struct strbuf b;

	sb_init(&b);
	while (*text) {
		if (!strncmp(text, "$$", 2)) {
			sb_putc(&b, '$');
			text += 2;
		} else if (!strncmp(text, "$(pound)", 8)) {
			sb_putc(&b, '#');
			text += 8;
		} else {
			sb_putc(&b, *text++);
		}
	}
	return b.buf ? b.buf : strdup("");
}

/* the runtime object's command in a recipe (NULL if none) */
static const char *rt_command(struct session *s, const char *recipe)
{
	const char *p = strstr(recipe, "\n" RT_LINE);

	if (!p)
		return NULL;
	p += 1 + strlen(RT_LINE);
	return arena_strndup(s->arena, p, strcspn(p, "\n"));
}

/* after make built the module: keep the runtime's object it compiled */
static void keep_rt(struct session *s, const char *path, const char *recipe, const char *flags)
{
	const char *cmd = rt_command(s, recipe);
	char key[65];

	if (cmd && !rtobj_lookup(s, path, cmd, flags, key))
		rtobj_store(s, path, key);
}

/*
 * After make built the module in s->tmpdir with flags: keep its
 * commands. Nothing is kept if a step's command is missing, or the
 * module's name could be mistaken for other text.
 */
static void capture(struct session *s, const char *path, const char *kdir, const char *flags)
{
	const char *name = s->module_name;
	struct strbuf out;
	size_t i, len;

	/* stap_HASH_PID, stap_PID: nothing else in the commands looks so */
	if (strncmp(name, "stap_", 5) || strspn(name + 5, "0123456789abcdef_") != strlen(name + 5) ||
	    strlen(name) < 10)
		return;
	sb_init(&out);
	for (i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		const char *target = arena_printf(s->arena, steps[i], name);
		const char *head = arena_printf(s->arena, "cmd_%s/%s := ", s->tmpdir, target);
		char *text = read_file(arena_printf(s->arena, "%s/.%s.cmd", s->tmpdir, target), &len);
		char *nl, *a, *b, *c;

		if (!text || strncmp(text, head, strlen(head)) || strstr(text, "#SYMVER")) {
			free(text);
			break;
		}
		if ((nl = strchr(text, '\n')))
			*nl = '\0';
		a = unescape(text + strlen(head));
		b = replace(a, flags, P_FLAGS);
		c = replace(b, s->tmpdir, P_DIR);
		/* the runtime's object: a comment to sh, run by replay()
		 * unless kept (rtobj.c) */
		if (i == STEP_RT)
			sb_puts(&out, RT_LINE);
		replace_into(&out, c, strlen(c), name, P_MOD);
		sb_puts(&out, "\n");
		/* modpost reads each object's .cmd for its exports' versions
		 * (#SYMVER lines: the module exports nothing) */
		if (i == 0)
			sb_puts(&out, ": > " P_DIR "/." P_MOD "_src.o.cmd\n");
		if (i == STEP_RT)
			sb_puts(&out, ": > " P_DIR "/." RTOBJ_NAME ".o.cmd\n");
		free(text);
		free(a);
		free(b);
		free(c);
	}
	if (i == sizeof(steps) / sizeof(steps[0]) && strstr(out.buf, P_FLAGS)) {
		const char *tmp = arena_printf(s->arena, "%s.%d.tmp", path, (int)getpid());

		const char *line;
		size_t n;

		if (write_file(tmp, out.buf, out.len) < 0 || rename(tmp, path) < 0) {
			unlink(tmp);
		} else {
			if ((line = kmodc_line(out.buf, &n)))
				kmodc_learn(s, path, kdir, arena_strndup(s->arena, line, n));
			keep_rt(s, path, out.buf, flags);
		}
	}
	sb_free(&out);
}

/* Run text, commands of the recipe, with sh in the tree; make's status:
 * 0, else 2 as make's on a failed step. The log is started or appended. */
static int run_sh(struct session *s, const char *kdir, const char *text, size_t len,
		  const char *flags, const char *log, bool append)
{
	struct strbuf sh, t1, t2;
	int status;
	pid_t pid;

	sb_init(&sh);
	sb_init(&t1);
	sb_init(&t2);
	sb_puts(&sh, "set -e\n");
	replace_into(&t1, text, len, P_FLAGS, flags);
	replace_into(&t2, t1.buf, t1.len, P_DIR, s->tmpdir);
	replace_into(&sh, t2.buf, t2.len, P_MOD, s->module_name);
	sb_free(&t1);
	sb_free(&t2);
	pid = fork();
	if (pid < 0) {
		sb_free(&sh);
		return -1;
	}
	if (pid == 0) {
		FILE *f = s->verbose > 1 ? NULL : freopen(log, append ? "a" : "w", stdout);

		if (f)
			dup2(fileno(stdout), 2);
		if (chdir(kdir) < 0)
			_exit(127);
		setenv("LANG", "C", 1);
		setenv("LC_CTYPE", "C", 1);
		setenv("LC_MESSAGES", "C", 1);
		execl("/bin/sh", "sh", "-c", sh.buf, (char *)NULL);
		_exit(127);
	}
	sb_free(&sh);
	if (waitpid(pid, &status, 0) < 0)
		return -1;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 2;
}

/* Run the kept commands, the .mod.o's from kmodc.c's assembly when it
 * can (else gcc's, and kmodc.c learns the .mod.c's shape). */
static int replay(struct session *s, const char *kdir, const char *path, const char *recipe,
		  const char *flags, const char *log)
{
	size_t n, before;
	const char *line = kmodc_line(recipe, &n), *rt = rt_command(s, recipe);
	char *mod_o, key[65];
	bool ran = false;	/* the log started */
	int rc;

	/* the runtime's object: kept, else compiled and kept */
	if (rt && !rtobj_lookup(s, path, rt, flags, key)) {
		rc = run_sh(s, kdir, rt, strlen(rt), flags, log, false);
		if (rc)
			return rc;
		rtobj_store(s, path, key);
		ran = true;
	}
	if (!line)
		return run_sh(s, kdir, recipe, strlen(recipe), flags, log, ran);
	before = (size_t)(line - recipe);
	mod_o = strndup(line, n);
	rc = mod_o ? run_sh(s, kdir, recipe, before, flags, log, ran) : -1;
	if (rc == 0 && kmodc_build(s, path, kdir, mod_o) != 0) {
		rc = run_sh(s, kdir, line, n, flags, log, true);
		if (rc == 0)
			kmodc_learn(s, path, kdir, mod_o);
	}
	if (rc == 0 && line[n])
		rc = run_sh(s, kdir, line + n + 1, strlen(line + n + 1), flags, log, true);
	free(mod_o);
	return rc;
}

int kdirect_build(struct session *s, const char *kdir, const char *flags, const char *log,
		  int (*make)(struct session *, const char *, const char *))
{
	const char *path = recipe_path(s, kdir);
	size_t len;
	char *recipe = path ? read_file(path, &len) : NULL;
	int rc;

	if (recipe && *recipe) {
		rc = replay(s, kdir, path, recipe, flags, log);
		free(recipe);
		return rc;
	}
	free(recipe);
	rc = make(s, kdir, log);
	if (rc == 0 && path)
		capture(s, path, kdir, flags);
	return rc;
}
