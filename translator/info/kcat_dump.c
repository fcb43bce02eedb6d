/*
 * kcat_dump.c - kcat-dump, a test driver for the kernel probe-point catalog
 * (kcatalog.h); built with the translator, never installed. It prints what
 * pass 2 and stap -l/-L would get from the catalog for a kernel release.
 * Exit status: 0 when something was found, 1 when nothing, 2 on errors.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "kcatalog.h"

static const char usage[] =
	"Usage: kcat-dump [-v] [-r RELEASE|DIR] COMMAND\n"
	"  functions PATTERN   kernel function names matching PATTERN\n"
	"  proto NAME          NAME's prototype, then its stap -L lines\n"
	"  tracepoints PATTERN kernel.trace(\"SYS:NAME\") points matching [SYS:]NAME\n"
	"  tpargs [SYS:]NAME   the tracepoint with its arguments, as stap -L\n"
	"  info                where the BTF came from, counts and timings\n";

static int functions(struct kcatalog *kc, const char *glob)
{
	const char **v;
	size_t n = kcat_match_functions(kc, glob, &v);

	for (size_t i = 0; i < n; i++)
		puts(v[i]);
	return n ? 0 : 1;
}

static int proto(struct kcatalog *kc, const char *name)
{
	const struct kcat_func *f = kcat_function(kc, name);
	struct strbuf sb;

	if (!f)
		return 1;
	sb_init(&sb);
	kcat_function_proto(kc, name, &sb);
	sb_printf(&sb, "\nkernel.function(\"%s\")", name);
	kcat_format_args(&sb, f->args, f->nargs);
	sb_printf(&sb, "\nkernel.function(\"%s\").return", name);
	if (strcmp(f->ret, "void"))
		sb_printf(&sb, " $return:%s", f->ret);
	kcat_format_args(&sb, f->args, f->nargs);
	puts(sb.buf);
	sb_free(&sb);
	return 0;
}

static void put_tracepoint(const struct kcat_tracepoint *tp, bool args)
{
	struct strbuf sb;

	sb_init(&sb);
	sb_printf(&sb, "kernel.trace(\"%s%s%s\")", tp->system, *tp->system ? ":" : "",
		  tp->name);
	if (args)
		kcat_format_args(&sb, tp->args, tp->nargs);
	puts(sb.buf);
	sb_free(&sb);
}

static int tracepoints(struct kcatalog *kc, const char *pattern, bool args)
{
	const struct kcat_tracepoint **v;
	size_t n = kcat_match_tracepoints(kc, pattern, &v);

	for (size_t i = 0; i < n; i++)
		put_tracepoint(v[i], args);
	return n ? 0 : 1;
}

static int info(struct kcatalog *kc, double open_ms)
{
	const struct kcat_tracepoint **tps;
	const char **fns;
	double t0 = now_ms();
	size_t ntps = kcat_match_tracepoints(kc, "*", &tps), nosys = 0, nfns;

	for (size_t i = 0; i < ntps; i++)
		nosys += !*tps[i]->system;
	printf("btf: %s\n", kcat_btf_origin(kc));
	printf("open_ms: %.1f\n", open_ms);
	printf("tracepoints_ms: %.1f\n", now_ms() - t0);
	nfns = kcat_match_functions(kc, "*", &fns);
	printf("functions: %zu\n", nfns);
	printf("tracepoints: %zu\n", ntps);
	printf("tracepoints_without_system: %zu\n", nosys);
	return 0;
}

static int run(struct kcatalog *kc, int argc, char **argv, double open_ms)
{
	const char *cmd = argv[0], *arg = argc > 1 ? argv[1] : NULL;

	if (!strcmp(cmd, "info") && argc == 1)
		return info(kc, open_ms);
	if (argc != 2)
		return -1;
	if (!strcmp(cmd, "functions"))
		return functions(kc, arg);
	if (!strcmp(cmd, "proto"))
		return proto(kc, arg);
	if (!strcmp(cmd, "tracepoints"))
		return tracepoints(kc, arg, false);
	if (!strcmp(cmd, "tpargs"))
		return tracepoints(kc, arg, true);
	return -1;
}

int main(int argc, char **argv)
{
	struct session sess = { 0 };
	const char *release = NULL;
	struct kcatalog *kc;
	double t0;
	int c, rc = 2;

	sess.arena = arena_new();
	sess.err = stderr;
	while ((c = getopt(argc, argv, "+vr:h")) != -1) {
		if (c == 'v')
			sess.verbose++;
		else if (c == 'r')
			release = optarg;
		else
			goto usage;
	}
	if (optind >= argc)
		goto usage;
	session_set_kernel(&sess, release);
	t0 = now_ms();
	kc = kcat_open(&sess);
	if (kc) {
		rc = run(kc, argc - optind, argv + optind, now_ms() - t0);
		kcat_close(kc);
		if (rc < 0)
			goto usage;
	}
	arena_free(sess.arena);
	return rc;
usage:
	fputs(usage, stderr);
	arena_free(sess.arena);
	return 2;
}
