/*
 * bpf_out.c - pass 3 and 4 of --runtime=bpf: the BPF C file (globals in
 * .bss/.data, which the loader maps; one program per probe point calling
 * its probe's handler; script functions), the metadata the loader reads
 * from the object's .stapmeta section (probes, printf formats, error
 * messages, the globals shown at exit). Pass 4 is bpf_clang.c.
 */
#include <stdlib.h>
#include <string.h>

#include "bpf.h"

/* a -D NAME=VALUE of the command line, or def */
static const char *define(struct session *s, const char *name, const char *def)
{
	size_t n = strlen(name);

	for (struct define *d = s->defines; d; d = d->next)
		if (!strncmp(d->text, name, n) && d->text[n] == '=')
			return d->text + n + 1;
	return def;
}

static void globals(struct bgen *g, struct strbuf *c)
{
	for (struct var *v = g->s->globals; v; v = v->next) {
		if (v->array) {
			bm_decl(g, c, v);
			continue;
		}
		if (v->type == T_STATS && bm_stat_decl(g, c, v)) {
			/* a histogram: bpf_maps.c */
		} else if (v->type == T_STATS) {
			sb_printf(c, "STP_STAT(g_%s);\n", v->name);
		} else if (v->type == T_STRING) {
			struct strbuf lit;

			sb_init(&lit);
			if (v->init && v->init->kind == N_STR)
				sb_c_string(&lit, v->init->str);
			sb_printf(c, "char g_%s[STP_MAXSTR]%s%s;\n", v->name,
				  lit.buf ? " = " : "", lit.buf ? lit.buf : "");
			sb_free(&lit);
		} else {
			sb_printf(c, "long g_%s = %lldLL;\n", v->name,
				  v->init && v->init->kind == N_NUM ?
				  (long long)v->init->num : 0LL);
		}
		if (v->written && !v->read && !(v->loc.src && v->loc.src->tapset) &&
		    !g->s->no_global_display)
			sb_printf(&g->meta, "global %s g_%s %c\n", v->name, v->name,
				  v->type == T_STRING ? 's' : v->type == T_STATS ? 't' : 'l');
	}
}

/* Does n call f, directly or through the functions it calls? */
static bool reaches(const struct node *n, const struct func *f, int depth)
{
	if (!n || depth > 64)
		return depth > 64;
	for (; n; n = n->next) {
		if (n->kind == N_CALL && n->func && n->func->body &&
		    n->func->body->kind != N_EMBEDDED_STMT &&
		    (n->func == f || reaches(n->func->body, f, depth + 1)))
			return true;
		if (reaches(n->a, f, depth) || reaches(n->b, f, depth) ||
		    reaches(n->c, f, depth) || reaches(n->d, f, depth) ||
		    reaches(n->args, f, depth))
			return true;
	}
	return false;
}

/* The first embedded-C function n calls, directly or through script
 * functions, that this runtime does not have; NULL if none. Calls written
 * in the file `user` (the user's probe body within an alias's) are left
 * to the error of their own construct. */
static const struct func *missing_builtin(const struct node *n, int depth,
					  const struct source *user)
{
	const struct func *f;

	for (; n && depth <= 64; n = n->next) {
		if (n->kind == N_CALL && n->func && n->func->body &&
		    !(depth == 0 && n->loc.src == user)) {
			if (n->func->body->kind == N_EMBEDDED_STMT && !bg_has_builtin(n->func))
				return n->func;
			if (n->func->body->kind != N_EMBEDDED_STMT &&
			    (f = missing_builtin(n->func->body, depth + 1, NULL)))
				return f;
		}
		if ((f = missing_builtin(n->a, depth, user)) ||
		    (f = missing_builtin(n->b, depth, user)) ||
		    (f = missing_builtin(n->c, depth, user)) ||
		    (f = missing_builtin(n->d, depth, user)) ||
		    (f = missing_builtin(n->args, depth, user)))
			return f;
	}
	return NULL;
}

/*
 * A probe through an alias whose body needs embedded C this runtime does
 * not have (the tapset's syscall.* and nd_syscall.* read the system call's
 * registers and strings that way): one error naming the alias and the
 * function, rather than one per construct of the tapset's code. Returns
 * whether p is such a probe (its handler and functions are then not
 * written).
 */
static const struct func *alias_missing(const struct probe *p)
{
	return p->via && p->listed ? missing_builtin(p->body, 0, p->loc.src) : NULL;
}

static bool alias_unsupported(struct bgen *g, struct probe *p)
{
	const struct func *f = alias_missing(p);

	if (!f)
		return false;
	for (const struct probe *q = g->s->probes; q != p; q = q->next)
		if (q->loc.src == p->loc.src && q->loc.line == p->loc.line &&
		    q->loc.col == p->loc.col && q->listed && !strcmp(q->listed, p->listed) &&
		    alias_missing(q))
			return true;	/* another point of the same alias: said */
	diag_error(g->s, p->loc, "the probe alias %s is not supported by --runtime=bpf: its "
		   "body calls %s() (embedded C); use %sthe kernel module runtime "
		   "(--runtime=kernel)", p->listed, f->name,
		   strncmp(p->listed, "syscall.", 8) && strncmp(p->listed, "nd_syscall.", 11) ? "" :
		   "kernel.trace(\"sys_enter\") and kernel.trace(\"sys_exit\") ($id, $regs, "
		   "$ret), or ");
	g->errors++;
	return true;
}

/* Is f called from a probe other than those alias_unsupported() reports? */
static bool reached(struct bgen *g, const struct func *f)
{
	for (const struct probe *p = g->s->probes; p; p = p->next)
		if (!alias_missing(p) && (reaches(p->body, f, 0) || reaches(p->body2, f, 0)))
			return true;
	return false;
}

/* Does n read a target variable ($name, @entry())? */
static bool reads_targets(const struct node *n)
{
	for (; n; n = n->next)
		if (n->kind == N_TARGET || (n->kind == N_CALL && n->op && !strcmp(n->op, "@entry")) ||
		    reads_targets(n->a) || reads_targets(n->b) || reads_targets(n->c) ||
		    reads_targets(n->d) || reads_targets(n->args))
			return true;
	return false;
}

/* A probe of several points reading target variables has a handler per
 * point (each point's $vars are its own); the handler of point id */
static const char *handler_name(struct bgen *g, const struct probe *p, int id)
{
	int npoints = 0;

	for (const struct rprobe *r = g->s->rprobes; r; r = r->next)
		npoints += r->probe == p;
	if (npoints > 1 && reads_targets(p->body))
		return arena_printf(g->s->arena, "handler_%d_%d", p->index, id);
	return arena_printf(g->s->arena, "handler_%d", p->index);
}

/* p's handler, reading the $vars of point r (NULL: none), as name */
static void handler_of(struct bgen *g, struct strbuf *c, struct probe *p,
		       const struct rprobe *r, const char *name)
{
	struct strbuf body;

	sb_init(&body);
	g->body = &body;
	g->ntmp = 0;
	g->rp = r && (r->nargs || r->ret_arg || (r->ret && bu_is_kprobe(r))) ? r : NULL;
	g->probe = p;
	g->errlabel = NULL;
	bm_locals(g, p);
	bg_stmt(g, p->body);
	g->lv = NULL;
	g->probe = NULL;
	sb_printf(c, "static __always_inline void %s(struct stp_scratch *S, void *ctx)\n{\n"
		  "%s\tgoto out;\nout:\n\treturn;\n}\n\n", name, body.buf ? body.buf : "");
	sb_free(&body);
}

/* The fentry/fexit twin of p's handler for point r (bpf_uprobe.c reads
 * its $vars from the trampoline's ctx), NAME_f, unless it cannot be had
 * (or calls backtrace()) */
static void fentry_handler(struct bgen *g, struct strbuf *c, struct probe *p,
			   const struct rprobe *r, const char *name)
{
	struct strbuf twin;
	bool bt = g->need_kstack;

	sb_init(&twin);
	g->fentry = true;
	g->fentry_bad = false;
	g->need_kstack = false;
	name = arena_printf(g->s->arena, "%s_f", name);
	handler_of(g, &twin, p, r, name);
	g->fentry = false;
	/* backtrace() there would show the trampoline's frames: none */
	if (g->need_kstack)
		g->fentry_bad = true;
	g->need_kstack = g->need_kstack || bt;
	if (!g->fentry_bad) {
		sb_puts(c, twin.buf ? twin.buf : "");
		sb_printf(&g->ftwins, "\n%s\n", name);
	}
	sb_free(&twin);
}

static void handler(struct bgen *g, struct strbuf *c, struct probe *p)
{
	const struct rprobe *one = NULL;
	int npoints = 0, id = 0, errors = g->errors;
	bool fentry = false;

	for (const struct rprobe *r = g->s->rprobes; r; r = r->next)
		if (r->probe == p) {
			fentry = fentry || bu_has_fentry(r);
			if (!npoints++)
				one = r;
		}
	if (!npoints)	/* optional points that resolved to none: never runs */
		return;
	if (npoints <= 1 || !reads_targets(p->body)) {
		handler_of(g, c, p, npoints == 1 ? one : NULL, handler_name(g, p, 0));
		if (fentry && g->errors == errors)
			fentry_handler(g, c, p, npoints == 1 ? one : NULL, handler_name(g, p, 0));
		return;
	}
	for (const struct rprobe *r = g->s->rprobes; r && g->errors == errors; r = r->next, id++)
		if (r->probe == p) {	/* an error is said once, for the first point */
			handler_of(g, c, p, r, handler_name(g, p, id));
			if (g->errors == errors && bu_has_fentry(r))
				fentry_handler(g, c, p, r, handler_name(g, p, id));
		}
}

/* The fentry/fexit twin of kprobe point r's program stp_pID (the loader
 * loads and attaches one of the two), if it can be had; pop as the
 * kprobe's */
static void fentry_program(struct bgen *g, struct strbuf *c, const struct rprobe *r, int id,
			   const char *pop)
{
	const char *h = handler_name(g, r->probe, id);

	if (!bu_has_fentry(r) || !g->entry_twin)
		return;
	h = arena_printf(g->s->arena, "%s_f", h);
	if (!g->ftwins.buf || !strstr(g->ftwins.buf, arena_printf(g->s->arena, "\n%s\n", h)))
		return;
	sb_printf(c, "SEC(\"%s/%s\") int stp_f%d(void *ctx)\n{\n", r->ret ? "fexit" : "fentry",
		  r->symbol, id);
	sb_puts(c, "\tstruct stp_scratch *S;\n\n\tif (stp_state)\n\t\treturn 0;\n");
	sb_printf(c, "\tS = stp_enter();\n\tif (!S)\n\t\treturn 0;\n%s%s\t%s(S, ctx);\n"
		  "\tif (S->err == 1 || S->err == 2)\n\t\tstp_report(S);\n\treturn 0;\n}\n\n",
		  g->need_pfn ? arena_printf(g->s->arena, "\tS->pp = %d;\n", id) : "",
		  pop ? pop : "", h);
	sb_printf(&g->meta, "twin stp_p%d stp_f%d\n", id, id);
}

/* probefunc()'s table: row id the function of point r ("" for others) */
static void pfn_row(struct bgen *g, const struct rprobe *r, int id)
{
	const char *f = bu_is_kprobe(r) ? r->symbol : "";

	sb_printf(&g->pfn, "%s\t[%d] = ", g->pfn.len ? ",\n" : "", id);
	sb_c_string(&g->pfn, f);
	sb_printf(&g->ppt, "%s\t[%d] = ", g->ppt.len ? ",\n" : "", id);
	sb_c_string(&g->ppt, r->pp);
}

/* the tables and stp_probefunc(), stp_pp(), before the handlers that call them */
static void pfn_table(struct bgen *g, struct strbuf *c, int npoints)
{
	size_t width = 1;

	if (!g->need_pfn)
		return;
	sb_printf(c, "static const char stp_pfn[%d][STP_MAXSTR < 128 ? STP_MAXSTR : 128] = {\n"
		  "%s\n};\n\n"
		  "static __always_inline void stp_probefunc(char *dst, long i)\n{\n"
		  "\tdst[0] = 0;\n\tif (i >= 0 && i < %d)\n"
		  "\t\tbpf_probe_read_kernel_str(dst, sizeof(stp_pfn[0]), stp_pfn[i]);\n}\n\n",
		  npoints, g->pfn.buf ? g->pfn.buf : "", npoints);
	if (!g->need_pp)
		return;
	for (const struct rprobe *r = g->s->rprobes; r; r = r->next)
		if (strlen(r->pp) + 1 > width)
			width = strlen(r->pp) + 1;
	/* pp()'s: the probe points, as long as the longest (MAXSTRINGLEN at most) */
	sb_printf(c, "static const char stp_ppt[%d][STP_MAXSTR < %zu ? STP_MAXSTR : %zu] = {\n"
		  "%s\n};\n\n"
		  "static __always_inline void stp_pp(char *dst, long i)\n{\n"
		  "\tdst[0] = 0;\n\tif (i >= 0 && i < %d)\n"
		  "\t\tbpf_probe_read_kernel_str(dst, sizeof(stp_ppt[0]), stp_ppt[i]);\n}\n\n",
		  npoints, width, width, g->ppt.buf ? g->ppt.buf : "", npoints);
}

enum point_kind { PK_NONE, PK_CORE, PK_NEVER, PK_TIMER, PK_TRACE, PK_UPROBE,
		  PK_KPROBE, PK_PERF, PK_PROFILE };

/* The kind of program point r gets (PK_NONE: none this runtime has). */
static enum point_kind point_kind(const struct rprobe *r)
{
	const char *fam = r->family;

	if (!strcmp(fam, "begin") || !strcmp(fam, "end") || !strcmp(fam, "error"))
		return PK_CORE;
	if (!strcmp(fam, "never"))
		return PK_NEVER;
	if (!strcmp(fam, "timer") && r->period_ns > 0)
		return PK_TIMER;
	if (!strcmp(fam, "kernel.trace") && r->tp_name)
		return PK_TRACE;
	if (!strcmp(fam, "process.function") && r->binary && r->symbol &&
	    !strpbrk(r->binary, " \n") && !strpbrk(r->symbol, " \n"))
		return PK_UPROBE;
	if (bu_is_kprobe(r))
		return PK_KPROBE;
	if (!strcmp(fam, "perf") && r->perf_period > 0)
		return PK_PERF;
	if (!strcmp(fam, "timer.profile") && r->perf_type == 1)
		return PK_PROFILE;
	return PK_NONE;
}

/* Does p have a point of no kind this runtime has (said by
 * points_unsupported(); its handler, reading that family's context, is
 * not written)? */
static bool probe_unsupported(const struct bgen *g, const struct probe *p)
{
	for (const struct rprobe *r = g->s->rprobes; r; r = r->next)
		if (r->probe == p && point_kind(r) == PK_NONE)
			return true;
	return false;
}

/* The points of no kind this runtime has, each an error, before any
 * handler is written: the family is what to report, not the constructs of
 * its handlers (a procfs probe's $value, a netfilter one's $verdict). */
static void points_unsupported(struct bgen *g)
{
	for (const struct rprobe *r = g->s->rprobes; r; r = r->next) {
		if (point_kind(r) != PK_NONE)
			continue;
		diag_error(g->s, r->point ? r->point->loc : r->probe->loc,
			   "probe point %s is not supported by --runtime=bpf yet: use the "
			   "kernel module runtime (--runtime=kernel)", r->pp);
		g->errors++;
	}
}

/* Each probe point: a program of its kind, and its metadata line. */
static void program(struct bgen *g, struct strbuf *c, const struct rprobe *r, int id)
{
	const char *fam = r->family, *sec = "", *pop = NULL;
	bool gated = true;

	switch (point_kind(r)) {
	case PK_CORE:
		sec = "raw_tp";
		gated = false;
		sb_printf(&g->meta, "probe %s stp_p%d %lld\n", fam, id, (long long)r->order);
		break;
	case PK_TIMER:
		sec = "perf_event";
		sb_printf(&g->meta, "probe timer stp_p%d %lld\n", id, (long long)r->period_ns);
		break;
	case PK_TRACE:
		sec = arena_printf(g->s->arena, "raw_tp/%s", r->tp_name);
		sb_printf(&g->meta, "probe trace stp_p%d 0\n", id);
		break;
	case PK_UPROBE:
		sec = "uprobe";	/* the loader attaches it to the function */
		pop = bu_entry(g, c, r, id);	/* first: the entry's values */
		bu_meta(g, r, arena_printf(g->s->arena, "stp_p%d", id), r->ret);
		break;
	case PK_KPROBE:
		sec = r->ret ? "kretprobe" : "kprobe";	/* the loader attaches it */
		pop = bu_entry(g, c, r, id);	/* first: the entry's values */
		bu_meta(g, r, arena_printf(g->s->arena, "stp_p%d", id), r->ret);
		break;
	case PK_PERF:
		sec = "perf_event";	/* every CPU; .hz: a frequency */
		sb_printf(&g->meta, "probe perf stp_p%d %lld %lld %lld %d\n", id,
			  (long long)r->perf_period, (long long)r->perf_type,
			  (long long)r->perf_config, r->perf_freq ? 1 : 0);
		break;
	case PK_PROFILE:
		sec = "perf_event";
		sb_printf(&g->meta, "probe profile stp_p%d %lld\n", id,
			  (long long)r->perf_period);
		break;
	case PK_NEVER:
	case PK_NONE:	/* said by points_unsupported() */
		return;
	}
	{	/* for the loader's messages: what a rejected program is */
		const char *w = arena_printf(g->s->arena, "%s (%s)", r->pp,
					     loc_str(g->s, r->probe->loc));

		sb_printf(&g->meta, "where stp_p%d %s\n", id, bg_hex(g, w, strlen(w)));
	}
	sb_printf(c, "SEC(\"%s\") int stp_p%d(void *ctx)\n{\n", sec, id);
	sb_puts(c, "\tstruct stp_scratch *S;\n\n");
	if (gated)
		sb_puts(c, "\tif (stp_state)\n\t\treturn 0;\n");
	sb_printf(c, "\tS = stp_enter();\n\tif (!S)\n\t\treturn 0;\n%s%s\t%s(S, ctx);\n"
		  "\tif (S->err == 1 || S->err == 2)\n\t\tstp_report(S);\n\treturn 0;\n}\n\n",
		  g->need_pfn ? arena_printf(g->s->arena, "\tS->pp = %d;\n", id) : "",
		  pop ? pop : "", handler_name(g, r->probe, id));
	if (bu_is_kprobe(r))
		fentry_program(g, c, r, id, pop);
	if (g->need_pfn)
		pfn_row(g, r, id);
}

int bpf_translate(struct session *s)
{
	struct bgen g = { .s = s };
	struct strbuf c, code;
	int index = 0, id = 0, nbad = 0;

	sb_init(&c);
	sb_init(&code);
	sb_puts(&g.meta, "stapbpf 1\n");
	for (struct probe *p = s->probes; p; p = p->next)
		if (alias_unsupported(&g, p))
			nbad++;
	for (struct func *f = s->funcs; f; f = f->next_used) {
		if (!f->body || f->body->kind == N_EMBEDDED_STMT || bus_has(f))
			continue;	/* ucallers(), ustack(): written in handlers */
		if (nbad && !reached(&g, f))	/* only from those probes: not written */
			continue;
		if (reaches(f->body, f, 0)) {	/* BPF has no recursion */
			diag_error(s, f->loc, "the recursive function %s() is not supported "
				   "by --runtime=bpf: use the kernel module runtime "
				   "(--runtime=kernel)", f->name);
			g.errors++;
			continue;
		}
		bg_function(&g, &code, f);
	}
	points_unsupported(&g);
	for (struct probe *p = s->probes; p; p = p->next) {
		p->index = index++;
		if ((!nbad || !alias_missing(p)) && !probe_unsupported(&g, p))
			handler(&g, &code, p);
	}
	for (struct rprobe *r = s->rprobes; r; r = r->next)
		program(&g, &code, r, id++);
	sb_printf(&c, "/* %s: written by stap --runtime=bpf */\n", s->module_name);
	sb_printf(&c, "#define STP_MAXSTR %s\n#define STP_NSTR %d\n#define STP_MAXACTION %s\n",
		  define(s, "MAXSTRINGLEN", "512"), g.nstr ? g.nstr : 1,
		  define(s, "MAXACTION", "1000"));
	if (g.need_quote)
		sb_puts(&c, "#define STP_QUOTE\n");
	sb_puts(&c, "#include \"stapbpf.h\"\n");
	sb_printf(&c, "#define STP_MAXMAPENTRIES %s\n#include \"stapbpf_maps.h\"\n\n",
		  define(s, "MAXMAPENTRIES", "2048"));
	bc_types(&g, &c);
	globals(&g, &c);
	sb_puts(&c, g.protos.buf ? g.protos.buf : "");
	sb_free(&g.protos);
	bm_prelude(&g, &c);
	pfn_table(&g, &c, id);
	sb_free(&g.pfn);
	sb_free(&g.ftwins);
	sb_free(&g.ppt);
	sb_puts(&c, "STP_PADS\n");
	sb_printf(&g.meta, "maxstr %s\n", define(s, "MAXSTRINGLEN", "512"));
	bsy_meta(&g);
	sb_puts(&c, "\n");
	sb_puts(&c, code.buf ? code.buf : "");
	/* a number formatted in BPF (sprintf, a decoder, an error message):
	 * stp_sfmt_num(), a global function clang would compile even when
	 * nothing calls it (a literal naming it at worst costs that time) */
	if (c.buf && strstr(c.buf, "stp_sfmt_long("))
		sb_puts(&c, "#include \"stapbpf_sfmt.h\"\n\n");
	sb_puts(&c, "static const char stp_meta[] SEC(\".stapmeta\") STP_USED =\n");
	for (const char *p = g.meta.buf, *e; p && *p; p = e + 1) {
		e = strchr(p, '\n');
		sb_puts(&c, "\t\"");
		sb_putn(&c, p, (size_t)(e - p));
		sb_puts(&c, "\\n\"\n");
	}
	sb_puts(&c, "\t;\n");
	if (!g.errors) {
		s->c_file = arena_printf(s->arena, "%s/%s.bpf.c", s->tmpdir, s->module_name);
		if (write_file(s->c_file, c.buf, c.len) < 0) {
			diag_plain(s, "cannot write %s", s->c_file);
			g.errors++;
		}
	}
	sb_free(&c);
	sb_free(&code);
	sb_free(&g.meta);
	return g.errors;
}
