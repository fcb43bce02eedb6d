/*
 * resolve.c - pass 2b: names. Binds every name of the probes and of the
 * functions they reach (the tapset library is front/tapset.c's): locals are implicit (an unknown name becomes a
 * local of its probe or function), globals and functions come from the
 * script, then the tapsets; functions overload by arity, private ones
 * stay in their file; arrays and statistics are checked for arity.
 */
#include <stdlib.h>
#include <string.h>

#include "elaborate.h"

/* ---- lookup ------------------------------------------------------------- */

static struct var *find_var(struct var *list, const char *name)
{
	for (; list; list = list->next) {
		if (list->name == name)
			return list;
	}
	return NULL;
}

/* A function visible from `from` with that name and nparams (-1: any):
 * private functions only from their own file. */
static struct func *find_func_in(struct file_ast *f, const char *name,
				 int nparams, const struct source *from)
{
	for (; f; f = f->next) {
		for (struct func *fn = f->funcs; fn; fn = fn->next) {
			if (fn->name != name || (fn->private && fn->loc.src != from))
				continue;
			if (nparams < 0 || fn->nparams == nparams)
				return fn;
		}
	}
	return NULL;
}

/* Overloads are chosen by the number of arguments: the script's own
 * functions first, then the tapsets'. */
static struct func *find_func(struct session *s, const char *name, int nargs,
			      const struct source *from)
{
	struct func *f = find_func_in(s->user_ast, name, nargs, from);

	return f ? f : find_func_in(s->tapset_asts, name, nargs, from);
}

/* Functions of one name and arity overload each other, as in 4.8: a call
 * runs the first by priority (`function f():N`, 1 if none), then by
 * declaration; `next` in one goes on to the following one. Links the
 * overloads of f once and returns the first. */
static struct func *overload_chain(struct session *s, struct func *f,
				   const struct source *from)
{
	struct func *v[64];
	int n = 0;

	if (f->overload_first)
		return f->overload_first;
	for (struct file_ast *a = f->tapset ? s->tapset_asts : s->user_ast; a; a = a->next) {
		for (struct func *fn = a->funcs; fn && n < 64; fn = fn->next) {
			int64_t pr = fn->priority ? fn->priority : 1;
			int i;

			if (fn->name != f->name || fn->nparams != f->nparams ||
			    (fn->private && fn->loc.src != from))
				continue;
			for (i = n; i > 0 && (v[i - 1]->priority ? v[i - 1]->priority : 1) > pr; i--)
				v[i] = v[i - 1];
			v[i] = fn;
			n++;
		}
	}
	if (!n)
		return f;
	for (int i = 0; i < n; i++) {
		v[i]->overload_first = v[0];
		v[i]->overload_next = i + 1 < n ? v[i + 1] : NULL;
		v[i]->overload = i;
	}
	return v[0];
}

/* `next` in an overload with a following one: the call of that one with
 * this one's parameters, kept as the statement's operand, so that types,
 * reachability and nesting follow it (the translator only reads it to
 * know the overload is reached; the call stub makes the call). */
static void link_next(struct session *s, struct func *f, struct node *n)
{
	for (; n; n = n->next) {
		if (n->kind == N_NEXT && !n->a) {
			struct node *call = node_new(s, N_CALL, n->loc), **tail = &call->args;

			call->op = f->name;
			call->func = f->overload_next;
			for (struct var *p = f->params; p && p->param; p = p->next) {
				struct node *a = node_new(s, N_VAR, n->loc);

				a->op = p->name;
				a->var = p;
				p->read = true;
				*tail = a;
				tail = &a->next;
			}
			n->a = call;
			f->chained = f->overload_next->chained = true;
			continue;
		}
		link_next(s, f, n->a);
		link_next(s, f, n->b);
		link_next(s, f, n->c);
		link_next(s, f, n->d);
		link_next(s, f, n->args);
	}
}

/* The visible function whose name is closest to `name`, if close enough. */
static const char *suggest_func(struct session *s, const char *name,
				const struct source *from)
{
	static const char *const builtins[] = {
		"print", "println", "printf", "printd", "printdln", "sprint",
		"sprintln", "sprintf", "sprintd", "sprintdln", NULL
	};
	struct file_ast *lists[2];
	struct nearest n;

	tapset_load_rest(s);	/* every name is a candidate */
	lists[0] = s->user_ast;
	lists[1] = s->tapset_asts;
	nearest_init(&n, name, strlen(name) > 4 ? 3 : 2);
	for (int i = 0; builtins[i]; i++)
		nearest_offer(&n, builtins[i]);
	for (int i = 0; i < 2; i++) {
		for (struct file_ast *f = lists[i]; f; f = f->next) {
			for (struct func *fn = f->funcs; fn; fn = fn->next) {
				if (!fn->private || fn->loc.src == from)
					nearest_offer(&n, fn->name);
			}
		}
	}
	return n.best;
}

static void unresolved_func(struct session *s, const struct node *n, int nargs,
			    const struct source *from)
{
	struct func *any = find_func(s, n->op, -1, from);
	const char *hint;

	if (!any && tapset_poisoned(s, n->op))
		return;		/* its tapset file failed to parse: said already */
	if (any) {
		diag_error(s, n->loc, "function '%s' takes %d argument%s, got %d",
			   n->op, any->nparams, any->nparams == 1 ? "" : "s", nargs);
		diag_note(s, any->loc, "'%s' is declared here", n->op);
		return;
	}
	hint = suggest_func(s, n->op, from);
	if (hint)
		diag_error(s, n->loc, "unresolved function '%s'; did you mean '%s'?",
			   n->op, hint);
	else
		diag_error(s, n->loc, "unresolved function '%s'", n->op);
}

/* Globals are kept in declaration order (as -p2 and the exit display
 * list them). */
void resolve_append_global(struct session *s, struct var *v)
{
	struct var **tail = &s->globals;

	while (*tail)
		tail = &(*tail)->next;
	v->next = NULL;
	*tail = v;
}

static struct var *find_global(struct session *s, const char *name)
{
	struct var *v = find_var(s->globals, name);
	struct file_ast *f;

	if (v)
		return v;
	for (f = s->tapset_asts; f; f = f->next) {
		v = find_var(f->globals, name);
		if (v) {
			struct var *copy = arena_alloc(s->arena, sizeof(*copy));

			f->used = true;

			*copy = *v;
			resolve_append_global(s, copy);
			return copy;
		}
	}
	return NULL;
}

static struct var *new_local(struct session *s, struct scope *sc,
			     const struct node *n)
{
	struct var *v = arena_alloc(s->arena, sizeof(*v)), **tail;
	int idx = 0;

	v->name = n->op;
	v->loc = n->loc;
	for (tail = sc->locals; *tail; tail = &(*tail)->next)
		idx++;
	v->index = idx;
	*tail = v;
	return v;
}

/* ---- name resolution ---------------------------------------------------- */

static void resolve_node(struct session *s, struct scope *sc, struct node *n,
			 bool written);
static void resolve_array(struct session *s, struct node *n, int arity,
			  bool written);
static void resolve_keys(struct session *s, struct scope *sc, struct node *k,
			 bool wildcards);
static int count_nodes(const struct node *n);

static void resolve_list(struct session *s, struct scope *sc, struct node *n)
{
	for (; n; n = n->next)
		resolve_node(s, sc, n, false);
}

static void resolve_var(struct session *s, struct scope *sc, struct node *n,
			bool written)
{
	struct var *v = find_var(*sc->locals, n->op);

	if (!v)
		v = find_global(s, n->op);
	if (!v)
		v = new_local(s, sc, n);
	if (v->array) {
		diag_error(s, n->loc, "array '%s' used without an index", n->op);
		return;
	}
	if (v->global)
		v->scalar_used = true;
	if (written) {
		v->written = true;
		v->assigned = true;
	} else {
		v->read = true;
	}
	n->var = v;
}

static void use_func(struct session *s, struct func *f);

/* @count(s) ... @variance(s), @hist_log(s), @hist_linear(s, l, h, w) */
static bool is_stat_op(const char *op)
{
	static const char *const ops[] = { "@count", "@sum", "@min", "@max", "@avg",
					   "@variance", "@hist_log", "@hist_linear", NULL };

	for (int i = 0; ops[i]; i++) {
		if (!strcmp(ops[i], op))
			return true;
	}
	return false;
}

/* Record the histogram a statistic is printed with: its buckets are
 * fixed when the module is built, so @hist_linear takes literals. */
static void note_hist(struct session *s, struct node *n)
{
	struct node *a = n->args;
	struct var *v = a ? a->var : NULL;
	int kind = !strcmp(n->op, "@hist_log") ? 1 : 2;

	if (!v)
		return;
	if (kind == 2) {
		struct node *lo = a->next, *hi = lo ? lo->next : NULL, *st = hi ? hi->next : NULL;

		if (!lo || !hi || !st || lo->kind != N_NUM || hi->kind != N_NUM || st->kind != N_NUM) {
			diag_error(s, n->loc, "@hist_linear takes literal numbers for its range and step");
			return;
		}
		if (st->num <= 0 || hi->num <= lo->num) {
			diag_error(s, n->loc, "@hist_linear needs a step above 0 and a range low < high");
			return;
		}
		if (v->hist == 2 && (v->hist_lo != lo->num || v->hist_hi != hi->num ||
				     v->hist_step != st->num))
			diag_error(s, n->loc, "'%s' is used with two different @hist_linear ranges", v->name);
		v->hist_lo = lo->num;
		v->hist_hi = hi->num;
		v->hist_step = st->num;
	}
	if (v->hist && v->hist != kind)
		diag_error(s, n->loc, "'%s' is used with both @hist_log and @hist_linear", v->name);
	v->hist = kind;
}

/* @var("NAME@FILE") becomes the target variable $@var:NAME@FILE, which
 * process() probes resolve against the binary's globals (family/process/). */
static bool rewrite_var(struct session *s, struct node *n)
{
	if (n->kind != N_CALL || strcmp(n->op, "@var") || !n->args || n->args->kind != N_STR)
		return false;
	n->kind = N_TARGET;
	n->op = arena_printf(s->arena, "$@var:%s", n->args->str);
	n->args = NULL;
	return true;
}

/* An expression whose value at a function's return is its value at the
 * entry: parameters (entry values in .return probes), literals and
 * arithmetic on them. */
static bool entry_pure(const struct node *n)
{
	if (!n)
		return true;
	switch (n->kind) {
	case N_NUM:
	case N_STR:
		return true;
	case N_TARGET:
		return n->op[1] != '$' && strncmp(n->op, "$@var:", 6);
	case N_BINARY:
	case N_COMPARE:
	case N_CONCAT:
	case N_LOGICAL:
	case N_UNARY:
	case N_TERNARY:
		return strcmp(n->op ? n->op : "", "in") && entry_pure(n->a) && entry_pure(n->b) &&
		       entry_pure(n->c);
	default:
		return false;
	}
}

/* @entry(E) in a .return probe, for E as entry_pure() allows: E itself. */
static bool rewrite_entry(struct session *s, struct node *n)
{
	struct loc loc = n->loc;
	struct node *next = n->next;

	if (n->kind != N_CALL || strcmp(n->op, "@entry") || !n->args || n->args->next)
		return false;
	if (!entry_pure(n->args)) {
		diag_error(s, n->loc, "'@entry' is not supported by this version yet, "
			   "but for parameters, literals and operators on them");
		return false;
	}
	*n = *n->args;
	n->loc = loc;
	n->next = next;
	return true;
}

static void note_variance(struct node *n)
{
	struct var *v = n->args->var;

	v->variance = true;
	if (n->args->next && n->args->next->kind == N_NUM &&
	    n->args->next->num > v->variance_shift)
		v->variance_shift = (int)n->args->next->num;
}

/* The probe whose $vars and module-less @casts the scope reads: its
 * own, or a function copy's; NULL in a function not copied. */
static struct probe *scope_probe(const struct scope *sc)
{
	return sc->func ? sc->func->probe : sc->probe;
}

/* f's parameters as parsed (a fresh list of nparams). */
static struct var *clone_params(struct session *s, const struct var *v, int n)
{
	struct var *head = NULL, **tail = &head;

	for (int i = 0; i < n && v; i++, v = v->next) {
		struct var *c = arena_alloc(s->arena, sizeof(*c));

		*c = *v;
		c->next = NULL;
		*tail = c;
		tail = &c->next;
	}
	return head;
}

/* Keep f's body and parameters as parsed when a probe may copy it
 * (decided once, before f is first resolved): f holds what a copy
 * reads, or (force) an overload before it goes on to f with `next`. */
static void keep_pristine(struct session *s, struct func *f, bool force)
{
	if (f->used || f->pristine || f->copy_of || !f->body || f->body->kind == N_EMBEDDED_STMT ||
	    (!force && !elab_holds_target(f->body) && !elab_bare_cast(f->body)))
		return;
	f->pristine = ast_clone(s, f->body, NULL);
	f->pristine_params = clone_params(s, f->params, f->nparams);
}

/* A `next` statement in n (not yet resolved: it goes on to the overload
 * after its function) */
static bool has_next(const struct node *n)
{
	for (; n; n = n->next)
		if (n->kind == N_NEXT || has_next(n->a) || has_next(n->b) || has_next(n->c) ||
		    has_next(n->d) || has_next(n->args))
			return true;
	return false;
}

/* The overload after f that f's `next` goes on to (NULL: none, or f was
 * resolved already). */
static struct func *next_overload(struct func *f)
{
	return f->overload_next && !f->used && f->body && f->body->kind != N_EMBEDDED_STMT &&
	       has_next(f->body) ? f->overload_next : NULL;
}

/* Does f's copy for p read anything of p's? */
static bool copy_reads_probe(struct session *s, const struct func *f, struct probe *p)
{
	return f->pristine && (elab_holds_target(f->pristine) ||
			       (elab_bare_cast(f->pristine) && elab_cast_own_types(s, p)));
}

static struct func *copy_one(struct session *s, struct func *f, struct probe *p)
{
	struct func *c = arena_alloc(s->arena, sizeof(*c));

	*c = (struct func){ .name = arena_printf(s->arena, "__clone_probe_%d_of___global_%s__overload_%d",
						 p->copy_number, f->name, f->overload),
			    .loc = f->loc, .type = f->type, .nparams = f->nparams,
			    .params = clone_params(s, f->pristine_params, f->nparams),
			    .body = ast_clone(s, f->pristine, NULL), .tapset = f->tapset,
			    .private = f->private, .priority = f->priority,
			    .overload = f->overload,
			    .probe = p, .copy_of = f, .next_copy = f->copies, .next = f->next };
	f->copies = c;
	f->next = c;	/* after f in its file: collected as f is */
	return c;
}

/*
 * As 4.8: a function a function or statement probe p (kernel, module,
 * process DWARF) calls directly, or that a copy made for p calls, is
 * copied for p when it holds a $var (read at p's points) or a @cast
 * naming no module whose types are p's module's or program's (a kernel
 * probe's are the kernel's, the function's own: castctx.c), and the
 * call goes to the copy. Anything else calls f itself, where a $var is
 * unresolved. Of overloads, the first is copied (as 4.8: its copy never
 * goes on to the others), with those its `next` goes on to, in turn,
 * when one of them holds such a thing (4.8 copies those that hold one).
 */
static struct func *func_copy(struct session *s, struct func *f, struct probe *p)
{
	struct func *c, *first = NULL, **link = &first;
	bool reads = false;

	if (!p || f->copy_of)
		return f;
	keep_pristine(s, f, false);
	for (struct func *m = next_overload(f) ? f : NULL; m; m = next_overload(m))
		keep_pristine(s, m, true);
	for (struct func *m = f; m; m = m->pristine ? next_overload(m) : NULL)
		reads |= copy_reads_probe(s, m, p);
	if (!reads || !elab_cast_probe_module(s, p))
		return f;
	for (c = f->copies; c; c = c->next_copy)
		if (c->probe == p)
			return c;
	if (!p->copy_number)
		p->copy_number = ++s->nfunc_copies;
	for (struct func *m = f; m && m->pristine; m = next_overload(m)) {
		*link = copy_one(s, m, p);
		link = &(*link)->overload_next;
	}
	for (c = first; c; c = c->overload_next)
		c->overload_first = first;
	return first;
}

/* Does n read a function's parameter or local (which a .return's entry
 * handler, evaluating @entry(n), does not have)? */
static bool reads_locals(const struct node *n)
{
	for (; n; n = n->next)
		if ((n->kind == N_VAR && n->var && !n->var->global) || reads_locals(n->a) ||
		    reads_locals(n->b) || reads_locals(n->c) || reads_locals(n->d) ||
		    reads_locals(n->args))
			return true;
	return false;
}

static void resolve_call(struct session *s, struct scope *sc, struct node *n)
{
	struct func *f;
	int nargs = 0;

	s->in_entry += !strcmp(n->op, "@entry");
	resolve_list(s, sc, n->args);
	s->in_entry -= !strcmp(n->op, "@entry");
	for (struct node *a = n->args; a; a = a->next)
		nargs++;
	if (!strcmp(n->op, "@entry")) {
		elab_entry(s, scope_probe(sc), n);
		if (sc->func && sc->func->probe && reads_locals(n->args))
			diag_error(s, n->loc, "'@entry' of a function's parameters or locals is "
				   "not supported by this version yet");
		return;
	}
	if (n->op[0] == '@') {
		if (!is_stat_op(n->op))
			diag_error(s, n->loc, "'%s' is not supported by this version yet",
				   n->op);
		else if (!strncmp(n->op, "@hist_", 6))
			note_hist(s, n);
		else if (!strcmp(n->op, "@variance") && n->args && n->args->var)
			note_variance(n);
		return;
	}
	f = find_func(s, n->op, nargs, n->loc.src);
	if (!f) {
		unresolved_func(s, n, nargs, n->loc.src);
		return;
	}
	/* a tapset function marked guru (raise(), printk()) needs -g when
	 * the script calls it */
	if (!s->guru && f->body && f->body->kind == N_EMBEDDED_STMT &&
	    strstr(f->body->str, "/* guru */") && !(n->loc.src && n->loc.src->tapset))
		diag_error(s, n->loc, "function may not be used unless -g is specified");
	f = overload_chain(s, f, n->loc.src);
	f = func_copy(s, f, scope_probe(sc));
	n->func = f;
	use_func(s, f);
}

/* What can be assigned, incremented or deleted: variables, array
 * elements and target variables. */
static bool check_lvalue(struct session *s, const struct node *n, struct loc at,
			 const char *msg)
{
	if (n->kind == N_VAR || n->kind == N_INDEX || n->kind == N_TARGET ||
	    n->kind == N_DEREF)
		return true;
	diag_error(s, at, "%s", msg);
	return false;
}

/* @hist_log(s)[i]: a histogram bucket */
bool resolve_is_hist_bucket(const struct node *n)
{
	return n->kind == N_DEREF && n->a->kind == N_CALL &&
	       !strncmp(n->a->op, "@hist_", 6) && n->args && n->args->kind == N_SUBSCRIPT &&
	       !n->args->next;
}

static int count_nodes(const struct node *n)
{
	int k = 0;

	for (; n; n = n->next)
		k++;
	return k;
}

/* A local of this scope by name, made if new (foreach keys, catch var). */
static struct var *local_named(struct session *s, struct scope *sc,
			       const char *name, struct loc loc, bool written)
{
	struct var *v = find_var(*sc->locals, name);
	struct node tmp = { .op = name, .loc = loc };

	if (!v)
		v = new_local(s, sc, &tmp);
	if (written) {
		v->written = true;
		v->assigned = true;
	}
	return v;
}

/* An array reference (a[k...], `k in a`, foreach, delete): a global with
 * a consistent number of keys. n is the N_INDEX or the N_VAR naming it. */
static void resolve_array(struct session *s, struct node *n, int arity,
			  bool written)
{
	struct var *v = find_global(s, n->op);

	if (!v) {
		diag_error(s, n->loc, "unresolved arity-%d global array %s, missing global declaration?",
			   arity, n->op);
		return;
	}
	if (arity > 9) {
		diag_error(s, n->loc, "array '%s' has %d keys; at most 9 are allowed",
			   n->op, arity);
		return;
	}
	if (v->scalar_used || (v->arity && v->arity != arity)) {
		diag_error(s, n->loc, "inconsistent arity for '%s': used with %d key%s here, %d elsewhere",
			   n->op, arity, arity == 1 ? "" : "s", v->arity);
		return;
	}
	v->arity = arity;
	v->array = true;
	if (written) {
		v->written = true;
		v->assigned = true;
	} else {
		v->read = true;
	}
	n->var = v;
}

static void resolve_keys(struct session *s, struct scope *sc, struct node *k,
			 bool wildcards)
{
	for (; k; k = k->next) {
		if (k->kind == N_WILDCARD && wildcards)
			continue;
		resolve_node(s, sc, k, false);
	}
}

static void resolve_index(struct session *s, struct scope *sc, struct node *n,
			  bool written)
{
	resolve_keys(s, sc, n->args, false);
	resolve_array(s, n, count_nodes(n->args), written);
}

/* foreach ([k1, k2] in arr[slice] ...): keys and value are locals */
static void resolve_foreach(struct session *s, struct scope *sc, struct node *n)
{
	struct node *arr = n->a;
	int nkeys = count_nodes(n->args);

	if (arr->kind == N_CALL) {	/* @hist_log(s) / @hist_linear(...) */
		resolve_node(s, sc, arr, false);
	} else {
		if (arr->kind == N_INDEX) {
			resolve_keys(s, sc, arr->args, true);
			if (count_nodes(arr->args) != nkeys)
				diag_error(s, arr->loc, "the slice of '%s' has %d keys, the foreach %d",
					   arr->op, count_nodes(arr->args), nkeys);
		}
		resolve_array(s, arr, nkeys, false);
	}
	for (struct node *k = n->args; k; k = k->next)
		k->var = local_named(s, sc, k->op, k->loc, true);
	if (n->b)
		n->b->var = local_named(s, sc, n->b->op, n->b->loc, true);
	resolve_node(s, sc, n->c, false);
	resolve_node(s, sc, n->d, false);
}

/* delete var | delete arr | delete arr[k, *]
 * 4.8 counts a delete as a read too: a global that is deleted is not
 * printed at exit, and a local's stores before it are kept. */
static void resolve_delete(struct session *s, struct scope *sc, struct node *n)
{
	struct node *a = n->a;
	struct var *v;

	if (a->kind == N_INDEX) {
		resolve_keys(s, sc, a->args, true);
		resolve_array(s, a, count_nodes(a->args), true);
		if (a->var)
			a->var->read = true;
	} else if (a->kind == N_VAR) {
		v = find_var(*sc->locals, a->op);
		if (!v)
			v = find_global(s, a->op);
		if (!v) {
			diag_error(s, a->loc, "unresolved variable '%s' in 'delete'", a->op);
			return;
		}
		v->written = true;
		v->assigned = true;
		v->read = true;
		a->var = v;
	} else {
		diag_error(s, n->loc, "'delete' needs a variable or an array element");
	}
}

/* 4.8 stores to a target variable ($param, $p->member, @cast(...)->m)
 * with '=' alone: no 'op=', '++' or '--'; but netfilter's context
 * variables are locals there (the other checks are elab_nf_target's). */
static void target_op_check(struct session *s, struct scope *sc, struct node *n)
{
	struct node *t = n->a;

	if (!sc->func && elab_no_points(s, sc->probe))
		return;		/* its points' errors are out already */
	if (t->kind == N_TARGET && !sc->func && probe_has(s, sc->probe, RF_LOCAL_VARS)) {
		t->flags |= TARGET_NF_LOCAL;	/* 4.8: a local, any operator */
		return;
	}
	if (t->kind == N_DEREF && !deref_is_typed(t) && elab_is_autocast(t)) {
		/* as 4.8: said once its type is known and writes are allowed */
		t->flags |= DEREF_OPASSIGN;
		t->len = (size_t)n->loc.line << 20 | (size_t)n->loc.col;
		return;
	}
	if ((t->kind == N_TARGET && !(t->flags & TARGET_PROCFS)) ||
	    (t->kind == N_DEREF && deref_is_typed(t)))
		diag_error(s, n->loc, "Only the following assign operator is implemented on target variables:  =");
}

/* A probe point's condition may read only globals, with no function
 * call or target variable (modify = false), and may not write anything
 * (modify = true), as upstream requires: it is evaluated when the probe
 * arms. */
static void check_probe_cond(struct session *s, const struct node *n, bool modify)
{
	for (; n; n = n->next) {
		if (modify && (n->kind == N_ASSIGN || n->kind == N_INCDEC ||
			       (n->kind == N_BINARY && !strcmp(n->op, "<<<")))) {
			diag_error(s, n->loc, "probe condition must not modify any variables");
			return;
		}
		if (!modify && n->kind == N_VAR && !find_global(s, n->op))
			diag_error(s, n->loc, "probe condition must not reference undeclared global");
		if (!modify && n->kind == N_CALL && n->op[0] != '@')
			diag_error(s, n->loc, "probe condition must not reference function");
		if (!modify && n->kind == N_TARGET)
			diag_error(s, n->loc, "unresolved target-symbol expression: a probe "
				   "condition cannot read target variable '%s'", n->op);
		check_probe_cond(s, n->a, modify);
		check_probe_cond(s, n->b, modify);
		check_probe_cond(s, n->c, modify);
		check_probe_cond(s, n->d, modify);
		check_probe_cond(s, n->args, modify);
	}
}

static void resolve_node(struct session *s, struct scope *sc, struct node *n,
			 bool written)
{
	int before;

	if (!n)
		return;
	if (n->kind == N_IF && n->flags == 1) {
		int errors = s->errors;

		check_probe_cond(s, n->a, false);
		if (s->errors == errors)
			check_probe_cond(s, n->a, true);
	}
	switch (n->kind) {
	case N_VAR:
		resolve_var(s, sc, n, written);
		break;
	case N_CALL:
		if (!strcmp(n->op, "@cast")) {
			resolve_node(s, sc, n->args, false);
			elab_cast_alone(s, scope_probe(sc), n);
			break;
		}
		if (rewrite_var(s, n))
			goto target;
		if (!strcmp(n->op, "@entry") && entry_in_uprobes(s, scope_probe(sc)) &&
		    !elab_all_return(s, scope_probe(sc))) {	/* 4.8 refuses it there too */
			diag_error(s, n->loc, ELAB_ENTRY_NOT_RETURN);
			resolve_list(s, sc, n->args);
			break;
		}
		/* process probes: @entry of parameters and literals is the
		 * expression itself; kernel return probes: tr_entry.c */
		if (entry_in_uprobes(s, scope_probe(sc)) && rewrite_entry(s, n)) {
			resolve_node(s, sc, n, written);
			break;
		}
		if (!strcmp(n->op, "@entry") &&
		    entry_in_uprobes(s, scope_probe(sc))) {	/* reported: its operand's errors too */
			resolve_list(s, sc, n->args);
			break;
		}
		resolve_call(s, sc, n);
		break;
	case N_UNARY:
		if (!strcmp(n->op, "&") && n->a->kind == N_CALL &&
		    !strcmp(n->a->op, "@cast") && n->a->args) {
			/* &@cast(p, "T"): p, as upstream */
			struct node *next = n->next, *cast = n->a;
			const struct autocast *t;

			resolve_node(s, sc, cast->args, false);
			t = elab_cast_addr(s, scope_probe(sc), cast);
			if (t) {
				*n = *cast->args;
				n->next = next;
				n->ac = t;	/* p, typed: (&@cast(p, "T"))->m */
			}
			break;
		}
		if (!strcmp(n->op, "&") && n->a->kind == N_TARGET && !sc->func &&
		    probe_has(s, sc->probe, RF_LOCAL_VARS)) {
			diag_error(s, n->a->loc, "cannot take address of netfilter hook context variable");
			break;
		}
		if (!strcmp(n->op, "&") && n->a->kind == N_TARGET && !sc->func &&
		    n->a->op[1] != '$' && n->a->op[strlen(n->a->op) - 1] != '$' &&
		    (!strcmp(n->a->op, "$return") || !probe_has(s, sc->probe, RF_USER))) {
			/* &$var: the address of the variable, which must be
			 * in memory, as a member chain of no member (a user
			 * program's scalars in memory: not yet, as before) */
			struct node *d = node_new(s, N_DEREF, n->a->loc);

			d->a = n->a;
			n->a = d;
		}
		if (!strcmp(n->op, "&") && n->a->kind == N_DEREF)
			n->a->flags |= DEREF_ADDR;
		resolve_node(s, sc, n->a, false);
		break;
	case N_PRINT:
	case N_BLOCK:
		resolve_list(s, sc, n->args);
		break;
	case N_ASSIGN:
		rewrite_var(s, n->a);	/* @var("x") = v (guru) */
		if (!check_lvalue(s, n->a, n->loc, arena_printf(s->arena,
				  "the left side of '%s' must be a variable", n->op)))
			break;
		/* the target first: locals are listed in upstream's order */
		before = s->errors + s->ntyped_errs;
		resolve_node(s, sc, n->a, true);
		if (s->errors + s->ntyped_errs == before && strcmp(n->op, "="))
			target_op_check(s, sc, n);
		resolve_node(s, sc, n->b, false);
		/* x += y reads a local x; a global only updated this way, its
		 * value unused, is still printed at exit, as upstream does */
		if (n->op[0] != '=' && strcmp(n->op, "<<<") && n->a->var &&
		    (!n->a->var->global || !n->value_unused))
			n->a->var->read = true;
		break;
	case N_INCDEC:
		rewrite_var(s, n->a);
		if (!check_lvalue(s, n->a, n->loc, arena_printf(s->arena,
				  "'%s' needs a variable operand", n->op)))
			break;
		before = s->errors + s->ntyped_errs;
		resolve_node(s, sc, n->a, true);
		if (s->errors + s->ntyped_errs == before)
			target_op_check(s, sc, n);
		if (n->a->var && (!n->a->var->global || !n->value_unused))
			n->a->var->read = true;	/* `if (n++ == 0)` reads n */
		break;
	case N_EXPR_STMT:
		n->a->value_unused = true;
		s->defer_targets++;	/* the statement may be elided */
		resolve_node(s, sc, n->a, false);
		s->defer_targets--;
		break;
	case N_FOR:
		if (n->a)
			n->a->value_unused = true;
		if (n->c)
			n->c->value_unused = true;
		resolve_node(s, sc, n->a, false);
		resolve_node(s, sc, n->b, false);
		resolve_node(s, sc, n->c, false);
		resolve_node(s, sc, n->d, false);
		break;
	case N_TARGET:
target:
		elab_target(s, scope_probe(sc), n, written);
		break;
	case N_INDEX:
		resolve_index(s, sc, n, written);
		break;
	case N_WILDCARD:
		diag_error(s, n->loc, "'*' is only allowed as an index in 'delete' and 'foreach'");
		break;
	case N_FOREACH:
		resolve_foreach(s, sc, n);
		break;
	case N_DELETE:
		resolve_delete(s, sc, n);
		break;
	case N_TRY:
		resolve_node(s, sc, n->a, false);
		if (n->op)
			n->var = local_named(s, sc, n->op, n->loc, true);
		resolve_node(s, sc, n->b, false);
		break;
	case N_DEREF:
		if (resolve_is_hist_bucket(n)) {
			resolve_node(s, sc, n->a, false);
			resolve_node(s, sc, n->args->a, false);
			break;
		}
		/* fall through */
		rewrite_var(s, n->a);
		if (deref_is_typed(n)) {
			for (struct node *c = n->args; c; c = c->next)
				if (c->kind == N_SUBSCRIPT)
					resolve_node(s, sc, c->a, false);
			if (n->a->kind == N_CALL)	/* @cast's operand */
				resolve_node(s, sc, n->a->args, false);
			elab_deref(s, scope_probe(sc), n, written);
			break;
		}
		/* an autocast: typed with the values' types (autocast.c) */
		resolve_node(s, sc, n->a, false);
		for (struct node *c = n->args; c; c = c->next)
			if (c->kind == N_SUBSCRIPT)
				resolve_node(s, sc, c->a, false);
		if (written)
			n->flags |= DEREF_WRITTEN;
		break;
	case N_MEMBER:
	case N_SUBSCRIPT:
		diag_error(s, n->loc, "'->' and '[]' on values are not supported by this version yet");
		break;
	case N_EMBEDDED_EXPR:
	case N_EMBEDDED_STMT:
		break;	/* guru mode was checked by the parser */
	case N_RETURN:
		if (!sc->func)
			diag_error(s, n->loc, "'return' outside a function");
		resolve_node(s, sc, n->a, false);
		break;
	case N_BINARY:
		if (!strcmp(n->op, "in")) {
			resolve_keys(s, sc, n->args, true);	/* [k, *] in a */
			resolve_array(s, n->a, count_nodes(n->args), false);
			break;
		}
		/* fall through */
	default:
		resolve_node(s, sc, n->a, false);
		resolve_node(s, sc, n->b, false);
		resolve_node(s, sc, n->c, false);
		resolve_node(s, sc, n->d, false);
		break;
	}
}

static void use_func(struct session *s, struct func *f)
{
	struct scope sc = { 0 };

	if (f->used)
		return;
	keep_pristine(s, f, false);
	f->used = true;
	for (struct file_ast *t = s->tapset_asts; t; t = t->next)
		for (struct func *g = t->funcs; g; g = g->next)
			if (g == f)
				t->used = true;
	f->locals = f->params;
	if (f->body->kind == N_BLOCK)
		opt_fold(s, f->probe, &f->body);
	sc.locals = &f->locals;
	sc.func = f;
	if (f->body->kind == N_EMBEDDED_STMT)
		resolve_node(s, &sc, f->body, false);
	else
		resolve_node(s, &sc, f->body, false);
	if (f->overload_next && f->body->kind != N_EMBEDDED_STMT) {
		link_next(s, f, f->body);
		use_func(s, f->overload_next);
	}
}

/* ---- probe points ------------------------------------------------------- */

/* Every family, kernel ones included, is resolved in probepoint.c. */
static struct rprobe *resolve_point(struct session *s, struct probe *p,
				    struct probe_point *pp)
{
	return resolve_probe_point(s, p, pp);
}

void resolve_probe_points(struct session *s, struct probe *p)
{
	for (struct probe_point *pp = p->points; pp; pp = pp->next) {
		struct rprobe *r = resolve_point(s, p, pp), **tail;

		if (!r)
			continue;
		if (pp->cond)
			diag_error(s, pp->loc, "conditional probes are not supported by this version yet");
		for (tail = &s->rprobes; *tail; tail = &(*tail)->next)
			;
		*tail = r;
		for (; r; r = r->next)
			s->nrprobes++;
		if (pp->sufficient)
			break;
	}
}

void resolve_probe(struct session *s, struct probe *p)
{
	struct scope sc = { 0 };

	sc.locals = &p->locals;
	sc.probe = p;
	resolve_node(s, &sc, p->body, false);
}
