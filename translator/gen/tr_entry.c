/*
 * tr_entry.c - @entry(expr) in .return probes (kernel.function().return,
 * kprobe.function().return): expr is evaluated when the function is
 * entered and its value kept in the kretprobe instance, as SystemTap 4.8
 * does, so recursion and concurrent calls each see their own value.
 *
 * Pass 2 checks that every point of the probe is a return probe
 * (elab/target.c). Pass 3
 * gives each @entry of a probe, and of the function copies made for it
 * (elab/resolve.c), a slot in the instance data (8 bytes for a long,
 * MAXSTRINGLEN for a string) before the functions are written, writes an
 * entry handler probe_N_entry() that evaluates the expressions into their
 * slots (it shares the probe's locals struct, so its temporaries and
 * locals are the probe's, zeroed), and reads the slot where the @entry
 * was.
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
	bool eval;		/* evaluate the values (else give the slots) */
};

/* @entry node n: its slot, the next one (n->str: the slot's offset, a C
 * expression: strings are MAXSTRINGLEN bytes, a -D may change it); or
 * the evaluation of its value into that slot. */
static void entry_slot(struct entry_walk *w, struct node *n)
{
	struct gen *g = w->g;
	const char *v;

	if (!w->eval) {
		n->str = arena_printf(g->s->arena, "(%d * 8 + %d * MAXSTRINGLEN)",
				      w->nlong, w->nstr);
		w->nstr += n->type == T_STRING;
		w->nlong += n->type != T_STRING;
		return;
	}
	v = tr_gen_expr(g, n->args);
	if (n->type == T_STRING)
		tr_line(g, "stp_str_copy((char *)c->entry_data + %s, %s);", n->str, v);
	else
		tr_line(g, "*(int64_t *)((char *)c->entry_data + %s) = %s;", n->str, v);
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

/* The @entry values of p's body, then of its function copies' (4.8's
 * copies for a .return probe evaluate theirs at its entry too). */
static void collect_probe(struct entry_walk *w, struct probe *p)
{
	collect(w, p->body);
	for (struct func *f = w->g->s->funcs; f; f = f->next_used)
		if (f->probe == p && f->copy_of)
			collect(w, f->body);
}

void tr_entry_slots(struct gen *g)
{
	for (struct probe *p = g->s->probes; p; p = p->next) {
		struct entry_walk w = { .g = g };

		collect_probe(&w, p);
		p->entry_size = w.nlong || w.nstr ?
			arena_printf(g->s->arena, "(%d * 8 + %d * MAXSTRINGLEN)", w.nlong, w.nstr) :
			NULL;
	}
}

const char *tr_entry_handler(struct gen *g, struct probe *p, struct strbuf *body)
{
	struct entry_walk w = { .g = g, .eval = true };
	struct strbuf *saved = g->body;

	g->body = body;
	collect_probe(&w, p);
	g->body = saved;
	return p->entry_size;
}

/* The value of @entry(...) in the return handler. */
const char *tr_entry_value(struct gen *g, struct node *n)
{
	if (n->type == T_STRING)
		return arena_printf(g->s->arena, "((char *)c->entry_data + %s)", n->str);
	return arena_printf(g->s->arena, "(*(int64_t *)((char *)c->entry_data + %s))",
			    n->str);
}
