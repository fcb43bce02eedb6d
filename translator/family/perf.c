/*
 * perf.c - the perf family: perf.type(T).config(C)[.sample(N) | .hz(F)],
 * a kernel perf event on every CPU that the runtime's perf.c opens (the
 * tapset's perf.hw.* and perf.sw.* aliases name it; timer.profile is one
 * too).
 */
#include <string.h>

#include "family.h"

/* perf.type(T).config(C)[.sample(N) | .hz(F)]: a kernel perf event on
 * every CPU, the handler called every N events (default 1000000) or F
 * times a second. */
static void resolve_perf(struct resolver *r, const struct pp_comp *c)
{
	const struct pp_comp *k = c->next, *t, *cf, *n = NULL;
	struct rprobe *rp;
	bool freq = false;

	if (c->arg || !(t = pp_take(&k, "type", N_NUM)) || !(cf = pp_take(&k, "config", N_NUM)))
		return;
	if (k && !strcmp(k->name, "counter") && (!k->arg || k->arg->kind != N_STR))
		return;	/* no such point, as upstream */
	if (k && !strcmp(k->name, "counter") && !k->arg->str[0]) {
		rp_fail(r, k->arg->loc, "missing perf probe counter component name");
		return;
	}
	if (k && (!strcmp(k->name, "process") || !strcmp(k->name, "counter"))) {
		rp_fail(r, r->pp->loc, "perf.%s probes are not supported by this version yet",
		     k->name);
		return;
	}
	if ((n = pp_take(&k, "sample", N_NUM)) == NULL && (n = pp_take(&k, "hz", N_NUM)))
		freq = true;
	if (k)
		return;
	if (n && n->arg->num <= 0) {
		rp_fail(r, n->arg->loc, "invalid perf %s %lld", freq ? "frequency" : "sample period",
		     (long long)n->arg->num);
		return;
	}
	rp = rp_add(r, &family_perf, RP_PERF, "perf", arena_printf(r->s->arena,
		 "perf.type(%lld).config(%lld).sample(%lld)", (long long)t->arg->num,
		 (long long)cf->arg->num, n ? (long long)n->arg->num : 1000000LL));
	rp->label = arena_printf(r->s->arena, "%s%s", pp_to_string(r->s, r->pp),
				 rp->marks);	/* -l: as written, as 4.8 */
	rp->perf_type = t->arg->num;
	rp->perf_config = cf->arg->num;
	rp->perf_period = n ? n->arg->num : 1000000;
	rp->perf_freq = freq;
}

/* pn(): the point as written (.hz stays .hz); as 4.8, `?` does not hide
 * a failed registration */
static void emit_perf(struct gen *g, struct strbuf *code, const struct rprobe *r, int id)
{
	(void)code;
	(void)id;
	tr_table_row(g, "PERF", "STP_PROBE_PERF, .handler = probe_%d, .pp = %s, "
		     ".pn = %s, .perf_type = %lld, .perf_config = %lldULL, "
		     ".perf_period = %lldULL, .perf_freq = %d, .maxactive = -1",
		     r->probe->index, tr_cstr(g, r->pp),
		     tr_cstr(g, pp_to_string(g->s, r->point)), (long long)r->perf_type,
		     (long long)r->perf_config, (long long)r->perf_period, r->perf_freq);
}

static const char *const perf_roots[] = { "perf", NULL };
static const char *const perf_shapes[] = {
	"perf.type.config.sample", "perf.type.config.hz", NULL
};

const struct family family_perf = {
	.name = "perf",
	.roots = perf_roots,
	.shapes = perf_shapes,
	.runtime = "PERF",
	.resolve = resolve_perf,
	.emit = emit_perf,
};
