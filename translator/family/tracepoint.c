/*
 * tracepoint.c - the tracepoint family: kernel.trace("SYSTEM:NAME") (or
 * "NAME", wildcards in both), from the kernel catalog's BTF btf_trace_*
 * typedefs and trace headers, no debuginfo. The arguments are target
 * variables ($name, $$parms); the runtime's tracepoints.c attaches a
 * generated callback that hands them to the handler.
 */
#include <string.h>

#include "family.h"

/* kernel.trace("SYSTEM:NAME") or ("NAME"), wildcards in both parts. */
static void resolve_trace(struct resolver *r, const struct pp_comp *c)
{
	struct kcatalog *kc;
	const struct kcat_tracepoint **tps;
	size_t n;

	if (c->arg || !c->next || strcmp(c->next->name, "trace") || !c->next->arg ||
	    c->next->arg->kind != N_STR)
		return;
	c = c->next;	/* kernel.trace("...") */
	if (c->next)
		return;
	kc = kernel_catalog(r->s);
	if (!kc) {
		r->failed = true;
		return;
	}
	n = kcat_match_tracepoints(kc, c->arg->str, &tps);
	for (size_t i = 0; i < n; i++) {
		const struct kcat_tracepoint *tp = tps[i];
		struct rprobe *rp;

		rp = rp_add(r, &family_tracepoint, RP_TRACEPOINT, "kernel.trace", *tp->system ?
			 arena_printf(r->s->arena, "kernel.trace(\"%s:%s\")", tp->system, tp->name) :
			 arena_printf(r->s->arena, "kernel.trace(\"%s\")", tp->name));
		rp->tp_system = tp->system;
		rp->tp_name = tp->name;
		rp->args = tp->args;
		rp->nargs = tp->nargs;
	}
}

/* $name: the tracepoint's argument of that name, as a long. */
static struct targ trace_targ(struct session *s, const struct rprobe *r, const char *name)
{
	struct targ t = { .src = -1 };

	for (int i = 0; i < r->nargs; i++) {
		bool sg;
		int w;

		if (strcmp(r->args[i].name, name))
			continue;
		w = kernel_type_width(s, r->args[i].type, &sg);
		if (!w) {
			t.why = arena_printf(s->arena, "its type '%s' is not a register value",
					     r->args[i].type);
			return t;
		}
		t.src = i;
		t.width = w;
		t.is_signed = sg;
		return t;
	}
	t.why = "no such parameter";
	return t;
}

/* The callback the tracepoint calls, then the table row. */
static void emit_trace(struct gen *g, struct strbuf *code, const struct rprobe *r, int id)
{
	const char *fields = tr_targ_arrays(g, code, r, id, true);

	sb_printf(code, "static void stp_tp_cb_%d(void *data", id);
	for (int i = 0; i < r->nargs; i++)
		sb_printf(code, ", unsigned long a%d", i);
	sb_puts(code, ")\n{\n\tconst unsigned long args[] = {");
	for (int i = 0; i < r->nargs; i++)
		sb_printf(code, " a%d,", i);
	sb_puts(code, " 0 };\n\n\tstp_tracepoint_fire(data, args);\n}\n\n");
	tr_table_row(g, "TRACEPOINTS", "STP_PROBE_TRACEPOINT, .handler = probe_%d, .pp = %s, "
		     ".tp_name = %s, .tp_func = (void *)stp_tp_cb_%d, .maxactive = -1, .optional = %s%s",
		     r->probe->index, tr_cstr(g, r->pp), tr_cstr(g, r->tp_name), id,
		     tr_optional(r), fields);
}

static const char *const trace_roots[] = { "kernel", NULL };
static const char *const trace_shapes[] = { "kernel.trace", NULL };

const struct family family_tracepoint = {
	.name = "kernel.trace",
	.roots = trace_roots,
	.shapes = trace_shapes,
	.flags = RF_PARMS | RF_TP_VARS,
	.runtime = "TRACEPOINTS",
	.resolve = resolve_trace,
	.targ = trace_targ,
	.listed_locals = "__tracepoint_arg",
	.emit = emit_trace,
};
