/*
 * tr_target.c - pass 3: target variables in handlers and the probe
 * table's rows, and the defines of the runtime parts it uses. A handler
 * asks the runtime for the module-wide variable K (stp_target(c, K));
 * where K comes from differs between the points of one probe
 * (kernel.function("vfs_*")), so each table row carries its own
 * stp_targ array, indexed by K, from its family's answer (targ_find).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "translate.h"
#include "kcatalog.h"

/* The index of target variable `name` (without '$') in the module. */
static int tname_index(struct gen *g, const char *name)
{
	for (int i = 0; i < g->ntnames; i++)
		if (!strcmp(g->tnames[i], name))
			return i;
	if (g->ntnames == g->captnames) {
		const char **v;

		g->captnames = g->captnames ? g->captnames * 2 : 8;
		v = arena_alloc(g->s->arena, sizeof(*v) * (size_t)g->captnames);
		if (g->ntnames)
			memcpy(v, g->tnames, sizeof(*v) * (size_t)g->ntnames);
		g->tnames = v;
	}
	g->tnames[g->ntnames] = name;
	return g->ntnames++;
}

/* A family's own value of n (procfs $value), else NULL. */
static const char *family_target(struct gen *g, struct node *n, bool assign)
{
	const struct family *const *f = g->s->families;
	const char *v = NULL;

	for (int i = 0; f[i] && !v; i++) {
		if (assign && f[i]->gen_assign)
			v = f[i]->gen_assign(g, n);
		else if (!assign && f[i]->gen_target)
			v = f[i]->gen_target(g, n);
	}
	return v;
}

const char *tr_target(struct gen *g, struct node *n)
{
	const char *t = family_target(g, n, false);

	if (t)
		return t;
	if (n->op[strlen(n->op) - 1] == '$')
		return tr_pretty_target(g, n);
	t = tr_new_tmp(g, n->type == T_STRING ? T_STRING : T_LONG);
	if (n->type == T_STRING) {
		tr_line(g, "stp_target_pretty(c, %s, %d);", t,
			!strcmp(n->op, "$$return") ? 1 :
			!strcmp(n->op, "$$locals") ? 2 :
			!strcmp(n->op, "$$vars") ? 3 :
			!strcmp(n->op, "$$name") ? 4 :
			!strcmp(n->op, "$$provider") ? 5 : 0);
		return t;
	}
	tr_line(g, "%s = stp_target(c, %d);", t, tname_index(g, n->op + 1));
	tr_error_check(g, n);
	return t;
}

/* An assignment a family handles itself (procfs $value = s), else NULL. */
const char *tr_target_assign(struct gen *g, struct node *n)
{
	return family_target(g, n, true);
}

/* $var = val (guru): writes the register; returns the value. */
const char *tr_target_set(struct gen *g, struct node *n, const char *val)
{
	const char *t = tr_new_tmp(g, T_LONG);

	tr_line(g, "%s = %s;", t, val);
	tr_line(g, "stp_target_set(c, %d, %s);", tname_index(g, n->op + 1), t);
	tr_error_check(g, n);
	return t;
}

const char *tr_pgroup(struct gen *g, const struct rprobe *r)
{
	if (!r->probe || !r->probe->pretty_groups || !r->pgroup)
		return "";
	return arena_printf(g->s->arena, ", .pgroup = %d", r->pgroup);
}

/* "static const struct stp_targ stp_targs_N[] = { ... };" and, with
 * parms, the parameter list for $$parms; returns the table fields. */
const char *tr_targ_arrays(struct gen *g, struct strbuf *code, const struct rprobe *r,
			   int id, bool parms)
{
	struct session *s = g->s;
	const char *fields = tr_pgroup(g, r);

	if (g->ntnames) {
		struct strbuf sb;
		const char *key;
		int k;

		sb_init(&sb);
		for (int i = 0; i < g->ntnames; i++) {
			struct targ t = targ_find(s, r, g->tnames[i]);

			sb_printf(&sb, "%s { %d, %d, %d }", i ? "," : "", t.src,
				  t.width, t.is_signed);
		}
		/* probes whose variables are found alike share one array */
		key = intern(s, sb.buf, sb.len);
		sb_free(&sb);
		for (k = 0; k < g->ntargs && g->targs[k].key != key; k++)
			;
		if (k == g->ntargs) {
			if (g->ntargs == g->captargs) {
				g->captargs = g->captargs ? 2 * g->captargs : 16;
				g->targs = realloc(g->targs, (size_t)g->captargs *
						   sizeof(*g->targs));
				if (!g->targs)
					abort();
			}
			g->targs[g->ntargs].key = key;
			g->targs[g->ntargs++].id = id;
			sb_printf(code, "static const struct stp_targ stp_targs_%d[] = {%s };\n",
				  id, key);
		}
		fields = arena_printf(s->arena, "%s, .targs = stp_targs_%d", fields,
				      g->targs[k].id);
	}
	if (r->nargs && parms) {
		sb_printf(code, "static const struct stp_parm stp_parms_%d[] = {", id);
		for (int i = 0; i < r->nargs; i++) {
			struct targ t = targ_find(s, r, r->args[i].name);

			if (t.width & STP_TARG_OBJ)
				t.src = -4;	/* STP_TARG_AGG: "{...}", as 4.8 */
			sb_printf(code, " { %s, { %d, %d, %d } },",
				  tr_cstr(g, r->args[i].name), t.src, t.width, t.is_signed);
		}
		sb_puts(code, " { NULL } };\n");
		fields = arena_printf(s->arena, "%s, .parms = stp_parms_%d", fields, id);
	}
	return fields;
}

const char *tr_optional(const struct rprobe *r)
{
	return r->marks && strchr(r->marks, '?') ? "true" : "false";
}

/* Counts a row of the probe table and the runtime part it needs
 * (STP_HAVE_<runtime>). */
static void table_count(struct gen *g, const char *runtime)
{
	g->ntable++;
	for (int i = 0; runtime && i < g->nruntimes; i++)
		if (!strcmp(g->runtimes[i], runtime))
			return;
	if (runtime && g->nruntimes < (int)(sizeof(g->runtimes) / sizeof(g->runtimes[0])))
		g->runtimes[g->nruntimes++] = runtime;
}

/* One row of the probe table: "\t{ .kind = STP_PROBE_<kind>, " then the
 * rest; runtime names the runtime part it needs (STP_HAVE_<runtime>). */
void tr_table_row(struct gen *g, const char *runtime, const char *fmt, ...)
{
	va_list ap;
	char *rest;
	const char *opt;

	va_start(ap, fmt);
	if (vasprintf(&rest, fmt, ap) < 0)
		rest = NULL;
	va_end(ap);
	/* the fields most kprobe rows have, as one shorthand (tr_sites.c) */
	if (rest && (opt = strstr(rest, ", .maxactive = -1, .optional = true")) &&
	    (!opt[35] || opt[35] == ',')) {
		g->used_kp = true;
		sb_printf(&g->table, "\t{ .kind = %.*s, STP_KP_OPTIONAL%s },\n", (int)(opt - rest),
			  rest, opt + 35);
	} else {
		sb_printf(&g->table, "\t{ .kind = %s },\n", rest ? rest : "");
	}
	free(rest);
	table_count(g, runtime);
}

/* A row of the probe table written as one of the row macros of the
 * shorthands (tr_sites.c), "STP_KP(...)": row is its whole text. */
void tr_table_macro(struct gen *g, const char *runtime, const char *row)
{
	g->used_kp = true;
	sb_printf(&g->table, "\t%s,\n", row);
	table_count(g, runtime);
}

/* What the runtime depends on (its object's too: s->rt_defines): the
 * privilege, regex sizes, STP_HAVE_<PART> for each runtime part the
 * probe table uses, in the order of the family list (it compiles only
 * those). */
void tr_runtime_defines(struct gen *g, struct strbuf *c)
{
	struct session *s = g->s;

	if (s->privilege == PR_STAPUSR || s->privilege == PR_STAPSYS)	/* runtime, staprun */
		sb_printf(c, "#define STP_PRIVILEGE \"%s\"\n#define STP_PRIVILEGE_%s 1\n",
			  privilege_name(s->privilege),
			  s->privilege == PR_STAPUSR ? "STAPUSR" : "STAPSYS");
	regex_defines(s, c);
	for (int i = 0; g->s->families[i]; i++) {
		const char *part = g->s->families[i]->runtime;

		for (int k = 0; part && k < g->nruntimes; k++)
			if (!strcmp(g->runtimes[k], part))
				sb_printf(c, "#define STP_HAVE_%s\n", part);
	}
}
