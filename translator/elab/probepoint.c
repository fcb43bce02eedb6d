/*
 * probepoint.c - pass 2: one probe point, already through alias
 * expansion, to the concrete probes it names (struct rprobe). The point
 * goes to each family (family/, through s->families) whose roots name
 * its first component; a wildcard in a component name is expanded over
 * the families' point shapes first. Here are also the helpers families
 * resolve with (rp_add, rp_fail, pp_take), and rp_binaries() for
 * the passes that carry the probed binaries' symbols.
 *
 * A point that names nothing is an error unless it is optional (? or !),
 * and under -l/-L nothing here is reported at all.
 */
#include <fnmatch.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "elab.h"

/* ---- helpers -------------------------------------------------------------- */

int rp_binaries(struct session *s, const char **out, int max)
{
	int n = 0;

	for (const struct rprobe *r = s->rprobes; r && n < max; r = r->next) {
		int k = 0;

		while (r->binary && k < n && strcmp(out[k], r->binary))
			k++;
		if (r->binary && k == n)
			out[n++] = r->binary;
	}
	return n;
}

void rp_fail(struct resolver *r, struct loc loc, const char *fmt, ...)
{
	va_list ap, ap2;
	char *msg;
	int len;

	r->failed = true;
	if (r->quiet)
		return;
	va_start(ap, fmt);
	va_copy(ap2, ap);
	len = vsnprintf(NULL, 0, fmt, ap);
	msg = arena_alloc(r->s->arena, (size_t)len + 1);
	vsnprintf(msg, (size_t)len + 1, fmt, ap2);
	va_end(ap2);
	va_end(ap);
	diag_error(r->s, loc, "%s", msg);
}

const struct pp_comp *pp_take(const struct pp_comp **c, const char *name, int arg)
{
	const struct pp_comp *k = *c;

	if (!k || strcmp(k->name, name))
		return NULL;
	if (arg < 0 ? k->arg != NULL : !k->arg || (int)k->arg->kind != arg)
		return NULL;
	*c = k->next;
	return k;
}

bool pp_is_glob(const char *p)
{
	return strpbrk(p, "*?[") != NULL;
}

/* The suffix mark of a point as written: "!" (sufficient), "?" or "". */
static const char *marks(const struct probe_point *pp)
{
	return pp->sufficient ? "!" : pp->optional && !pp->quiet_mark ? "?" : "";
}

/* The probe's points as written, for -p2's "<-": "a?,b". */
static const char *points_text(struct resolver *r)
{
	struct strbuf sb;
	const char *t;

	sb_init(&sb);
	for (struct probe_point *p = r->probe->points; p; p = p->next)
		sb_printf(&sb, "%s%s%s", p == r->probe->points ? "" : ",",
			  pp_to_string(r->s, p), marks(p));
	t = arena_strdup(r->s->arena, sb.buf ? sb.buf : "");
	sb_free(&sb);
	return t;
}

struct rprobe *rp_add(struct resolver *r, const struct family *f, int kind,
		      const char *family, const char *pp)
{
	struct rprobe *rp = arena_alloc(r->s->arena, sizeof(*rp));

	if (!r->from)
		r->from = points_text(r);
	rp->probe = r->probe;
	rp->point = r->pp;
	rp->fam = f;
	rp->kind = kind;
	rp->flags = f->flags;
	rp->family = family;
	rp->pp = pp;
	rp->marks = marks(r->pp);
	rp->label = arena_printf(r->s->arena, "%s%s", pp, rp->marks);
	rp->from = r->from;
	rp->maxactive = -1;
	*r->tail = rp;
	r->tail = &rp->next;
	return rp;
}

/* ---- dispatch ----------------------------------------------------------------------- */

/* Does family f resolve points whose first component is name? */
static bool is_root(const struct family *f, const char *name)
{
	for (int i = 0; f->roots && f->roots[i]; i++)
		if (!strcmp(f->roots[i], name))
			return true;
	return false;
}

/* Hand the concrete point to each family whose root it names (with
 * --privilege=stapusr, each that allows it: 4.8's error when none does). */
static void to_families(struct resolver *r, const struct pp_comp *c)
{
	bool refused = false;

	for (int i = 0; r->s->families[i]; i++) {
		const struct family *f = r->s->families[i];

		if (!is_root(f, c->name))
			continue;
		if (r->s->privilege == PR_STAPUSR && !(f->unprivileged && f->unprivileged(c))) {
			refused = true;
			continue;
		}
		f->resolve(r, c);
	}
	if (refused && !r->head && !r->failed)
		rp_fail(r, r->pp->loc, "probe point is not allowed for --privilege=stapusr: '%s'",
			pp_to_string(r->s, r->pp));
}

/* After every point is resolved: each family's checks across points. */
void check_points(struct session *s)
{
	for (int i = 0; s->families[i]; i++)
		if (s->families[i]->check)
			s->families[i]->check(s);
}

/* Is `name` the first component of a built-in probe family? */
bool probe_family_known(struct session *s, const char *name)
{
	for (int i = 0; s->families[i]; i++)
		if (is_root(s->families[i], name))
			return true;
	return false;
}

#define MAX_PP_DEPTH 8

/* Does shape s start with the names of comps[0..depth-1]? Then its name
 * at depth (NUL-terminated copy in buf), else NULL. */
static const char *shape_name_at(const char *s, struct pp_comp *const *comps,
				 int depth, char *buf, size_t size)
{
	for (int d = 0; d < depth; d++) {
		size_t n = strlen(comps[d]->name);

		if (strncmp(s, comps[d]->name, n) || s[n] != '.')
			return NULL;
		s += n + 1;
	}
	snprintf(buf, size, "%.*s", (int)strcspn(s, "."), s);
	return *buf ? buf : NULL;
}

static void resolve_concrete(struct resolver *r, struct pp_comp *const *comps,
			     int n);
static bool has_wild_names(const struct probe_point *pp);

/* Keep shape's name at depth d (after comps[0..d-1]) in seen when the
 * pattern orig matches it and it is not there yet. */
static void note_name(struct resolver *r, const char *shape, const struct pp_comp *orig,
		      struct pp_comp *const *comps, int d, const char **seen, int *nseen)
{
	char buf[64];
	const char *name = shape_name_at(shape, comps, d, buf, sizeof(buf));

	if (!name || *nseen == 32 || fnmatch(orig->name, name, 0))
		return;
	for (int k = 0; k < *nseen; k++)
		if (!strcmp(seen[k], name))
			return;
	seen[(*nseen)++] = arena_strdup(r->s->arena, name);
}

/* Each concrete point the pattern from orig on names, after comps[0..d-1]. */
static void expand_names(struct resolver *r, const struct pp_comp *orig,
			 struct pp_comp **comps, int d)
{
	const char *seen[32];
	int nseen = 0;

	if (!orig) {
		resolve_concrete(r, comps, d);
		return;
	}
	if (d == MAX_PP_DEPTH)
		return;
	comps[d] = arena_alloc(r->s->arena, sizeof(*comps[d]));
	*comps[d] = *orig;
	if (!pp_is_glob(orig->name)) {
		expand_names(r, orig->next, comps, d + 1);
		return;
	}
	for (int i = 0; r->s->families[i]; i++) {
		const char *const *sh = r->s->families[i]->shapes;

		for (int j = 0; sh && sh[j]; j++)
			note_name(r, sh[j], orig, comps, d, seen, &nseen);
	}
	/* in name order, as upstream lists them */
	for (int i = 1; i < nseen; i++)
		for (int k = i; k > 0 && strcmp(seen[k - 1], seen[k]) > 0; k--) {
			const char *t = seen[k];

			seen[k] = seen[k - 1];
			seen[k - 1] = t;
		}
	for (int i = 0; i < nseen; i++) {
		comps[d] = arena_alloc(r->s->arena, sizeof(*comps[d]));
		*comps[d] = *orig;
		comps[d]->name = seen[i];
		expand_names(r, orig->next, comps, d + 1);
	}
}

/* One expansion of a wildcard point: resolved quietly, as an alternative. */
static void resolve_concrete(struct resolver *r, struct pp_comp *const *comps,
			     int n)
{
	struct probe_point *pp = arena_alloc(r->s->arena, sizeof(*pp)), *saved = r->pp;
	bool quiet = r->quiet, failed = r->failed;

	*pp = *saved;
	for (int i = 0; i < n; i++)
		comps[i]->next = i + 1 < n ? comps[i + 1] : NULL;
	pp->comps = comps[0];
	r->pp = pp;
	r->quiet = true;
	to_families(r, pp->comps);
	r->pp = saved;
	r->quiet = quiet;
	r->failed = failed;
}

bool probe_point_has_wildcard(const struct probe_point *pp)
{
	return has_wild_names(pp);
}

static bool has_wild_names(const struct probe_point *pp)
{
	for (const struct pp_comp *c = pp->comps; c; c = c->next)
		if (pp_is_glob(c->name))
			return true;
	return false;
}

/* Hand the point to its family by its first component. */
static void dispatch(struct resolver *r)
{
	struct pp_comp *comps[MAX_PP_DEPTH];

	if (has_wild_names(r->pp)) {
		expand_names(r, r->pp->comps, comps, 0);
		return;
	}
	to_families(r, r->pp->comps);
}

/* ---- "did you mean" ------------------------------------------------------------ */

#define MAX_SHAPE 16

/* The search for the known name nearest to a point's first unknown one. */
struct suggest {
	const struct probe_point *pp;
	int pass;		/* 0: find the depth, 1: the nearest name there */
	int depth;		/* the most leading components a shape knows */
	struct nearest near;	/* the nearest name at that depth */
};

static const struct pp_comp *comp_at(const struct probe_point *pp, int d)
{
	const struct pp_comp *c = pp->comps;

	while (c && d--)
		c = c->next;
	return c;
}

/* One known shape: its component names. */
static void consider(struct suggest *g, const char *const *names, int n)
{
	const struct pp_comp *c = g->pp->comps;
	int d = 0;

	for (; c && d < n && !strcmp(c->name, names[d]); c = c->next)
		d++;
	if (g->pass == 0) {	/* a point whose names are all known: no hint */
		if (d > g->depth)
			g->depth = d;
		return;
	}
	if (!c || d >= n || d != g->depth || pp_is_glob(names[d]))
		return;
	nearest_offer(&g->near, names[d]);
}

static void consider_dotted(struct suggest *g, struct arena *a, const char *shape)
{
	const char *names[MAX_SHAPE];
	int n = 0;

	for (const char *p = shape; *p && n < MAX_SHAPE; ) {
		size_t len = strcspn(p, ".");

		names[n++] = arena_strndup(a, p, len);
		p += len + (p[len] == '.');
	}
	consider(g, names, n);
}

static void consider_aliases(struct suggest *g, const struct file_ast *f)
{
	for (; f; f = f->next)
		for (const struct probe *p = f->probes; p; p = p->next)
			for (const struct probe_point *nm = p->alias_names; nm; nm = nm->next) {
				const char *names[MAX_SHAPE];
				int n = 0;

				for (const struct pp_comp *c = nm->comps; c && n < MAX_SHAPE; c = c->next)
					names[n++] = c->name;
				consider(g, names, n);
			}
}

/*
 * The point with its first component no family or alias knows replaced by
 * the nearest known name there (syscal.open: syscall.open), or NULL.
 */
static void walk_shapes(struct session *s, struct suggest *g)
{
	for (int f = 0; s->families[f]; f++) {
		const char *const *sh = s->families[f]->shapes;
		const char *const *roots = s->families[f]->roots;

		for (int j = 0; sh && sh[j]; j++)
			consider_dotted(g, s->arena, sh[j]);
		for (int j = 0; roots && roots[j]; j++)
			consider(g, &roots[j], 1);
	}
	consider_aliases(g, s->user_ast);
	tapset_load_rest(s);	/* every alias is a candidate */
	consider_aliases(g, s->tapset_asts);
}

/* How many leading components of pp some family or alias knows. */
static int known_depth(struct session *s, const struct probe_point *pp)
{
	struct suggest g = { .pp = pp };

	walk_shapes(s, &g);
	return g.depth;
}

/*
 * The point with its first component no family or alias knows replaced by
 * the nearest known name there (syscal.open: syscall.open), when all of
 * its names are then known; else NULL.
 */
static const char *suggest_point(struct session *s, const struct probe_point *pp)
{
	struct suggest g = { .pp = pp, .pass = 1 };
	const struct pp_comp *bad;
	struct probe_point fixed = *pp;
	struct pp_comp *comps[MAX_PP_DEPTH];
	int i = 0;

	g.depth = known_depth(s, pp);
	bad = comp_at(pp, g.depth);
	if (!bad || pp_is_glob(bad->name))
		return NULL;
	nearest_init(&g.near, bad->name, -1);
	walk_shapes(s, &g);
	if (!g.near.best)
		return NULL;
	for (const struct pp_comp *c = pp->comps; c && i < MAX_PP_DEPTH; c = c->next, i++) {
		comps[i] = arena_alloc(s->arena, sizeof(*comps[i]));
		*comps[i] = *c;
		if (i == g.depth)
			comps[i]->name = g.near.best;
		if (i)
			comps[i - 1]->next = comps[i];
	}
	fixed.comps = comps[0];
	if (known_depth(s, &fixed) < i)
		return NULL;
	return pp_to_string(s, &fixed);
}

/* The error of a point that names nothing, with the nearest known point. */
void probe_point_no_match(struct session *s, const struct probe_point *pp)
{
	const char *hint = suggest_point(s, pp);

	if (hint)
		diag_error(s, pp->loc, "no match for probe point '%s'; did you mean '%s'?",
			   pp_to_string(s, pp), hint);
	else
		diag_error(s, pp->loc, "no match for probe point '%s'", pp_to_string(s, pp));
}

/*
 * The concrete probes point pp of probe p names, as a list (NULL when
 * none; the error, if any, is reported here).
 */
struct rprobe *resolve_probe_point(struct session *s, struct probe *p,
				   struct probe_point *pp)
{
	struct resolver r = { .s = s, .probe = p, .pp = pp };

	r.quiet = pp->optional || s->listing;
	r.tail = &r.head;
	dispatch(&r);
	if (!r.head && !r.failed && !r.quiet &&
	    !tapset_poisoned(s, pp->comps->name))	/* a broken tapset's alias */
		probe_point_no_match(s, pp);
	return r.head;
}

/* Whether pp names anything, reporting nothing: alias expansion asks, so
 * that an optional point that names nothing does not stop a `!` list. */
bool probe_point_matches(struct session *s, struct probe_point *pp)
{
	struct probe p = { .points = pp };
	struct resolver r = { .s = s, .probe = &p, .pp = pp, .quiet = true };

	r.tail = &r.head;
	dispatch(&r);
	return r.head != NULL;
}

