/*
 * stapbpf.c - the loader of stap --runtime=bpf objects (NAME.bpf.o, see
 * translator/bpf/ and runtime/bpf/stapbpf.h); staprun execs it for such
 * a file. It reads the object's .stapmeta section (probes, printf
 * formats, error messages, the globals shown at exit), loads the object
 * with libbpf, runs the begin probes (BPF_PROG_TEST_RUN), attaches the
 * others (perf events for timers), formats the ring buffer's records as
 * the module runtime's printf does (its formatting core, runtime/stp_fmt.c),
 * and at exit(), an error or SIGINT/SIGTERM runs the end (or error)
 * probes and prints the globals, as the module runtime does.
 *
 *   stapbpf [-v] [-w] [-o FILE] [-s MB] [-c CMD | -x PID] NAME.bpf.o
 *
 * -c CMD runs CMD (command.c: exec'd itself, or by /bin/sh when it has
 * shell syntax) once the probes are in place, target() its pid, and ends
 * the session when it exits, as staprun and stapio do.
 */
#include <errno.h>
#include <sched.h>
#include <elf.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "command.h"
#include "stapbpf_fmt.h"
#include "stapbpf_kprobe.h"
#include "stapbpf_maps.h"
#include "stapbpf_ns.h"
#include "stapbpf_sym.h"
#include "stapbpf_usym.h"

#define REC_EXIT 0xffff0001u
#define REC_ERROR 0xffff0004u	/* u32 the place, char[maxstr] the message */
#define REC_HIST 0xffff0003u
#define REC_WARN 0xffff0005u	/* u32 unused, char[maxstr] the message */
#define REC_BT 0xffff0006u	/* print_backtrace(): u32 n, u64 from, u64 addresses */
#define REC_UBT 0xffff0007u	/* print_ubacktrace(): u32 brief, pid, n, u64 addresses */
#define REC_USYMS 0xffff0008u	/* print_usyms(): u32 pid, char[maxstr] callers */
#define REC_UPID 0xffff0009u	/* usymname()...: u32 pid, whose maps to read */
#define REC_UTEXT 0xffff000au	/* "<no user backtrace at PP>": char[maxstr] */

struct piece {
	char conv;		/* 0: literal */
	int flags, width, prec;
	char type;		/* 's' or 'l' */
	char *lit;
	size_t litlen;
};
struct fmt {
	struct piece *p;
	int n;
};
struct probe {
	char kind[160];
	char prog[160];
	long long arg;
	char path[4096], sym[256];	/* uprobe: the binary and its function;
					 * kprobe: sym the function, path its module */
	int optional;			/* kprobe: a point marked "?" */
	long maxactive;			/* kretprobe: .maxactive(N), or -1 */
	char twin[160];			/* kprobe: its fentry/fexit twin, or "" */
	bool fentry, skip;		/* kprobe: the twin taken; left out */
	char *pp;			/* kprobe: the probe point, for messages */
	char *where;			/* "PP (FILE:LINE:COL)": a rejected one's */
	long long ptype, pconfig;	/* perf: the event (arg its period) */
	int pfreq;			/* perf: arg is a frequency (.hz) */
	struct bpf_program *bp;
};
struct global {
	char name[160], sym[160], type;	/* type 'A': an array */
	char vtype, kinds[10];		/* an array's value type and key kinds */
	long off;		/* in its section's mapping */
	char *base;
};

struct hist {
	char sym[160];
	int kind, nb;
	long long lo, hi, step;
	int row;		/* of an array's row: the record has the statistic's
				 * offset in the value and the row's key */
};

struct loader {
	int verbose;
	bool quiet;
	int maxstr;
	struct fmt *fmts;
	int nfmts;
	char **msgs;
	int nmsgs;
	struct probe *probes;
	int nprobes;
	struct global *globals;
	int nglobals;
	struct hist *hists;
	int nhists;
	struct bpf_object *obj;
	long *state, *errors, *real_offset;
	bool exiting;
	int nerrors;
	FILE *out;
	struct stapbpf_kprobes kp;	/* tracefs kretprobes, BTF for fentry */
	struct stapbpf_ksyms ksyms;	/* backtraces' symbols */
	struct stapbpf_usyms usyms;	/* user symbols (stapbpf_usym.c) */
	char rejected[160];		/* the program the kernel refused, if said */
	char rejected_pp[4200];		/* ... "the probe PP (FILE:LINE:COL)" */
	bool complex;			/* ... as too complex for the verifier */
};

static volatile sig_atomic_t got_signal;

static void on_signal(int sig)
{
	got_signal = sig;
}

static void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size);

	if (!p) {
		fputs("stapbpf: out of memory\n", stderr);
		exit(1);
	}
	return p;
}

/* ---- the object's .stapmeta section -------------------------------------- */
static char *read_meta(const char *path, char **image, size_t *size)
{
	FILE *f = fopen(path, "rb");
	long n;
	char *img;
	Elf64_Ehdr *eh;
	Elf64_Shdr *sh;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	img = xcalloc((size_t)n + 1, 1);
	if (fread(img, 1, (size_t)n, f) != (size_t)n) {
		fclose(f);
		free(img);
		return NULL;
	}
	fclose(f);
	*image = img;
	*size = (size_t)n;
	eh = (Elf64_Ehdr *)img;
	if ((size_t)n < sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_machine != EM_BPF ||
	    eh->e_shoff + (size_t)eh->e_shnum * sizeof(*sh) > (size_t)n)
		return NULL;
	sh = (Elf64_Shdr *)(img + eh->e_shoff);
	if (eh->e_shstrndx >= eh->e_shnum)
		return NULL;
	for (int i = 0; i < eh->e_shnum; i++) {
		const char *name = img + sh[eh->e_shstrndx].sh_offset + sh[i].sh_name;

		if (!strcmp(name, ".stapmeta") && sh[i].sh_offset + sh[i].sh_size <= (size_t)n)
			return strndup(img + sh[i].sh_offset, sh[i].sh_size);
	}
	return NULL;
}

static char *unhex(const char *h, size_t *len)
{
	size_t n = strcmp(h, "-") ? strlen(h) / 2 : 0;
	char *p = xcalloc(n + 1, 1);

	for (size_t i = 0; i < n; i++) {
		unsigned int b;

		sscanf(h + 2 * i, "%2x", &b);
		p[i] = (char)b;
	}
	*len = n;
	return p;
}

static int parse_meta(struct loader *L, char *meta)
{
	struct fmt *cur = NULL;
	char *save, *line;
	int cap = 0;

	for (line = strtok_r(meta, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char a[160], b[160], c, kinds[10];
		int id, n, fl, w, p, voff;
		long long lo, hi, step;
		long long arg;
		size_t len;

		if (sscanf(line, "fmt %d %d", &id, &n) == 2) {
			if (id >= cap) {
				cap = 2 * id + 16;
				L->fmts = realloc(L->fmts, (size_t)cap * sizeof(*L->fmts));
			}
			cur = &L->fmts[id];
			cur->p = xcalloc((size_t)n, sizeof(*cur->p));
			cur->n = 0;
			L->nfmts = id + 1;
		} else if (cur && (n = 0, sscanf(line, " lit %n", &n), n > 0)) {
			cur->p[cur->n].lit = unhex(line + n, &len);	/* any length */
			cur->p[cur->n++].litlen = len;
		} else if (cur && sscanf(line, " conv %c %d %d %d %c", &c, &fl, &w, &p, &b[0]) == 5) {
			cur->p[cur->n++] = (struct piece){ c, fl, w, p, b[0], NULL, 0 };
		} else if (sscanf(line, "msg %d %n", &id, &n) == 1 && n > 0) {
			L->msgs = realloc(L->msgs, (size_t)(id + 1) * sizeof(*L->msgs));
			L->msgs[id] = unhex(line + n, &len);	/* any length */
			L->nmsgs = id + 1;
		} else if (sscanf(line, "probe %159s %159s %lld", a, b, &arg) == 3) {
			L->probes = realloc(L->probes, (size_t)(L->nprobes + 1) * sizeof(*L->probes));
			memset(&L->probes[L->nprobes], 0, sizeof(*L->probes));
			snprintf(L->probes[L->nprobes].kind, 160, "%s", a);
			snprintf(L->probes[L->nprobes].prog, 160, "%s", b);
			if (!strcmp(a, "uprobe") &&
			    sscanf(line, "probe %*s %*s %*d %4095s %255s",
				   L->probes[L->nprobes].path, L->probes[L->nprobes].sym) != 2)
				return -1;
			if (!strcmp(a, "kprobe")) {
				char hex[4096];

				L->probes[L->nprobes].maxactive = -1;
				if (sscanf(line, "probe %*s %*s %*d %255s %4095s %d %4095s %ld",
					   L->probes[L->nprobes].sym, L->probes[L->nprobes].path,
					   &L->probes[L->nprobes].optional, hex,
					   &L->probes[L->nprobes].maxactive) < 4)
					return -1;
				L->probes[L->nprobes].pp = unhex(hex, &len);
			}
			if (!strcmp(a, "perf") &&
			    sscanf(line, "probe %*s %*s %*d %lld %lld %d",
				   &L->probes[L->nprobes].ptype, &L->probes[L->nprobes].pconfig,
				   &L->probes[L->nprobes].pfreq) != 3)
				return -1;
			L->probes[L->nprobes++].arg = arg;
		} else if (sscanf(line, "global %159s %159s %c", a, b, &c) == 3) {
			L->globals = realloc(L->globals,
					     (size_t)(L->nglobals + 1) * sizeof(*L->globals));
			memset(&L->globals[L->nglobals], 0, sizeof(*L->globals));
			snprintf(L->globals[L->nglobals].name, 160, "%s", a);
			snprintf(L->globals[L->nglobals].sym, 160, "%s", b);
			L->globals[L->nglobals++].type = c;
		} else if (sscanf(line, "array %159s %159s %c %9s", a, b, &c, kinds) == 4) {
			L->globals = realloc(L->globals,
					     (size_t)(L->nglobals + 1) * sizeof(*L->globals));
			memset(&L->globals[L->nglobals], 0, sizeof(*L->globals));
			snprintf(L->globals[L->nglobals].name, 160, "%s", a);
			snprintf(L->globals[L->nglobals].sym, 160, "%s", b);
			snprintf(L->globals[L->nglobals].kinds, 10, "%s", kinds);
			L->globals[L->nglobals].vtype = c;
			L->globals[L->nglobals++].type = 'A';
		} else if (sscanf(line, "hist %d %159s %d %lld %lld %lld %d %d", &id, a, &fl, &lo,
				  &hi, &step, &n, &voff) == 8 && id >= 0) {
			if (id >= L->nhists) {
				L->hists = realloc(L->hists, (size_t)(id + 1) * sizeof(*L->hists));
				L->nhists = id + 1;
			}
			snprintf(L->hists[id].sym, 160, "%s", a);
			L->hists[id].kind = fl;
			L->hists[id].lo = lo;
			L->hists[id].hi = hi;
			L->hists[id].step = step;
			L->hists[id].nb = n;
			L->hists[id].row = voff;
		} else if (sscanf(line, "where %159s %n", a, &n) == 1 && n > 0) {
			for (int i = 0; i < L->nprobes; i++)
				if (!strcmp(L->probes[i].prog, a))
					L->probes[i].where = unhex(line + n, &len);
		} else if (sscanf(line, "twin %159s %159s", a, b) == 2) {
			for (int i = 0; i < L->nprobes; i++)
				if (!strcmp(L->probes[i].prog, a))
					snprintf(L->probes[i].twin, 160, "%s", b);
		} else if (sscanf(line, "maxstr %d", &n) == 1) {
			L->maxstr = n;
			L->usyms.maxstr = n;
		} else if (stapbpf_usyms_meta(&L->usyms, line)) {
		} else if (strncmp(line, "stapbpf ", 8)) {
			return -1;
		}
	}
	return L->maxstr > 0 ? 0 : -1;
}

/* ---- printf: runtime/stp_fmt.c through stapbpf_fmt.c ---------------------- */
static void print_record(struct loader *L, const struct fmt *fm, const char *d,
			 const char *end)
{
	struct stp_sink sink = { L->out };
	struct stp_spec sp;
	char str[L->maxstr + 1];

	for (int i = 0; i < fm->n; i++) {
		const struct piece *p = &fm->p[i];
		int w = p->width, pr = p->prec;
		int64_t v = 0;

		if (!p->conv) {
			fwrite(p->lit, 1, p->litlen, L->out);
			continue;
		}
		if (w == -2 && d + 8 <= end) {
			memcpy(&v, d, 8);
			w = (int)v;
			d += 8;
		}
		if (pr == -2 && d + 8 <= end) {
			memcpy(&v, d, 8);
			pr = (int)v;
			d += 8;
		}
		sp = (struct stp_spec){ .conv = p->conv, .flags = (u8)p->flags,
					.width = w, .prec = pr };
		if (p->type == 's') {
			char *named;

			if (d + L->maxstr > end)
				return;
			memcpy(str, d, (size_t)L->maxstr);	/* NUL-terminated */
			str[L->maxstr] = '\0';
			named = stapbpf_usym_expand(&L->usyms, str);	/* usymname()... */
			stp_emit_str(&sink, named ? named : str, &sp);
			free(named);
			d += L->maxstr;
		} else {
			if (d + 8 > end)
				return;
			memcpy(&v, d, 8);
			if (p->conv == 'b')
				stp_emit_bin(&sink, v, &sp);
			else
				stp_emit_long(&sink, v, &sp);
			d += 8;
		}
	}
}

/* "ERROR: MSG" and its place (" near ..."), or "WARNING: MSG", on a line of
 * its own unless MSG ends one, as the module runtime (context.c) prints them */
static void message(struct loader *L, const char *prefix, const char *msg, size_t size,
		    const char *near)
{
	size_t cap = (size_t)L->maxstr + 64, n;
	char *buf = xcalloc(cap + 1, 1);
	char *text = stapbpf_usym_text(&L->usyms, msg,
				       size < (size_t)L->maxstr ? size : (size_t)L->maxstr);

	n = (size_t)snprintf(buf, cap, "%s%s%s", prefix, text, near);
	free(text);
	if (n > cap - 1)
		n = cap - 1;
	if (n && buf[n - 1] != '\n' && n < cap - 1)
		buf[n++] = '\n';
	fwrite(buf, 1, n, stderr);
	free(buf);
}

static int on_record(void *ctx, void *data, size_t size)
{
	struct loader *L = ctx;
	uint32_t id, arg;

	if (size < 8)
		return 0;
	memcpy(&id, data, 4);
	memcpy(&arg, (char *)data + 4, 4);
	if (id == REC_EXIT) {
		L->exiting = true;
	} else if (id == REC_HIST) {
		if (arg < (uint32_t)L->nhists)
			stapbpf_print_hist(L->obj, L->out, L->hists[arg].sym, L->hists[arg].kind,
					   L->hists[arg].lo, L->hists[arg].hi,
					   L->hists[arg].step, L->hists[arg].nb,
					   L->hists[arg].row && size > 16 ? (char *)data + 16 : NULL,
					   L->hists[arg].row && size > 16 ? *(uint64_t *)((char *)data + 8) : 0);
	} else if (id == REC_ERROR || id == REC_WARN) {
		fflush(L->out);
		message(L, id == REC_ERROR ? "ERROR: " : "WARNING: ", (char *)data + 8, size - 8,
			arg < (uint32_t)L->nmsgs ? L->msgs[arg] : "");
		if (id == REC_ERROR) {
			L->nerrors++;
			L->exiting = true;
		}
	} else if (id == REC_UTEXT) {
		fprintf(L->out, "%.*s", (int)strnlen((char *)data + 8, size - 8), (char *)data + 8);
	} else if (id == REC_UPID) {
		stapbpf_usyms_seen(&L->usyms, (int)arg);
	} else if (id == REC_UBT && size >= 16) {
		uint32_t pid, n;

		memcpy(&pid, (char *)data + 8, 4);
		memcpy(&n, (char *)data + 12, 4);
		if (n > (size - 16) / 8)
			n = (uint32_t)((size - 16) / 8);
		stapbpf_print_ubt(&L->usyms, L->out, (int)pid, (int)arg,
				  (const uint64_t *)((char *)data + 16), n);
	} else if (id == REC_USYMS && size >= 8 + (size_t)L->maxstr) {
		char *callers = xcalloc((size_t)L->maxstr + 1, 1);

		memcpy(callers, (char *)data + 8, (size_t)L->maxstr);
		stapbpf_print_usyms(&L->usyms, L->out, (int)arg, callers);
		free(callers);
	} else if (id == REC_BT) {
		const uint64_t *a = (const uint64_t *)((char *)data + 8);

		if (size >= 16)
			stapbpf_print_backtrace(&L->ksyms, L->out, a + 1, arg < (size - 16) / 8 ?
						arg : (size - 16) / 8, a[0]);
	} else if (id < (uint32_t)L->nfmts) {
		print_record(L, &L->fmts[id], (char *)data + 8, (char *)data + size);
	}
	return 0;
}

/* ---- libbpf ------------------------------------------------------------------ */
static struct loader *print_loader;

/* libbpf's "prog 'NAME': ..." warnings of a failed load: which program,
 * and whether the verifier's log says it gave up on its complexity (a
 * kernel says so with E2BIG, or EFAULT for "the sequence of N jumps") */
static void note_rejection(struct loader *L, const char *fmt, va_list ap)
{
	char *text = NULL;
	const char *p;
	va_list aq;

	va_copy(aq, ap);
	if (vasprintf(&text, fmt, aq) < 0)
		text = NULL;
	va_end(aq);
	if (!text)
		return;
	p = strstr(text, "prog '");
	if (!L->rejected[0] && p)
		sscanf(p + 6, "%159[^']", L->rejected);
	if (strstr(text, "LOAD LOG") && (strstr(text, " is too complex") ||
					 strstr(text, "BPF program is too large") ||
					 strstr(text, "too many states")))
		L->complex = true;
	free(text);
}

static int libbpf_log(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (print_loader && level == LIBBPF_WARN && strstr(fmt, "prog '"))
		note_rejection(print_loader, fmt, ap);
	if (!print_loader || print_loader->verbose < 2 ||
	    (level == LIBBPF_DEBUG && print_loader->verbose < 3))
		return 0;
	return vfprintf(stderr, fmt, ap);
}

/* "the probe PP (FILE:LINE:COL)" whose program the kernel refused, or
 * what if not known */
static const char *rejected_probe(struct loader *L, const char *what)
{
	for (int i = 0; i < L->nprobes; i++)
		if (L->rejected[0] && L->probes[i].where &&
		    (!strcmp(L->probes[i].prog, L->rejected) ||
		     !strcmp(L->probes[i].twin, L->rejected))) {
			snprintf(L->rejected_pp, sizeof(L->rejected_pp), "the probe %s",
				 L->probes[i].where);
			return L->rejected_pp;
		}
	return what;
}

/* Can this kernel run kprobes (the kprobe PMU, or tracefs's
 * kprobe_events libbpf falls back to)? */
static bool have_kprobes(void)
{
	return !access("/sys/bus/event_source/devices/kprobe/type", F_OK) ||
	       !access("/sys/kernel/tracing/kprobe_events", F_OK) ||
	       !access("/sys/kernel/debug/tracing/kprobe_events", F_OK);
}

/* A kernel without kprobes: no kernel.function() point can be placed;
 * said once, naming the first that must be (false), before any probe runs. */
static bool kprobes_ok(struct loader *L)
{
	for (int i = 0; i < L->nprobes; i++) {
		struct probe *p = &L->probes[i];

		if (strcmp(p->kind, "kprobe") || p->optional || have_kprobes())
			continue;
		fprintf(stderr, "ERROR: cannot probe %s: this kernel has no kprobes "
			"(CONFIG_KPROBES), which --runtime=bpf needs for kernel and module "
			"functions; use the kernel module runtime (--runtime=kernel) on a "
			"kernel with kprobes\n", p->pp);
		return false;
	}
	return true;
}

/* Kernel function points through their fentry/fexit twins rather than
 * kprobes? $STAP_BPF_ATTACH=fentry or kprobe says (a testing aid), else
 * a kernel without kprobes that runs fentry programs; -1 for a bad value */
static int use_fentry(struct loader *L)
{
	const char *e = getenv("STAP_BPF_ATTACH");
	int i;

	if (e && *e && strcmp(e, "fentry") && strcmp(e, "kprobe")) {
		fprintf(stderr, "ERROR: STAP_BPF_ATTACH=%s: it may be kprobe or fentry\n", e);
		return -1;
	}
	if (e && *e)
		return !strcmp(e, "fentry");
	for (i = 0; i < L->nprobes && strcmp(L->probes[i].kind, "kprobe"); i++)
		;
	return i < L->nprobes && !have_kprobes() && stapbpf_have_fentry();
}

/* Each kernel function point's program (the kprobe's or its twin's) to
 * load, before the load; false, said, when a point has no twin that can
 * be placed in fentry mode, unless it is optional (left out then) */
static bool choose_programs(struct loader *L, bool fentry)
{
	for (int i = 0; i < L->nprobes; i++) {
		struct probe *p = &L->probes[i];
		struct bpf_program *twin = *p->twin ?
			bpf_object__find_program_by_name(L->obj, p->twin) : NULL;

		if (strcmp(p->kind, "kprobe") || !p->bp)
			continue;
		if (!fentry) {
			if (twin)
				bpf_program__set_autoload(twin, false);
			continue;
		}
		bpf_program__set_autoload(p->bp, false);
		if (twin && stapbpf_btf_has_func(&L->kp, p->sym)) {
			p->bp = twin;
			p->fentry = true;
			continue;
		}
		if (twin)
			bpf_program__set_autoload(twin, false);
		p->skip = true;
		if (p->optional)
			continue;
		fprintf(stderr, "ERROR: cannot probe %s through fentry/fexit: %s\n", p->pp,
			twin ? "its function is not in the kernel's BTF" :
			"only kernel.function() and module().function() points of functions of at "
			"most six integer or pointer parameters, in handlers without backtraces, "
			"can be");
		return false;
	}
	return true;
}

/* Attach kprobe p (a kretprobe when p->arg): NULL, said, if it cannot be
 * placed, unless it is optional (*skip then). A kretprobe's .maxactive(N)
 * (N > 0; 0 is the kernel's default, as register_kretprobe() takes it)
 * goes through tracefs (stapbpf_kprobe.c). */
static struct bpf_link *attach_kprobe(struct loader *L, struct probe *p, bool *skip)
{
	LIBBPF_OPTS(bpf_kprobe_opts, ko, .retprobe = p->arg != 0);
	struct bpf_link *l = NULL;
	bool maxactive = p->arg && p->maxactive > 0 && !p->fentry;

	if (p->skip) {
		*skip = true;
		return NULL;
	}
	if (p->fentry) {	/* its fentry/fexit twin */
		l = bpf_program__attach_trace(p->bp);
		*skip = !l && p->optional;
		if (!l && !p->optional)
			fprintf(stderr, "ERROR: cannot attach %s: %s\n", p->pp, strerror(errno));
		return l;
	}
	*skip = p->optional && !have_kprobes();
	if (!*skip)
		l = maxactive ? stapbpf_kretprobe_maxactive(&L->kp, p->bp, p->sym, p->maxactive) :
				bpf_program__attach_kprobe_opts(p->bp, p->sym, &ko);
	if (l || p->optional) {
		*skip = !l;
		return l;
	}
	if (maxactive && errno == EINVAL && p->maxactive > 4096)
		fprintf(stderr, "ERROR: cannot attach %s: the kernel takes a .maxactive() of "
			"at most 4096\n", p->pp);
	else if (maxactive)
		fprintf(stderr, "ERROR: cannot attach %s: %s (.maxactive() needs tracefs's "
			"kprobe_events)\n", p->pp, strerror(errno));
	else
		fprintf(stderr, "ERROR: cannot attach %s: %s\n", p->pp, strerror(errno));
	return NULL;
}

/* where the variable sym lives: its section's mapping and offset */
static void *find_global(struct loader *L, const char *sym)
{
	struct btf *btf = bpf_object__btf(L->obj);
	struct bpf_map *m;

	if (!btf)
		return NULL;
	bpf_object__for_each_map(m, L->obj) {
		const char *mn = bpf_map__name(m);
		const char *dot = strrchr(mn, '.');
		int sid;
		const struct btf_type *t;
		const struct btf_var_secinfo *vs;
		size_t size;
		char *base;

		if (!dot || (strcmp(dot, ".bss") && strcmp(dot, ".data")))
			continue;
		sid = btf__find_by_name_kind(btf, dot, BTF_KIND_DATASEC);
		if (sid < 0 || !bpf_map__initial_value(m, &size))
			continue;
		/* the kernel's map itself, shared (libbpf maps it only for
		 * skeletons); one mapping per map, kept until exit */
		base = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED,
			    bpf_map__fd(m), 0);
		if (base == MAP_FAILED)
			continue;
		t = btf__type_by_id(btf, (unsigned)sid);
		vs = btf_var_secinfos(t);
		for (int i = 0; i < btf_vlen(t); i++, vs++) {
			const struct btf_type *v = btf__type_by_id(btf, vs->type);

			if (!strcmp(btf__name_by_offset(btf, v->name_off), sym))
				return base + vs->offset;
		}
		munmap(base, size);
	}
	return NULL;
}

static int run_prog(struct probe *p, struct ring_buffer *rb)
{
	LIBBPF_OPTS(bpf_test_run_opts, opts);
	int fd = bpf_program__fd(p->bp);

	if (fd < 0 || bpf_prog_test_run_opts(fd, &opts)) {
		fprintf(stderr, "ERROR: cannot run probe %s: %s\n", p->kind, strerror(errno));
		return -1;
	}
	ring_buffer__consume(rb);
	return 0;
}

/* the probes of one kind (begin, end, error) in the order of N */
static void run_kind(struct loader *L, const char *kind, struct ring_buffer *rb)
{
	bool *done = xcalloc((size_t)L->nprobes, sizeof(*done));
	cpu_set_t saved, cpu0;

	/* on CPU 0 and in this task, as the module runtime's begin and end
	 * probes (BPF_F_TEST_RUN_ON_CPU would run them in an interrupt
	 * there, in whatever task CPU 0 was running) */
	CPU_ZERO(&cpu0);
	CPU_SET(0, &cpu0);
	bool pinned = sched_getaffinity(0, sizeof(saved), &saved) == 0 &&
		      sched_setaffinity(0, sizeof(cpu0), &cpu0) == 0;

	for (;;) {
		int best = -1;

		for (int i = 0; i < L->nprobes; i++)
			if (!done[i] && !strcmp(L->probes[i].kind, kind) &&
			    (best < 0 || L->probes[i].arg < L->probes[best].arg))
				best = i;
		/* begin probes after an exit() or an error do not run */
		if (best < 0 || (!strcmp(kind, "begin") && *L->state))
			break;
		done[best] = true;
		run_prog(&L->probes[best], rb);
	}
	if (pinned)
		sched_setaffinity(0, sizeof(saved), &saved);
	free(done);
}

static struct bpf_link **attach_perf(struct probe *p,
				     struct bpf_link **links, int *nlinks)
{
	int ncpu = libbpf_num_possible_cpus();
	bool perf = !strcmp(p->kind, "perf");
	bool each = perf || !strcmp(p->kind, "profile");

	for (int cpu = 0; cpu < (each ? ncpu : 1); cpu++) {
		struct perf_event_attr attr = {
			.type = perf ? (uint32_t)p->ptype : PERF_TYPE_SOFTWARE,
			.size = sizeof(attr),
			.config = perf ? (uint64_t)p->pconfig : PERF_COUNT_SW_CPU_CLOCK,
			.sample_period = (uint64_t)p->arg,
			.freq = perf && p->pfreq,
		};
		int fd = (int)syscall(SYS_perf_event_open, &attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
		struct bpf_link *l;

		if (fd < 0) {
			if (each && errno == ENODEV)
				continue;	/* an offline CPU */
			if (perf)
				fprintf(stderr, "ERROR: cannot open the perf event type %lld "
					"config %lld: %s\n", p->ptype, p->pconfig, strerror(errno));
			else
				fprintf(stderr, "ERROR: cannot open a perf event for probe %s: %s\n",
					p->kind, strerror(errno));
			return NULL;
		}
		l = bpf_program__attach_perf_event(p->bp, fd);
		if (!l) {
			close(fd);
			fprintf(stderr, "ERROR: cannot attach probe %s: %s\n", p->kind,
				strerror(errno));
			return NULL;
		}
		links = realloc(links, (size_t)(*nlinks + 1) * sizeof(*links));
		links[(*nlinks)++] = l;
	}
	return links;
}

/* a statistic's per-CPU entries together; false when it has none */
struct agg {
	int64_t count, sum, min, max;
};

static bool read_stat(struct loader *L, const char *sym, struct agg *out)
{
	struct bpf_map *m = bpf_object__find_map_by_name(L->obj, sym);
	int ncpu = libbpf_num_possible_cpus();
	struct agg *v;
	uint32_t k = 0;
	size_t stride;

	memset(out, 0, sizeof(*out));
	if (!m || ncpu <= 0)
		return false;
	stride = ((size_t)bpf_map__value_size(m) + 7) & ~(size_t)7;	/* a histogram's: more */
	v = xcalloc((size_t)ncpu, stride);
	if (!bpf_map_lookup_elem(bpf_map__fd(m), &k, v)) {
		for (int c = 0; c < ncpu; c++) {
			const struct agg *a = (const struct agg *)((char *)v + (size_t)c * stride);

			if (!a->count)
				continue;
			if (!out->count || a->min < out->min)
				out->min = a->min;
			if (!out->count || a->max > out->max)
				out->max = a->max;
			out->count += a->count;
			out->sum += a->sum;
		}
	}
	free(v);
	return out->count > 0;
}

static void display(struct loader *L)
{
	for (int i = 0; i < L->nglobals; i++) {
		struct global *g = &L->globals[i];
		const char *p;
		int64_t v;
		struct agg st;

		if (g->type == 'A') {
			stapbpf_display_array(L->obj, L->out, &L->usyms, g->name, g->sym, g->vtype,
					      g->kinds, L->maxstr);
			continue;
		}
		if (g->type == 't') {	/* as the module runtime: none if empty */
			if (read_stat(L, g->sym, &st))
				fprintf(L->out, "%s @count=%lld @min=%lld @max=%lld @sum=%lld "
					"@avg=%lld\n", g->name, (long long)st.count,
					(long long)st.min, (long long)st.max, (long long)st.sum,
					(long long)(st.sum / st.count));
			continue;
		}
		p = find_global(L, g->sym);
		if (!p)
			continue;
		if (g->type == 's') {
			char *text = stapbpf_usym_text(&L->usyms, p, (size_t)L->maxstr);

			fprintf(L->out, "%s=\"%s\"\n", g->name, text);
			free(text);
		} else {
			memcpy(&v, p, 8);
			fprintf(L->out, "%s=%lld\n", g->name, (long long)v);
		}
	}
}

/* A wildcard of a thousand points holds a program and a perf event (or
 * link) descriptor per point: raise the soft RLIMIT_NOFILE to the hard one,
 * as bpftrace does, instead of failing with EMFILE halfway through */
static void raise_nofile(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

static int usage(void)
{
	fputs("Usage: stapbpf [-v] [-w] [-o FILE] [-s MB] [-c CMD | -x PID] NAME.bpf.o\n",
	      stderr);
	return 1;
}

/* -c's command ended with status: a failure is said as stapio says it */
static bool child_failed(int status)
{
	if (WIFEXITED(status) && WEXITSTATUS(status)) {
		fprintf(stderr, "WARNING: Child process exited with status %d\n",
			WEXITSTATUS(status));
		return true;
	}
	if (WIFSIGNALED(status)) {
		fprintf(stderr, "WARNING: Child process exited with signal %d (%s)\n",
			WTERMSIG(status), strsignal(WTERMSIG(status)));
		return true;
	}
	return false;
}

int main(int argc, char **argv)
{
	struct loader L = { .out = stdout, .kp = { .nbtfs = -1 } };
	struct ring_buffer *rb = NULL;
	struct bpf_link **links = NULL;
	struct bpf_map *m;
	struct timespec rt, mono;
	char *meta, *image = NULL;
	size_t size;
	int c, nlinks = 0, rc = 1, err, bufsize_mb = 0, go[2] = { -1, -1 }, fentry;
	const char *command = NULL;
	long target_pid = 0;
	pid_t child = 0;
	int status = 0;
	bool failed = false;

	while ((c = getopt(argc, argv, "+vwo:s:c:x:")) != -1) {
		switch (c) {
		case 'v': L.verbose++; break;
		case 's': bufsize_mb = atoi(optarg); break;
		case 'c': command = optarg; break;
		case 'x': target_pid = atol(optarg); break;
		case 'w': L.quiet = true; break;
		case 'o':
			L.out = fopen(optarg, "w");
			if (!L.out) {
				fprintf(stderr, "ERROR: cannot open %s: %s\n", optarg, strerror(errno));
				return 1;
			}
			break;
		default: return usage();
		}
	}
	if (optind != argc - 1)
		return usage();
	meta = read_meta(argv[optind], &image, &size);
	if (!meta || parse_meta(&L, meta)) {
		fprintf(stderr, "ERROR: %s is not a BPF object built by stap --runtime=bpf\n",
			argv[optind]);
		return 1;
	}
	raise_nofile();
	fentry = use_fentry(&L);
	if (fentry < 0 || (!fentry && !kprobes_ok(&L)))
		return 1;
	/* begin and end probes run in this process: named as the module
	 * runtime's process they run in, for execname() */
	prctl(PR_SET_NAME, "stapio", 0, 0, 0);
	print_loader = &L;
	libbpf_set_print(libbpf_log);
	L.obj = bpf_object__open_mem(image, size, NULL);
	if (!L.obj) {
		fprintf(stderr, "ERROR: cannot open %s: %s\n", argv[optind], strerror(errno));
		return 1;
	}
	m = bpf_object__find_map_by_name(L.obj, "stp_rb");
	if (m && bufsize_mb > 0 && bufsize_mb <= 1024) {	/* -s: a power of 2 */
		unsigned int rbsize = 1u << 20;

		while (rbsize < (unsigned int)bufsize_mb << 20)
			rbsize <<= 1;
		bpf_map__set_max_entries(m, rbsize);
	}
	m = bpf_object__find_map_by_name(L.obj, "stp_scratch");
	if (m)
		bpf_map__set_max_entries(m, (unsigned)libbpf_num_possible_cpus());
	for (int i = 0; i < L.nprobes; i++) {
		L.probes[i].bp = bpf_object__find_program_by_name(L.obj, L.probes[i].prog);
		if (L.probes[i].bp && strcmp(L.probes[i].kind, "begin") &&
		    strcmp(L.probes[i].kind, "end") && strcmp(L.probes[i].kind, "error"))
			continue;
		if (L.probes[i].bp)	/* run by BPF_PROG_TEST_RUN only */
			bpf_program__set_autoattach(L.probes[i].bp, false);
	}
	if (!choose_programs(&L, fentry))
		goto out;
	err = bpf_object__load(L.obj);
	if (err == -E2BIG || (err && L.complex)) {
		fprintf(stderr, "ERROR: %s is too complex for the kernel's BPF verifier "
			"(long loops, string operations in loops): use the kernel module "
			"runtime (--runtime=kernel)%s\n", rejected_probe(&L, "the script"),
			L.verbose < 2 ? "; -vv shows the verifier's log" : "");
		goto out;
	}
	if (err) {
		fprintf(stderr, "ERROR: the kernel refused %s: %s%s\n",
			rejected_probe(&L, "the BPF program"), strerror(-err),
			L.verbose < 2 ? " (-vv shows the verifier's log)" : "");
		goto out;
	}
	L.state = find_global(&L, "stp_state");
	L.errors = find_global(&L, "stp_errors");
	L.real_offset = find_global(&L, "stp_real_offset");
	if (!L.state || !L.real_offset) {
		fprintf(stderr, "ERROR: %s: no session state\n", argv[optind]);
		goto out;
	}
	{
		long *ncpus = find_global(&L, "stp_ncpus");

		if (ncpus)
			*ncpus = libbpf_num_possible_cpus();
	}
	if (command) {	/* started now, released once the probes are in place */
		if (pipe(go) || (child = fork()) < 0) {
			fprintf(stderr, "ERROR: cannot run %s: %s\n", command, strerror(errno));
			goto out;
		}
		if (!child) {
			struct pollfd pfd = { .fd = go[0], .events = POLLIN };

			/* poll(), not read(): kernel.function("vfs_read")
			 * probes attached meanwhile must see no read of ours
			 * in target() (the module runtime's staprun does the same) */
			close(go[1]);
			while (poll(&pfd, 1, -1) < 0 && errno == EINTR)
				;
			if (!(pfd.revents & POLLIN))
				_exit(1);
			exec_command(command);
			_exit(127);
		}
		close(go[0]);
		target_pid = child;
	}
	stapbpf_usyms_start(&L.usyms, (int)target_pid, command != NULL);
	{
		long *tp = find_global(&L, "stp_target");
		struct stapbpf_nsinfo *ns = find_global(&L, "stp_ns");

		if (tp)
			*tp = target_pid;
		if (ns)
			stapbpf_ns_fill(ns);
	}
	clock_gettime(CLOCK_REALTIME, &rt);
	clock_gettime(CLOCK_MONOTONIC, &mono);
	*L.real_offset = (rt.tv_sec - mono.tv_sec) * 1000000000L + (rt.tv_nsec - mono.tv_nsec);
	rb = ring_buffer__new(bpf_map__fd(bpf_object__find_map_by_name(L.obj, "stp_rb")),
			      on_record, &L, NULL);
	if (!rb) {
		fprintf(stderr, "ERROR: cannot read the ring buffer: %s\n", strerror(errno));
		goto out;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGHUP, on_signal);
	run_kind(&L, "begin", rb);
	for (int i = 0; i < L.nprobes && !L.exiting; i++) {
		struct probe *p = &L.probes[i];

		if (!strcmp(p->kind, "timer") || !strcmp(p->kind, "profile") ||
		    !strcmp(p->kind, "perf")) {
			links = attach_perf(p, links, &nlinks);
			if (!links)
				L.exiting = true, L.nerrors++;
		} else if (!strcmp(p->kind, "kprobe")) {
			bool skip;
			struct bpf_link *l = attach_kprobe(&L, p, &skip);

			if (!l && !skip) {
				L.exiting = true, L.nerrors++;
				continue;
			}
			if (l) {
				links = realloc(links, (size_t)(nlinks + 1) * sizeof(*links));
				links[nlinks++] = l;
			}
		} else if (!strcmp(p->kind, "trace") || !strcmp(p->kind, "uprobe")) {
			LIBBPF_OPTS(bpf_uprobe_opts, uo, .func_name = p->sym,
				    .retprobe = p->arg != 0);
			struct bpf_link *l = !strcmp(p->kind, "trace") ?
				bpf_program__attach(p->bp) :	/* raw_tp/NAME */
				bpf_program__attach_uprobe_opts(p->bp, -1, p->path, 0, &uo);

			if (!l) {
				fprintf(stderr, "ERROR: cannot attach %s%s%s: %s\n",
					bpf_program__section_name(p->bp), *p->sym ? " " : "",
					p->sym, strerror(errno));
				L.exiting = true, L.nerrors++;
				continue;
			}
			links = realloc(links, (size_t)(nlinks + 1) * sizeof(*links));
			links[nlinks++] = l;
		}
	}
	fflush(L.out);
	if (child) {
		if (!L.exiting && !*L.state && write(go[1], "g", 1) != 1)
			L.exiting = true;
		close(go[1]);
	}
	while (!L.exiting && !got_signal && !*L.state) {
		if (ring_buffer__poll(rb, 100) > 0)
			fflush(L.out);
		if (child && waitpid(child, &status, WNOHANG) == child) {
			child = 0;	/* -c: the command ended, so does the session */
			failed = child_failed(status);
			break;
		}
	}
	if (!*L.state)
		*L.state = 1;
	for (int i = 0; i < nlinks; i++)
		bpf_link__destroy(links[i]);
	stapbpf_kretprobe_cleanup(&L.kp);
	ring_buffer__consume(rb);
	if (*L.state == 2) {
		run_kind(&L, "error", rb);
	} else {
		run_kind(&L, "end", rb);
		if (*L.state != 2)
			display(&L);
	}
	ring_buffer__consume(rb);
	fflush(L.out);
	if (L.nerrors && !L.quiet)
		fprintf(stderr, "WARNING: Number of errors: %d, skipped probes: 0\n", L.nerrors);
	rc = L.nerrors || failed ? 1 : 0;
	if (child) {	/* the session ended first: the command goes too */
		kill(child, SIGTERM);
		waitpid(child, NULL, 0);
	}
out:
	ring_buffer__free(rb);
	free(links);
	bpf_object__close(L.obj);
	free(image);
	return rc;
}
