/*
 * elaborate.c - pass 2: turn parsed files into a resolved program. This
 * file drives it (resolve.c binds names, alias.c expands probe aliases,
 * probepoint.c resolves probe points, types.c infers types, optimize.c
 * folds and elides) and prints the result for -p2.
 *
 * In order: take in the tapset library (every .stp file under the tapset
 * directories), resolve each probe point of the user script to a concrete
 * probe (begin, end, timers, never), bind every name (locals are implicit:
 * an unknown name becomes a local of its probe or function; globals and
 * functions come from the script, then from the tapsets), mark the
 * functions reachable from the probes, infer types to a fixed point, and
 * check print formats and that no foreach body changes its own array.
 * Only what the user script reaches survives.
 */
#include <stdlib.h>
#include <string.h>

#include "elaborate.h"

static int call_depth(struct node *n, int guard, bool *rec);

static int func_depth(struct func *f, int guard, bool *rec)
{
	int d;

	if (guard > 64 || f->depth < 0) {
		*rec = true;
		return 1;	/* the recursive call counts once */
	}
	if (f->depth > 0)
		return f->depth;
	f->depth = -1;
	d = 1 + (f->body->kind == N_EMBEDDED_STMT ? 0 :
		 call_depth(f->body, guard + 1, rec));
	f->depth = d;
	return d;
}

static int call_depth(struct node *n, int guard, bool *rec)
{
	int best = 0;

	for (; n; n = n->next) {
		int d = 0;

		struct node *kids[5] = { n->args, n->a, n->b, n->c, n->d };

		/* `next` to the next overload: it runs at the same level */
		if (n->kind == N_NEXT && n->a && n->a->func) {
			d = func_depth(n->a->func, guard, rec) - 1;
			if (d > best)
				best = d;
			continue;
		}
		if (n->kind == N_CALL && n->func)
			d = func_depth(n->func, guard, rec);
		for (int i = 0; i < 5; i++) {
			int k = call_depth(kids[i], guard, rec);

			if (k > d)
				d = k;
		}
		if (d > best)
			best = d;
	}
	return best;
}

static void compute_nesting(struct session *s)
{
	bool rec = false;
	int best = 0;

	for (struct probe *p = s->probes; p; p = p->next) {
		int d = call_depth(p->body, 0, &rec);

		if (d > best)
			best = d;
	}
	/* as upstream: the deepest chain, and 11 more when a function recurses */
	s->maxnesting = best + (rec ? 11 : 0);
	if (s->maxnesting < 1)
		s->maxnesting = 1;
}

/* Collect used functions into s->funcs, in a stable order. */
static void collect_funcs(struct session *s)
{
	struct func **tail = &s->funcs;
	struct file_ast *lists[2] = { s->user_ast, s->tapset_asts };

	for (int i = 0; i < 2; i++) {
		for (struct file_ast *f = lists[i]; f; f = f->next) {
			for (struct func *fn = f->funcs; fn; fn = fn->next) {
				if (!fn->used)
					continue;
				*tail = fn;
				tail = &fn->next_used;
			}
		}
	}
	*tail = NULL;
}

static void resolve_derived(struct session *s, struct probe *p)
{
	for (; p; p = p->next) {
		resolve_probe_points(s, p);
		opt_fold(s, p, &p->body);
		resolve_probe(s, p);
	}
}

/* A tapset file something was taken from comes in whole, as upstream
 * takes it: its top-level embedded C and its own (non-alias) probes,
 * which may take from further files in turn. */
static struct probe **include_used_files(struct session *s, struct probe **tail,
					 struct embed ***etail)
{
	bool more = true;

	while (more) {
		more = false;
		for (struct file_ast *f = s->tapset_asts; f; f = f->next) {
			if (!f->used || f->included)
				continue;
			f->included = more = true;
			for (struct embed *e = f->embeds; e; e = e->next) {
				struct embed *c = arena_alloc(s->arena, sizeof(*c));

				*c = *e;
				c->next = NULL;
				**etail = c;
				*etail = &c->next;
			}
			for (struct probe *p = f->probes; p; p = p->next) {
				struct probe **start = tail;

				if (p->alias_names)
					continue;
				tail = alias_expand(s, p, tail);
				*tail = NULL;
				resolve_derived(s, *start);
			}
		}
	}
	return tail;
}

/* ---- arrays modified inside their own foreach ---------------------------- */

struct seen {
	const struct func *f[256];
	int n;
};

static const struct node *writer(const struct node *n, const struct var *v,
				 struct seen *seen);

/* Does f, or anything it calls, write v? (each function looked at once) */
static bool func_writes(const struct func *f, const struct var *v,
			struct seen *seen)
{
	for (int i = 0; i < seen->n; i++)
		if (seen->f[i] == f)
			return false;
	if (seen->n == 256 || f->body->kind == N_EMBEDDED_STMT)
		return false;
	seen->f[seen->n++] = f;
	return writer(f->body, v, seen) != NULL;
}

/* The first node of the list n that writes array v: its name in an
 * assignment, ++/--, <<< or delete, or a call of a function that does. */
static const struct node *writer(const struct node *n, const struct var *v,
				 struct seen *seen)
{
	for (; n; n = n->next) {
		const struct node *w = NULL;

		if (n->kind == N_ASSIGN || n->kind == N_INCDEC || n->kind == N_DELETE)
			w = n->a;
		if (w && (w->kind == N_INDEX || w->kind == N_VAR) && w->var == v)
			return w;
		if (n->kind == N_CALL && n->func && func_writes(n->func, v, seen))
			return n;
		const struct node *kids[5] = { n->args, n->a, n->b, n->c, n->d };

		for (int i = 0; i < 5; i++) {
			w = writer(kids[i], v, seen);
			if (w)
				return w;
		}
	}
	return NULL;
}

/* As upstream: a foreach body may not change the array it iterates. */
static void check_foreach_writes(struct session *s, const struct node *n)
{
	for (; n; n = n->next) {
		const struct node *kids[5] = { n->args, n->a, n->b, n->c, n->d };

		if (n->kind == N_FOREACH && n->a && n->a->var &&
		    (n->a->kind == N_VAR || n->a->kind == N_INDEX)) {
			struct seen seen = { .n = 0 };
			const struct node *w = writer(n->d, n->a->var, &seen);

			if (w && w->kind == N_CALL)
				diag_error(s, w->loc, "function call modifies var '%s' during 'foreach' iteration",
					   n->a->var->name);
			else if (w)
				diag_error(s, w->loc, "variable '%s' modified during 'foreach' iteration",
					   n->a->var->name);
		}
		for (int i = 0; i < 5; i++)
			check_foreach_writes(s, kids[i]);
	}
}

static void check_all_foreach(struct session *s)
{
	for (struct probe *p = s->probes; p; p = p->next)
		check_foreach_writes(s, p->body);
	for (struct func *f = s->funcs; f; f = f->next_used)
		if (f->body->kind != N_EMBEDDED_STMT)
			check_foreach_writes(s, f->body);
}

int elaborate(struct session *s)
{
	struct embed **etail;
	int errors = s->errors;
	struct probe **tail = &s->probes;

	tapset_load_needed(s);
	if (s->errors > errors)
		return s->errors - errors;
	for (struct var *v = s->user_ast->globals; v; v = v->next) {
		struct var *copy = arena_alloc(s->arena, sizeof(*copy));

		*copy = *v;
		resolve_append_global(s, copy);
	}
	for (struct probe *p = s->user_ast->probes; p; p = p->next) {
		if (!p->alias_names)
			tail = alias_expand(s, p, tail);
	}
	*tail = NULL;
	resolve_derived(s, s->probes);
	/* the script's embedded C, then the tapsets', as upstream orders them */
	s->embeds = NULL;
	etail = &s->embeds;
	for (struct embed *e = s->user_ast->embeds; e; e = e->next) {
		struct embed *c = arena_alloc(s->arena, sizeof(*c));

		*c = *e;
		c->next = NULL;
		*etail = c;
		etail = &c->next;
	}
	tail = include_used_files(s, tail, &etail);
	*tail = NULL;
	collect_funcs(s);
	elab_check_cast_functions(s);
	check_privilege(s);
	if (!s->listing)
		check_points(s);
	if (s->errors > errors || s->ntyped_errs) {
		/* as upstream: types only after names; typed accesses' errors
		 * with the autocasts', in 4.8's order */
		if (s->errors > errors)
			elab_flush_typed(s);
		else
			elab_autocasts(s);
		elab_report_deferred(s, false);
		return s->errors - errors;
	}
	elab_autocasts(s);
	types_infer(s);
	if (s->errors == errors)
		regex_compile_all(s);
	if (s->errors == errors)
		check_all_foreach(s);
	if (s->errors == errors) {
		opt_elide(s);
		elab_report_deferred(s, !s->unoptimized);
	} else {
		elab_report_deferred(s, false);
	}
	compute_nesting(s);
	if (!s->rprobes && s->errors == errors && !s->listing &&
	    !(s->warnings_fail && s->warnings))	/* -W: failed already */
		diag_plain(s, "no probes found");
	return s->errors - errors;
}

/* ---- -p2 output ---------------------------------------------------------- */

static void print_vars(FILE *out, const char *title, struct var *v)
{
	if (!v)
		return;
	if (title)
		fprintf(out, "%s\n", title);
	for (; v; v = v->next) {
		fprintf(out, "%s:%s", v->name, type_name(v->type));
		for (int i = 0; i < v->arity; i++)
			fprintf(out, "%s%s", i ? ", " : " [", type_name(v->keys[i]));
		fputs(v->arity ? "]\n" : "\n", out);
	}
}

static void print_locals(FILE *out, const struct var *v, bool params_too)
{
	bool any = false;

	for (; v; v = v->next) {
		if (v->param && !params_too)
			continue;
		if (!any)
			fputs("  # locals\n", out);
		any = true;
		fprintf(out, "  %s:%s\n", v->name, type_name(v->type));
	}
}

static int by_name(const void *a, const void *b)
{
	const struct func *const *x = a, *const *y = b;
	int c = strcmp((*x)->name, (*y)->name);

	return c ? c : (*x)->nparams - (*y)->nparams;
}

/* The used functions in name order, as upstream lists them. */
static const struct func **sorted_funcs(struct session *s, int *n)
{
	const struct func **v;
	int i = 0;

	*n = 0;
	for (struct func *f = s->funcs; f; f = f->next_used)
		(*n)++;
	v = arena_alloc(s->arena, sizeof(*v) * (size_t)(*n + 1));
	for (struct func *f = s->funcs; f; f = f->next_used)
		v[i++] = f;
	qsort(v, (size_t)*n, sizeof(*v), by_name);
	return v;
}

/* ---- @entry in kernel .return probes, as 4.8 shows it -------------------- */

/* 4.8 rewrites each @entry(expr) of a kernel return probe into a global
 * array indexed by thread and depth, filled by a .call probe it adds
 * (with tid()); -p2 shows those. Ours live in the kretprobe instance,
 * but -p2 prints 4.8's form: the same globals, the added .call probes
 * and their locals. */
static bool entry_shown(const struct rprobe *r)
{
	size_t n = strlen(r->pp);

	return r->ret && (r->flags & RF_KRETPROBE) &&
	       n > 7 && !strcmp(r->pp + n - 7, ".return");
}

int entry_nodes(const struct node *n, const struct node **v, int k)
{
	for (; n; n = n->next) {
		if (n->kind == N_CALL && n->op && !strcmp(n->op, "@entry")) {
			if (v)
				v[k] = n;
			k++;
			continue;	/* an @entry inside is the same value */
		}
		k = entry_nodes(n->a, v, k);
		k = entry_nodes(n->b, v, k);
		k = entry_nodes(n->c, v, k);
		k = entry_nodes(n->d, v, k);
		k = entry_nodes(n->args, v, k);
	}
	return k;
}

int probe_entry_nodes(struct session *s, const struct probe *p, const struct node **v)
{
	int k = entry_nodes(p->body, v, 0);

	for (const struct func *f = s->funcs; f; f = f->next_used)
		if (f->probe == p && f->copy_of)
			k = entry_nodes(f->body, v, k);
	return k;
}

/* How many @entry() values a kernel .return probe saves at entry (its
 * entry half, as 4.8 makes one); 0 for any other probe. */
int rprobe_entry_count(struct session *s, const struct rprobe *r)
{
	return entry_shown(r) ? probe_entry_nodes(s, r->probe, NULL) : 0;
}

static int entry_globals(struct session *s, FILE *out)
{
	int k = 0;

	for (struct rprobe *r = s->rprobes; r; r = r->next) {
		int n = rprobe_entry_count(s, r);
		const struct node **v = n ? arena_alloc(s->arena, sizeof(*v) * (size_t)n) : NULL;

		if (n)
			probe_entry_nodes(s, r->probe, v);
		for (int i = 0; i < n; i++, k++) {
			if (!k)
				fputs("# globals\n", out);
			fprintf(out, "__global_entry_tvar_entry_%d:%s [long, long]\n", k,
				type_name(v[i]->type));
			fprintf(out, "__global_entry_tvar_entry_%d_ctr:long [long]\n", k);
		}
	}
	return k;
}

static void print_entry_probe(struct session *s, FILE *out, const struct rprobe *r,
			      int *k)
{
	int n = rprobe_entry_count(s, r);
	const struct node **v;

	if (!n) {
		print_locals(out, r->probe->locals, true);
		return;
	}
	v = arena_alloc(s->arena, sizeof(*v) * (size_t)n);
	probe_entry_nodes(s, r->probe, v);
	fputs("  # locals\n  _entry_tvar_tid:long\n", out);
	for (int i = 0; i < n; i++)
		fprintf(out, "  __global_entry_tvar_entry_%d_tmp:%s\n", (*k)++,
			type_name(v[i]->type));
	for (const struct var *l = r->probe->locals; l; l = l->next)
		fprintf(out, "  %s:%s\n", l->name, type_name(l->type));
}

void elaborate_print(struct session *s, FILE *out)
{
	int nfuncs, nentry, k = 0;
	const struct func **funcs = sorted_funcs(s, &nfuncs);
	bool tid_used = false;

	if (s->embeds)
		fputs("# global embedded code\n", out);
	for (const struct embed *e = s->embeds; e; e = e->next)
		fprintf(out, "%%{%s%%}\n", e->code);
	nentry = entry_globals(s, out);
	print_vars(out, nentry ? NULL : "# globals", s->globals);
	if (s->funcs || nentry)
		fputs("# functions\n", out);
	for (int i = 0; i < nfuncs; i++)
		tid_used |= !strcmp(funcs[i]->name, "tid");
	for (int i = 0; i <= nfuncs; i++) {
		const struct func *f = i < nfuncs ? funcs[i] : NULL;

		if (nentry && !tid_used && (!f || strcmp(f->name, "tid") > 0)) {
			fputs("tid:long ()\n", out);	/* 4.8's entry probes call it */
			tid_used = true;
		}
		if (!f)
			break;
		fprintf(out, "%s:%s (", f->name, type_name(f->type));
		for (struct var *p = f->params; p && p->param; p = p->next)
			fprintf(out, "%s%s:%s", p == f->params ? "" : ", ", p->name,
				type_name(p->type));
		fputs(")\n", out);
		print_locals(out, f->locals, false);
	}
	fputs("# probes\n", out);
	for (struct rprobe *r = s->rprobes; r; r = r->next) {
		const char *note = r->note, *from = r->probe->via ? r->probe->via : r->from;

		if (!note && r->fam->p2_show)
			r->fam->p2_show(s, r, &note, &from);
		if (rprobe_entry_count(s, r))
			fprintf(out, "%.*s.call%s /* <- %s */\n  # locals\n  _entry_tvar_tid:long\n",
				(int)strlen(r->pp) - 7, r->pp,
				r->entry_note ? r->entry_note : note ? note : "", from);
		fprintf(out, "%s%s%s /* <- %s */\n", r->pp, r->marks, note ? note : "", from);
		print_entry_probe(s, out, r, &k);
	}
}
