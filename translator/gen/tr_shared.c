/*
 * tr_shared.c - pass 3: code that handlers share, written once: the
 * locks of the globals a handler uses (stp_locks_K, stp_unlocks_K), and
 * the user's body of a probe derived through aliases. `probe syscall.* { ... }` gives each alias's
 * handler a copy of the same user body after the alias's own code; the
 * copy becomes a call of body_K(c, &l->b) (true on an error), one function for all the
 * handlers whose copies are alike, with the variables it uses (and its
 * temporaries) in struct stp_locals_body_K, the member b of each handler's
 * locals (the alias's code names them l->b.l_NAME). Only loop-free
 * handlers share (MAXACTION is charged once at their entry, for the whole
 * body), and only bodies without @entry. A `next` in the body ends the
 * handler: body_K returns true with no error set.
 */
#include <stdlib.h>
#include <string.h>

#include "translate.h"

static bool same_loc(struct loc a, struct loc b)
{
	return a.src == b.src && a.line == b.line && a.col == b.col;
}

/* Can n run in a function of its own? Not with @entry (a slot of this
 * probe's own entry data). */
static bool movable(const struct node *n)
{
	for (; n; n = n->next) {
		if (n->kind == N_RETURN ||
		    (n->kind == N_CALL && n->op && !strcmp(n->op, "@entry")))
			return false;
		if (!movable(n->a) || !movable(n->b) || !movable(n->c) ||
		    !movable(n->d) || !movable(n->args))
			return false;
	}
	return true;
}

static bool add_var(struct gen *g, const struct var *v)
{
	for (int i = 0; i < g->nsvars; i++)
		if (g->svars[i] == v)
			return true;
	if (g->nsvars == (int)(sizeof(g->svars) / sizeof(g->svars[0])))
		return false;
	g->svars[g->nsvars++] = v;
	return true;
}

/* The locals n uses, into g->svars; false when there are too many. */
static bool collect_vars(struct gen *g, const struct node *n)
{
	for (; n; n = n->next) {
		if (n->var && !n->var->global && !add_var(g, n->var))
			return false;
		if (!collect_vars(g, n->a) || !collect_vars(g, n->b) ||
		    !collect_vars(g, n->c) || !collect_vars(g, n->d) ||
		    !collect_vars(g, n->args))
			return false;
	}
	return true;
}

/* The block at `at` among the blocks nested from n (not n itself). */
static const struct node *find_block(const struct node *n, struct loc at)
{
	for (const struct node *k = n->args; k; k = k->next) {
		const struct node *r;

		if (k->kind != N_BLOCK)
			continue;
		if (same_loc(k->loc, at))
			return k;
		r = find_block(k, at);
		if (r)
			return r;
	}
	return NULL;
}

/* The user's probe p was derived from, if it names more than one alias
 * (its body is then in handlers of different aliases). */
static const struct probe *user_probe(struct gen *g, const struct probe *p)
{
	bool several = false;

	for (const struct probe *q = g->s->probes; q && !several; q = q->next)
		several = same_loc(q->loc, p->loc) && q->listed && p->listed &&
			  strcmp(q->listed, p->listed);
	if (!several)
		return NULL;
	for (struct file_ast *f = g->s->user_ast; f; f = f->next)
		for (const struct probe *u = f->probes; u; u = u->next)
			if (!u->alias_names && u->body && same_loc(u->loc, p->loc))
				return u;
	return NULL;
}

void tr_shared_find(struct gen *g, struct probe *p)
{
	const struct probe *u;
	const struct node *b;

	g->shared = NULL;
	g->shared_id = -1;
	g->nsvars = 0;
	if (!p->body || p->body->kind != N_BLOCK || stmt_count(g, p->body) < 0)
		return;
	u = user_probe(g, p);
	if (!u)
		return;
	b = find_block(p->body, u->body->loc);
	if (!b || !movable(b->args) || !collect_vars(g, b->args)) {
		g->nsvars = 0;
		return;
	}
	g->shared = b;
}

bool tr_shared_var(struct gen *g, const struct var *v)
{
	if (g->in_shared || (g->shared_id < 0 && !g->shared))
		return false;
	for (int i = 0; i < g->nsvars; i++)
		if (g->svars[i] == v)
			return true;
	return false;
}

/* The members of stp_locals_body_K: the variables, then the temporaries. */
static void body_members(struct gen *g, struct strbuf *sb)
{
	for (int i = 0; i < g->nsvars; i++) {
		const char *m = tr_mangle(g, "l_", g->svars[i]->name);

		if (g->svars[i]->type == T_STRING)
			sb_printf(sb, "\tchar %s[MAXSTRINGLEN];\n", m);
		else
			sb_printf(sb, "\tint64_t %s;\n", m);
	}
	if (g->tmps.buf)
		sb_puts(sb, g->tmps.buf);
	else if (!g->nsvars)
		sb_puts(sb, "\tchar __dummy;\n");	/* no empty struct */
}

/* n, the handler's shared block: its function (written once for all the
 * alike) and the call. */
void tr_shared_call(struct gen *g, struct node *n)
{
	struct strbuf *saved_body = g->body, body, key;
	struct strbuf saved_tmps = g->tmps;
	int saved_ntmp = g->ntmp, saved_indent = g->indent, saved_label = g->label;
	const char *saved_err = g->err_label, *k;
	int id;

	sb_init(&body);
	sb_init(&g->tmps);
	g->body = &body;
	g->ntmp = 0;
	g->indent = 1;
	g->label = 0;
	g->err_label = "out";
	g->in_shared = true;
	g->shared_next = false;
	g->shared = NULL;
	tr_gen_stmt(g, n);
	g->in_shared = false;
	sb_init(&key);
	body_members(g, &key);
	sb_printf(&key, "\001%d%s", g->shared_next, body.buf ? body.buf : "");
	k = intern(g->s, key.buf, key.len);
	for (id = 0; id < g->nbodies && g->bodies[id] != k; id++)
		;
	if (id == g->nbodies) {
		if (g->nbodies == g->capbodies) {
			g->capbodies = g->capbodies ? 2 * g->capbodies : 16;
			g->bodies = realloc(g->bodies, (size_t)g->capbodies * sizeof(*g->bodies));
			if (!g->bodies)
				abort();
		}
		g->bodies[g->nbodies++] = k;
		sb_printf(&g->shared_structs, "struct stp_locals_body_%d {\n", id);
		body_members(g, &g->shared_structs);
		sb_puts(&g->shared_structs, "};\n\n");
		bool expr = tr_has_embed_expr(n);	/* at -Og (stp_runtime.h) */

		sb_printf(&g->shared_code, "%s/* the user's body of the probes at %s */\n"
			  "static noinline bool body_%d(struct stp_context *__restrict__ c, "
			  "struct stp_locals_body_%d *__restrict__ l)\n{\n%s"
			  "STP_OUT;\n\treturn c->last_error != NULL;\n%s}\n%s\n",
			  expr ? TR_OPT_EXPR_BEGIN : "", loc_str(g->s, n->loc), id, id,
			  body.buf ? body.buf : "",
			  g->shared_next ? "next:\n\treturn true;\n" : "",
			  expr ? TR_OPT_EXPR_END : "");
	}
	sb_free(&key);
	sb_free(&body);
	sb_free(&g->tmps);
	g->tmps = saved_tmps;
	g->ntmp = saved_ntmp;
	g->indent = saved_indent;
	g->label = saved_label;
	g->err_label = saved_err;
	g->body = saved_body;
	g->shared_id = id;
	if (!strcmp(g->err_label, "out"))
		tr_line(g, "STP_TRY(body_%d(c, &l->b));", id);
	else if (!g->shared_next)
		tr_line(g, "if (body_%d(c, &l->b)) goto %s;", id, g->err_label);
	else	/* an error goes to the catch, a `next` ends the handler */
		tr_line(g, "if (body_%d(c, &l->b)) {\n\t\tif (c->last_error)\n\t\t\tgoto %s;\n"
			"\t\tgoto out;\n\t}", id, g->err_label);
}

/* The index of the interned key in *v (added when new); *fresh: added. */
static int intern_index(const char ***v, int *n, int *cap, const char *key, bool *fresh)
{
	int i;

	for (i = 0; i < *n && (*v)[i] != key; i++)
		;
	*fresh = i == *n;
	if (!*fresh)
		return i;
	if (*n == *cap) {
		*cap = *cap ? 2 * *cap : 16;
		*v = realloc(*v, (size_t)*cap * sizeof(**v));
		if (!*v)
			abort();
	}
	(*v)[(*n)++] = key;
	return i;
}

/*
 * lock: "\tif (!stp_lock_read(&g_a_lock))\n\t\tgoto unlock_0;\n ... \tlocked = 1;\n";
 * unlock: the releases in reverse, "unlock_K:" after each, then
 * "\tif (!locked)\n\t\tstp_probe_skipped();\n". stp_locks_K takes them all
 * or none (true when taken), stp_unlocks_K releases them.
 */
void tr_lockset(struct gen *g, struct strbuf *lock, struct strbuf *unlock)
{
	static const char taken[] = "\tlocked = 1;\n";
	static const char skipped[] = "\tif (!locked)\n\t\tstp_probe_skipped();\n";
	struct strbuf key;
	const char *k, *p, *end;
	bool fresh;
	int id;

	if (!lock->buf)
		return;
	sb_init(&key);
	sb_printf(&key, "%s\001%s", lock->buf, unlock->buf);
	k = intern(g->s, key.buf, key.len);
	sb_free(&key);
	id = intern_index(&g->locksets, &g->nlocksets, &g->caplocksets, k, &fresh);
	if (fresh) {
		struct strbuf *o = &g->shared_code;
		size_t nl = strlen(lock->buf), nu = strlen(unlock->buf);

		sb_printf(o, "static bool stp_locks_%d(void)\n{\n%.*s\treturn true;\n", id,
			  (int)(nl - strlen(taken)), lock->buf);
		/* after `return true`, the release of the last lock is dead */
		p = strchr(unlock->buf, '\n') + 1;
		sb_printf(o, "%.*s\treturn false;\n}\n\n", (int)(unlock->buf + nu - strlen(skipped) - p), p);
		sb_printf(o, "static void stp_unlocks_%d(void)\n{\n", id);
		for (p = unlock->buf; *p; p = end + 1) {
			end = strchr(p, '\n');
			if (!strncmp(p, "\tstp_unlock_", 12))
				sb_printf(o, "%.*s\n", (int)(end - p), p);
		}
		sb_puts(o, "}\n\n");
	}
	sb_free(lock);
	sb_free(unlock);
	sb_printf(lock, "\tif (!stp_locks_%d()) {\n\t\tstp_probe_skipped();\n\t\treturn;\n\t}\n", id);
	sb_printf(unlock, "\tstp_unlocks_%d();\n", id);
}
