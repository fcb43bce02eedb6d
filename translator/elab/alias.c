/*
 * alias.c - pass 2a: probe alias expansion. A user probe's points are
 * matched against the probe aliases of the script and the tapsets
 * (`probe syscall.read = kernel.function("...") { prologue }`, `+=` for an
 * epilogue, both for `= ... { prologue }, { epilogue }`); each match yields
 * a derived probe whose body is the alias's code around a copy of the
 * user's, and whose points are the alias's own, expanded again in turn
 * (aliases of aliases). Wildcards in the user's point (`syscall.*`) match
 * alias names component by component (`**` across components); extra
 * trailing components of the user's point are appended to the alias's
 * points. Points no alias matches
 * are left for the probe families (begin, end, timer, ...).
 */
#include <fnmatch.h>
#include <string.h>

#include "elab.h"

#define MAX_ALIAS_DEPTH 20

struct expander {
	struct session *s;
	struct probe **out;	/* derived probes are appended here */
	int errors;
	const char *top;	/* -l: the first alias matched, with the suffix */
	const char *user_text;	/* -p2: the user probe's points as written */
};

/* ---- matching ---------------------------------------------------------------- */

static bool same_arg(const struct node *a, const struct node *b)
{
	if (!a || !b)
		return a == b;
	if (a->kind != b->kind)
		return false;
	return a->kind == N_NUM ? a->num == b->num : !strcmp(a->str, b->str);
}

/* How many leading components of pp match the alias name `name`: the
 * length of name, or -1 if it does not match. */
static int match_name(const struct probe_point *name, const struct probe_point *pp)
{
	const struct pp_comp *n = name->comps, *c = pp->comps;
	int len = 0;

	for (; n; n = n->next, c = c->next, len++) {
		if (!c || fnmatch(c->name, n->name, 0) != 0 || !same_arg(c->arg, n->arg))
			return -1;
	}
	return len;
}

static int count_comps(const struct probe_point *pp)
{
	int n = 0;

	for (const struct pp_comp *c = pp->comps; c; c = c->next)
		n++;
	return n;
}

static const struct pp_comp *nth_comp(const struct probe_point *pp, int n)
{
	const struct pp_comp *c = pp->comps;

	while (c && n--)
		c = c->next;
	return c;
}

/* ---- building derived probes ------------------------------------------------------ */

static struct node *block_of(struct session *s, struct loc loc, struct node *a,
			     struct node *b, struct node *c)
{
	struct node *blk = node_new(s, N_BLOCK, loc), **tail = &blk->args;
	struct node *parts[3] = { a, b, c };

	for (int i = 0; i < 3; i++) {
		if (!parts[i])
			continue;
		*tail = parts[i];
		tail = &parts[i]->next;
	}
	*tail = NULL;
	return blk;
}

/* The body a probe through this alias runs: prologue, user, epilogue. */
static struct node *alias_body(struct expander *x, const struct probe *alias,
			       struct node *user, const struct expansion *e)
{
	struct session *s = x->s;
	struct loc at = e->at;
	struct node *code;

	code = ast_clone(s, alias->body, e);
	if (alias->body2)
		return block_of(s, at, code, user, ast_clone(s, alias->body2, e));
	if (alias->epilogue)
		return block_of(s, at, user, code, NULL);
	return block_of(s, at, code, user, NULL);
}

/* pp with `suffix` components appended (an alias used with extra parts). */
static struct probe_point *with_suffix(struct session *s, const struct probe_point *pp,
				       const struct pp_comp *suffix, const struct probe_point *user)
{
	struct probe_point *np = arena_alloc(s->arena, sizeof(*np));
	struct pp_comp **tail = &np->comps;

	*np = *pp;
	np->next = NULL;
	for (const struct pp_comp *c = pp->comps; c; c = c->next) {
		*tail = arena_alloc(s->arena, sizeof(**tail));
		**tail = *c;
		tail = &(*tail)->next;
	}
	for (const struct pp_comp *c = suffix; c; c = c->next) {
		*tail = arena_alloc(s->arena, sizeof(**tail));
		**tail = *c;
		tail = &(*tail)->next;
	}
	*tail = NULL;
	np->quiet_mark = !pp->optional && (user->optional || user->quiet_mark);
	np->optional |= user->optional;
	return np;
}

static void emit_probe(struct expander *x, const struct probe *user,
		       struct probe_point *pp, struct node *body, const char *via)
{
	struct probe *d = arena_alloc(x->s->arena, sizeof(*d));
	struct probe_point *p = arena_alloc(x->s->arena, sizeof(*p));

	*p = *pp;
	p->next = NULL;
	d->points = p;
	d->loc = user->loc;
	d->body = ast_clone(x->s, body, NULL);	/* each probe binds its own locals */
	d->tapset = user->tapset;
	d->via = via ? arena_printf(x->s->arena, "%s <- %s", via, x->user_text) :
		       x->user_text;
	d->listed = x->top;
	if (pp->cond) {
		struct node *iff = node_new(x->s, N_IF, pp->loc);

		/* the condition guards the handler: same output as arming
		 * and disarming the probe */
		iff->a = ast_clone(x->s, pp->cond, NULL);
		iff->flags = 1;	/* resolve.c checks what the condition uses */
		iff->b = d->body;
		d->body = block_of(x->s, pp->loc, iff, NULL, NULL);
		p->cond = NULL;
	}
	*x->out = d;
	x->out = &d->next;
}

static int expand_point(struct expander *x, const struct probe *user,
			struct probe_point *pp, struct node *body, const char *via,
			int depth);
static int expand_alias(struct expander *x, const struct probe *user,
			const struct probe *a, const struct probe_point *name,
			struct probe_point *pp, int len, struct node *body, int depth,
			const char *via);

/* Expand pp through every alias whose name matches `want` components of
 * it exactly (want = -1: any length, the rest as a suffix). */
static int try_aliases(struct expander *x, const struct probe *user,
		       struct probe_point *pp, struct node *body, int depth,
		       bool exact, const char *via)
{
	struct file_ast *lists[2] = { x->s->user_ast, x->s->tapset_asts };
	int ncomps = count_comps(pp), found = 0;

	for (int i = 0; i < 2; i++) {
		for (struct file_ast *f = lists[i]; f; f = f->next) {
			for (struct probe *a = f->probes; a; a = a->next) {
				for (struct probe_point *nm = a->alias_names; nm; nm = nm->next) {
					int len = match_name(nm, pp);

					if (len < 0 || (exact ? len != ncomps : len >= ncomps))
						continue;
					f->used = true;
					found += expand_alias(x, user, a, nm, pp, len, body,
							      depth, via);
				}
			}
		}
	}
	return found;
}

/* -p2's provenance of one alias level, as upstream: "N1 = N2 = P1, P2?"
 * (every name of the alias, then its points). */
static const char *alias_text(struct session *s, const struct probe *a)
{
	struct strbuf sb;
	const char *t;

	sb_init(&sb);
	for (const struct probe_point *n = a->alias_names; n; n = n->next)
		sb_printf(&sb, "%s %s ", pp_to_string(s, n), a->epilogue ? "+=" : "=");
	for (const struct probe_point *p = a->points; p; p = p->next)
		sb_printf(&sb, "%s%s%s", p == a->points ? "" : ", ", pp_to_string(s, p),
			  p->sufficient ? "!" : p->optional ? "?" : "");
	t = arena_strdup(s->arena, sb.buf);
	sb_free(&sb);
	return t;
}

static int expand_alias(struct expander *x, const struct probe *user,
			const struct probe *a, const struct probe_point *name,
			struct probe_point *pp, int len, struct node *body, int depth,
			const char *outer)
{
	struct expansion *e = arena_alloc(x->s->arena, sizeof(*e));
	const struct pp_comp *suffix = nth_comp(pp, len);
	const char *via = alias_text(x->s, a);
	struct node *nb;
	int found = 0;

	if (outer)
		via = arena_printf(x->s->arena, "%s <- %s", via, outer);
	e->alias = pp_to_string(x->s, name);
	e->at = pp->loc;
	if (depth == 0)
		x->top = pp_to_string(x->s, with_suffix(x->s, name, suffix, pp));
	nb = alias_body(x, a, ast_clone(x->s, body, NULL), e);
	for (struct probe_point *ap = a->points; ap; ap = ap->next) {
		struct probe_point *np = with_suffix(x->s, ap, suffix, pp);

		if (!np->loc.exp)
			np->loc.exp = e;
		found += expand_point(x, user, np, nb, via, depth + 1);
		if (found && ap->sufficient)
			break;
	}
	/* the alias matched even if its points are optional; but a suffix
	 * none of them takes is the user's mistake (syscall.open.retrun) */
	if (!found && suffix && depth == 0 && !pp->optional && !x->s->listing)
		probe_point_no_match(x->s, pp);
	return found ? found : 1;
}

static bool is_family(struct session *s, const struct probe_point *pp)
{
	return probe_family_known(s, pp->comps->name);
}

/* Aliases may live under a family's name (perf.sw.cpu_clock): is there
 * one whose name starts with pp's first two components? */
static bool has_alias_under_family(struct session *s, const struct probe_point *pp)
{
	struct file_ast *lists[2] = { s->user_ast, s->tapset_asts };
	const struct pp_comp *c2 = pp->comps->next;

	if (!c2)
		return false;
	for (int i = 0; i < 2; i++)
		for (struct file_ast *f = lists[i]; f; f = f->next)
			for (struct probe *a = f->probes; a; a = a->next)
				for (struct probe_point *nm = a->alias_names; nm; nm = nm->next) {
					const struct pp_comp *n2 = nm->comps->next;

					if (!strcmp(nm->comps->name, pp->comps->name) && n2 &&
					    !fnmatch(c2->name, n2->name, 0))
						return true;
				}
	return false;
}

/* The points pp names through aliases (whole names only, or else with
 * the rest of pp as a suffix) and, for a wildcard, the built-in
 * families; 0 when none. */
static int expand_matches(struct expander *x, const struct probe *user,
			  struct probe_point *pp, struct node *body, const char *via,
			  int depth, bool whole)
{
	int found = try_aliases(x, user, pp, body, depth, true, via);

	if (!found && !whole)
		found = try_aliases(x, user, pp, body, depth, false, via);
	/* a pattern may name built-in points besides aliases (`e*`) */
	if (found && probe_point_has_wildcard(pp) && probe_point_matches(x->s, pp)) {
		emit_probe(x, user, pp, body, via);
		found++;
	}
	return found;
}

/* ---- `**`: any number of components ------------------------------------- */

static const struct pp_comp *globstar_comp(const struct probe_point *pp, int *pos)
{
	*pos = 0;
	for (const struct pp_comp *c = pp->comps; c; c = c->next, ++*pos)
		if (strstr(c->name, "**"))
			return c;
	return NULL;
}

/* Is there an alias name of at least n components whose first n match
 * pp's first n? (`**` may then reach further: the search stops where no
 * alias name goes.) */
static bool alias_prefix(struct session *s, const struct probe_point *pp, int n)
{
	struct file_ast *lists[2] = { s->user_ast, s->tapset_asts };

	for (int i = 0; i < 2; i++)
		for (struct file_ast *f = lists[i]; f; f = f->next)
			for (struct probe *a = f->probes; a; a = a->next)
				for (struct probe_point *nm = a->alias_names; nm; nm = nm->next) {
					const struct pp_comp *c = pp->comps, *k = nm->comps;
					int j = 0;

					for (; j < n && c && k; j++, c = c->next, k = k->next)
						if (fnmatch(c->name, k->name, 0) || !same_arg(c->arg, k->arg))
							break;
					if (j == n)
						return true;
				}
	return false;
}

/* pp with its component at pos replaced by one (name, arg) or, when
 * name2 is set, by two: (name, no arg) and (name2, arg). */
static struct probe_point *replace_comp(struct session *s, const struct probe_point *pp,
					int pos, const char *name, const char *name2)
{
	struct probe_point *np = arena_alloc(s->arena, sizeof(*np));
	struct pp_comp **tail = &np->comps;
	int i = 0;

	*np = *pp;
	np->next = NULL;
	for (const struct pp_comp *c = pp->comps; c; c = c->next, i++) {
		*tail = arena_alloc(s->arena, sizeof(**tail));
		**tail = *c;
		if (i == pos) {
			(*tail)->name = name;
			if (name2) {
				(*tail)->arg = NULL;
				tail = &(*tail)->next;
				*tail = arena_alloc(s->arena, sizeof(**tail));
				**tail = *c;
				(*tail)->name = name2;
			}
		}
		tail = &(*tail)->next;
	}
	*tail = NULL;
	return np;
}

/* A component "P**S" matches, as upstream, either within one component
 * ("P*S") or across several ("P*" then "**S", expanded again), so that
 * `socket.**` names socket.send and socket.send.return alike. Only whole
 * alias names count: no alias gets the rest of the point as a suffix. */
static int expand_globstar(struct expander *x, const struct probe *user,
			   struct probe_point *pp, struct node *body, const char *via,
			   int depth)
{
	struct session *s = x->s;
	int pos, found;
	const struct pp_comp *c = globstar_comp(pp, &pos);
	const char *star = strstr(c->name, "**");
	const char *pre = arena_strndup(s->arena, c->name, (size_t)(star - c->name));
	struct probe_point *one, *two;

	one = replace_comp(s, pp, pos, arena_printf(s->arena, "%s*%s", pre, star + 2), NULL);
	found = globstar_comp(one, &(int){ 0 }) ?
		expand_globstar(x, user, one, body, via, depth) :
		expand_matches(x, user, one, body, via, depth, true);
	two = replace_comp(s, pp, pos, arena_printf(s->arena, "%s*", pre), star);
	if (alias_prefix(s, two, pos + 1))
		found += expand_globstar(x, user, two, body, via, depth);
	return found;
}

static int expand_point(struct expander *x, const struct probe *user,
			struct probe_point *pp, struct node *body, const char *via,
			int depth)
{
	int found;

	if (depth > MAX_ALIAS_DEPTH) {
		diag_error(x->s, pp->loc, "probe alias expansion too deep (over %d levels): is an alias defined in terms of itself?",
			   MAX_ALIAS_DEPTH);
		return 1;
	}
	if (depth == 0)
		x->top = NULL;
	if (is_family(x->s, pp) && !has_alias_under_family(x->s, pp)) {
		/* an optional point that names nothing does not count for `!` */
		if (pp->optional && !probe_point_matches(x->s, pp))
			return 0;
		emit_probe(x, user, pp, body, via);
		return 1;
	}
	found = globstar_comp(pp, &(int){ 0 }) ?
		expand_globstar(x, user, pp, body, via, depth) :
		expand_matches(x, user, pp, body, via, depth, false);
	if (!found && !pp->optional) {
		emit_probe(x, user, pp, body, via);	/* for the families to judge */
		return 1;
	}
	return found;
}

/*
 * The derived probes of user probe p, appended at *out: one per resolved
 * point, each with its own copy of the body. A probe whose points need
 * no alias keeps its single body (one handler for all its points).
 */
struct probe **alias_expand(struct session *s, struct probe *p, struct probe **out)
{
	struct expander x = { .s = s, .out = out };
	bool plain = true;
	struct strbuf sb;

	for (struct probe_point *pp = p->points; pp; pp = pp->next)
		plain = plain && is_family(s, pp) && !pp->cond &&
			!has_alias_under_family(s, pp);
	if (plain) {
		struct probe *d = arena_alloc(s->arena, sizeof(*d));

		*d = *p;
		d->next = NULL;
		*out = d;
		return &d->next;
	}
	sb_init(&sb);
	for (struct probe_point *pp = p->points; pp; pp = pp->next)
		sb_printf(&sb, "%s%s%s", pp == p->points ? "" : ",", pp_to_string(s, pp),
			  pp->sufficient ? "!" : pp->optional ? "?" : "");
	x.user_text = arena_strdup(s->arena, sb.buf);
	sb_free(&sb);
	for (struct probe_point *pp = p->points; pp; pp = pp->next) {
		int found = expand_point(&x, p, pp, ast_clone(s, p->body, NULL), NULL, 0);

		if (found && pp->sufficient)
			break;
	}
	return x.out;
}
