/*
 * bpf_clang.c - pass 4 of --runtime=bpf: clang -target bpf -O1 -g (BTF
 * for the loader's maps and globals) turns pass 3's C into NAME.bpf.o.
 * -O1, not -O2: -O2's inliner and loop passes took a sixth more of
 * clang's time for no gain the tests or bench/bpftrace.py's per-hit
 * costs could see (the handlers are always_inline at both levels).
 *
 * Most of a cold clang run on a small script is clang starting (its
 * libraries' relocations and constructors, about 25 ms of CPU here), not
 * compiling. So bpf_clang_start() starts clang before pass 1, reading the
 * C from a pipe and writing the object to another, and passes 1-3 run
 * while it loads; bpf_compile() then only feeds it. It is not started when
 * the cache held this command line's object last time (a hint, see
 * bpf_cache.c; a wrong hint costs time, never correctness), and it is
 * killed when the cache answers or a pass fails (bpf_clang_stop()). Once
 * clang has written a whole object (its ELF section headers say where it
 * ends), pass 5 starts without waiting for clang's exit, whose teardown
 * of libLLVM's mappings took 5 ms: run_module() reaps it (the session's
 * child, session_child_stop()).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bpf.h"

/* the compiler: $STAP_CLANG (a clang driver), else the build's
 * stapbpfcc (translator/bpfcc/, clang's front end linked statically), else clang */
static const char *clang_name(struct session *s)
{
	const char *c = getenv("STAP_CLANG");

	if (c && *c)
		return c;
	return s->bpfcc_path ? s->bpfcc_path : "clang";
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* clang reading stdin, writing stdout, as s->child; -1 on error */
static int spawn(struct session *s)
{
	struct session_child *c = &s->child;
	const char *clang = clang_name(s);
	const char *inc = arena_printf(s->arena, "-I%s/bpf", s->runtime_dir);
	const char *driver[] = { clang, "-target", "bpf", BPF_CLANG_OPT, "-g", "-w", inc,
				 "-c", "-x", "c", "-", "-o", "-", NULL };
	/* stapbpfcc: the same as cc1 options, the rest its own */
	const char *bpfcc[] = { clang, BPF_CLANG_OPT, "-w", inc, NULL };
	const char **argv = clang == s->bpfcc_path ? bpfcc : driver;
	int in[2], out[2];

	if (pipe2(in, O_CLOEXEC) < 0)
		return -1;
	if (pipe2(out, O_CLOEXEC) < 0) {
		close(in[0]);
		close(in[1]);
		return -1;
	}
	c->pid = fork();
	if (c->pid == 0) {
		if (dup2(in[0], 0) < 0 || dup2(out[1], 1) < 0)
			_exit(126);
		execvp(clang, (char *const *)argv);
		_exit(127);	/* reported by bpf_compile(), if it needs clang */
	}
	close(in[0]);
	close(out[1]);
	c->in = in[1];
	c->out = out[0];
	c->name = clang;
	if (c->pid < 0) {
		close_fd(&c->in);
		close_fd(&c->out);
		c->pid = 0;
		return -1;
	}
	return 0;
}

void bpf_clang_start(struct session *s, int argc, char **argv)
{
	if (!s->runtime_bpf || s->last_pass < 4 || s->listing || s->dump)
		return;
	if (bpf_cache_hinted(s, argc, argv))
		return;
	spawn(s);	/* on failure, bpf_compile() tries again */
}

void bpf_clang_stop(struct session *s)
{
	session_child_stop(s);
}

static bool write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return false;
		p += w;
		n -= (size_t)w;
	}
	return true;
}

static unsigned long long le(const char *p, int n)
{
	unsigned long long v = 0;

	while (n--)
		v = v << 8 | (unsigned char)p[n];
	return v;
}

/* Is buf[0, len) a whole ELF64 object: does it end where its last section
 * and its section header table end? */
static bool whole_elf(const char *buf, size_t len)
{
	unsigned long long shoff, shnum, end;

	if (len < 64 || memcmp(buf, "\177ELF\2\1", 6) || le(buf + 0x3a, 2) != 64)
		return false;
	shoff = le(buf + 0x28, 8);
	shnum = le(buf + 0x3c, 2);
	if (!shnum || shoff > len || (len - shoff) / 64 < shnum)
		return false;
	end = shoff + shnum * 64;
	for (unsigned long long i = 0; i < shnum; i++) {
		const char *sh = buf + shoff + i * 64;
		unsigned long long off = le(sh + 0x18, 8), size = le(sh + 0x20, 8);

		if (le(sh + 4, 4) != 8 && off + size > end)	/* 8: SHT_NOBITS */
			end = off + size;
	}
	return end == len;
}

/* the object clang wrote on fd; NULL if none. *whole: it ended
 * as a whole object before clang closed its output (clang is exiting:
 * its address space's teardown, 5 ms, need not be waited for) */
static char *read_all(int fd, size_t *len, bool *whole)
{
	size_t cap = 1 << 16;
	char *buf = malloc(cap);

	*len = 0;
	*whole = false;
	while (buf) {
		ssize_t r;

		if (*len == cap) {
			char *nb = realloc(buf, cap *= 2);

			if (!nb)
				break;
			buf = nb;
		}
		r = read(fd, buf + *len, cap - *len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			break;
		if (r == 0)
			return buf;
		*len += (size_t)r;
		if (whole_elf(buf, *len)) {
			*whole = true;
			return buf;
		}
	}
	free(buf);
	return NULL;
}

/* feed s->c_file to clang (a line marker first: its messages and the
 * object's line info name the file), collect the object; clang's status */
static int run(struct session *s, const char *c, size_t clen, char **obj, size_t *olen)
{
	const char *mark = arena_printf(s->arena, "# 1 \"%s\"\n", s->c_file);
	struct sigaction ign = { .sa_handler = SIG_IGN }, old;
	struct session_child *cc = &s->child;
	int status = -1;
	bool whole;

	sigaction(SIGPIPE, &ign, &old);	/* clang gone: EPIPE, not death */
	write_all(cc->in, mark, strlen(mark));
	write_all(cc->in, c, clen);
	sigaction(SIGPIPE, &old, NULL);
	close_fd(&cc->in);
	*obj = read_all(cc->out, olen, &whole);
	close_fd(&cc->out);
	/* reaped once pass 5 has started (session_child_poll()); -p4 waits */
	if (whole && s->last_pass > 4)
		return 0;
	while (waitpid(cc->pid, &status, 0) < 0 && errno == EINTR)
		;
	cc->pid = 0;
	return status;
}

int bpf_compile(struct session *s)
{
	const char *clang = clang_name(s);
	const char *out = arena_printf(s->arena, "%s/%s.bpf.o", s->tmpdir, s->module_name);
	char *c, *obj = NULL;
	size_t clen, olen = 0;
	int status;

	if (bpf_cache_get(s, clang, out)) {
		bpf_clang_stop(s);
		s->ko_file = out;
		return 0;
	}
	if (!s->child.pid && spawn(s) < 0) {
		diag_plain(s, "cannot run clang: %s", strerror(errno));
		return 1;
	}
	c = read_file(s->c_file, &clen);
	if (!c) {
		bpf_clang_stop(s);
		diag_plain(s, "cannot read %s", s->c_file);
		return 1;
	}
	status = run(s, c, clen, &obj, &olen);
	free(c);
	if (WIFEXITED(status) && WEXITSTATUS(status) == 127 && !olen) {
		free(obj);
		diag_plain(s, "cannot run %s (install clang)", clang);
		return 1;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status) || !obj || !olen ||
	    write_file(out, obj, olen) < 0) {
		free(obj);
		diag_plain(s, "clang could not compile the BPF program %s", s->c_file);
		return 1;
	}
	free(obj);
	if (!session_child_poll(s, &status))	/* it failed already */
		return 1;
	s->ko_file = out;
	bpf_cache_put(s, clang, out);
	return 0;
}
