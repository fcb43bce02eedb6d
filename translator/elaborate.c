/*
 * elaborate.c - pass 2: turn parsed files into a resolved program.
 *
 * In order: take in the tapset library (every .stp file under the tapset
 * directories), resolve each probe point of the user script to a concrete
 * probe (begin, end, timers, never), bind every name (locals are implicit:
 * an unknown name becomes a local of its probe or function; globals and
 * functions come from the script, then from the tapsets), mark the
 * functions reachable from the probes, infer types to a fixed point, and
 * check print formats. Only what the user script reaches survives.
 */
#include <stdlib.h>
#include <string.h>

#include "stap.h"
#include "tr_kernel.h"

struct scope {
	struct var **locals;	/* the probe's or function's local list */
	struct func *func;	/* NULL in a probe */
	struct probe *probe;
};

struct infer {
	struct session *s;
	struct scope *sc;
	bool changed;
	bool report;		/* final round: report mismatches */
	bool reported;		/* one mismatch per statement: no cascades */
};

static bool report_now(struct infer *in)
{
	if (!in->report || in->reported)
		return false;
	in->reported = true;
	return true;
}

/* ---- loading ------------------------------------------------------------ */

/* A tapset file that does not parse: remember the functions and probe
 * alias names it declares, so that their absence is not reported again as
 * a cascade of "unresolved" errors (the parse error was the cause). */
static void poison_file(struct session *s, const struct source *src)
{
	struct token_list tl;
	int errors = s->errors;

	lex_source(s, src, &tl);
	s->errors = errors;
	for (size_t i = 0; i + 1 < tl.n; i++) {
		if (tl.v[i].kind != TK_IDENT || tl.v[i + 1].kind != TK_IDENT)
			continue;
		if (strcmp(tl.v[i].text, "function") && strcmp(tl.v[i].text, "probe"))
			continue;
		s->poisoned = realloc(s->poisoned, (s->npoisoned + 1) * sizeof(*s->poisoned));
		s->poisoned[s->npoisoned++] = tl.v[i + 1].text;
	}
	free(tl.v);
}

bool elaborate_poisoned(struct session *s, const char *name)
{
	for (size_t i = 0; i < s->npoisoned; i++) {
		if (!strcmp(s->poisoned[i], name))
			return true;
	}
	return false;
}

void load_tapsets(struct session *s)
{
	size_t n;
	char **names = tapset_files(s, ".stp", &n);

	for (size_t i = 0; i < n; i++) {
		struct source *src = source_from_file(s, names[i], true);
		struct file_ast *f = src ? parse_source(s, src) : NULL;

		if (f) {
			f->next = s->tapset_asts;
			s->tapset_asts = f;
		} else if (src) {
			poison_file(s, src);
		}
	}
	free(names);
}

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

static int edit_distance(const char *a, const char *b)
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

/* The visible function whose name is closest to `name`, if close enough. */
static const char *suggest_func(struct session *s, const char *name,
				const struct source *from)
{
	static const char *const builtins[] = {
		"print", "println", "printf", "printd", "printdln", "sprint",
		"sprintln", "sprintf", "sprintd", "sprintdln", NULL
	};
	struct file_ast *lists[2] = { s->user_ast, s->tapset_asts };
	const char *best = NULL;
	int best_d = strlen(name) > 4 ? 3 : 2;

	for (int i = 0; builtins[i]; i++) {
		int d = edit_distance(name, builtins[i]);

		if (d < best_d) {
			best_d = d;
			best = builtins[i];
		}
	}

	for (int i = 0; i < 2; i++) {
		for (struct file_ast *f = lists[i]; f; f = f->next) {
			for (struct func *fn = f->funcs; fn; fn = fn->next) {
				int d;

				if (fn->private && fn->loc.src != from)
					continue;
				d = edit_distance(name, fn->name);
				if (d < best_d) {
					best_d = d;
					best = fn->name;
				}
			}
		}
	}
	return best;
}

static void unresolved_func(struct session *s, const struct node *n, int nargs,
			    const struct source *from)
{
	struct func *any = find_func(s, n->op, -1, from);
	const char *hint;

	if (!any && elaborate_poisoned(s, n->op))
		return;		/* its tapset file failed to parse: said already */
	if (any) {
		diag_error(s, n->loc, "function '%s' takes %d argument%s, got %d",
			   n->op, any->nparams, any->nparams == 1 ? "" : "s", nargs);
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
static void append_global(struct session *s, struct var *v)
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

			*copy = *v;
			append_global(s, copy);
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
	if (written)
		v->written = true;
	else
		v->read = true;
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

static void resolve_call(struct session *s, struct scope *sc, struct node *n)
{
	struct func *f;
	int nargs = 0;

	resolve_list(s, sc, n->args);
	for (struct node *a = n->args; a; a = a->next)
		nargs++;
	if (n->op[0] == '@') {
		if (!is_stat_op(n->op))
			diag_error(s, n->loc, "'%s' is not supported by this version yet",
				   n->op);
		else if (!strncmp(n->op, "@hist_", 6))
			note_hist(s, n);
		else if (!strcmp(n->op, "@variance") && n->args && n->args->var &&
			 n->args->next && n->args->next->kind == N_NUM &&
			 n->args->next->num > n->args->var->variance_shift)
			n->args->var->variance_shift = (int)n->args->next->num;
		return;
	}
	f = find_func(s, n->op, nargs, n->loc.src);
	if (!f) {
		unresolved_func(s, n, nargs, n->loc.src);
		return;
	}
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
static bool is_hist_bucket(const struct node *n)
{
	return n->kind == N_DEREF && n->a->kind == N_CALL &&
	       !strncmp(n->a->op, "@hist_", 6) && n->args->kind == N_SUBSCRIPT &&
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
	if (written)
		v->written = true;
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
	if (written)
		v->written = true;
	else
		v->read = true;
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

/* delete var | delete arr | delete arr[k, *] */
static void resolve_delete(struct session *s, struct scope *sc, struct node *n)
{
	struct node *a = n->a;
	struct var *v;

	if (a->kind == N_INDEX) {
		resolve_keys(s, sc, a->args, true);
		resolve_array(s, a, count_nodes(a->args), true);
	} else if (a->kind == N_VAR) {
		v = find_var(*sc->locals, a->op);
		if (!v)
			v = find_global(s, a->op);
		if (!v) {
			diag_error(s, a->loc, "unresolved variable '%s' in 'delete'", a->op);
			return;
		}
		v->written = true;
		a->var = v;
	} else {
		diag_error(s, n->loc, "'delete' needs a variable or an array element");
	}
}

static void resolve_node(struct session *s, struct scope *sc, struct node *n,
			 bool written)
{
	if (!n)
		return;
	switch (n->kind) {
	case N_VAR:
		resolve_var(s, sc, n, written);
		break;
	case N_CALL:
		resolve_call(s, sc, n);
		break;
	case N_PRINT:
	case N_BLOCK:
		resolve_list(s, sc, n->args);
		break;
	case N_ASSIGN:
		if (!check_lvalue(s, n->a, n->loc, arena_printf(s->arena,
				  "the left side of '%s' must be a variable", n->op)))
			break;
		if (!strcmp(n->op, "<<<") && n->a->kind == N_VAR &&
		    !find_var(*sc->locals, n->a->op) && !find_global(s, n->a->op)) {
			diag_error(s, n->a->loc, "stat locals not supported, missing global declaration?");
			break;
		}
		resolve_node(s, sc, n->b, false);
		resolve_node(s, sc, n->a, true);
		if (n->op[0] != '=' && strcmp(n->op, "<<<") && n->a->var)
			n->a->var->read = true;	/* x += y reads x */
		break;
	case N_INCDEC:
		if (!check_lvalue(s, n->a, n->loc, arena_printf(s->arena,
				  "'%s' needs a variable operand", n->op)))
			break;
		resolve_node(s, sc, n->a, true);
		if (n->a->var)
			n->a->var->read = true;
		break;
	case N_TARGET:
		elab_target(s, sc->func ? NULL : sc->probe, n, written);
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
		if (is_hist_bucket(n)) {
			resolve_node(s, sc, n->a, false);
			resolve_node(s, sc, n->args->a, false);
			break;
		}
		/* fall through */
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
			resolve_keys(s, sc, n->args, false);
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
	f->used = true;
	f->locals = f->params;
	if (f->body->kind == N_BLOCK)
		opt_fold(s, &f->body);
	sc.locals = &f->locals;
	sc.func = f;
	if (f->body->kind == N_EMBEDDED_STMT)
		resolve_node(s, &sc, f->body, false);
	else
		resolve_node(s, &sc, f->body, false);
}

/* ---- probe points ------------------------------------------------------- */

/* Every family, kernel ones included, is resolved in probepoint.c. */
static struct rprobe *resolve_point(struct session *s, struct probe *p,
				    struct probe_point *pp)
{
	return resolve_probe_point(s, p, pp);
}

static void resolve_probe(struct session *s, struct probe *p)
{
	struct scope sc = { 0 };

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
	sc.locals = &p->locals;
	sc.probe = p;
	resolve_node(s, &sc, p->body, false);
}

/* ---- type inference ----------------------------------------------------- */

static void unify(struct infer *in, enum type *a, enum type b, struct loc loc,
		  const char *what)
{
	if (b == T_UNKNOWN || *a == b)
		return;
	if (*a == T_UNKNOWN) {
		*a = b;
		in->changed = true;
		return;
	}
	if (report_now(in))
		diag_error(in->s, loc, "type mismatch: %s is %s here but %s elsewhere",
			   what, type_name(b), type_name(*a));
}

static enum type infer(struct infer *in, struct node *n, enum type want);

static void infer_list(struct infer *in, struct node *n)
{
	for (; n; n = n->next)
		infer(in, n, T_UNKNOWN);
}

static void infer_print(struct infer *in, struct node *n)
{
	struct node *a = n->args;

	if (n->flags & (PR_FORMAT | PR_DELIM)) {
		infer(in, a, T_STRING);
		a = a->next;
	}
	if (n->flags & PR_FORMAT) {
		const char *err;
		struct fmt_piece *p = fmt_parse(in->s, n->args->str,
						n->args->len, &err);

		if (!p && err) {
			if (in->report)
				diag_error(in->s, n->args->loc, "%s", err);
			return;
		}
		for (; p; p = p->next) {
			if (!p->conv)
				continue;
			if (p->width == -2 && a) {
				infer(in, a, T_LONG);
				a = a->next;
			}
			if (p->prec == -2 && a) {
				infer(in, a, T_LONG);
				a = a->next;
			}
			if (!a)
				break;
			infer(in, a, p->conv == 's' ? T_STRING : T_LONG);
			a = a->next;
		}
		return;
	}
	infer_list(in, a);
}

/* A variable's type comes from its first typed use; a clash names both
 * places. */
static enum type infer_var(struct infer *in, struct node *n, enum type want)
{
	struct var *v = n->var;

	if (!v)
		return T_UNKNOWN;
	if (want != T_UNKNOWN && v->type != T_UNKNOWN && v->type != want) {
		if (report_now(in)) {
			diag_error(in->s, n->loc, "type mismatch: variable '%s' is %s here but %s elsewhere",
				   n->op, type_name(want), type_name(v->type));
			if (v->type_loc.src)
				diag_note(in->s, v->type_loc, "'%s' is %s from here", n->op,
					  type_name(v->type));
		}
		return v->type;
	}
	if (v->type == T_UNKNOWN && want != T_UNKNOWN) {
		v->type = want;
		v->type_loc = n->loc;
		in->changed = true;
	}
	return v->type;
}

static enum type infer_call(struct infer *in, struct node *n)
{
	struct func *f = n->func;
	struct node *a;
	struct var *p;

	if (!f) {
		infer_list(in, n->args);
		return T_UNKNOWN;
	}
	for (a = n->args, p = f->params; a && p; a = a->next, p = p->next) {
		enum type t = infer(in, a, p->type);

		unify(in, &p->type, t, a->loc, arena_printf(in->s->arena,
		      "argument '%s' of '%s'", p->name, f->name));
	}
	return f->type;
}

static enum type infer_assign(struct infer *in, struct node *n)
{
	enum type t;

	if (!strcmp(n->op, "<<<")) {
		infer(in, n->a, T_STATS);
		infer(in, n->b, T_LONG);
		return T_LONG;
	}
	if (!strcmp(n->op, ".=")) {
		infer(in, n->b, T_STRING);
		return infer(in, n->a, T_STRING);
	}
	if (strcmp(n->op, "=")) {
		infer(in, n->b, T_LONG);
		return infer(in, n->a, T_LONG);
	}
	t = infer(in, n->b, T_UNKNOWN);
	t = infer(in, n->a, t);
	infer(in, n->b, t);
	return t;
}

static enum type infer_compare(struct infer *in, struct node *n)
{
	enum type ta = infer(in, n->a, T_UNKNOWN);
	enum type tb = infer(in, n->b, ta);

	if (ta == T_UNKNOWN)
		infer(in, n->a, tb);
	if (ta != T_UNKNOWN && tb != T_UNKNOWN && ta != tb && report_now(in))
		diag_error(in->s, n->loc, "type mismatch: comparing %s with %s",
			   type_name(ta), type_name(tb));
	return T_LONG;
}

/* a[k1, k2]: keys against the array's key types; the value's type */
static enum type infer_index(struct infer *in, struct node *n, enum type want)
{
	struct var *v = n->var;
	int i = 0;

	for (struct node *k = n->args; k && v; k = k->next, i++) {
		enum type t;

		if (k->kind == N_WILDCARD)
			continue;
		t = infer(in, k, v->keys[i]);
		unify(in, &v->keys[i], t, k->loc, arena_printf(in->s->arena,
		      "key %d of array '%s'", i + 1, v->name));
	}
	if (!v)
		return T_UNKNOWN;
	unify(in, &v->type, want, n->loc, arena_printf(in->s->arena,
	      "the value of array '%s'", v->name));
	return v->type;
}

/* [k1, k2] in a */
static enum type infer_in(struct infer *in, struct node *n)
{
	struct var *v = n->a->var;
	int i = 0;

	for (struct node *k = n->args; k && v; k = k->next, i++) {
		enum type t = infer(in, k, v->keys[i]);

		unify(in, &v->keys[i], t, k->loc, arena_printf(in->s->arena,
		      "key %d of array '%s'", i + 1, v->name));
	}
	return T_LONG;
}

/* @count(s) and friends: a statistic in, a long out */
static enum type infer_stat_op(struct infer *in, struct node *n)
{
	struct node *a = n->args;

	if (!a)
		return T_UNKNOWN;
	infer(in, a, T_STATS);
	for (a = a->next; a; a = a->next)
		infer(in, a, T_LONG);
	return strncmp(n->op, "@hist", 5) ? T_LONG : T_UNKNOWN;
}

static enum type infer_kind(struct infer *in, struct node *n, enum type want)
{
	enum type t;

	switch (n->kind) {
	case N_INDEX:
		return infer_index(in, n, want);
	case N_DEREF:
		if (!is_hist_bucket(n))
			return T_UNKNOWN;
		infer(in, n->a, T_UNKNOWN);
		infer(in, n->args->a, T_LONG);
		return T_LONG;
	case N_NUM:
		return T_LONG;
	case N_STR:
		return T_STRING;
	case N_TARGET:
		return elab_target_type(n);
	case N_VAR:
		return infer_var(in, n, want);
	case N_CALL:
		if (n->op[0] == '@')
			return infer_stat_op(in, n);
		return infer_call(in, n);
	case N_PRINT:
		infer_print(in, n);
		return n->flags & PR_STRING ? T_STRING : T_LONG;
	case N_BINARY:
		if (!strcmp(n->op, "in"))
			return infer_in(in, n);
		/* fall through */
	case N_LOGICAL:
	case N_UNARY:
	case N_INCDEC:
		infer(in, n->a, T_LONG);
		if (n->b)
			infer(in, n->b, T_LONG);
		return T_LONG;
	case N_CONCAT:
		infer(in, n->a, T_STRING);
		infer(in, n->b, T_STRING);
		return T_STRING;
	case N_COMPARE:
		if (n->op[1] == '~') {
			infer(in, n->a, T_STRING);
			return T_LONG;
		}
		return infer_compare(in, n);
	case N_ASSIGN:
		return infer_assign(in, n);
	case N_TERNARY:
		infer(in, n->a, T_LONG);
		t = infer(in, n->b, want);
		t = infer(in, n->c, t);
		return infer(in, n->b, t);
	case N_EMBEDDED_EXPR:
		return strstr(n->str, "/* string */") ? T_STRING : T_LONG;
	default:
		return T_UNKNOWN;
	}
}

static const char *describe(struct session *s, const struct node *n)
{
	if (n->kind == N_VAR)
		return arena_printf(s->arena, "variable '%s'", n->op);
	if (n->kind == N_CALL)
		return arena_printf(s->arena, "the value of '%s()'", n->op);
	return "the expression";
}

static enum type infer(struct infer *in, struct node *n, enum type want)
{
	enum type t;

	if (!n)
		return T_UNKNOWN;
	t = infer_kind(in, n, want);
	if (t != T_UNKNOWN && n->type == T_UNKNOWN)
		in->changed = true;
	if (t != T_UNKNOWN)
		n->type = t;
	if (want != T_UNKNOWN && t != T_UNKNOWN && want != t && report_now(in))
		diag_error(in->s, n->loc, "type mismatch: %s is %s, but %s is needed here",
			   describe(in->s, n), type_name(t), type_name(want));
	return t;
}

static void infer_stmt(struct infer *in, struct node *n);

/* foreach: key variables take the array's key types, the value variable
 * its value type (both ways, to a fixed point) */
static void infer_foreach(struct infer *in, struct node *n)
{
	struct var *arr = n->a->kind == N_CALL ? NULL : n->a->var;
	int i = 0;

	if (n->a->kind == N_CALL)
		infer(in, n->a, T_UNKNOWN);
	else if (n->a->kind == N_INDEX)
		infer_index(in, n->a, T_UNKNOWN);
	for (struct node *k = n->args; k; k = k->next, i++) {
		enum type *kt = arr ? &arr->keys[i] : NULL;

		if (!k->var)
			continue;
		if (!arr) {
			unify(in, &k->var->type, T_LONG, k->loc, "the bucket index");
			continue;
		}
		unify(in, &k->var->type, *kt, k->loc, arena_printf(in->s->arena,
		      "variable '%s'", k->op));
		unify(in, kt, k->var->type, k->loc, arena_printf(in->s->arena,
		      "key %d of array '%s'", i + 1, arr->name));
	}
	if (n->b && n->b->var) {
		enum type vt = arr ? arr->type : T_LONG;

		if (vt == T_STATS) {
			if (report_now(in))
				diag_error(in->s, n->b->loc, "a foreach value variable cannot hold statistics");
		}
		else
			unify(in, &n->b->var->type, vt, n->b->loc, arena_printf(in->s->arena,
			      "variable '%s'", n->b->op));
	}
	infer(in, n->c, T_LONG);
	infer_stmt(in, n->d);
}

static void infer_stmt(struct infer *in, struct node *n)
{
	for (; n; n = n->next) {
		in->reported = false;
		switch (n->kind) {
		case N_BLOCK:
			infer_stmt(in, n->args);
			break;
		case N_EXPR_STMT:
			infer(in, n->a, T_UNKNOWN);
			break;
		case N_IF:
		case N_WHILE:
			infer(in, n->a, T_LONG);
			infer_stmt(in, n->b);
			if (n->c)
				infer_stmt(in, n->c);
			break;
		case N_FOR:
			infer(in, n->a, T_UNKNOWN);
			infer(in, n->b, T_LONG);
			infer(in, n->c, T_UNKNOWN);
			infer_stmt(in, n->d);
			break;
		case N_FOREACH:
			infer_foreach(in, n);
			break;
		case N_TRY:
			if (n->var)
				unify(in, &n->var->type, T_STRING, n->loc, "the catch variable");
			infer_stmt(in, n->a);
			infer_stmt(in, n->b);
			break;
		case N_RETURN:
			if (in->sc->func && n->a) {
				enum type t = infer(in, n->a, in->sc->func->type);

				unify(in, &in->sc->func->type, t, n->loc,
				      arena_printf(in->s->arena, "the return value of '%s'",
						   in->sc->func->name));
			}
			break;
		default:
			break;
		}
	}
}

/* Infer through a statement without following its ->next chain. */
static void infer_one(struct infer *in, struct node *n)
{
	struct node *saved = n->next;

	n->next = NULL;
	infer_stmt(in, n);
	n->next = saved;
}

static void infer_round(struct session *s, struct infer *in)
{
	struct scope sc = { 0 };

	in->sc = &sc;
	for (struct func *f = s->funcs; f; f = f->next_used) {
		sc.func = f;
		if (f->body->kind != N_EMBEDDED_STMT)
			infer_one(in, f->body);
		/* embedded C without a type annotation returns nothing */
	}
	sc.func = NULL;
	for (struct probe *p = s->probes; p; p = p->next)
		infer_one(in, p->body);
	in->sc = NULL;
}

static void check_unresolved(struct session *s)
{
	for (struct var *v = s->globals; v; v = v->next) {
		if (!v->read && !v->written)
			continue;	/* unused: elided, typeless */
		if (v->type == T_UNKNOWN)
			diag_error(s, v->loc, "unresolved type for global '%s'", v->name);
		for (int i = 0; i < v->arity; i++) {
			if (v->keys[i] == T_UNKNOWN)
				diag_error(s, v->loc, "unresolved type for key %d of array '%s'",
					   i + 1, v->name);
			else if (v->keys[i] == T_STATS)
				diag_error(s, v->loc, "key %d of array '%s' cannot be statistics",
					   i + 1, v->name);
		}
	}
	for (struct func *f = s->funcs; f; f = f->next_used) {
		for (struct var *v = f->locals; v; v = v->next) {
			if (v->type == T_UNKNOWN)
				diag_error(s, v->loc, "unresolved type for %s '%s' in function '%s'",
					   v->param ? "parameter" : "local", v->name, f->name);
		}
	}
	for (struct probe *p = s->probes; p; p = p->next) {
		for (struct var *v = p->locals; v; v = v->next) {
			if (!v->written)
				diag_warn(s, v->loc, "never-assigned local variable '%s'",
					  v->name);
			if (v->type == T_UNKNOWN && !s->errors)	/* else a cascade */
				diag_error(s, v->loc, "unresolved type for local '%s'", v->name);
		}
	}
}

/* ---- checks ------------------------------------------------------------- */

static void check_print_args(struct session *s, struct node *n)
{
	const char *err;
	struct fmt_piece *p;
	int nargs = -1, want;

	for (struct node *a = n->args; a; a = a->next)
		nargs++;
	if (!(n->flags & PR_FORMAT))
		return;
	p = fmt_parse(s, n->args->str, n->args->len, &err);
	if (!p && err)
		return;		/* reported by inference */
	want = fmt_nargs(p);
	if (want != nargs)
		diag_error(s, n->loc, "wrong number of arguments to '%s': the format needs %d, got %d",
			   n->op, want, nargs);
}

/* Where an expression's value is taken, a function that returns nothing
 * or a statistic read like a number is an error (upstream: unresolved
 * type, invalid type stats). */
static void check_value(struct session *s, const struct node *n)
{
	if (s->errors)
		return;		/* most likely a consequence of the first */
	if (n->kind == N_CALL && n->func && n->func->type == T_UNKNOWN)
		diag_error(s, n->loc, "function '%s' returns no value", n->op);
	else if ((n->kind == N_VAR || n->kind == N_INDEX) && n->type == T_STATS &&
		 n->var && n->var->global)
		diag_error(s, n->loc, "'%s' is a statistic: read it with @count, @sum, @min, @max or @avg",
			   n->op);
}

/* The operands whose values are used (not: a statement's own expression,
 * the left of '<<<', the argument of @count and friends, delete). */
static void check_operands(struct session *s, struct node *n)
{
	if (n->kind == N_ASSIGN) {
		if (strcmp(n->op, "<<<"))
			check_value(s, n->a);
		check_value(s, n->b);
	} else if (n->kind == N_CALL && n->op[0] == '@') {
		for (struct node *a = n->args ? n->args->next : NULL; a; a = a->next)
			check_value(s, a);
	} else if (n->kind == N_PRINT) {
		for (struct node *a = n->args; a; a = a->next) {
			if (a->kind != N_CALL || strncmp(a->op, "@hist_", 6))
				check_value(s, a);
		}
	} else if (n->kind != N_EXPR_STMT && n->kind != N_DELETE &&
		   n->kind != N_FOREACH && n->kind != N_BLOCK) {
		struct node *kids[4] = { n->a, n->b, n->c, n->d };

		for (int i = 0; i < 4; i++) {
			if (kids[i] && kids[i]->kind != N_BLOCK)
				check_value(s, kids[i]);
		}
		if (n->kind != N_BINARY || strcmp(n->op, "in"))
			for (struct node *a = n->args; a; a = a->next)
				check_value(s, a);
	}
}

static void check_node(struct session *s, struct node *n)
{
	for (; n; n = n->next) {
		if (n->kind == N_PRINT)
			check_print_args(s, n);
		check_operands(s, n);
		check_node(s, n->args);
		check_node(s, n->a);
		check_node(s, n->b);
		check_node(s, n->c);
		check_node(s, n->d);
	}
}

/* `return;` in a function that returns a value elsewhere */
static void check_returns(struct session *s, const struct func *f, const struct node *n)
{
	for (; n; n = n->next) {
		if (n->kind == N_RETURN && !n->a && f->type != T_UNKNOWN)
			diag_error(s, n->loc, "type mismatch: 'return' without a value in function '%s', which returns %s",
				   f->name, type_name(f->type));
		check_returns(s, f, n->a);
		check_returns(s, f, n->b);
		check_returns(s, f, n->c);
		check_returns(s, f, n->d);
		check_returns(s, f, n->args);
	}
}

/* The longest call chain from f; *rec set when a cycle is found. */
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

int elaborate(struct session *s)
{
	struct infer in = { .s = s };
	int errors = s->errors, round;

	load_tapsets(s);
	if (s->errors > errors)
		return s->errors - errors;
	for (struct var *v = s->user_ast->globals; v; v = v->next) {
		struct var *copy = arena_alloc(s->arena, sizeof(*copy));


		*copy = *v;
		append_global(s, copy);
	}
	{
		struct probe **tail = &s->probes;

		for (struct probe *p = s->user_ast->probes; p; p = p->next) {
			if (!p->alias_names)
				tail = alias_expand(s, p, tail);
		}
		*tail = NULL;
	}
	for (struct probe *p = s->probes; p; p = p->next) {
		opt_fold(s, &p->body);
		resolve_probe(s, p);
	}
	s->embeds = s->user_ast->embeds;
	collect_funcs(s);
	for (round = 0; round < 50; round++) {
		in.changed = false;
		infer_round(s, &in);
		if (!in.changed)
			break;
	}
	in.report = true;
	infer_round(s, &in);
	for (struct probe *p = s->probes; p; p = p->next)
		check_node(s, p->body);
	for (struct func *f = s->funcs; f; f = f->next_used) {
		check_node(s, f->body);
		if (f->body->kind != N_EMBEDDED_STMT)
			check_returns(s, f, f->body);
	}
	check_unresolved(s);
	compute_nesting(s);
	if (s->errors == errors)
		opt_elide(s);
	if (!s->rprobes && s->errors == errors && !s->listing)
		diag_plain(s, "no probes found");
	return s->errors - errors;
}

/* ---- -p2 output ---------------------------------------------------------- */

static void print_vars(FILE *out, const char *title, struct var *v)
{
	if (!v)
		return;
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

void elaborate_print(struct session *s, FILE *out)
{
	print_vars(out, "# globals", s->globals);
	if (s->funcs)
		fputs("# functions\n", out);
	for (struct func *f = s->funcs; f; f = f->next_used) {
		fprintf(out, "%s:%s (", f->name, type_name(f->type));
		for (struct var *p = f->params; p && p->param; p = p->next)
			fprintf(out, "%s%s:%s", p == f->params ? "" : ", ", p->name,
				type_name(p->type));
		fputs(")\n", out);
		print_locals(out, f->locals, false);
	}
	fputs("# probes\n", out);
	for (struct rprobe *r = s->rprobes; r; r = r->next) {
		fprintf(out, "%s%s%s /* <- %s */\n", r->pp, r->marks,
			r->note ? r->note : "", r->probe->via ? r->probe->via : r->from);
		print_locals(out, r->probe->locals, true);
	}
}
