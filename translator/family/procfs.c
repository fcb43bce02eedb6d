/*
 * tr_procfs.c - procfs probes in passes 2 and 3. A probe on
 * procfs("PATH").read fills the file's contents by assigning $value
 * (`$value = s` replaces, `$value .= s` appends, up to .maxsize(N)
 * bytes); one on procfs("PATH").write gets each write()'s data as
 * $value, read-only. The file lives under /proc/systemtap/MODULE; the
 * runtime (runtime/procfs.c) creates it at start and groups the probes
 * of one path.
 */
#include <string.h>

#include "translate.h"
#include "family.h"

bool elab_procfs_value(struct session *s, struct probe *p, struct node *n,
		       bool written)
{
	bool any = false, reads = false, writes = false;

	for (const struct rprobe *r = s->rprobes; r; r = r->next) {
		if (r->probe != p)
			continue;
		if (r->kind != RP_PROCFS)
			return false;
		any = true;
		writes |= r->procfs_write;
		reads |= !r->procfs_write;
	}
	if (!any)
		return false;
	n->flags |= TARGET_PROCFS;
	n->type = T_STRING;
	if (strcmp(n->op, "$value"))
		diag_error(s, n->loc, "invalid target symbol for procfs probe, $value expected");
	else if (written && writes)
		diag_error(s, n->loc, "procfs $value variable is read-only in a procfs write probe");
	else if (!written && reads)
		diag_error(s, n->loc, "procfs $value variable cannot be read in a procfs read probe");
	return true;
}

const char *tr_procfs_value(struct gen *g, struct node *n)
{
	const char *t = tr_new_tmp(g, T_STRING);

	(void)n;
	tr_line(g, "stp_procfs_get(c, %s);", t);
	return t;
}

const char *tr_procfs_assign(struct gen *g, struct node *n)
{
	const char *b = tr_gen_expr(g, n->b);

	tr_line(g, "stp_procfs_set(c, %s, %d);", b, !strcmp(n->op, ".="));
	tr_line(g, "if (unlikely(c->last_error)) {");
	tr_line(g, "\tc->last_stmt = %s;", tr_cstr(g, arena_printf(g->s->arena,
		"identifier '%s' at %s", n->a->op, loc_str(g->s, n->a->loc))));
	tr_line(g, "\tgoto %s;", g->err_label);
	tr_line(g, "}");
	return b;
}

void tr_procfs_probe(struct gen *g, struct strbuf *table, const struct rprobe *r)
{
	sb_printf(table, "\t{ .kind = STP_PROBE_PROCFS, .handler = probe_%d, .pp = %s, "
		  ".procfs_path = %s, .procfs_write = %d, .procfs_umask = %lld, "
		  ".procfs_maxsize = %lld, .maxactive = -1 },\n",
		  r->probe->index, tr_cstr(g, r->pp), tr_cstr(g, r->procfs_path),
		  r->procfs_write, (long long)r->procfs_umask,
		  (long long)r->procfs_maxsize);
}
