/*
 * points.c - pass 2 of the process family: process("PATH") and
 * process(PID) points (.function, .statement, .mark, .plt, .library and
 * the process events) resolved against the program's DWARF, symbol table
 * and SDT notes (info/ubin.c); kernel.c hands module("M") points here
 * when the module has DWARF. Each match becomes an rprobe that probes.c
 * fills; the events are process/events.c's.
 */
#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "process.h"

/* The lines of a .statement("FUNC@FILE...") spec: ":*" (all), ":A,B-C"
 * (lines and ranges) or "+N" (relative to the function's declaration). */
struct lspec {
	const char *fn, *file;
	bool all;
	int rel;		/* the N of "+N", else -1 */
	int n, first[16], last[16];
	bool ranged;		/* a "-" or "," in the lines */
};

/* ":A,B-C" into l; false if malformed */
static bool split_ranges(const char *p, struct lspec *l)
{
	char *end;

	do {
		if (l->n == 16 || *p < '0' || *p > '9')
			return false;
		l->first[l->n] = l->last[l->n] = (int)strtol(p, &end, 10);
		if (*end == '-' && end[1] >= '0' && end[1] <= '9') {
			l->last[l->n] = (int)strtol(end + 1, &end, 10);
			l->ranged = true;
		}
		if (l->first[l->n] <= 0 || l->last[l->n] < l->first[l->n])
			return false;
		l->n++;
		p = end + 1;
	} while (*end == ',');
	l->ranged |= l->n > 1;
	return !*end;
}

static bool split_statement(struct session *s, const char *spec, struct lspec *l)
{
	const char *at = strchr(spec, '@'), *sep = at ? strpbrk(at, ":+") : NULL;
	char *end;

	memset(l, 0, sizeof(*l));
	l->rel = -1;
	if (!at || !sep || sep == at + 1 || at == spec)
		return false;
	l->fn = arena_strndup(s->arena, spec, (size_t)(at - spec));
	l->file = arena_strndup(s->arena, at + 1, (size_t)(sep - at - 1));
	if (*sep == '+') {
		if (sep[1] < '0' || sep[1] > '9')
			return false;
		l->rel = (int)strtol(sep + 1, &end, 10);
		return !*end;
	}
	if (!strcmp(sep + 1, "*"))
		return l->all = true;
	return split_ranges(sep + 1, l);
}

static bool line_wanted(const struct lspec *l, const struct ufunc *f, int line)
{
	if (l->all)
		return true;
	if (l->rel >= 0)
		return line == f->line + l->rel;
	for (int i = 0; i < l->n; i++)
		if (line >= l->first[i] && line <= l->last[i])
			return true;
	return false;
}

/* A line chosen for a statement probe. */
struct lpick {
	const struct ufunc *f;
	int line, asked;	/* asked: .nearest's line, else line */
	uint64_t addr;
	size_t seq;
};

static int by_line(const void *a, const void *b)
{
	const struct lpick *x = a, *y = b;

	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* f's wanted lines into *picks, as 4.8: each at its lowest address in f,
 * dropped when an earlier one has that address. ":*" takes the lines from
 * the one in effect at f's entry (its last row there) on. */
static void pick_lines(struct resolver *r, struct ubin *b, const struct ufunc *f,
		       const struct lspec *l, struct lpick **picks, size_t *n, size_t *cap)
{
	struct uline_addr *ls;
	size_t nl = ubin_func_lines(r->s, b, f, l->file, &ls);
	int from = l->all ? ubin_line_at(b, f, f->entry) : 0;

	for (size_t i = 0; i < nl; i++) {
		bool dup = false;

		if (!line_wanted(l, f, ls[i].line))
			continue;
		if (ls[i].line < from)
			continue;
		for (size_t j = 0; j < *n && !dup; j++)
			dup = (*picks)[j].addr == ls[i].addr;
		if (dup)
			continue;
		if (*n == *cap) {
			struct lpick *p = arena_alloc(r->s->arena, (*cap * 2 + 16) * sizeof(*p));

			if (*n)
				memcpy(p, *picks, *n * sizeof(*p));
			*picks = p;
			*cap = *cap * 2 + 16;
		}
		(*picks)[*n] = (struct lpick){ f, ls[i].line, ls[i].line, ls[i].addr, *n };
		(*n)++;
	}
}

/* The probe of pick p in f; with .nearest, -l lists the line asked for */
static void statement_at(struct resolver *r, struct ubin *b, const struct ufunc *f,
			 const struct lpick *p, bool nearest)
{
	struct rprobe *rp = rp_add(r, &family_process, RP_UPROBE, ubin_is_vmlinux(b) ?
				   "kernel.statement" : ubin_is_kernel(b) ? "module.statement" :
				   "process.statement", "");

	uprobe_fill_statement(r->s, rp, b, f,
			      arena_printf(r->s->arena, "%s@%s:%d", f->name, f->file, p->line),
			      p->addr);
	if (nearest)
		rp->label = arena_printf(r->s->arena, "%s.statement(\"%s@%s:%d\").nearest%s",
					 uprobe_point_prefix(r->s, b), f->name, f->file, p->asked,
					 rp->marks);
	if (nearest && ubin_is_kernel(b))	/* 4.8's -p2: the line found, .nearest */
		rp->from = arena_printf(r->s->arena, "%s.nearest", rp->pp);
}

/* .nearest of one line: f's picks at the line of the file with code
 * nearest to it (4.8), if that line is in f */
static void pick_nearest(struct resolver *r, struct ubin *b, const struct ufunc *f,
			 const struct lspec *l, struct lpick **picks, size_t *n, size_t *cap)
{
	struct lspec one = *l;
	int asked = l->rel >= 0 ? f->line + l->rel : l->first[0], near;
	size_t from = *n;

	if (!ubin_nearest_line(b, f, l->file, asked, &near))
		return;
	one.rel = -1;
	one.n = 1;
	one.first[0] = one.last[0] = near;
	pick_lines(r, b, f, &one, picks, n, cap);
	for (size_t i = from; i < *n; i++)
		(*picks)[i].asked = asked;
}

/* No code at the one line of l in the functions fs: 4.8's error, with
 * the nearest lines that have some (at most 5 lines away) to try. */
static void no_line_records(struct resolver *r, struct ubin *b, const struct lspec *l,
			    const struct ufunc **fs, size_t n)
{
	const struct ufunc *f = NULL;
	int line, below = 0, above = 0;

	for (size_t i = 0; i < n && !f; i++)
		if (fs[i]->die && ubin_file_matches(fs[i]->file, l->file))
			f = fs[i];
	if (!f || l->all || l->ranged)
		return;
	line = l->rel >= 0 ? f->line + l->rel : l->first[0];
	for (size_t i = 0; i < n; i++) {
		struct uline_addr *ls;
		size_t nl = fs[i]->die ? ubin_func_lines(r->s, b, fs[i], l->file, &ls) : 0;

		for (size_t j = 0; j < nl; j++) {
			if (ls[j].line < line && line - ls[j].line <= 5 && ls[j].line > below)
				below = ls[j].line;
			if (ls[j].line > line && ls[j].line - line <= 5 && (!above || ls[j].line < above))
				above = ls[j].line;
		}
	}
	rp_fail(r, r->pp->loc, "no line records for %s:%d [man error::dwarf]%s", f->file, line,
	     below && above ? arena_printf(r->s->arena, " (try :%d or :%d)", below, above) :
	     below || above ? arena_printf(r->s->arena, " (try :%d)", below ? below : above) : "");
}

/* The kernel functions of fs[0..n) its blacklists allow (4.8: the others
 * are no match), kept in place; their number. */
static size_t kernel_allowed(struct resolver *r, struct ubin *b, const struct ufunc **fs,
			     size_t n, bool ret)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		if (kernel_dwarf_allowed(r->s, r, b, fs[i], ret))
			fs[k++] = fs[i];
	return k;
}

void process_statement(struct resolver *r, struct ubin *b, const struct pp_comp *k,
		       bool nearest)
{
	const char *spec = k->arg->str;
	const struct ufunc **fs;
	struct lpick *picks = NULL;
	size_t n, np = 0, cap = 0;
	struct lspec l;
	bool one_near;

	if (!split_statement(r->s, spec, &l)) {
		rp_fail(r, k->arg->loc, "%s().statement takes \"FUNCTION@FILE:LINES\" or \"FUNCTION@FILE+OFFSET\"",
		     ubin_is_kernel(b) ? "module" : "process");
		return;
	}
	one_near = nearest && !l.all && !l.ranged;
	n = ubin_match_funcs(b, l.fn, &fs);
	if (ubin_is_vmlinux(b))
		n = kernel_allowed(r, b, fs, n, false);
	for (int inl = 0; inl < 2; inl++)	/* functions, then inlined instances */
		for (size_t i = 0; i < n; i++)
			if (fs[i]->die && fs[i]->inlined == inl && !one_near)
				pick_lines(r, b, fs[i], &l, &picks, &np, &cap);
			else if (fs[i]->die && fs[i]->inlined == inl)
				pick_nearest(r, b, fs[i], &l, &picks, &np, &cap);
	if (!np && !nearest)
		no_line_records(r, b, &l, fs, n);
	if (np > 1)
		qsort(picks, np, sizeof(*picks), by_line);
	for (size_t i = 0; i < np; i++) {
		statement_at(r, b, picks[i].f, &picks[i], nearest);
		/* as 4.8, also in the other matched functions holding it (an
		 * inlined instance and its caller) */
		for (size_t j = 0; j < n; j++)
			if (fs[j] != picks[i].f && fs[j]->die && fs[j]->entry <= picks[i].addr &&
			    picks[i].addr < fs[j]->end)
				statement_at(r, b, fs[j], &picks[i], nearest);
	}
}

/* "FUNC[@FILE[:LINE]]": the function glob, and the declaring file (NULL:
 * any) and line (0: none; 4.8 ignores it); false if malformed. */
static bool split_function(struct session *s, const char *spec, const char **glob,
			   const char **file, int *line)
{
	const char *at = strchr(spec, '@'), *colon = at ? strrchr(at, ':') : NULL;
	char *end = NULL;

	*glob = at ? arena_strndup(s->arena, spec, (size_t)(at - spec)) : spec;
	*file = NULL;
	*line = 0;
	if (at)
		*file = arena_strndup(s->arena, at + 1, colon ? (size_t)(colon - at - 1) :
				      strlen(at + 1));
	if (colon) {
		*line = (int)strtol(colon + 1, &end, 10);
		if (*end || *line <= 0)
			return false;
	}
	return !strpbrk(*glob, ":+");
}

/* Distinct names, in order: the inlined functions a .return skips. */
struct names {
	struct session *s;
	const char **v;
	size_t n;
};

static void note_inlined(struct names *l, const char *name, size_t max)
{
	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->v[i], name))
			return;
	if (!l->v)
		l->v = arena_alloc(l->s->arena, sizeof(*l->v) * (max + 1));
	l->v[l->n++] = name;
}

/* .label("GLOB") of f */
static void function_labels(struct resolver *r, struct ubin *b, const struct ufunc *f,
			    const char *glob)
{
	struct ulabel *ls;
	size_t n = ubin_labels(r->s, b, f, glob, &ls);

	for (size_t i = 0; i < n; i++)
		uprobe_fill_label(r->s, rp_add(r, &family_process, RP_UPROBE, ubin_is_vmlinux(b) ?
					       "kernel.function" : "process.label", ""),
				  b, f, &ls[i]);
}

/* .callee("GLOB")[.call] / .callees of f: a probe per function called,
 * for all its call sites in f */
static void function_callees(struct resolver *r, struct ubin *b, const struct ufunc *f,
			     const char *glob, bool call)
{
	struct ucall *cs;
	size_t n = ubin_calls(r->s, b, f, glob, &cs);

	for (size_t i = 0, j; i < n; i = j) {
		for (j = i + 1; j < n && cs[j].callee == cs[i].callee; j++)
			;
		uprobe_fill_callee(r->s, rp_add(r, &family_process, RP_UPROBE, "process.callee", ""), b, f, &cs[i],
				   j - i, call);
	}
}

/* .label(), .callee() or .callees of a function without DWARF: as 4.8,
 * a probe on its entry, listed as written. */
static void function_nodwarf(struct resolver *r, struct ubin *b, const struct ufunc *f,
			     int how, const char *glob, bool call)
{
	struct rprobe *rp = rp_add(r, &family_process, RP_UPROBE, "process.function", "");
	const char *sfx = how == 5 ? ".callees" :
		arena_printf(r->s->arena, how == 3 ? ".label(\"%s\")" : ".callee(\"%s\")%s",
			     glob, call ? ".call" : "");

	uprobe_fill_function(r->s, rp, b, f, call);
	uprobe_set_pn(rp, arena_printf(r->s->arena, "process(\"%s\").function(\"%s\")%s",
				       ubin_path(b), f->name, sfx));
	rp->label = arena_printf(r->s->arena, "%s%s", uprobe_pn(rp), rp->marks);
}

/* What follows .function(): 0 plain, 1 .call, 2 .return, 3 .label(L),
 * 4 .callee(G)[.call], 5 .callees[(N)], 6 .inline; -1 something else.
 * The kernel's may start with .exported (then nothing else) and take
 * .callees(N) of any depth (*depth). */
static int function_suffix(const struct pp_comp *k, const char **glob, bool *call,
			   bool *exported, int *depth, bool kernel)
{
	const struct pp_comp *x;

	*glob = "*";
	*call = false;
	*depth = 1;
	*exported = kernel && pp_take(&k, "exported", -1);
	if (*exported)
		return k ? -1 : 0;
	if (!k)
		return 0;
	if (pp_take(&k, "call", -1))
		return k ? -1 : 1;
	if (pp_take(&k, "return", -1))
		return k ? -1 : 2;
	if (pp_take(&k, "inline", -1))
		return k ? -1 : 6;
	if ((x = pp_take(&k, "label", N_STR))) {
		*glob = x->arg->str;
		return k ? -1 : 3;
	}
	if (pp_take(&k, "callees", -1))
		return k ? -1 : 5;
	if ((x = pp_take(&k, "callees", N_NUM))) {	/* processes: depth 1 only */
		*depth = x->arg->num >= 1 && x->arg->num <= 32 ? (int)x->arg->num : 0;
		return k || !*depth || (!kernel && *depth != 1) ? -1 : 5;
	}
	if (!(x = pp_take(&k, "callee", N_STR)))
		return -1;
	*glob = x->arg->str;
	*call = pp_take(&k, "call", -1) != NULL;
	return k ? -1 : 4;
}

/*
 * vmlinux: .callee("G")[.call] / .callees(N) as 4.8 reads the kernel's
 * DWARF, whose call sites (DWARF 5's) it does not take: the functions
 * inlined in f matching glob, each probed where it is inlined and named
 * kernel.function("F@FILE:N").callee("C@FILE:N"), then (depth > 1) those
 * inlined in each of them, in DWARF order.
 */
static void kernel_callees(struct resolver *r, struct ubin *b, const struct ufunc *f,
			   const char *glob, bool call, int depth)
{
	const struct ufunc **cs;
	size_t n = ubin_inlined_in(b, f, &cs);

	for (size_t i = 0; i < n; i++) {
		struct rprobe *rp;

		if (fnmatch(glob, cs[i]->name, 0) || !kernel_dwarf_allowed(r->s, r, b, cs[i], false))
			continue;
		rp = rp_add(r, &family_process, RP_UPROBE, "kernel.function", "");
		uprobe_fill_function(r->s, rp, b, cs[i], 3);
		rp->pp = arena_printf(r->s->arena, "kernel.function(\"%s@%s:%d\")%s", cs[i]->name,
				      cs[i]->file, cs[i]->line, call ? ".call" : "");
		uprobe_set_pn(rp, arena_printf(r->s->arena,
					       "kernel.function(\"%s@%s:%d\").callee(\"%s@%s:%d\")%s",
					       f->name, f->file, f->line, cs[i]->name, cs[i]->file,
					       cs[i]->line, call ? ".call" : ""));
		rp->label = arena_printf(r->s->arena, "%s%s", uprobe_pn(rp), rp->marks);
		rp->from = uprobe_pn(rp);
		if (depth > 1)
			kernel_callees(r, b, cs[i], "*", call, depth - 1);
	}
}

/* vmlinux: .exported after the function, in all it is named by. */
static void kernel_exported(struct session *s, struct rprobe *rp)
{
	rp->pp = arena_printf(s->arena, "%s.exported", rp->pp);
	rp->label = arena_printf(s->arena, "%s%s", rp->pp, rp->marks);
	rp->from = rp->pp;
}

void process_functions(struct resolver *r, struct ubin *b, const struct pp_comp *fn,
		       const struct pp_comp *k)
{
	const struct ufunc **fs;
	const char *glob, *file, *sub;
	size_t n;
	bool call, exported, kernel = ubin_is_kernel(b);
	int depth, line;	/* line: ignored, as by 4.8 */
	int how = function_suffix(k, &sub, &call, &exported, &depth, ubin_is_vmlinux(b));
	struct names inlined = { r->s, NULL, 0 };

	if (how < 0)
		return;
	if (kernel && !ubin_is_vmlinux(b) && how >= 3 && how <= 5) {
		rp_fail(r, r->pp->loc, "module().function().%s probes are not supported by this version yet",
		     how == 3 ? "label" : how == 4 ? "callee" : "callees");
		return;
	}
	if (!split_function(r->s, fn->arg->str, &glob, &file, &line)) {
		rp_fail(r, fn->arg->loc, "%s().function takes \"FUNC[@FILE[:LINE]]\"",
		     kernel ? "module" : "process");
		return;
	}
	if (kernel && !ubin_is_vmlinux(b) && !file)	/* as the kernel's (kdwarf.c) */
		ubin_kmod_symbol_funcs(b, glob);
	n = ubin_match_funcs(b, glob, &fs);
	if (kernel)	/* probed (and -p2 lists them) in 4.8's order */
		ubin_upstream_order(r->s, b, fs, n, file || strpbrk(glob, "*?[") ? 0 :
				    how == 6 ? UORDER_INLINED : how == 1 || how == 2 ? UORDER_FUNCS :
				    UORDER_FUNCS | UORDER_INLINED);
	/* the kernel's blacklists last: thousands of functions a wildcard
	 * matches are left by the cheaper tests first */
	for (size_t i = 0; i < n; i++) {
		if (how == 2 && fs[i]->inlined) {	/* an inlined copy never returns */
			if (!kernel || kernel_dwarf_allowed(r->s, NULL, b, fs[i], true))
				note_inlined(&inlined, fs[i]->name, n);
			continue;
		}
		if ((how == 1 && fs[i]->inlined) || (how == 6 && !fs[i]->inlined))
			continue;
		if (file && (!fs[i]->file || !ubin_file_matches(fs[i]->file, file)))
			continue;
		if (kernel && !kernel_dwarf_allowed(r->s, r, b, fs[i], how == 2))
			continue;
		if (exported && fs[i]->die && !kstab_exported(ubin_kstab(b), fs[i]->name))
			continue;
		if (ubin_is_vmlinux(b) && (how == 4 || how == 5) && fs[i]->die)
			kernel_callees(r, b, fs[i], sub, call, depth);
		else if (how >= 3 && how <= 5 && !fs[i]->die)
			function_nodwarf(r, b, fs[i], how, sub, call);
		else if (how == 3)
			function_labels(r, b, fs[i], sub);
		else if (how == 4 || how == 5)
			function_callees(r, b, fs[i], sub, call);
		else if (how != 4 && how != 5) {	/* .inline is 3 to uprobe_fill_function */
			struct rprobe *rp = rp_add(r, &family_process, RP_UPROBE,
						   ubin_is_vmlinux(b) ? "kernel.function" :
						   kernel ? "module.function" : "process.function", "");

			uprobe_fill_function(r->s, rp, b, fs[i], how == 6 ? 3 : how);
			if (exported)
				kernel_exported(r->s, rp);
		}
	}
	if (inlined.n && kernel && !r->s->suppress_warnings) {	/* 4.8's words */
		fprintf(r->s->err, "WARNING: cannot probe .return of %zu inlined functions ",
			inlined.n);
		for (size_t i = 0; i < inlined.n; i++)
			fprintf(r->s->err, " %s", inlined.v[i]);
		fputc('\n', r->s->err);
	}
}

static void process_marks(struct resolver *r, struct ubin *b, const char *provider,
			  const struct pp_comp *m)
{
	const struct usdt **ms;
	size_t n;

	if (m->next)
		return;
	n = ubin_match_sdts(b, provider, m->arg->str, &ms);
	for (size_t i = 0; i < n; i++)
		uprobe_fill_mark(r->s, rp_add(r, &family_process, RP_UPROBE, "process.mark", ""), b, ms[i]);
}

/* .plt("GLOB") of b (.plt: all): a probe on each PLT entry whose function
 * matches. */
static void process_plts(struct resolver *r, struct ubin *b, const struct pp_comp *p)
{
	struct uplt *ps;
	size_t n;

	if (p->next) {
		if (!strcmp(p->next->name, "return") && !p->next->next)
			rp_fail(r, r->pp->loc, "process return probes not available");
		return;
	}
	n = ubin_match_plts(r->s, b, p->arg ? p->arg->str : "*", &ps);
	for (size_t i = 0; i < n; i++)
		uprobe_fill_plt(r->s, rp_add(r, &family_process, RP_UPROBE, "process.plt", ""), b, &ps[i]);
}

/* [.thread].begin | [.thread].end of process or process(PATH); false when
 * k is something else. */
static bool process_event(struct resolver *r, const char *path, int64_t pid,
			  const struct pp_comp *k)
{
	static const char *const names[] = { ".begin", ".end", ".thread.begin", ".thread.end",
					     ".syscall", ".syscall.return" };
	bool thread = pp_take(&k, "thread", -1) != NULL;
	int ev;
	struct rprobe *rp;

	if (!thread && pp_take(&k, "syscall", -1))
		ev = pp_take(&k, "return", -1) ? UP_SYSCALL_RETURN : UP_SYSCALL;
	else if (pp_take(&k, "begin", -1))
		ev = thread ? UP_THREAD_BEGIN : UP_BEGIN;
	else if (pp_take(&k, "end", -1))
		ev = thread ? UP_THREAD_END : UP_END;
	else
		return false;
	if (k)
		return true;
	rp = rp_add(r, &family_process_events, RP_UPROC, "process", path ?
		 arena_printf(r->s->arena, "process(\"%s\")%s", path, names[ev]) : pid ?
		 arena_printf(r->s->arena, "process(%lld)%s", (long long)pid, names[ev]) :
		 arena_printf(r->s->arena, "process%s", names[ev]));
	rp->proc_path = path;
	rp->proc_pid = pid;
	rp->proc_event = ev;
	rp->ret_type = "void";
	return true;
}

/* .statement(ADDRESS): as 4.8, a line-table row's address (link time)
 * inside a function with DWARF; pp() keeps the address. */
static void process_statement_addr(struct resolver *r, struct ubin *b, const struct pp_comp *k)
{
	uint64_t addr = (uint64_t)k->arg->num, prev;
	const struct ufunc **fs, *f = NULL;
	size_t n = ubin_match_funcs(b, "*", &fs);
	struct rprobe *rp;

	for (size_t i = 0; i < n && !f; i++)
		if (fs[i]->die && !fs[i]->inlined && fs[i]->entry <= addr && addr < fs[i]->end)
			f = fs[i];
	if (!f)
		return;
	if (!ubin_row_at(b, f, addr, &prev)) {
		rp_fail(r, k->arg->loc, "address 0x%llx does not match the beginning of a statement (try 0x%llx)",
		     (unsigned long long)addr, (unsigned long long)prev);
		return;
	}
	rp = rp_add(r, &family_process, RP_UPROBE, "process.statement", "");
	uprobe_fill_statement(r->s, rp, b, f, "", addr);
	rp->pp = arena_printf(r->s->arena, "process(\"%s\").statement(0x%llx)", ubin_path(b),
			      (unsigned long long)addr);
	rp->label = arena_printf(r->s->arena, "%s%s", rp->pp, rp->marks);
}

/* .function(...) | .statement(...) | [.provider(P)].mark(M) of b */
static void process_in(struct resolver *r, struct ubin *b, const struct pp_comp *k)
{
	const struct pp_comp *x;

	if ((x = pp_take(&k, "function", N_STR)))
		process_functions(r, b, x, k);
	else if ((x = pp_take(&k, "statement", N_STR)) && (!k || (!k->arg && !k->next &&
							       !strcmp(k->name, "nearest"))))
		process_statement(r, b, x, k != NULL);
	else if (!x && (x = pp_take(&k, "statement", N_NUM)) && !k)
		process_statement_addr(r, b, x);
	else if (!x && !strcmp(k->name, "plt") && (!k->arg || k->arg->kind == N_STR))
		process_plts(r, b, k);	/* .plt is .plt("*") */
	else if ((x = pp_take(&k, "provider", N_STR)) && k && !strcmp(k->name, "mark") &&
		 k->arg && k->arg->kind == N_STR)
		process_marks(r, b, x->arg->str, k);
	else if (!x && !strcmp(k->name, "mark") && k->arg && k->arg->kind == N_STR)
		process_marks(r, b, NULL, k);
}

/* process("PATH").library("LIB")...: the points of the libraries PATH
 * needs that LIB (a glob, or a path) names; they are the library's own
 * points (pp() is process("LIBPATH")...), listed by -l as written. */
static void process_library(struct resolver *r, struct ubin *exe, const struct pp_comp *lib,
			    const struct pp_comp *k)
{
	const char **libs;
	size_t n = ubin_libraries(r->s, exe, lib->arg->str, &libs);

	if (!n) {
		rp_fail(r, lib->arg->loc, "no library '%s' for %s", lib->arg->str, ubin_path(exe));
		return;
	}
	for (size_t i = 0; i < n; i++) {
		struct ubin *b = ubin_open(r->s, libs[i], lib->arg->loc);
		struct rprobe **from = r->tail;
		size_t skip = strlen(libs[i]) + strlen("process(\"\")");

		if (!b)
			continue;
		process_in(r, b, k);
		for (struct rprobe *rp = *from; rp; rp = rp->next)
			rp->label = arena_printf(r->s->arena, "process(\"%s\").library(\"%s\")%s",
						 ubin_path(exe), libs[i], rp->label + skip);
	}
}

/* process(PID)...: PID must be a process now, as 4.8 wants (kill(PID, 0));
 * its events are filtered by PID at run time, and its DWARF points are
 * those of the program it runs now (/proc/PID/exe), firing in every
 * process running it, as 4.8's; 4.8 has no .return nor .absolute there. */
static void resolve_process_pid(struct resolver *r, const struct node *arg,
				const struct pp_comp *k)
{
	int64_t pid = arg->num;
	struct rprobe **from = r->tail;
	char exe[PATH_MAX];
	ssize_t len;
	struct ubin *b;

	if (pid <= 0 || pid > INT_MAX || (kill((pid_t)pid, 0) && errno != EPERM)) {
		rp_fail(r, r->pp->loc, "cannot probe pid %lld: %s", (long long)pid,
		     strerror(pid <= 0 || pid > INT_MAX ? ESRCH : errno));
		return;
	}
	if (process_event(r, NULL, pid, k))
		return;
	for (const struct pp_comp *x = k; x; x = x->next)
		if ((!strcmp(x->name, "return") || !strcmp(x->name, "absolute")) && !x->arg) {
			rp_fail(r, r->pp->loc, "%s probes not available [man error::inode-uprobes]",
			     x->name[0] == 'r' ? "process return" : "absolute process");
			return;
		}
	len = readlink(arena_printf(r->s->arena, "/proc/%lld/exe", (long long)pid), exe,
		       sizeof(exe) - 1);
	if (len <= 0) {
		rp_fail(r, r->pp->loc, "cannot find the executable of pid %lld", (long long)pid);
		return;
	}
	exe[len] = 0;
	b = ubin_open(r->s, arena_strdup(r->s->arena, exe), arg->loc);
	if (!b) {
		r->failed = true;
		return;
	}
	process_in(r, b, k);
	for (struct rprobe *rp = *from; rp; rp = rp->next)
		rp->proc_pid = pid;
}

/* process("PATH").function(...) | .statement(...) | [.provider(P)].mark(M)
 * | .library(LIB)... | [.thread].begin | [.thread].end;
 * process[.thread].begin | .end */
void process_resolve(struct resolver *r, const struct pp_comp *c)
{
	const struct pp_comp *k = c->next, *x;
	const char *path;
	struct ubin *b;

	if (!c->arg && k) {
		process_event(r, NULL, 0, k);
		return;
	}
	if (c->arg && c->arg->kind == N_NUM && k) {
		resolve_process_pid(r, c->arg, k);
		return;
	}
	if (!c->arg || c->arg->kind != N_STR || !k)
		return;
	path = ubin_find(r->s, c->arg->str);
	if (!path)	/* no such program: "no match", as 4.8 says */
		return;
	if (process_event(r, path, 0, k))
		return;
	if (r->quiet && !ubin_is_64bit(path))	/* optional: a 32-bit one is no match */
		return;
	b = ubin_open(r->s, path, c->arg->loc);
	if (!b) {
		r->failed = true;
		return;
	}
	if ((x = pp_take(&k, "library", N_STR)) && k)
		process_library(r, b, x, k);
	else if (!x)
		process_in(r, b, k);
}

