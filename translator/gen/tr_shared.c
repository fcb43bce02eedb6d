/*
 * tr_shared.c - pass 3: the user's body of a probe derived through
 * aliases, written once. `probe syscall.* { ... }` gives each alias's
 * handler a copy of the same user body after the alias's own code; the
 * copy becomes a call of body_K(c, &l->b) (true on an error), one function for all the
 * handlers whose copies are alike, with the variables it uses (and its
 * temporaries) in struct stp_locals_body_K, the member b of each handler's
 * locals (the alias's code names them l->b.l_NAME). Only loop-free
 * handlers share (MAXACTION is charged once at their entry, for the whole
 * body), and only bodies without `next` or @entry.
 */
#include <stdlib.h>
#include <string.h>

#include "translate.h"

static bool same_loc(struct loc a, struct loc b)
{
	return a.src == b.src && a.line == b.line && a.col == b.col;
}

/* Can n run in a function of its own? Not with `next` (which leaves the
 * handler) or @entry (a slot of this probe's own entry data). */
static bool movable(const struct node *n)
{
	for (; n; n = n->next) {
		if (n->kind == N_NEXT || n->kind == N_RETURN ||
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
	g->shared = NULL;
	tr_gen_stmt(g, n);
	g->in_shared = false;
	sb_init(&key);
	body_members(g, &key);
	sb_printf(&key, "\001%s", body.buf ? body.buf : "");
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
		sb_printf(&g->shared_code, "/* the user's body of the probes at %s */\n"
			  "static noinline bool body_%d(struct stp_context *__restrict__ c, "
			  "struct stp_locals_body_%d *__restrict__ l)\n{\n%s"
			  "out: __attribute__((unused));\n\treturn c->last_error != NULL;\n}\n\n",
			  loc_str(g->s, n->loc), id, id, body.buf ? body.buf : "");
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
	tr_line(g, "if (body_%d(c, &l->b)) goto %s;", id, g->err_label);
}
