/*
 * kbuild.c - pass 4: build the module with the kernel's own build system.
 * Writes a kbuild Makefile next to the generated C in the session's
 * temporary directory and runs `make -C /lib/modules/KVER/build M=TMP
 * modules`, or the commands make ran last time in this tree
 * (kdirect.c). With the module cache on, the runtime is a second object
 * (rtobj.c), else it is compiled with the script's C. The compiler's
 * output is shown only on failure (or with -v -v).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "build.h"

/* the module's own compiler flags (kbuild's ccflags-y).
 * -Wno-misleading-indentation: the warning rereads the source lines
 * around every if/else/loop body (gcc's line cache), 10% of gcc's CPU
 * on a big generated C file; it only warns. */
static const char *ccflags(struct session *s)
{
	const char *f = arena_printf(s->arena, "-I%s -I%s/transport -Wno-unused "
				     "-Wno-declaration-after-statement -Wno-misleading-indentation",
				     s->runtime_dir, s->runtime_dir);

	if (s->guru)	/* 4.8's embedded-C API (runtime/embed_api.h) */
		f = arena_printf(s->arena, "%s -DSTP_EMBED_API", f);
	if (rtobj_split(s))	/* the runtime an object of its own (rtobj.c) */
		f = arena_printf(s->arena, "%s -DSTP_RUNTIME_SPLIT", f);
	for (struct define *d = s->defines; d; d = d->next)
		f = arena_printf(s->arena, "%s '-D%s'", f, d->text);
	return f;
}

static int write_makefile(struct session *s, const char *flags)
{
	struct strbuf mk;
	const char *path = arena_printf(s->arena, "%s/Makefile", s->tmpdir);
	int rc;

	sb_init(&mk);
	sb_printf(&mk, "obj-m := %s.o\n", s->module_name);
	sb_printf(&mk, "%s-objs := %s_src.o%s\n", s->module_name, s->module_name,
		  rtobj_split(s) ? " " RTOBJ_NAME ".o" : "");
	sb_printf(&mk, "ccflags-y := %s\n", flags);
	rc = write_file(path, mk.buf, mk.len);
	sb_free(&mk);
	if (rc < 0)
		diag_plain(s, "cannot write %s: %s", path, strerror(errno));
	return rc;
}

/* Run make, capturing its output into log; returns its exit status. */
static int run_make(struct session *s, const char *kdir, const char *log)
{
	char **argv = arena_alloc(s->arena, sizeof(*argv) * (size_t)(s->nmake_args + 8));
	int status, n = 0;
	pid_t pid;

	/* what is passed here shapes the commands kdirect.c keeps: a change
	 * needs a new KDIRECT_FORMAT there */
	argv[n++] = "make";
	argv[n++] = "-C";
	argv[n++] = (char *)kdir;
	argv[n++] = (char *)arena_printf(s->arena, "M=%s", s->tmpdir);
	/*
	 * No BTF for the module, as 4.8: nothing reads it, and in a -r tree
	 * holding a vmlinux kbuild would run pahole and resolve_btfids on
	 * every module (a headers tree with a vmlinux but without those
	 * tools failed here with status 127).
	 */
	argv[n++] = "CONFIG_DEBUG_INFO_BTF_MODULES=";
	/* no DWARF either, as 4.8: nothing reads the module's, and gcc's -g
	 * was a sixth of the compile */
	argv[n++] = "CONFIG_DEBUG_INFO=";
	for (int i = 0; i < s->nmake_args; i++)	/* -B NAME=VALUE */
		argv[n++] = (char *)s->make_args[i];
	argv[n++] = "modules";
	argv[n] = NULL;
	pid = fork();

	if (pid < 0)
		return -1;
	if (pid == 0) {
		FILE *f = s->verbose > 1 ? NULL : freopen(log, "w", stdout);

		if (f)
			dup2(fileno(stdout), 2);
		/* plain quotes in compiler messages (kbuild drops LC_ALL) */
		setenv("LANG", "C", 1);
		setenv("LC_CTYPE", "C", 1);
		setenv("LC_MESSAGES", "C", 1);
		execvp("make", argv);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

int kbuild(struct session *s)
{
	const char *kdir = s->kernel_build_dir;
	const char *log = arena_printf(s->arena, "%s/make.log", s->tmpdir);
	const char *flags;
	int rc;

	if (!path_exists(arena_printf(s->arena, "%s/Makefile", kdir))) {
		diag_plain(s, "kernel build tree not found at %s; install the headers for %s (Debian: apt-get install linux-headers-%s)",
			   kdir, s->kernel_release, s->kernel_release);
		return 1;
	}
	flags = ccflags(s);
	if (write_makefile(s, flags) < 0 || (rtobj_split(s) && rtobj_write_c(s) < 0))
		return 1;
	rc = kdirect_build(s, kdir, flags, log, run_make);
	if (rc != 0) {
		size_t len;
		char *text = read_file(log, &len);

		if (text) {
			fwrite(text, 1, len, s->err);
			free(text);
		}
		diag_plain(s, "kbuild failed with status %d while compiling %s", rc,
			   s->c_file);
		return 1;
	}
	s->ko_file = arena_printf(s->arena, "%s/%s.ko", s->tmpdir, s->module_name);
	if (!path_exists(s->ko_file)) {
		diag_plain(s, "kbuild produced no %s", s->ko_file);
		return 1;
	}
	return 0;
}
