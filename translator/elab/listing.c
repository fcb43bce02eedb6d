/*
 * listing.c - stap -l PATTERN and -L PATTERN: after passes 1 and 2 over
 * the script `probe PATTERN {}`, print each probe point it resolved to as
 * a user would write it (an alias by its name, a kernel function as
 * kernel.function("name")), once, in byte order. -L adds what a handler
 * there can use: an alias's locals (name:type), then the context
 * variables ($name:type): a kernel function's $return and parameters, a
 * tracepoint's arguments. The format is upstream's:
 *   kernel.trace("sched:sched_switch") $preempt:bool $prev:struct task_struct* ...
 * When several probes print alike (an alias over many functions), a
 * variable is listed only if all of them have it. A kernel .return probe
 * with @entry() values counts as two, as 4.8 makes it: its entry half,
 * whose only local is _entry_tvar_tid, and the return half, which has
 * that local first.
 */
#include <stdlib.h>
#include <string.h>

#include "elab.h"
#include "kcatalog.h"

struct listed {
	const char *label;
	const char **vars;	/* "name:type", "$name:type" */
	int nvars;
	size_t order;		/* position among the probes: ties keep it */
};

static int by_label(const void *a, const void *b)
{
	const struct listed *x = a, *y = b;
	int c = strcmp(x->label, y->label);

	return c ? c : (x->order > y->order) - (x->order < y->order);
}

/* 4.8 copies each tracepoint argument an alias body reads into a local
 * "__tracepoint_arg_NAME" (a long), and each netfilter context variable
 * into "__nf_NAME", which -L lists first, in the order the body first
 * reads them. */
static void tracepoint_arg_locals(struct session *s, const struct rprobe *r,
				  const struct node *n, struct listed *l)
{
	const char *prefix = r->fam->listed_locals;

	for (; n; n = n->next) {
		if (n->kind == N_TARGET && n->op[1] != '$') {
			const char *v = arena_printf(s->arena, "%s_%s:long", prefix, n->op + 1);
			bool known = false, seen = false;

			for (int i = 0; i < r->nargs; i++)
				known |= !strcmp(r->args[i].name, n->op + 1);
			for (int i = 0; i < l->nvars; i++)
				seen |= !strcmp(l->vars[i], v);
			if (known && !seen)
				l->vars[l->nvars++] = v;
		}
		tracepoint_arg_locals(s, r, n->a, l);
		tracepoint_arg_locals(s, r, n->b, l);
		tracepoint_arg_locals(s, r, n->c, l);
		tracepoint_arg_locals(s, r, n->d, l);
		tracepoint_arg_locals(s, r, n->args, l);
	}
}

static void collect_vars(struct session *s, const struct rprobe *r,
			 struct listed *l)
{
	int n = 2 * rp_nlisted(r) + r->nargs + 2;

	for (struct var *v = r->probe->locals; v; v = v->next)
		n++;
	l->vars = arena_alloc(s->arena, sizeof(*l->vars) * (size_t)n);
	if (rprobe_entry_count(s, r))
		l->vars[l->nvars++] = "_entry_tvar_tid:long";
	if (r->fam->listed_locals)
		tracepoint_arg_locals(s, r, r->probe->body, l);
	for (struct var *v = r->probe->locals; v; v = v->next)
		l->vars[l->nvars++] = arena_printf(s->arena, "%s:%s", v->name,
						   type_name(v->type));
	if ((r->flags & RF_RETURN) && r->ret && r->ret_type &&
	    strcmp(r->ret_type, "void"))
		l->vars[l->nvars++] = arena_printf(s->arena, "$return:%s", r->ret_type);
	for (int i = 0; i < rp_nlisted(r); i++)
		l->vars[l->nvars++] = arena_printf(s->arena, "$%s:%s", r->args[i].name,
						   r->args[i].type);
}

static bool has_var(const struct listed *l, const char *var)
{
	for (int i = 0; i < l->nvars; i++) {
		if (!strcmp(l->vars[i], var))
			return true;
	}
	return false;
}

/* One line for the group g[0..n): the label, and with -L the variables
 * every member has, in the first member's order. */
static void print_group(struct session *s, FILE *out, const struct listed *g,
			size_t n)
{
	fputs(g->label, out);
	for (int i = 0; s->listing > 1 && i < g->nvars; i++) {
		size_t k = 1;

		while (k < n && has_var(&g[k], g->vars[i]))
			k++;
		if (k == n)
			fprintf(out, " %s", g->vars[i]);
	}
	fputc('\n', out);
}

/* Print the listing; 0 when something matched, else 1. */
int list_probes(struct session *s, FILE *out)
{
	struct listed *v;
	size_t n = 0, i, j;

	for (struct rprobe *r = s->rprobes; r; r = r->next)
		n += rprobe_entry_count(s, r) ? 2 : 1;
	if (!n)
		return 1;
	v = arena_alloc(s->arena, sizeof(*v) * n);
	i = 0;
	for (struct rprobe *r = s->rprobes; r; r = r->next, i++) {
		v[i].label = r->probe->listed ? r->probe->listed : r->label;
		v[i].order = i;
		if (rprobe_entry_count(s, r)) {	/* the entry half first */
			v[i].vars = arena_alloc(s->arena, sizeof(*v[i].vars));
			v[i].vars[0] = "_entry_tvar_tid:long";
			v[i].nvars = 1;
			v[i + 1].label = v[i].label;
			v[i + 1].order = i + 1;
			i++;
		}
		collect_vars(s, r, &v[i]);
	}
	qsort(v, n, sizeof(*v), by_label);
	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n && !strcmp(v[j].label, v[i].label); j++)
			;
		print_group(s, out, &v[i], j - i);
	}
	return 0;
}
