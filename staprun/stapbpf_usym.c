/*
 * stapbpf_usym.c - the BPF loader's user symbols: what runtime/ustack.c
 * does in the kernel, done here from the addresses and pid a BPF program
 * captured (translator/bpf/bpf_usym.c). The symbol tables are those the
 * module would carry (`-d`, `--ldd`, the probed binaries; metadata lines
 * "umod K SIZE DYN END PATH(hex)" and "usym K ADDR NAME", sorted by
 * address); the mappings are the process's /proc/PID/maps, read when one
 * of its addresses is first named (for a string, when the program made
 * it: a REC_UPID record) and again when an address falls outside them (a
 * process that is gone keeps those read: an address never read is
 * printed as one where nothing is mapped). An object is
 * one of the tables when its file's name and size are the table's, as
 * the module runtime matches them; a frame in another object ends a
 * backtrace with 4.8's warning, once per path (and "kernel" once for a
 * backtrace taken without user registers, in a kernel probe). Hex numbers are written
 * as the kernel's "%#lx" writes them ("0x0" for zero).
 */
#include <ctype.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "stapbpf_usym.h"

#define MAXBT 20

struct stapbpf_umod {
	char *path;		/* canonical, as printed */
	const char *name;	/* its last component */
	uint64_t size, end;	/* the file's size; the end of the last symbol */
	int dyn;		/* ET_DYN: addresses relative to its base */
	uint64_t *addr;		/* link-time, sorted */
	char **sym;
	size_t n, cap;
};

struct umap {
	uint64_t start, end, off;
	char *path;		/* NULL: anonymous (and [heap] ...) */
	bool heap;
	int mod;		/* its table, -1: none */
};

struct stapbpf_upid {
	int pid;
	bool fresh;		/* started in the session: bss counted */
	struct umap *m;
	size_t n;
	struct stapbpf_upid *next;
};

/* what is at one address, as ustack.c's struct stp_uloc */
struct uloc {
	int mod;
	bool mapped;
	uint64_t pc, vaddr, base, size;
	const char *path;
};

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n);
	if (!p) {
		perror("stapbpf");
		abort();
	}
	return p;
}

static char *xstrdup(const char *s)
{
	return strcpy(xrealloc(NULL, strlen(s) + 1), s);
}

bool stapbpf_usyms_meta(struct stapbpf_usyms *U, const char *line)
{
	unsigned long long size, end, addr;
	int k, dyn, n = 0;

	if (sscanf(line, "umod %d %llx %d %llx %n", &k, &size, &dyn, &end, &n) == 4 && n &&
	    k == U->nmods) {
		struct stapbpf_umod *m;
		size_t len = strlen(line + n) / 2;
		const char *slash;

		U->mods = xrealloc(U->mods, (size_t)(k + 1) * sizeof(*U->mods));
		m = memset(&U->mods[U->nmods++], 0, sizeof(*m));
		m->path = xrealloc(NULL, len + 1);
		for (size_t i = 0; i < len; i++) {
			unsigned int b;

			sscanf(line + n + 2 * i, "%2x", &b);
			m->path[i] = (char)b;
		}
		m->path[len] = 0;
		slash = strrchr(m->path, '/');
		m->name = slash ? slash + 1 : m->path;
		m->size = size;
		m->end = end;
		m->dyn = dyn;
		return true;
	}
	if (sscanf(line, "usym %d %llx %n", &k, &addr, &n) == 2 && n && k >= 0 && k < U->nmods) {
		struct stapbpf_umod *m = &U->mods[k];

		if (m->n == m->cap) {
			m->cap = m->cap ? 2 * m->cap : 256;
			m->addr = xrealloc(m->addr, m->cap * sizeof(*m->addr));
			m->sym = xrealloc(m->sym, m->cap * sizeof(*m->sym));
		}
		m->addr[m->n] = addr;
		m->sym[m->n++] = xstrdup(line + n);
		return true;
	}
	return false;
}

/* field 22 of /proc/PID/stat: the start time in clock ticks, 0 unknown */
static unsigned long long start_time(const char *pid)
{
	char path[64], buf[1024], *p;
	unsigned long long t = 0;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%s/stat", pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	p = strrchr(buf, ')');	/* past the command's name */
	if (p && sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d "
			"%*d %*d %*d %*d %llu", &t) != 1)
		t = 0;
	return t;
}

void stapbpf_usyms_start(struct stapbpf_usyms *U, int target, bool fresh)
{
	U->target = target;
	U->target_fresh = fresh;
	U->t0 = start_time("self");
}

static int find_mod(struct stapbpf_usyms *U, const char *path)
{
	const char *slash = strrchr(path, '/');
	struct stat st;

	if (stat(path, &st))
		return -1;
	for (int i = 0; i < U->nmods; i++)
		if (!strcmp(U->mods[i].name, slash ? slash + 1 : path) &&
		    (uint64_t)st.st_size == U->mods[i].size)
			return i;
	return -1;
}

static void free_maps(struct stapbpf_upid *p)
{
	for (size_t i = 0; i < p->n; i++)
		free(p->m[i].path);
	free(p->m);
	p->m = NULL;
	p->n = 0;
}

/* read pid's mappings into p; false: the process is gone */
static bool read_maps(struct stapbpf_usyms *U, struct stapbpf_upid *p)
{
	char path[64], line[4608], pid[16];
	FILE *f;
	size_t cap = 0;

	snprintf(pid, sizeof(pid), "%d", p->pid);
	snprintf(path, sizeof(path), "/proc/%d/maps", p->pid);
	f = fopen(path, "r");
	if (!f)
		return false;
	free_maps(p);
	p->fresh = p->pid == U->target ? U->target_fresh : start_time(pid) > U->t0;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long s, e, off;
		int n = 0;
		struct umap *m;
		char *name;

		if (sscanf(line, "%llx-%llx %*s %llx %*s %*u %n", &s, &e, &off, &n) != 3 || !n)
			continue;
		name = line + n;
		name[strcspn(name, "\n")] = 0;
		if (p->n == cap) {
			cap = cap ? 2 * cap : 64;
			p->m = xrealloc(p->m, cap * sizeof(*p->m));
		}
		m = &p->m[p->n++];
		*m = (struct umap){ s, e, off, NULL, !strcmp(name, "[heap]"), -1 };
		if (*name == '/') {
			m->path = xstrdup(name);
			m->mod = find_mod(U, name);
		}
	}
	fclose(f);
	return true;
}

static const struct umap *find_map(const struct stapbpf_upid *p, uint64_t pc)
{
	for (size_t i = 0; i < p->n; i++)
		if (p->m[i].start <= pc && pc < p->m[i].end)
			return &p->m[i];
	return NULL;
}

/* the mapping holding pc in pid, its maps read or read again */
static const struct umap *lookup(struct stapbpf_usyms *U, int pid, uint64_t pc,
				 const struct stapbpf_upid **out)
{
	struct stapbpf_upid *p;

	for (p = U->pids; p && p->pid != pid; p = p->next)
		;
	if (!p) {
		p = xrealloc(NULL, sizeof(*p));
		*p = (struct stapbpf_upid){ .pid = pid, .next = U->pids };
		U->pids = p;
		read_maps(U, p);
	} else if (!find_map(p, pc)) {
		read_maps(U, p);
	}
	*out = p;
	return find_map(p, pc);
}

void stapbpf_usyms_seen(struct stapbpf_usyms *U, int pid)
{
	const struct stapbpf_upid *p;

	for (p = U->pids; p && p->pid != pid; p = p->next)
		;
	if (!p)
		lookup(U, pid, 0, &p);
}

static void locate(struct stapbpf_usyms *U, int pid, uint64_t pc, struct uloc *u)
{
	const struct stapbpf_upid *p;
	const struct umap *m = lookup(U, pid, pc, &p);
	uint64_t start = UINT64_MAX, end = 0, base = UINT64_MAX;

	*u = (struct uloc){ .mod = -1, .pc = pc, .vaddr = pc };
	if (!m || !m->path)
		return;
	u->mapped = true;
	u->path = m->path;
	for (size_t i = 0; i < p->n; i++) {	/* the file's extent: ustack.c's */
		const struct umap *v = &p->m[i];

		if (v->path && !strcmp(v->path, m->path)) {
			start = v->start < start ? v->start : start;
			end = v->end > end ? v->end : end;
			if (!v->off && base == UINT64_MAX)
				base = v->start;
		} else if (end && v->start == end && !v->path && !v->heap && p->fresh) {
			end = v->end;
		}
	}
	u->base = base == UINT64_MAX ? start : base;
	u->size = end - u->base;
	if (m->mod >= 0) {
		u->mod = m->mod;
		u->path = U->mods[m->mod].path;
		u->vaddr = U->mods[m->mod].dyn ? pc - u->base : pc;
	}
}

static bool sym_of(struct stapbpf_usyms *U, const struct uloc *u, const char **name,
		   uint64_t *off, uint64_t *size)
{
	const struct stapbpf_umod *m;
	size_t lo = 0, hi;
	uint64_t end;

	if (u->mod < 0)
		return false;
	m = &U->mods[u->mod];
	hi = m->n;
	if (!hi || u->vaddr < m->addr[0])
		return false;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->addr[mid] <= u->vaddr)
			lo = mid;
		else
			hi = mid;
	}
	end = lo + 1 < m->n ? m->addr[lo + 1] : m->end;
	if (u->vaddr >= end)
		return false;
	*name = m->sym[lo];
	*off = u->vaddr - m->addr[lo];
	*size = end - m->addr[lo];
	return true;
}

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');

	return s ? s + 1 : p;
}

enum { FULL, BRIEF, SIMPLE };

/* one frame as ustack.c's stp_uloc_format() writes it */
static void frame(struct stapbpf_usyms *U, const struct uloc *u, int fmt, char *buf, size_t len)
{
	const char *name;
	uint64_t off, size;
	bool sym = sym_of(U, u, &name, &off, &size);

	if (fmt == FULL && sym)
		snprintf(buf, len, " 0x%" PRIx64 " : %s+0x%" PRIx64 "/0x%" PRIx64 " [%s]\n", u->pc,
			 name, off, size, u->path);
	else if (fmt == FULL && u->mapped)
		snprintf(buf, len, " 0x%" PRIx64 " [%s+0x%" PRIx64 "/0x%" PRIx64 "]\n", u->pc,
			 u->path, u->pc - u->base, u->size);
	else if (fmt == FULL)
		snprintf(buf, len, " 0x%" PRIx64 "\n", u->pc);
	else if (fmt == BRIEF && sym)
		snprintf(buf, len, "%s+0x%" PRIx64 "\n", name, off);
	else if (sym)
		snprintf(buf, len, "%s+0x%" PRIx64 " [%s]\n", name, off, base_name(u->path));
	else if (fmt == SIMPLE && u->mapped)
		snprintf(buf, len, "0x%" PRIx64 " [%s+0x%" PRIx64 "]\n", u->pc, base_name(u->path),
			 u->pc - u->base);
	else
		snprintf(buf, len, "0x%" PRIx64 "\n", u->pc);
}

/* 4.8's warning for a frame in an object without tables, once a path */
static void warn_once(struct stapbpf_usyms *U, FILE *out, const char *path)
{
	for (int i = 0; i < U->nwarned; i++)
		if (!strcmp(U->warned[i], path))
			return;
	U->warned = xrealloc(U->warned, (size_t)(U->nwarned + 1) * sizeof(*U->warned));
	U->warned[U->nwarned++] = xstrdup(path);
	fflush(out);
	fprintf(stderr, "WARNING: Missing unwind data for a module, rerun with 'stap -d %s'\n",
		path);
}

/* the frames of a backtrace in format fmt, appended to buf (cap bytes) or
 * printed to out; the first frame in an object without tables ends it */
static void frames(struct stapbpf_usyms *U, FILE *out, int pid, int fmt, const uint64_t *a,
		   size_t n, char *buf, size_t cap)
{
	char line[4608];

	for (size_t i = 0; i < n && i < MAXBT; i++) {
		struct uloc u;

		locate(U, pid, a[i], &u);
		frame(U, &u, fmt, line, sizeof(line));
		if (buf)
			strncat(buf, line, cap - 1 - strlen(buf));
		else
			fputs(line, out);
		if (u.mod < 0) {
			if (u.mapped)
				warn_once(U, out, u.path);
			break;
		}
	}
}

void stapbpf_print_ubt(struct stapbpf_usyms *U, FILE *out, int pid, int fmt,
		       const uint64_t *a, size_t n)
{
	if ((fmt & 2) && n)	/* a user task (a kernel thread has none) */
		warn_once(U, out, "kernel");
	frames(U, out, pid, fmt & 1 ? BRIEF : FULL, a, n, NULL, 0);
}

/* usymdata(): as ustack.c's stp_usymdata() */
static void usymdata(struct stapbpf_usyms *U, int pid, uint64_t addr, char *buf, size_t len)
{
	struct uloc u;
	const char *name;
	uint64_t off, size;

	locate(U, pid, addr, &u);
	if (sym_of(U, &u, &name, &off, &size))
		snprintf(buf, len, "%s+0x%" PRIx64 "/0x%" PRIx64 " [%s]", name, off, size, u.path);
	else if (u.mapped)
		snprintf(buf, len, "0x%" PRIx64 " [%s+0x%" PRIx64 "/0x%" PRIx64 "]", addr, u.path,
			 addr - u.base, u.size);
	else
		snprintf(buf, len, "0x%" PRIx64, addr);
}

/* a hex number, "0x" optional, to its first other character: ustack.c's
 * stp_hex_value() */
static uint64_t hex_value(const char *t)
{
	uint64_t v = 0;

	if (t[0] == '0' && (t[1] == 'x' || t[1] == 'X'))
		t += 2;
	for (; isxdigit((unsigned char)*t); t++)
		v = v << 4 | (uint64_t)(isdigit((unsigned char)*t) ? *t - '0' :
					tolower((unsigned char)*t) - 'a' + 10);
	return v;
}

/* print_usyms()/sprint_usyms(): a line " TOKEN : usymdata(TOKEN)" per
 * token of callers (each kept to 39 bytes); into buf (cap MAXSTRINGLEN)
 * it stops before a line that passes MAXSTRINGLEN, as ustack.c's */
static void usyms_lines(struct stapbpf_usyms *U, FILE *out, int pid, const char *callers,
			char *buf, size_t cap)
{
	char tok[40], data[4608], line[4800];
	size_t total = 0;

	while (*callers) {
		size_t n = 0;

		while (*callers == ' ')
			callers++;
		if (!*callers)
			break;
		for (; *callers && *callers != ' '; callers++)
			if (n + 1 < sizeof(tok))
				tok[n++] = *callers;
		tok[n] = 0;
		usymdata(U, pid, hex_value(tok), data, sizeof(data));
		snprintf(line, sizeof(line), " %s : %s\n", tok, data);
		if (!buf) {
			fputs(line, out);
			continue;
		}
		total += strlen(line);
		if (total > cap)
			break;
		strncat(buf, line, cap - 1 - strlen(buf));
	}
}

void stapbpf_print_usyms(struct stapbpf_usyms *U, FILE *out, int pid, const char *callers)
{
	usyms_lines(U, out, pid, callers, NULL, 0);
}

/* one marker's text (kind k, pid, what) into buf (cap MAXSTRINGLEN) */
static void marker_text(struct stapbpf_usyms *U, char k, int pid, const char *what,
			char *buf, size_t cap)
{
	uint64_t a[MAXBT];
	size_t n = 0;
	struct uloc u;
	const char *name;
	uint64_t off, size;

	buf[0] = 0;
	switch (k) {
	case 'n':
		locate(U, pid, hex_value(what), &u);
		if (sym_of(U, &u, &name, &off, &size))
			snprintf(buf, cap, "%s", name);
		else
			snprintf(buf, cap, "0x%" PRIx64, u.pc);
		break;
	case 'd':
		usymdata(U, pid, hex_value(what), buf, cap);
		break;
	case 'm':
		locate(U, pid, hex_value(what), &u);
		snprintf(buf, cap, "%s", u.mapped ? u.path : "");
		break;
	case 'B':	/* no user registers: unwound from the task's */
		warn_once(U, stdout, "kernel");
		/* fall through */
	case 'b':
		for (const char *p = what; *p && n < MAXBT; ) {
			char *e;

			a[n] = strtoull(p, &e, 16);
			if (e == p)
				break;
			n++;
			p = e;
		}
		frames(U, stdout, pid, SIMPLE, a, n, buf, cap);
		break;
	case 'u':
		usyms_lines(U, NULL, pid, what, buf, cap);
		break;
	}
}

char *stapbpf_usym_expand(struct stapbpf_usyms *U, const char *s)
{
	size_t cap = (size_t)U->maxstr, len = 0;
	char *out, *text, *what;

	if (!strchr(s, 1) || cap < 2)
		return NULL;
	out = xrealloc(NULL, cap);
	text = xrealloc(NULL, cap);
	what = xrealloc(NULL, cap);
	while (*s && len < cap - 1) {
		const char *e, *colon;
		size_t n;

		if (*s != 1 || !s[1]) {
			out[len++] = *s++;
			continue;
		}
		e = strchr(s, 2);
		if (!e)
			e = s + strlen(s);	/* cut short by MAXSTRINGLEN */
		colon = memchr(s, ':', (size_t)(e - s));
		if (!colon) {
			s = *e ? e + 1 : e;
			continue;
		}
		n = (size_t)(e - colon - 1);
		memcpy(what, colon + 1, n);
		what[n] = 0;
		marker_text(U, s[1], (int)hex_value(s + 2), what, text, cap);
		n = strlen(text);
		if (n > cap - 1 - len)
			n = cap - 1 - len;
		memcpy(out + len, text, n);
		len += n;
		s = *e ? e + 1 : e;
	}
	out[len] = 0;
	free(text);
	free(what);
	return out;
}

char *stapbpf_usym_text(struct stapbpf_usyms *U, const char *s, size_t max)
{
	size_t n = strnlen(s, max);
	char *text = xrealloc(NULL, n + 1), *named;

	memcpy(text, s, n);
	text[n] = 0;
	named = stapbpf_usym_expand(U, text);
	if (!named)
		return text;
	free(text);
	return named;
}
