/*
 * procfs.c - the procfs family, passes 2 and 3. A probe on
 * procfs("PATH").read fills the file's contents by assigning $value
 * (`$value = s` replaces, `$value .= s` appends, up to .maxsize(N)
 * bytes); one on procfs("PATH").write gets each write()'s data as
 * $value, read-only. The file lives under /proc/systemtap/MODULE; the
 * runtime (runtime/procfs.c) creates it at start and groups the probes
 * of one path. The input.char and input.line aliases (tapsets/input.stp)
 * are a write probe on the file "__stdin", which stapio feeds from its
 * standard input.
 */
#include <string.h>

#include "family.h"

/* A file under /proc/systemtap/MODULE: no leading or trailing '/', no
 * empty, '.' or '..' component. */
static bool procfs_path_ok(struct resolver *r, const char *path)
{
	if (path[0] == '/') {
		rp_fail(r, r->pp->loc, "procfs path cannot start with a '/'");
		return false;
	}
	if (*path && path[strlen(path) - 1] == '/') {
		rp_fail(r, r->pp->loc, "procfs path cannot end with a '/'");
		return false;
	}
	if (strstr(path, "//")) {
		rp_fail(r, r->pp->loc, "procfs path component cannot be empty");
		return false;
	}
	for (const char *c = path; c; c = strchr(c, '/') ? strchr(c, '/') + 1 : NULL) {
		size_t n = strcspn(c, "/");

		if ((n == 1 && c[0] == '.') || (n == 2 && !strncmp(c, "..", 2))) {
			rp_fail(r, r->pp->loc,
				"procfs path cannot be relative (and contain '.' or '..')");
			return false;
		}
	}
	return true;
}

/* procfs[("PATH")][.umask(N)].read[.maxsize(N)] | procfs[("PATH")][.umask(N)].write */
static void resolve_procfs(struct resolver *r, const struct pp_comp *c)
{
	const struct pp_comp *k = c->next, *um, *ms = NULL;
	const char *path = "command";
	bool write;
	struct rprobe *rp;

	if (c->arg && c->arg->kind != N_STR)
		return;
	if (c->arg)
		path = c->arg->str;
	um = pp_take(&k, "umask", N_NUM);
	if (pp_take(&k, "read", -1))
		write = false;
	else if (pp_take(&k, "write", -1))
		write = true;
	else
		return;
	if (!write)
		ms = pp_take(&k, "maxsize", N_NUM);
	if (k || !procfs_path_ok(r, path))
		return;
	if (ms && ms->arg->num <= 0) {
		rp_fail(r, ms->arg->loc, "maxsize must be greater than 0");
		return;
	}
	rp = rp_add(r, &family_procfs, RP_PROCFS, "procfs", pp_to_string(r->s, r->pp));
	rp->procfs_path = path;
	rp->procfs_write = write;
	rp->procfs_umask = um ? um->arg->num & 0777 : -1;
	rp->procfs_maxsize = ms ? ms->arg->num : -1;
	if (!strcmp(path, "__stdin"))	/* input.char, input.line: stapio -i */
		rp->flags |= RF_STDIN;
}

/* After resolution: one read probe per file, and no file that is also
 * a directory of another (procfs("a") with procfs("a/b")). */
static void procfs_check(struct session *s)
{
	for (struct rprobe *a = s->rprobes; a; a = a->next) {
		if (a->fam != &family_procfs)
			continue;
		for (struct rprobe *b = a->next; b; b = b->next) {
			size_t n = strlen(a->procfs_path), m;

			if (b->fam != &family_procfs)
				continue;
			m = strlen(b->procfs_path);
			if (!a->procfs_write && !b->procfs_write &&
			    !strcmp(a->procfs_path, b->procfs_path)) {
				diag_plain(s, "only one read procfs probe can exist for procfs path \"%s\"",
					   a->procfs_path);
				return;
			}
			if ((n < m && !strncmp(a->procfs_path, b->procfs_path, n) &&
			     b->procfs_path[n] == '/') ||
			    (m < n && !strncmp(a->procfs_path, b->procfs_path, m) &&
			     a->procfs_path[m] == '/')) {
				diag_error(s, b->point->loc, "procfs path \"%s\" is both a file and a directory",
					   n < m ? a->procfs_path : b->procfs_path);
				return;
			}
		}
	}
}

/* Pass 2: n is $... in a procfs probe p: check it (true), or p is not
 * one (false). */
static bool elab_procfs_value(struct session *s, struct probe *p, struct node *n,
			      bool written)
{
	bool any = false, reads = false, writes = false;

	for (const struct rprobe *r = s->rprobes; r; r = r->next) {
		if (r->probe != p)
			continue;
		if (r->fam != &family_procfs)
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

/* Pass 3: $value read in a .write probe. */
static const char *tr_procfs_value(struct gen *g, struct node *n)
{
	const char *t;

	if (!(n->flags & TARGET_PROCFS))
		return NULL;
	t = tr_new_tmp(g, T_STRING);
	tr_line(g, "stp_procfs_get(c, %s);", t);
	return t;
}

/* `$value = x` and `$value .= x` in a .read probe (n the assignment). */
static const char *tr_procfs_assign(struct gen *g, struct node *n)
{
	const char *b;

	if (!(n->a->flags & TARGET_PROCFS))
		return NULL;
	b = tr_gen_expr(g, n->b);
	tr_line(g, "stp_procfs_set(c, %s, %d);", b, !strcmp(n->op, ".="));
	tr_line(g, "if (unlikely(c->last_error)) {");
	tr_line(g, "\tc->last_stmt = %s;", tr_loc(g, arena_printf(g->s->arena,
		"identifier '%s' at %s", n->a->op, loc_str(g->s, n->a->loc))));
	tr_line(g, "\tgoto %s;", g->err_label);
	tr_line(g, "}");
	return b;
}

static void tr_procfs_probe(struct gen *g, struct strbuf *code, const struct rprobe *r,
			    int id)
{
	(void)code;
	(void)id;
	tr_table_row(g, "PROCFS", "STP_PROBE_PROCFS, .handler = probe_%d, .pp = %s, "
		     ".procfs_path = %s, .procfs_write = %d, .procfs_umask = %lld, "
		     ".procfs_maxsize = %lld, .maxactive = -1",
		  r->probe->index, tr_cstr(g, r->pp), tr_cstr(g, r->procfs_path),
		  r->procfs_write, (long long)r->procfs_umask,
		  (long long)r->procfs_maxsize);
}

/* @defined($value): readable in .write probes, as 4.8 */
static struct targ procfs_targ(struct session *s, const struct rprobe *r, const char *name)
{
	struct targ t = { .src = -1, .why = "it is not a kernel.function or kernel.trace probe" };

	(void)s;
	if (r->procfs_write && !strcmp(name, "value"))
		t.src = 0;
	return t;
}

static const char *const procfs_roots[] = { "procfs", NULL };
static const char *const procfs_shapes[] = {
	"procfs.umask.read.maxsize", "procfs.umask.write",
	"procfs.read.maxsize", "procfs.write", NULL
};

const struct family family_procfs = {
	.name = "procfs",
	.roots = procfs_roots,
	.shapes = procfs_shapes,
	.runtime = "PROCFS",
	.resolve = resolve_procfs,
	.check = procfs_check,
	.targ = procfs_targ,
	.claim_target = elab_procfs_value,
	.gen_target = tr_procfs_value,
	.gen_assign = tr_procfs_assign,
	.emit = tr_procfs_probe,
};
