/*
 * tr_entry.c - @entry(expr) in .return probes (kernel.function().return,
 * kprobe.function().return): expr is evaluated when the function is
 * entered and its value kept in the kretprobe instance, as SystemTap 4.8
 * does, so recursion and concurrent calls each see their own value.
 *
 * Pass 2 checks that every point of the probe is a return probe
 * (elab/target.c). Pass 3
 * gives each @entry of a probe a slot in the instance data (8 bytes for a
 * long, MAXSTRINGLEN for a string), writes an entry handler
 * probe_N_entry() that evaluates the expressions into their slots (it
 * shares the probe's locals struct, so its temporaries and locals are the
 * probe's, zeroed), and reads the slot where the @entry was.
 */
#include <string.h>

#include "translate.h"

static bool is_entry(const struct node *n)
{
	return n->kind == N_CALL && n->op && !strcmp(n->op, "@entry");
}

struct entry_walk {
	struct gen *g;
	int nlong, nstr;	/* slots so far */
};

/* Evaluate @entry node n into the next slot; n->str is the slot's offset
 * (a C expression: strings are MAXSTRINGLEN bytes, a -D may change it). */
static void entry_slot(struct entry_walk *w, struct node *n)
{
	struct gen *g = w->g;
	const char *v = tr_gen_expr(g, n->args);

	n->str = arena_printf(g->s->arena, "(%d * 8 + %d * MAXSTRINGLEN)",
			      w->nlong, w->nstr);
	if (n->type == T_STRING) {
		tr_line(g, "stp_str_copy((char *)c->entry_data + %s, %s);", n->str, v);
		w->nstr++;
	} else {
		tr_line(g, "*(int64_t *)((char *)c->entry_data + %s) = %s;", n->str, v);
		w->nlong++;
	}
}

static void collect(struct entry_walk *w, struct node *n)
{
	for (; n; n = n->next) {
		if (is_entry(n)) {
			entry_slot(w, n);
			continue;
		}
		collect(w, n->a);
		collect(w, n->b);
		collect(w, n->c);
		collect(w, n->d);
		collect(w, n->args);
	}
}

const char *tr_entry_handler(struct gen *g, struct probe *p, struct strbuf *body)
{
	struct entry_walk w = { .g = g };
	struct strbuf *saved = g->body;

	g->body = body;
	collect(&w, p->body);
	g->body = saved;
	if (!w.nlong && !w.nstr)
		return NULL;
	return arena_printf(g->s->arena, "(%d * 8 + %d * MAXSTRINGLEN)", w.nlong, w.nstr);
}

/* The value of @entry(...) in the return handler. */
const char *tr_entry_value(struct gen *g, struct node *n)
{
	if (n->type == T_STRING)
		return arena_printf(g->s->arena, "((char *)c->entry_data + %s)", n->str);
	return arena_printf(g->s->arena, "(*(int64_t *)((char *)c->entry_data + %s))",
			    n->str);
}
