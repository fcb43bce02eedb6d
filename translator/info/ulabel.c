/*
 * ulabel.c - the DWARF labels and call sites of a user-space function,
 * for process("PATH").function("F").label("L") and
 * .function("F").callee("G") / .callees probes.
 *
 * Labels are the DW_TAG_label entries with an address anywhere inside
 * the function (its lexical blocks, not its inlined copies). Call sites
 * are GCC's DW_TAG_GNU_call_site entries (what -gdwarf-4 writes; as
 * SystemTap 4.8, DWARF 5's DW_TAG_call_site is not read): the called
 * function (a DWARF function of the same binary) and the return address
 * of the call, which the runtime compares with the one on the stack at
 * the callee's entry. Tail calls have no return address and are skipped.
 */
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include <dwarf.h>
#include <elfutils/libdw.h>

#include "ubin.h"

#define MAX_DEPTH 32
#define MAX_SITES 1024

struct walk {
	struct session *s;
	struct ubin *b;
	const char *glob;
	struct ulabel *labels;
	struct ucall *calls;
	size_t n, cap;
};

static void *grow(struct walk *w, void *v, size_t size)
{
	void *nv;

	if (w->n < w->cap)
		return v;
	w->cap = w->cap ? 2 * w->cap : 8;
	nv = arena_alloc(w->s->arena, w->cap * size);
	if (w->n)
		memcpy(nv, v, w->n * size);
	return nv;
}

static void add_label(struct walk *w, Dwarf_Die *d)
{
	const char *name = dwarf_diename(d), *file;
	Dwarf_Addr pc;
	int line = 0;

	if (!name || fnmatch(w->glob, name, 0) || dwarf_lowpc(d, &pc))
		return;
	file = dwarf_decl_file(d);
	dwarf_decl_line(d, &line);
	w->labels = grow(w, w->labels, sizeof(*w->labels));
	w->labels[w->n++] = (struct ulabel){ arena_strdup(w->s->arena, name),
		arena_strdup(w->s->arena, file ? file : ""), line, pc };
}

/* The out-of-line function of b the call site's origin is. */
static const struct ufunc *callee_of(struct walk *w, Dwarf_Die *site)
{
	Dwarf_Attribute at;
	Dwarf_Die o;
	const struct ufunc **fs;
	const char *name;
	size_t n;

	if (!dwarf_attr(site, DW_AT_abstract_origin, &at) || !dwarf_formref_die(&at, &o))
		return NULL;
	name = dwarf_diename(&o);
	if (!name)
		return NULL;
	n = ubin_match_funcs(w->b, name, &fs);
	for (size_t i = 0; i < n; i++)
		if (fs[i]->die && !fs[i]->inlined && !strcmp(fs[i]->name, name))
			return fs[i];
	return NULL;
}

static void add_call(struct walk *w, Dwarf_Die *d)
{
	const struct ufunc *f;
	Dwarf_Addr ret;

	if (dwarf_hasattr(d, DW_AT_GNU_tail_call) || dwarf_lowpc(d, &ret) ||
	    w->n >= MAX_SITES || !(f = callee_of(w, d)) || fnmatch(w->glob, f->name, 0))
		return;
	w->calls = grow(w, w->calls, sizeof(*w->calls));
	w->calls[w->n++] = (struct ucall){ f, ret };
}

static void walk_scope(struct walk *w, Dwarf_Die *d, int tag_want, int depth)
{
	Dwarf_Die c;

	if (depth > MAX_DEPTH || dwarf_child(d, &c))
		return;
	do {
		int tag = dwarf_tag(&c);

		if (tag == tag_want && tag == DW_TAG_label)
			add_label(w, &c);
		else if (tag == tag_want)
			add_call(w, &c);
		else if (tag == DW_TAG_lexical_block)
			walk_scope(w, &c, tag_want, depth + 1);
	} while (dwarf_siblingof(&c, &c) == 0);
}

static bool func_die(struct ubin *b, const struct ufunc *f, Dwarf_Die *d)
{
	return ubin_dwarf(b) && f->die && !f->inlined && dwarf_offdie(ubin_dwarf(b), f->die, d);
}

size_t ubin_labels(struct session *s, struct ubin *b, const struct ufunc *f,
		   const char *glob, struct ulabel **out)
{
	struct walk w = { s, b, glob, NULL, NULL, 0, 0 };
	Dwarf_Die d;

	/* the kernel's inlined copies have their labels too (4.8 lists them) */
	if (func_die(b, f, &d) || (ubin_is_vmlinux(b) && f->inlined &&
				   dwarf_offdie(ubin_dwarf(b), f->die, &d)))
		walk_scope(&w, &d, DW_TAG_label, 0);
	*out = w.labels;
	return w.n;
}

static int by_callee(const void *a, const void *b)
{
	const struct ucall *x = a, *y = b;
	int c = strcmp(x->callee->name, y->callee->name);

	if (c)
		return c;
	if (x->callee->entry != y->callee->entry)
		return x->callee->entry < y->callee->entry ? -1 : 1;
	return (x->ret > y->ret) - (x->ret < y->ret);
}

size_t ubin_calls(struct session *s, struct ubin *b, const struct ufunc *f,
		  const char *glob, struct ucall **out)
{
	struct walk w = { s, b, glob, NULL, NULL, 0, 0 };
	Dwarf_Die d;

	if (func_die(b, f, &d))
		walk_scope(&w, &d, DW_TAG_GNU_call_site, 0);
	if (w.n)
		qsort(w.calls, w.n, sizeof(*w.calls), by_callee);
	*out = w.calls;
	return w.n;
}
