/*
 * util.c - growable string buffers, string interning, and small host
 * helpers (files, paths, clocks, the session's kernel release and
 * temporary directory) used by every pass.
 */
#include <errno.h>
#include <grp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "stap.h"

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n);
	if (!p) {
		fputs("stap: out of memory\n", stderr);
		abort();
	}
	return p;
}

void sb_init(struct strbuf *sb)
{
	sb->buf = NULL;
	sb->len = sb->cap = 0;
}

void sb_free(struct strbuf *sb)
{
	free(sb->buf);
	sb_init(sb);
}

static void sb_grow(struct strbuf *sb, size_t n)
{
	if (sb->len + n + 1 <= sb->cap)
		return;
	sb->cap = (sb->len + n + 1) * 2;
	sb->buf = xrealloc(sb->buf, sb->cap);
}

void sb_putn(struct strbuf *sb, const char *s, size_t n)
{
	sb_grow(sb, n);
	memcpy(sb->buf + sb->len, s, n);
	sb->len += n;
	sb->buf[sb->len] = '\0';
}

void sb_putc(struct strbuf *sb, char c)
{
	sb_putn(sb, &c, 1);
}

void sb_puts(struct strbuf *sb, const char *s)
{
	sb_putn(sb, s, strlen(s));
}

void sb_printf(struct strbuf *sb, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	sb_grow(sb, (size_t)n);
	va_start(ap, fmt);
	vsnprintf(sb->buf + sb->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	sb->len += (size_t)n;
}

/* Write s as a C string literal; octal escapes keep every byte exact. */
void sb_c_string(struct strbuf *sb, const char *s)
{
	sb_putc(sb, '"');
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			sb_printf(sb, "\\%c", c);
		else if (c == '\n')
			sb_puts(sb, "\\n");
		else if (c < 32 || c >= 127 || c == '?')
			sb_printf(sb, "\\%03o", c);
		else
			sb_putc(sb, (char)c);
	}
	sb_putc(sb, '"');
}

/* ---- interning: one copy of each identifier, compared by pointer ---- */
struct intern_table {
	const char **slots;
	size_t cap, n;
};

static size_t hash_bytes(const char *p, size_t n)
{
	size_t h = 1469598103934665603ull;

	while (n--)
		h = (h ^ (unsigned char)*p++) * 1099511628211ull;
	return h;
}

static void intern_grow(struct intern_table *t)
{
	size_t cap = t->cap ? t->cap * 2 : 1024, i;
	const char **slots = calloc(cap, sizeof(*slots));

	if (!slots)
		abort();
	for (i = 0; i < t->cap; i++) {
		const char *p = t->slots[i];
		size_t j;

		if (!p)
			continue;
		j = hash_bytes(p, strlen(p)) & (cap - 1);
		while (slots[j])
			j = (j + 1) & (cap - 1);
		slots[j] = p;
	}
	free(t->slots);
	t->slots = slots;
	t->cap = cap;
}

const char *intern(struct session *s, const char *p, size_t n)
{
	struct intern_table *t = s->interns;
	size_t j;

	if (!t)
		t = s->interns = arena_alloc(s->arena, sizeof(*t));
	if ((t->n + 1) * 2 > t->cap)
		intern_grow(t);
	j = hash_bytes(p, n) & (t->cap - 1);
	for (; t->slots[j]; j = (j + 1) & (t->cap - 1)) {
		if (strncmp(t->slots[j], p, n) == 0 && t->slots[j][n] == '\0')
			return t->slots[j];
	}
	t->slots[j] = arena_strndup(s->arena, p, n);
	t->n++;
	return t->slots[j];
}

void intern_free(struct session *s)
{
	if (s->interns)
		free(s->interns->slots);
}

/* ---- files and paths ---- */
char *read_stream(FILE *f, size_t *len)
{
	struct strbuf sb;
	char buf[65536];
	size_t n;

	sb_init(&sb);
	sb_grow(&sb, 0);
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		sb_putn(&sb, buf, n);
	if (ferror(f)) {
		sb_free(&sb);
		return NULL;
	}
	*len = sb.len;
	return sb.buf;
}

char *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *p;

	if (!f)
		return NULL;
	p = read_stream(f, len);
	fclose(f);
	return p;
}

int write_file(const char *path, const char *data, size_t len)
{
	FILE *f = fopen(path, "wb");
	int rc;

	if (!f)
		return -1;
	rc = fwrite(data, 1, len, f) == len ? 0 : -1;
	if (fclose(f) != 0)
		rc = -1;
	return rc;
}

bool path_exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

char *self_dir(struct arena *a)
{
	char buf[4096];
	ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
	char *slash;

	if (n <= 0)
		return arena_strdup(a, ".");
	buf[n] = '\0';
	slash = strrchr(buf, '/');
	if (slash)
		*slash = '\0';
	return arena_strdup(a, buf);
}

double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000.0 + ts.tv_nsec / 1e6;
}

/* The release of a kernel build tree: UTS_RELEASE of its
 * include/generated/utsrelease.h (what its modules' vermagic and the
 * distribution's /boot and /lib/modules names use; Debian's
 * include/config/kernel.release holds the upstream version instead),
 * else include/config/kernel.release; NULL when neither is readable. */
static const char *tree_release(struct session *s, const char *dir)
{
	size_t len;
	char *text = read_file(arena_printf(s->arena, "%s/include/generated/utsrelease.h", dir),
			       &len);
	const char *q = text ? strstr(text, "UTS_RELEASE \"") : NULL, *r = NULL;

	if (q) {
		q += strlen("UTS_RELEASE \"");
		r = arena_strndup(s->arena, q, strcspn(q, "\"\n"));
	}
	free(text);
	if (r && *r)
		return r;
	text = read_file(arena_printf(s->arena, "%s/include/config/kernel.release", dir), &len);
	r = text ? arena_strndup(s->arena, text, strcspn(text, "\n")) : NULL;
	free(text);
	return r;
}

/* -r KVER or -r DIR (a build tree), or the running kernel when r is
 * NULL: s->kernel_release and s->kernel_build_dir. */
void session_set_kernel(struct session *s, const char *r)
{
	struct utsname u;
	const char *rel;

	if (!r) {
		uname(&u);
		r = arena_strdup(s->arena, u.release);
	}
	if (r[0] != '/') {
		s->kernel_release = r;
		s->kernel_build_dir = arena_printf(s->arena, "/lib/modules/%s/build", r);
		return;
	}
	rel = tree_release(s, r);
	s->kernel_build_dir = r;
	s->kernel_release = rel ? rel : r;
}

/* the session's temporary directory, made once (pass 2 may need it for
 * the types of user headers) */
int session_tmpdir(struct session *s)
{
	const char *base = s->tmpdir_base ? s->tmpdir_base :
			   getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	char *t = arena_printf(s->arena, "%s/stapXXXXXX", base);

	if (s->tmpdir)
		return 0;
	if (!mkdtemp(t)) {
		diag_plain(s, "cannot create a temporary directory in %s: %s", base,
			   strerror(errno));
		return 1;
	}
	s->tmpdir = t;
	return 0;
}

const char *privilege_name(int privilege)
{
	return privilege == PR_STAPUSR ? "stapusr" :
	       privilege == PR_STAPSYS ? "stapsys" : "stapdev";
}

bool in_group(const char *name)
{
	const struct group *g = getgrnam(name);
	gid_t groups[256];
	int n;

	if (!g)
		return false;
	if (getgid() == g->gr_gid)
		return true;
	n = getgroups(256, groups);
	for (int i = 0; i < n; i++)
		if (groups[i] == g->gr_gid)
			return true;
	return false;
}

/* The Levenshtein distance of two names (99 when one is over 60 long). */
int edit_distance(const char *a, const char *b)
{
	int la = (int)strlen(a), lb = (int)strlen(b), row[64], i, j;

	if (la > 60 || lb > 60)
		return 99;
	for (j = 0; j <= lb; j++)
		row[j] = j;
	for (i = 1; i <= la; i++) {
		int prev = row[0], cur;

		row[0] = i;
		for (j = 1; j <= lb; j++) {
			cur = row[j];
			row[j] = a[i - 1] == b[j - 1] ? prev :
				 1 + (prev < row[j] ? (prev < row[j - 1] ? prev : row[j - 1]) :
				      (row[j] < row[j - 1] ? row[j] : row[j - 1]));
			prev = cur;
		}
	}
	return row[lb];
}

/*
 * Start a search for the name nearest to `want`. A candidate must be
 * nearer than `limit` edits; limit < 0 takes the usual bound: half the
 * name's letters (at least 2), and never all of them.
 */
void nearest_init(struct nearest *n, const char *want, int limit)
{
	int len = (int)strlen(want);

	n->want = want;
	n->best = NULL;
	if (limit < 0) {
		limit = (len / 2 > 2 ? len / 2 : 2) + 1;
		if (limit > len)
			limit = len;
	}
	n->best_d = limit;
}

/* Offer one candidate: kept when nearer than every one before it. */
void nearest_offer(struct nearest *n, const char *cand)
{
	int d = edit_distance(n->want, cand);

	if (d < n->best_d) {
		n->best_d = d;
		n->best = cand;
	}
}

bool session_child_poll(struct session *s, int *rc)
{
	struct session_child *c = &s->child;
	int status;

	if (c->pid <= 0 || waitpid(c->pid, &status, WNOHANG) != c->pid)
		return true;
	c->pid = 0;
	if (WIFEXITED(status) && !WEXITSTATUS(status))
		return true;
	for (size_t i = 0; i < sizeof(c->made) / sizeof(c->made[0]); i++)
		if (c->made[i])
			unlink(c->made[i]);
	if (WIFEXITED(status))
		diag_plain(s, "%s exited with status %d after writing its output",
			   c->name ? c->name : "a child process", WEXITSTATUS(status));
	else
		diag_plain(s, "%s was killed by signal %d (%s) after writing its output",
			   c->name ? c->name : "a child process", WTERMSIG(status),
			   strsignal(WTERMSIG(status)));
	*rc = 1;
	return false;
}

void session_child_stop(struct session *s)
{
	struct session_child *c = &s->child;

	if (!c->pid)
		return;
	if (c->in >= 0)
		close(c->in);
	if (c->out >= 0)
		close(c->out);
	c->in = c->out = -1;
	if (c->pid > 0) {
		kill(c->pid, SIGKILL);
		while (waitpid(c->pid, NULL, 0) < 0 && errno == EINTR)
			;
	}
	c->pid = 0;
}
