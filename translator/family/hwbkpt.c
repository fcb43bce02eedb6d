/*
 * hwbkpt.c - the hardware breakpoint family: kernel.data("SYMBOL") and
 * kernel.data(ADDRESS)[.length(N)], each .write or .rw, a breakpoint on
 * every CPU that the runtime's hwbkpt.c registers (a symbol is looked
 * up when the module starts, as 4.8 does).
 */
#include <string.h>

#include "family.h"

/* kernel.data("SYMBOL").write|.rw, kernel.data(ADDRESS)[.length(N)].write|.rw:
 * the symbol is looked up when the module starts, as 4.8 does. */
static void resolve_data(struct resolver *r, const struct pp_comp *c)
{
	const struct pp_comp *k, *len = NULL, *acc;
	struct rprobe *rp;
	const char *where;

	if (c->arg || !c->next || strcmp(c->next->name, "data") || !c->next->arg)
		return;
	c = c->next;	/* kernel.data(...) */
	k = c->next;
	if (c->arg->kind == N_NUM)
		len = pp_take(&k, "length", N_NUM);
	if (!(acc = pp_take(&k, "write", -1)) && !(acc = pp_take(&k, "rw", -1)))
		return;
	if (k)
		return;
	where = c->arg->kind == N_STR ?
		arena_printf(r->s->arena, "\"%s\"", c->arg->str) :
		arena_printf(r->s->arena, "0x%llx", (unsigned long long)c->arg->num);
	rp = rp_add(r, &family_hwbkpt, RP_HWBKPT, "kernel.data", arena_printf(r->s->arena,
		 "kernel.data(%s).length(%lld).%s", where, len ? (long long)len->arg->num : 1LL,
		 acc->name));
	if (c->arg->kind == N_STR)
		rp->symbol = c->arg->str;
	else
		rp->address = c->arg->num;
	rp->hw_len = len ? len->arg->num : 1;
	rp->hw_rw = !strcmp(acc->name, "rw");
}

static void emit_data(struct gen *g, struct strbuf *code, const struct rprobe *r, int id)
{
	(void)code;
	(void)id;
	tr_table_row(g, "HWBKPT", "STP_PROBE_HWBKPT, .handler = probe_%d, .pp = %s, "
		     ".symbol = %s, .hw_addr = 0x%llxULL, .hw_len = %lld, .hw_rw = %d, "
		     ".optional = %s, .maxactive = -1",
		     r->probe->index, tr_cstr(g, r->pp),
		     r->symbol ? tr_cstr(g, r->symbol) : "NULL",
		     (unsigned long long)r->address, (long long)r->hw_len, r->hw_rw,
		     tr_optional(r));
}

static const char *const data_roots[] = { "kernel", NULL };
static const char *const data_shapes[] = {
	"kernel.data.length.write", "kernel.data.length.rw", "kernel.data.write",
	"kernel.data.rw", NULL
};

const struct family family_hwbkpt = {
	.name = "kernel.data",
	.roots = data_roots,
	.shapes = data_shapes,
	.resolve = resolve_data,
	.emit = emit_data,
	.runtime = "HWBKPT",
};
