/*
 * core.c - the families without an event source: begin(N), end(N) and
 * error(N), run by the runtime's session.c when the session starts, ends
 * or fails (in the order of N, then of the script), and never, which is
 * resolved and checked but never runs.
 */
#include <string.h>

#include "family.h"

/* begin[(N)] | end[(N)] | error[(N)] */
static void resolve_been(struct resolver *r, const struct pp_comp *c)
{
	static const struct { const char *name; int kind; } been[] = {
		{ "begin", RP_BEGIN }, { "end", RP_END }, { "error", RP_ERROR },
		{ NULL, 0 }
	};
	struct rprobe *rp;

	if (c->next || (c->arg && c->arg->kind != N_NUM))
		return;
	for (int i = 0; been[i].name; i++) {
		if (strcmp(c->name, been[i].name))
			continue;
		rp = rp_add(r, &family_begin, been[i].kind, been[i].name,
			    pp_to_string(r->s, r->pp));
		rp->order = c->arg ? c->arg->num : 0;
	}
}

static void emit_been(struct gen *g, struct strbuf *code, const struct rprobe *r, int id)
{
	const char *kind = r->kind == RP_BEGIN ? "STP_PROBE_BEGIN" :
			   r->kind == RP_END ? "STP_PROBE_END" : "STP_PROBE_ERROR";

	tr_table_row(g, NULL, "%s, .handler = probe_%d, .pp = %s, .order = %lld, "
		     ".period_ns = 0ULL, .randomize = 0ULL", kind, r->probe->index,
		     tr_cstr(g, r->pp), (long long)r->order);
	(void)code;
	(void)id;
}

/* never */
static void resolve_never(struct resolver *r, const struct pp_comp *c)
{
	if (!c->next && !c->arg)
		rp_add(r, &family_never, RP_NEVER, "never", "never");
}

static const char *const been_roots[] = { "begin", "end", "error", NULL };

const struct family family_begin = {
	.name = "begin",
	.roots = been_roots,
	.shapes = been_roots,
	.resolve = resolve_been,
	.unprivileged = pp_unprivileged,
	.emit = emit_been,
};

static const char *const never_roots[] = { "never", NULL };

/* no emit: nothing in the probe table */
const struct family family_never = {
	.name = "never",
	.roots = never_roots,
	.shapes = never_roots,
	.resolve = resolve_never,
	.unprivileged = pp_unprivileged,
};
