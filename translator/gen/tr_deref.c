/*
 * tr_deref.c - pass 3 of typed target expressions ($var->member,
 * $ptr[i], @cast(...)->member, &..., pretty prints): the steps pass 2
 * found (elab/deref.c) as C. Every read of kernel memory goes through
 * the runtime's stp_kread() (copy_from_kernel_nofault), so a bad pointer
 * is the script error "read fault [man error::fault] at 0x...", never an
 * oops; guru-mode stores go through stp_kwrite(): "write fault ...".
 */
#include <string.h>

#include "translate.h"

static bool is_cast(const struct node *n)
{
	return n->kind == N_CALL && !strcmp(n->op, "@cast");
}

static const char *where(struct gen *g, const struct node *n)
{
	if (!is_cast(n->a) && !deref_is_typed(n)) {	/* an autocast: its first '->' or '[' */
		struct loc at = n->args ? n->args->loc : n->loc;

		if (!n->args)	/* (v)$ */
			return tr_loc(g, arena_printf(g->s->arena, "operator '$' at %s",
				      loc_str(g->s, at)));
		if (n->args->kind == N_MEMBER && n->args->num)
			at.col = (int)n->args->num;
		return tr_loc(g, arena_printf(g->s->arena, "operator '%s' at %s",
			      n->args->kind == N_MEMBER ? "->" : "[", loc_str(g->s, at)));
	}
	return tr_loc(g, arena_printf(g->s->arena, is_cast(n->a) ?
		"operator '@cast' at %s" : "identifier '%s' at %s",
		is_cast(n->a) ? loc_str(g->s, n->a->loc) : n->a->op,
		loc_str(g->s, n->a->loc)));
}

static void fault_check(struct gen *g, const char *at)
{
	tr_line(g, "if (unlikely(c->last_error)) {");
	tr_line(g, "\tc->last_stmt = %s;", at);
	tr_line(g, "\tgoto %s;", g->err_label);
	tr_line(g, "}");
}

/* The steps of n: the address of what it names (or, for DR_ADDR, the
 * value) in a new temporary. */
static const char *deref_addr(struct gen *g, struct node *n, const char *at)
{
	const struct deref *d = n->deref;
	const char *acc = tr_new_tmp(g, T_LONG);

	if (is_cast(n->a)) {
		tr_line(g, "%s = %s;", acc, tr_gen_expr(g, n->a->args));
	} else if (!deref_is_typed(n)) {	/* an autocast: any value */
		tr_line(g, "%s = %s;", acc, tr_gen_expr(g, n->a));
	} else {
		tr_line(g, "%s = %s;", acc, tr_target(g, n->a));
	}
	for (int i = 0; i < d->nsteps; i++) {
		const struct dstep *st = &d->steps[i];

		switch (st->op) {
		case DS_LOAD:
			tr_line(g, "%s = stp_%sread(c, %s, 8, 0);", acc, d->user ? "u" : "k", acc);
			fault_check(g, at);
			break;
		case DS_ADD:
			tr_line(g, "%s = (int64_t)((uint64_t)%s + 0x%llxULL);", acc, acc,
				(unsigned long long)st->n);
			break;
		case DS_INDEX: {
			const char *v = tr_gen_expr(g, st->idx);

			tr_line(g, "%s = (int64_t)((uint64_t)%s + (uint64_t)(%s) * %lldULL);",
				acc, acc, v, (long long)st->n);
			break;
		}
		}
	}
	return acc;
}

/* The integer at acc, as n's final read. */
static void deref_read(struct gen *g, const struct deref *d, const char *acc,
		       const char *dst, const char *at)
{
	if (d->bit_size)
		tr_line(g, "%s = stp_%sread_bits(c, %s, %d, %d, %d, %d);", dst,
			d->user ? "u" : "k", acc, d->width, d->is_signed, d->bit_off,
			d->bit_size);
	else
		tr_line(g, "%s = stp_%sread(c, %s, %d, %d);", dst, d->user ? "u" : "k",
			acc, d->width, d->is_signed);
	fault_check(g, at);
}

/* Store v at acc (kernel or user memory, guru mode: deref_write_ok). */
static void deref_write(struct gen *g, const struct deref *d, const char *acc,
			const char *v, const char *at)
{
	if (d->user)	/* no bit fields (elab_deref) */
		tr_line(g, "stp_uwrite(c, %s, %d, %s);", acc, d->width, v);
	else if (d->bit_size)
		tr_line(g, "stp_kwrite_bits(c, %s, %d, %d, %s);", acc, d->bit_off,
			d->bit_size, v);
	else
		tr_line(g, "stp_kwrite(c, %s, %d, %s);", acc, d->width, v);
	fault_check(g, at);
}

/* n->a = n->b (guru mode; '=' only, as 4.8): the value stored,
 * untruncated. */
const char *tr_deref_assign(struct gen *g, struct node *n)
{
	const struct deref *d = n->a->deref;
	const char *at = where(g, n->a), *acc = deref_addr(g, n->a, at);
	const char *t = tr_new_tmp(g, T_LONG);

	tr_line(g, "%s = %s;", t, tr_gen_expr(g, n->b));
	deref_write(g, d, acc, t, at);
	return t;
}

const char *tr_deref(struct gen *g, struct node *n)
{
	const struct deref *d = n->deref;
	const char *at = where(g, n), *acc = deref_addr(g, n, at);

	switch (d->res) {
	case DR_READ:
		deref_read(g, d, acc, acc, at);
		return acc;
	case DR_ADDR:
		return acc;
	case DR_PRETTY:
		return tr_pretty(g, d, acc);
	}
	return acc;
}
