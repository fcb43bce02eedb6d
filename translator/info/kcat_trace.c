/*
 * kcat_trace.c - the tracepoint table for kernel.trace("SYS:NAME"). The
 * tracepoints that exist, and their argument types, are the BTF typedefs
 * btf_trace_NAME (void *, TP_PROTO...). BTF does not name the parameters of
 * a function-pointer type nor record the subsystem, so both come from the
 * kernel's trace headers (those that #define TRACE_SYSTEM, under include/
 * and arch/ARCH/include of the headers' source tree): their text, without
 * #include lines, is run through the C preprocessor with the kernel's
 * configuration and with TRACE_EVENT, DEFINE_EVENT, DECLARE_TRACE and their
 * variants defined to print "@@TP system name (TP_PROTO)" markers, so that
 * wrapper macros, token pasting and config conditionals work as in a kernel
 * build. The header results are cached with the size and mtime of every
 * header read. Without headers, the running kernel's tracefs
 * (events/SYSTEM/NAME) gives the systems. A tracepoint with no shipped
 * header gets the system "" (or tracefs's) and the parameter names of its
 * BTF function __traceiter_<name>, else of __bpf_trace_<its class> when that
 * is unambiguous, else arg1..argN.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include <bpf/btf.h>

#include "kcatalog.h"

#define CACHE_MAGIC "stap-kcatalog-tracepoints 3\n"

/* A tracepoint as a header declares it. */
struct hdr_tp {
	const char *system, *name;
	int nargs;
	const char **argv;
};

struct hdr_table {
	struct hdr_tp *v;
	size_t n, cap;
	struct strbuf stamps;	/* "H size mtime path" lines of what was read */
};

/* The macros of <linux/tracepoint.h> and <trace/trace_events.h> that make a
 * tracepoint, as markers; the others vanish. */
static const char prelude[] =
	"#define __STAP_TP(n, p) @@TP TRACE_SYSTEM n p @@END\n"
	"#define TRACE_EVENT(n, p, ...) __STAP_TP(n, p)\n"
	"#define TRACE_EVENT_FN(n, p, ...) __STAP_TP(n, p)\n"
	"#define TRACE_EVENT_FN_COND(n, p, ...) __STAP_TP(n, p)\n"
	"#define TRACE_EVENT_CONDITION(n, p, ...) __STAP_TP(n, p)\n"
	"#define DEFINE_EVENT(c, n, p, ...) __STAP_TP(n, p)\n"
	"#define DEFINE_EVENT_FN(c, n, p, ...) __STAP_TP(n, p)\n"
	"#define DEFINE_EVENT_PRINT(c, n, p, ...) __STAP_TP(n, p)\n"
	"#define DEFINE_EVENT_CONDITION(c, n, p, ...) __STAP_TP(n, p)\n"
	"#define DEFINE_EVENT_WRITABLE(c, n, p, ...) __STAP_TP(n, p)\n"
	"#define DECLARE_TRACE(n, p, ...) __STAP_TP(n, p)\n"
	"#define DECLARE_TRACE_CONDITION(n, p, ...) __STAP_TP(n, p)\n"
	"#define DECLARE_TRACE_WRITABLE(n, p, ...) __STAP_TP(n, p)\n"
	"#define DECLARE_EVENT_CLASS(...)\n"
	"#define DECLARE_EVENT_CLASS_NOP(...)\n"
	"#define TRACE_EVENT_NOP(...)\n"
	"#define DEFINE_EVENT_NOP(...)\n"
	"#define TRACE_EVENT_FLAGS(...)\n"
	"#define TRACE_EVENT_PERF_PERM(...)\n"
	"#define TRACE_DEFINE_ENUM(...)\n"
	"#define TRACE_DEFINE_SIZEOF(...)\n"
	"#define TP_PROTO(...) (__VA_ARGS__)\n"
	"#define PARAMS(...) __VA_ARGS__\n";

/* ---- where the headers are ------------------------------------------------ */

static bool has_trace_headers(struct session *s, const char *dir)
{
	return dir && path_exists(arena_printf(s->arena, "%s/include/trace/events",
					       dir));
}

/* Debian's build dir is a Makefile "include /usr/src/...-common/Makefile". */
static const char *makefile_include(struct session *s, const char *build)
{
	size_t len;
	char *mk = read_file(arena_printf(s->arena, "%s/Makefile", build), &len);
	const char *dir = NULL;

	for (const char *line = mk; line && *line && !dir;) {
		size_t n = strcspn(line, "\n");

		if (n > 17 && !strncmp(line, "include /", 9) &&
		    !strncmp(line + n - 9, "/Makefile", 9))
			dir = arena_strndup(s->arena, line + 8, n - 17);
		line += n + (line[n] == '\n');
	}
	free(mk);
	return dir;
}

/* The kernel source tree (or its -common headers) of the target. */
static const char *source_dir(struct session *s)
{
	const char *b = s->kernel_build_dir;
	const char *cands[] = {
		b ? arena_printf(s->arena, "%s/source", b) : NULL,
		b ? makefile_include(s, b) : NULL,
		arena_printf(s->arena, "/lib/modules/%s/source", s->kernel_release),
		b,
	};

	for (size_t i = 0; i < sizeof(cands) / sizeof(cands[0]); i++) {
		if (has_trace_headers(s, cands[i]))
			return cands[i];
	}
	return NULL;
}

/* The kernel's name for the architecture (arch/ARCH). */
static const char *src_arch(struct session *s)
{
	static const char *const map[][2] = {
		{ "x86_64", "x86" }, { "i686", "x86" }, { "i386", "x86" },
		{ "aarch64", "arm64" }, { "ppc64le", "powerpc" },
		{ "ppc64", "powerpc" }, { "s390x", "s390" },
		{ "riscv64", "riscv" }, { "mips64", "mips" },
	};
	struct utsname u;

	uname(&u);
	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++) {
		if (!strcmp(u.machine, map[i][0]))
			return map[i][1];
	}
	return arena_strdup(s->arena, u.machine);
}

/* ---- finding the trace headers -------------------------------------------- */

/* Has a line "#define TRACE_SYSTEM x" (not TRACE_SYSTEM_VAR etc.). */
static bool defines_trace_system(const char *text)
{
	for (const char *p = text; (p = strstr(p, "TRACE_SYSTEM")); p += 12) {
		const char *q = p;

		if (p[12] != ' ' && p[12] != '\t')
			continue;
		while (q > text && (q[-1] == ' ' || q[-1] == '\t'))
			q--;
		if (q - text < 6 || strncmp(q - 6, "define", 6))
			continue;
		q -= 6;
		while (q > text && (q[-1] == ' ' || q[-1] == '\t'))
			q--;
		if (q > text && q[-1] == '#')
			return true;
	}
	return false;
}

struct header_list {
	const char **v;
	size_t n, cap;
};

static void list_add(struct header_list *l, const char *path)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 64;
		l->v = realloc(l->v, sizeof(*l->v) * l->cap);
		if (!l->v)
			abort();
	}
	l->v[l->n++] = path;
}

static int by_string(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void consider_file(struct header_list *l, const char *path)
{
	size_t len = strlen(path);
	char *text;

	if (len < 3 || strcmp(path + len - 2, ".h"))
		return;
	/* include/trace/ itself is the machinery, not events */
	if (strstr(path, "/include/trace/") && !strstr(path, "/include/trace/events/"))
		return;
	text = read_file(path, &len);
	if (text && defines_trace_system(text))
		list_add(l, path);
	free(text);
}

/* A real directory (symbolic links are not followed into). */
static bool is_dir(const struct dirent *e, const char *path)
{
	struct stat st;

	if (e->d_type != DT_UNKNOWN)
		return e->d_type == DT_DIR;
	return lstat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static void walk(struct session *s, struct header_list *l, const char *dir,
		 int depth)
{
	DIR *d = depth < 16 ? opendir(dir) : NULL;
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d))) {
		const char *path;

		if (e->d_name[0] == '.')
			continue;
		path = arena_printf(s->arena, "%s/%s", dir, e->d_name);
		if (is_dir(e, path))
			walk(s, l, path, depth + 1);
		else
			consider_file(l, path);
	}
	closedir(d);
}

static void find_headers(struct session *s, const char *src,
			 struct header_list *l)
{
	walk(s, l, arena_printf(s->arena, "%s/include", src), 0);
	walk(s, l, arena_printf(s->arena, "%s/arch/%s/include", src, src_arch(s)), 0);
	if (l->n)
		qsort(l->v, l->n, sizeof(*l->v), by_string);
}

/* ---- running the preprocessor --------------------------------------------- */

/* A header's text with its #include lines blanked (their targets are the
 * whole kernel; only the header's own macros matter here). */
static void put_without_includes(struct strbuf *sb, const char *text)
{
	for (const char *line = text; *line;) {
		size_t n = strcspn(line, "\n");
		const char *p = line + strspn(line, " \t");

		if (*p == '#') {
			p += 1 + strspn(p + 1, " \t");
			if (!strncmp(p, "include", 7))
				n = 0;
		}
		sb_putn(sb, line, n);
		sb_putc(sb, '\n');
		line += strcspn(line, "\n");
		line += *line == '\n';
	}
}

static char *cpp_input_file(struct session *s, struct header_list *l)
{
	const char *tmp = getenv("TMPDIR");
	char *path = arena_printf(s->arena, "%s/stapkcatXXXXXX",
				  tmp && *tmp ? tmp : "/tmp");
	struct strbuf in;
	int fd = mkstemp(path), rc;

	if (fd < 0)
		return NULL;
	close(fd);
	sb_init(&in);
	sb_puts(&in, prelude);
	for (size_t i = 0; i < l->n; i++) {
		size_t len;
		char *text = read_file(l->v[i], &len);

		if (!text)
			continue;
		sb_printf(&in, "#undef TRACE_SYSTEM\n#line 1 \"%s\"\n", l->v[i]);
		put_without_includes(&in, text);
		free(text);
	}
	rc = write_file(path, in.buf, in.len);
	sb_free(&in);
	if (rc < 0) {
		unlink(path);
		return NULL;
	}
	return path;
}

/* Run argv with its stdout captured; NULL if it could not run. */
static char *capture(struct session *s, char *const argv[])
{
	struct strbuf out;
	int fds[2], status;
	char buf[65536];
	ssize_t got;
	pid_t pid;

	if (pipe(fds))
		return NULL;
	pid = fork();
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);

		dup2(null, 0);
		dup2(fds[1], 1);
		if (s->verbose < 3)
			dup2(null, 2);
		close(fds[0]);
		execvp(argv[0], argv);
		_exit(127);
	}
	close(fds[1]);
	if (pid < 0) {
		close(fds[0]);
		return NULL;
	}
	sb_init(&out);
	while ((got = read(fds[0], buf, sizeof(buf))) > 0 ||
	       (got < 0 && errno == EINTR))
		sb_putn(&out, buf, got > 0 ? (size_t)got : 0);
	close(fds[0]);
	waitpid(pid, &status, 0);
	if (!WIFEXITED(status) || WEXITSTATUS(status) == 127)
		sb_free(&out);
	return out.buf;
}

/* The kernel configuration as C macros: the build directory's, else the
 * installed release's, else the source tree's. */
static const char *autoconf_h(struct session *s, const char *src)
{
	const char *dirs[] = {
		s->kernel_build_dir ? s->kernel_build_dir : src,
		arena_printf(s->arena, "/lib/modules/%s/build", s->kernel_release),
		src,
	};
	const char *p = NULL;

	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		p = arena_printf(s->arena, "%s/include/generated/autoconf.h", dirs[i]);
		if (path_exists(p))
			break;
	}
	return p;
}

/* The preprocessed headers (errors in them are tolerated: the #if of a
 * stripped include's macro, an #error; what precedes and follows counts).
 * With the kernel configuration when there is one: <linux/kconfig.h>
 * includes <generated/autoconf.h>. */
static char *preprocess_headers(struct session *s, const char *src,
				struct header_list *l)
{
	const char *autoconf = autoconf_h(s, src);
	const char *kconfig = arena_printf(s->arena, "%s/include/linux/kconfig.h", src);
	size_t n = strlen(autoconf) - strlen("/generated/autoconf.h");
	bool config = path_exists(autoconf) && path_exists(kconfig);
	char *in = cpp_input_file(s, l), *out;
	char *argv[] = {
		"gcc", "-E", "-P", "-D__KERNEL__", "-DCREATE_TRACE_POINTS",
		"-x", "c", in,
		/* without a configuration, the list ends here */
		config ? arena_printf(s->arena, "-I%.*s", (int)n, autoconf) : NULL,
		"-include", (char *)kconfig, NULL
	};

	if (!in)
		return NULL;
	out = capture(s, argv);
	unlink(in);
	return out;
}

/* ---- reading the markers -------------------------------------------------- */

static bool is_ident(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '_';
}

static const char *ident(struct session *s, const char **pp)
{
	const char *p = *pp + strspn(*pp, " \t\n"), *b = p;

	while (is_ident(*p))
		p++;
	*pp = p;
	return p > b ? arena_strndup(s->arena, b, (size_t)(p - b)) : NULL;
}

/* The name a parameter declares: "struct file *file", "int (*fn)(void)",
 * "char name[16]"; NULL if it declares none. */
static const char *param_name(struct session *s, const char *b, const char *e)
{
	const char *fp = memmem(b, (size_t)(e - b), "(*", 2), *q;

	if (fp) {
		q = fp + 2;
		return ident(s, &q);
	}
	while (e > b && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\n'))
		e--;
	while (e > b && e[-1] == ']') {
		while (e > b && e[-1] != '[')
			e--;
		if (e > b)
			e--;
		while (e > b && (e[-1] == ' ' || e[-1] == '\t'))
			e--;
	}
	q = e;
	while (q > b && is_ident(q[-1]))
		q--;
	if (q == e || q == b || !strchr(" \t\n*)", q[-1]))
		return NULL;
	return arena_strndup(s->arena, q, (size_t)(e - q));
}

/* An empty or "void" parameter list. */
static bool no_params(const char *b, const char *e)
{
	b += strspn(b, " \t\n");
	while (e > b && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\n'))
		e--;
	return e == b || (e - b == 4 && !strncmp(b, "void", 4));
}

/* The names of a "(...)" parameter list at p; returns the end of it. */
static const char *param_names(struct session *s, const char *p,
			       struct hdr_tp *tp)
{
	const char *names[64], *start = ++p;
	int depth = 0, n = 0;

	for (; *p && (depth || *p != ')'); p++) {
		if (*p == '(' || *p == '[')
			depth++;
		else if (*p == ')' || *p == ']')
			depth--;
		else if (*p == ',' && !depth && n < 63) {
			names[n++] = param_name(s, start, p);
			start = p + 1;
		}
	}
	if (!*p || n >= 63)
		return NULL;
	if (n || !no_params(start, p))
		names[n++] = param_name(s, start, p);
	tp->nargs = n;
	tp->argv = arena_alloc(s->arena, sizeof(*tp->argv) * (size_t)(n + 1));
	memcpy(tp->argv, names, sizeof(*names) * (size_t)n);
	return p + 1;
}

static void table_add(struct hdr_table *t, struct hdr_tp *tp)
{
	if (t->n == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 256;
		t->v = realloc(t->v, sizeof(*t->v) * t->cap);
		if (!t->v)
			abort();
	}
	t->v[t->n++] = *tp;
}

static void read_markers(struct session *s, const char *out,
			 struct hdr_table *t)
{
	for (const char *p = out; p && (p = strstr(p, "@@TP "));) {
		struct hdr_tp tp = { 0 };

		p += 5;
		tp.system = ident(s, &p);
		tp.name = ident(s, &p);
		p += strspn(p, " \t\n");
		if (!tp.system || !tp.name || *p != '(')
			continue;
		p = param_names(s, p, &tp);
		if (!p)
			break;		/* unbalanced: the output is cut short */
		if (!strcmp(tp.system, "TRACE_SYSTEM"))
			tp.system = "";		/* used before its #define */
		table_add(t, &tp);
	}
}

/* ---- the header table, cached --------------------------------------------- */

/* "H size mtime path": what a cached table depends on. */
static void stamp(struct strbuf *sb, const char *path)
{
	struct stat st;

	if (stat(path, &st))
		sb_printf(sb, "H - - %s\n", path);
	else
		sb_printf(sb, "H %lld %lld.%09ld %s\n", (long long)st.st_size,
			  (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec, path);
}

/* A space-separated word of a cache line. */
static const char *word(struct session *s, const char **pp)
{
	const char *b = *pp + strspn(*pp, " "), *e = b + strcspn(b, " \n");

	*pp = e;
	return e > b ? arena_strndup(s->arena, b, (size_t)(e - b)) : NULL;
}

/* "T system name arg..." ("-" for an empty system or an unnamed arg). */
static void read_entry(struct session *s, const char *line, struct hdr_table *t)
{
	const char *names[64], *p = line + 1, *w;
	struct hdr_tp tp = { 0 };

	tp.system = word(s, &p);
	tp.name = word(s, &p);
	while (tp.nargs < 64 && (w = word(s, &p)))
		names[tp.nargs++] = strcmp(w, "-") ? w : NULL;
	if (!tp.system || !tp.name)
		return;
	if (!strcmp(tp.system, "-"))
		tp.system = "";
	tp.argv = arena_alloc(s->arena, sizeof(*names) * (size_t)(tp.nargs + 1));
	memcpy(tp.argv, names, sizeof(*names) * (size_t)tp.nargs);
	table_add(t, &tp);
}

/* Is the "H size mtime path" line (n bytes) still true? */
static bool stamp_holds(struct session *s, struct strbuf *now,
			const char *line, size_t n)
{
	const char *p = line;

	for (int i = 0; i < 3; i++) {
		p = memchr(p, ' ', (size_t)(line + n - p));
		if (!p)
			return false;
		p++;
	}
	now->len = 0;
	stamp(now, arena_strndup(s->arena, p, (size_t)(line + n - p)));
	return now->len == n + 1 && !strncmp(now->buf, line, n);
}

/* The cached table, if it was made from the same tree ("S src") and every
 * file it was made from is unchanged. */
static bool read_cache(struct session *s, const char *file, const char *src,
		       struct hdr_table *t)
{
	size_t len, n;
	char *text = read_file(file, &len);
	bool ok = text && !strncmp(text, CACHE_MAGIC, strlen(CACHE_MAGIC));
	struct strbuf now;

	sb_init(&now);
	for (const char *line = ok ? text + strlen(CACHE_MAGIC) : ""; ok && *line;
	     line += n + (line[n] == '\n')) {
		n = strcspn(line, "\n");
		if (*line == 'S')
			ok = n == strlen(src) + 2 && !strncmp(line + 2, src, n - 2);
		else if (*line == 'H')
			ok = stamp_holds(s, &now, line, n);
		else if (*line == 'T')
			read_entry(s, line, t);
	}
	sb_free(&now);
	free(text);
	if (!ok)
		t->n = 0;
	return ok && t->n;
}

static void write_cache(struct session *s, const char *file,
			const struct hdr_table *t)
{
	struct strbuf sb;

	sb_init(&sb);
	sb_puts(&sb, CACHE_MAGIC);
	sb_puts(&sb, t->stamps.buf ? t->stamps.buf : "");
	for (size_t i = 0; i < t->n; i++) {
		sb_printf(&sb, "T %s %s", *t->v[i].system ? t->v[i].system : "-",
			  t->v[i].name);
		for (int k = 0; k < t->v[i].nargs; k++)
			sb_printf(&sb, " %s", t->v[i].argv[k] ? t->v[i].argv[k] : "-");
		sb_putc(&sb, '\n');
	}
	if (kbtf_write_atomic(file, sb.buf, sb.len) && s->verbose > 1)
		fprintf(s->err, "kcatalog: cannot cache the tracepoints in %s: %s\n",
			file, strerror(errno));
	sb_free(&sb);
}

static void warn(struct session *s, const char *what, const char *where)
{
	if (!s->suppress_warnings)
		fprintf(s->err, "stap: warning: %s%s; kernel.trace() names have no subsystem\n",
			what, where);
}

/* ---- the running kernel's tracefs ----------------------------------------- */

static int by_name_then_system(const void *a, const void *b)
{
	const struct hdr_tp *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : strcmp(x->system, y->system);
}

/* The events of tracefs, events/SYSTEM/NAME, as a table of systems without
 * parameter names (nargs -1: name_args() takes the names from the BTF); the
 * running kernel's only, so a kernel without headers installed (this
 * project's BPF hosts) still has its kernel.trace("SYSTEM:NAME") names. */
static bool tracefs_table(struct session *s, struct hdr_table *t)
{
	static const char *const roots[] = { "/sys/kernel/tracing/events",
					     "/sys/kernel/debug/tracing/events" };
	struct utsname u;
	DIR *d = NULL;
	const char *root = NULL;
	struct dirent *e;

	if (uname(&u) || strcmp(u.release, s->kernel_release))
		return false;
	for (size_t i = 0; !d && i < sizeof(roots) / sizeof(roots[0]); i++)
		d = opendir(root = roots[i]);
	if (!d)
		return false;
	while ((e = readdir(d))) {
		const char *sys = arena_strdup(s->arena, e->d_name);
		const char *path = arena_printf(s->arena, "%s/%s", root, sys);
		struct dirent *ev;
		DIR *sd;

		if (sys[0] == '.' || !is_dir(e, path) || !(sd = opendir(path)))
			continue;
		while ((ev = readdir(sd))) {
			const char *evpath = arena_printf(s->arena, "%s/%s", path, ev->d_name);

			if (ev->d_name[0] != '.' && is_dir(ev, evpath))
				table_add(t, &(struct hdr_tp){
					.system = sys,
					.name = arena_strdup(s->arena, ev->d_name),
					.nargs = -1 });
		}
		closedir(sd);
	}
	closedir(d);
	if (t->n)	/* a name in two systems: the first system's, always */
		qsort(t->v, t->n, sizeof(*t->v), by_name_then_system);
	return t->n > 0;
}

/* Scan the headers (cached), else the running kernel's tracefs; false if
 * there are none to scan. */
static bool header_table(struct session *s, struct hdr_table *t)
{
	const char *src = source_dir(s), *dir = kbtf_cache_dir(s), *cache;
	struct header_list l = { 0 };
	char *out;

	if (!src) {
		if (tracefs_table(s, t))
			return true;
		warn(s, "no kernel trace headers (include/trace/events) for ",
		     s->kernel_release);
		return false;
	}
	cache = dir ? arena_printf(s->arena, "%s/tracepoints", dir) : NULL;
	if (cache && read_cache(s, cache, src, t))
		return true;
	find_headers(s, src, &l);
	sb_printf(&t->stamps, "S %s\n", src);
	for (size_t i = 0; i < l.n; i++)
		stamp(&t->stamps, l.v[i]);
	stamp(&t->stamps, autoconf_h(s, src));
	out = l.n ? preprocess_headers(s, src, &l) : NULL;
	free(l.v);
	if (out)
		read_markers(s, out, t);
	free(out);
	if (!t->n) {
		warn(s, "could not read the tracepoints of the trace headers in ", src);
		return false;
	}
	if (cache)
		write_cache(s, cache, t);
	return true;
}

/* ---- the tracepoints of the BTF ------------------------------------------- */

struct bpf_fn {
	const char *name;		/* after "__bpf_trace_" */
	const struct btf_type *proto;
};

struct merge {
	struct session *s;
	const struct btf *btf;
	struct hdr_table t;		/* sorted by name */
	struct bpf_fn *fns;		/* the __bpf_trace_<class> functions */
	size_t nfns;
	struct bpf_fn *iters;		/* the __traceiter_<name> ones, sorted */
	size_t niters;
};

static int hdr_by_name(const void *a, const void *b)
{
	return strcmp(((const struct hdr_tp *)a)->name,
		      ((const struct hdr_tp *)b)->name);
}

/* The header's tracepoint called name, preferring one with nargs args. */
static const struct hdr_tp *find_hdr(struct merge *m, const char *name,
				     int nargs)
{
	size_t lo = 0, hi = m->t.n;
	const struct hdr_tp *first = NULL;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(m->t.v[mid].name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < m->t.n && !strcmp(m->t.v[lo].name, name); lo++) {
		if (m->t.v[lo].nargs == nargs)
			return &m->t.v[lo];
		first = first ? first : &m->t.v[lo];
	}
	return first;
}

static bool same_params(const struct btf_type *a, const struct btf_type *b)
{
	int n = btf_vlen(a);

	if (n != btf_vlen(b))
		return false;
	for (int i = 0; i < n; i++) {
		if (btf_params(a)[i].type != btf_params(b)[i].type)
			return false;
	}
	return true;
}

static bool same_names(const struct btf *btf, const struct btf_type *a,
		       const struct btf_type *b)
{
	for (int i = 0; i < btf_vlen(a); i++) {
		if (strcmp(btf__name_by_offset(btf, btf_params(a)[i].name_off),
			   btf__name_by_offset(btf, btf_params(b)[i].name_off)))
			return false;
	}
	return true;
}

static int fn_by_name(const void *a, const void *b)
{
	return strcmp(((const struct bpf_fn *)a)->name, ((const struct bpf_fn *)b)->name);
}

/* The tracepoint's own __traceiter_NAME(void *__data, TP_PROTO), which
 * names the parameters as its declaration does, if of the same types. */
static const struct btf_type *iter_proto(struct merge *m, const char *name,
					 const struct btf_type *proto)
{
	const struct bpf_fn key = { name, NULL };
	const struct bpf_fn *f = m->niters ? bsearch(&key, m->iters, m->niters,
						     sizeof(key), fn_by_name) : NULL;

	return f && same_params(proto, f->proto) ? f->proto : NULL;
}

/* The __bpf_trace_ function of the tracepoint's class: the one named after
 * it, else the only parameter-name list among those of the same types. */
static const struct btf_type *class_proto(struct merge *m, const char *name,
					  const struct btf_type *proto)
{
	const struct btf_type *found = NULL;

	for (size_t i = 0; i < m->nfns; i++) {
		if (!strcmp(m->fns[i].name, name) && same_params(proto, m->fns[i].proto))
			return m->fns[i].proto;
	}
	for (size_t i = 0; i < m->nfns; i++) {
		if (!same_params(proto, m->fns[i].proto))
			continue;
		if (found && !same_names(m->btf, found, m->fns[i].proto))
			return NULL;
		found = m->fns[i].proto;
	}
	return found;
}

static void name_args(struct merge *m, struct kcat_tracepoint *tp,
		      struct kcat_arg *args, const struct btf_type *proto)
{
	const struct hdr_tp *h = find_hdr(m, tp->name, tp->nargs);
	const struct btf_type *cls = NULL;

	tp->system = h ? h->system : "";
	if (!h || h->nargs != tp->nargs)
		cls = iter_proto(m, tp->name, proto);
	if ((!h || h->nargs != tp->nargs) && !cls)
		cls = class_proto(m, tp->name, proto);
	for (int k = 0; k < tp->nargs; k++) {
		const char *name = NULL;

		if (h && h->nargs == tp->nargs)
			name = h->argv[k];
		else if (cls)
			name = btf__name_by_offset(m->btf, btf_params(cls)[k + 1].name_off);
		args[k].name = name && *name ? name :
			arena_printf(m->s->arena, "arg%d", k + 1);
	}
}

/* A tracepoint from its typedef: void (*btf_trace_NAME)(void *, args...). */
static struct kcat_tracepoint *make_tp(struct merge *m, const char *name,
				       const struct btf_type *td)
{
	const struct btf_type *ptr = btf__type_by_id(m->btf, td->type), *proto;
	struct kcat_tracepoint *tp;
	struct kcat_arg *args;

	if (!ptr || !btf_is_ptr(ptr))
		return NULL;
	proto = btf__type_by_id(m->btf, ptr->type);
	if (!proto || !btf_is_func_proto(proto) || btf_vlen(proto) < 1)
		return NULL;
	tp = arena_alloc(m->s->arena, sizeof(*tp));
	tp->name = name;
	tp->nargs = btf_vlen(proto) - 1;
	args = arena_alloc(m->s->arena, sizeof(*args) * (size_t)(tp->nargs + 1));
	for (int k = 0; k < tp->nargs; k++) {
		args[k].type = kbtf_type_name(m->s, m->btf, btf_params(proto)[k + 1].type);
		args[k].btf = m->btf;
		args[k].type_id = btf_params(proto)[k + 1].type;
	}
	name_args(m, tp, args, proto);
	tp->args = args;
	return tp;
}

static void fn_add(struct bpf_fn **v, size_t *n, size_t *cap, struct bpf_fn f)
{
	if (*n == *cap) {
		*cap = *cap ? *cap * 2 : 1024;
		*v = realloc(*v, sizeof(**v) * *cap);
		if (!*v)
			abort();
	}
	(*v)[(*n)++] = f;
}

/* The functions __bpf_trace_<class> and __traceiter_<name> (since 5.10). */
static void collect_bpf_fns(struct merge *m)
{
	__u32 n = btf__type_cnt(m->btf);
	size_t fcap = 0, icap = 0;

	for (__u32 i = 1; i < n; i++) {
		const struct btf_type *t = btf__type_by_id(m->btf, i);
		const char *name = btf__name_by_offset(m->btf, t->name_off);

		if (!btf_is_func(t))
			continue;
		if (!strncmp(name, "__bpf_trace_", 12))
			fn_add(&m->fns, &m->nfns, &fcap, (struct bpf_fn){
				name + 12, btf__type_by_id(m->btf, t->type) });
		else if (!strncmp(name, "__traceiter_", 12))
			fn_add(&m->iters, &m->niters, &icap, (struct bpf_fn){
				name + 12, btf__type_by_id(m->btf, t->type) });
	}
	if (m->niters)
		qsort(m->iters, m->niters, sizeof(*m->iters), fn_by_name);
}

static int by_system_then_name(const void *a, const void *b)
{
	const struct kcat_tracepoint *x = *(const struct kcat_tracepoint *const *)a;
	const struct kcat_tracepoint *y = *(const struct kcat_tracepoint *const *)b;
	int c = strcmp(x->system, y->system);

	return c ? c : strcmp(x->name, y->name);
}

/* The malloc'd vector v moved into the arena. */
static struct kcat_tracepoint **arena_vector(struct session *s,
					     struct kcat_tracepoint **v,
					     size_t n)
{
	struct kcat_tracepoint **out = arena_alloc(s->arena, sizeof(*out) * (n + 1));

	if (n)
		memcpy(out, v, sizeof(*out) * n);
	free(v);
	return out;
}

struct kcat_tracepoint **ktrace_load(struct session *s, const struct btf *btf,
				     size_t *n)
{
	struct merge m = { .s = s, .btf = btf };
	__u32 ntypes = btf__type_cnt(btf);
	struct kcat_tracepoint **v = NULL, *tp;
	size_t cap = 0;

	sb_init(&m.t.stamps);
	if (header_table(s, &m.t))
		qsort(m.t.v, m.t.n, sizeof(*m.t.v), hdr_by_name);
	collect_bpf_fns(&m);
	*n = 0;
	for (__u32 i = 1; i < ntypes; i++) {
		const struct btf_type *t = btf__type_by_id(btf, i);
		const char *name = btf__name_by_offset(btf, t->name_off);

		if (!btf_is_typedef(t) || strncmp(name, "btf_trace_", 10) ||
		    !(tp = make_tp(&m, name + 10, t)))
			continue;
		if (*n == cap) {
			cap = cap ? cap * 2 : 1024;
			v = realloc(v, sizeof(*v) * cap);
			if (!v)
				abort();
		}
		v[(*n)++] = tp;
	}
	if (*n)
		qsort(v, *n, sizeof(*v), by_system_then_name);
	free(m.t.v);
	free(m.fns);
	free(m.iters);
	sb_free(&m.t.stamps);
	return arena_vector(s, v, *n);
}
