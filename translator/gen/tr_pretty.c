/*
 * tr_pretty.c - pretty-printed target variables ($var$, $var$$,
 * $var->member$, $$parms$, $$parms$$, $$return$) as SystemTap 4.8 prints them:
 * structs as {.a=1, .b=0x..., .c={...}} (one level with '$'; '$$' goes
 * into nested structs), anonymous members as <union>= / <class>=,
 * integers in decimal, chars as 'c', pointers (function pointers too) in
 * hex, char pointers and arrays as quoted strings, other arrays as
 * [first, ...] (even flexible ones); a member's arrays are [...] under '$'.
 * Under DWARF (deref.dwarf: the kernel's, a module's, a program's) it
 * follows 4.8's dwarf_pretty_print further: a top-level pointer to an integer prints
 * its own value as that integer type, a function pointer as
 * <function>:ADDR, a pointer to a pointer to a struct that struct, and an
 * unreadable char* makes the print "ERROR".
 * Pass 3 writes each as a table of struct stp_pp
 * that the runtime's stp_pretty() (deref.c) walks; a read fault makes
 * the whole string "ERROR", as upstream's.
 */
#include <string.h>

#include <bpf/btf.h>

#include "translate.h"
#include "kcatalog.h"

#define PP_MAX_DEPTH 8

struct ppgen {
	struct gen *g;
	const struct btf *btf;
	struct strbuf *tab;	/* the table's initialisers */
	struct strbuf lit;	/* text pending before the next value */
	int level;		/* 1 '$', 2 '$$' */
	bool dwarf;		/* DWARF: 4.8's dwarf_pretty_print */
	bool user;		/* a program's DWARF (user memory) */
};

static void lit(struct ppgen *pg, const char *text)
{
	sb_puts(&pg->lit, text);
}

static void entry(struct ppgen *pg, const char *kind, int size, int bit_off,
		  int bit_size, unsigned int off)
{
	sb_printf(pg->tab, "\t{ %s, %s, %d, %d, %d, %u },\n",
		  pg->lit.len ? tr_cstr(pg->g, pg->lit.buf) : "NULL", kind, size,
		  bit_off, bit_size, off);
	pg->lit.len = 0;
	if (pg->lit.buf)
		pg->lit.buf[0] = '\0';
}

static bool is_char(const struct btf *btf, const struct btf_type *t)
{
	const char *name;

	if (!t || !btf_is_int(t) || t->size != 1)
		return false;
	name = btf__name_by_offset(btf, t->name_off);
	return (btf_int_encoding(t) & BTF_INT_CHAR) || (name && strstr(name, "char"));
}

static bool shown(const struct btf *btf, unsigned int id)
{
	const struct btf_type *t = deref_skip(btf, &id);

	return t && !btf_is_float(t);
}

static void value(struct ppgen *pg, unsigned int id, unsigned int off,
		  int bit_off, int bit_size, int depth, bool top);

static void members(struct ppgen *pg, const struct btf_type *t, unsigned int off,
		   int depth)
{
	const struct btf_member *m = btf_members(t);
	int n = 0;

	for (int i = 0; i < btf_vlen(t); i++, m++) {
		const char *name = btf__name_by_offset(pg->btf, m->name_off);
		unsigned int bo = btf_member_bit_offset(t, (__u32)i), id = m->type;
		unsigned int bs = btf_member_bitfield_size(t, (__u32)i);
		const struct btf_type *mt;

		if (!shown(pg->btf, id))
			continue;
		if (n++)
			lit(pg, ", ");
		if (name && *name) {
			lit(pg, ".");
			lit(pg, name);
			lit(pg, "=");
		} else {
			mt = deref_skip(pg->btf, &id);
			lit(pg, mt && btf_is_union(mt) ? "<union>=" : "<class>=");
		}
		value(pg, m->type, off + bo / 8, bs ? (int)(bo % 8) : 0, (int)bs,
		      depth + 1, false);
	}
}

static bool has_members(const struct btf *btf, const struct btf_type *t)
{
	const struct btf_member *m = btf_members(t);

	for (int i = 0; i < btf_vlen(t); i++, m++)
		if (shown(btf, m->type))
			return true;
	return false;
}

static void aggregate(struct ppgen *pg, const struct btf_type *t, unsigned int off,
		      int depth, bool top)
{
	if ((!top && pg->level < 2) || depth > PP_MAX_DEPTH || !has_members(pg->btf, t)) {
		lit(pg, "{...}");
		return;
	}
	lit(pg, "{");
	members(pg, t, off, depth);
	lit(pg, "}");
}

static void integer(struct ppgen *pg, const struct btf_type *t, unsigned int off,
		    int bit_off, int bit_size)
{
	bool sg = btf_is_int(t) ? (btf_int_encoding(t) & BTF_INT_SIGNED) != 0 :
		  btf_kflag(t);

	if (is_char(pg->btf, t) && !bit_size) {
		lit(pg, "'");
		entry(pg, "STP_PP_CHAR", 1, 0, 0, off);
		lit(pg, "'");
		return;
	}
	entry(pg, sg ? "STP_PP_INT" : "STP_PP_UINT", t->size > 8 ? 8 : (int)t->size,
	      bit_off, bit_size, off);
}

static void value(struct ppgen *pg, unsigned int id, unsigned int off,
		  int bit_off, int bit_size, int depth, bool top)
{
	const struct btf_type *t = deref_skip(pg->btf, &id), *et;
	unsigned int elem;

	if (!t) {
		lit(pg, "?");
		return;
	}
	switch (btf_kind(t)) {
	case BTF_KIND_INT:
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
		integer(pg, t, off, bit_off, bit_size);
		return;
	case BTF_KIND_PTR:
		elem = t->type;
		et = deref_skip(pg->btf, &elem);
		entry(pg, !is_char(pg->btf, et) ? "STP_PP_PTR" :
		      pg->dwarf ? "STP_PP_STRQ" : "STP_PP_STRP", 8, 0, 0, off);
		return;
	case BTF_KIND_ARRAY:
		elem = btf_array(t)->type;
		et = deref_skip(pg->btf, &elem);
		/* a member's array, char ones too, is [...] under '$' */
		if ((!top && pg->level < 2) || depth > PP_MAX_DEPTH) {
			lit(pg, "[...]");
			return;
		}
		if (is_char(pg->btf, et)) {
			entry(pg, "STP_PP_STRA", 0, 0, 0, off);
			return;
		}
		lit(pg, "[");
		value(pg, elem, off, 0, 0, depth + 1, false);
		lit(pg, ", ...]");
		return;
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		aggregate(pg, t, off, depth, top);
		return;
	default:
		lit(pg, "?");
		return;
	}
}

/* A pointer variable t under 4.8's dwarf_pretty_print (recurse_pointer
 * at the top): a pointer to a pointer is followed to what it ends at; a
 * struct there is printed through them all (*load: how many loads);
 * anything else prints the variable's own value: as a quoted string for
 * chars (ERROR when unreadable), in decimal as the integer type pointed
 * to (4.8 formats the pointer with it, never reading through it),
 * "<function>:" and the address for a function, the address for void;
 * a program's chars as 4.8's user_string_quoted shows them: the address
 * in hex when the string cannot be read (at a uprobe, a page of the
 * program's not yet faulted in). */
static void dwarf_pointer(struct ppgen *pg, const struct btf_type *t, bool lvalue, int *load)
{
	const char *how = lvalue ? "" : " | STP_PP_VALUE";
	unsigned int to = t->type;
	const struct btf_type *pt = deref_skip(pg->btf, &to);
	int levels = 0;
	bool sg;

	while (pt && btf_is_ptr(pt) && !is_char(pg->btf, pt)) {
		to = pt->type;
		pt = deref_skip(pg->btf, &to);
		levels++;
	}
	if (pt && (btf_is_struct(pt) || btf_is_union(pt))) {
		*load = lvalue | (levels << 2);
		aggregate(pg, pt, 0, 0, true);
		return;
	}
	if (is_char(pg->btf, pt)) {
		/* a program's: user_string_quoted, the address in hex when
		 * unreadable (a page not yet faulted in) */
		entry(pg, arena_printf(pg->g->s->arena, "%s%s",
				       pg->user ? "STP_PP_STRP" : "STP_PP_STRQ", how), 8, 0, 0, 0);
		return;
	}
	if (pt && (btf_is_int(pt) || btf_is_any_enum(pt)) && !is_char(pg->btf, pt)) {
		sg = btf_is_int(pt) ? (btf_int_encoding(pt) & BTF_INT_SIGNED) != 0 : btf_kflag(pt);
		entry(pg, arena_printf(pg->g->s->arena, "%s%s", sg ? "STP_PP_INT" : "STP_PP_UINT",
		      how), 8, 0, 0, 0);
		return;
	}
	if (pt && btf_is_func_proto(pt))
		lit(pg, "<function>:");
	entry(pg, arena_printf(pg->g->s->arena, "STP_PP_PTR%s", how), 8, 0, 0, 0);
}

/* The table for the `type` at (lvalue) or in (value) acc; returns its C
 * name and how stp_pretty must load the pointer at acc first. */
static const char *table(struct gen *g, const struct deref *d, int *load)
{
	const struct btf *btf = d->btf;
	unsigned int type = d->type;
	bool lvalue = d->lvalue;
	struct strbuf tab;
	struct ppgen pg = { .g = g, .btf = btf, .tab = &tab, .level = d->pretty,
			    .dwarf = d->dwarf, .user = d->user };
	unsigned int id = type, to;
	const struct btf_type *t = deref_skip(btf, &id), *pt = NULL;
	const char *name = arena_printf(g->s->arena, "stp_pp_%d", g->npptables++);

	sb_init(&tab);
	sb_init(&pg.lit);
	*load = 0;
	if (t && btf_is_ptr(t)) {
		to = t->type;
		pt = deref_skip(btf, &to);
	}
	if (pg.dwarf && pt) {
		dwarf_pointer(&pg, t, lvalue, load);
	} else if (pt && (btf_is_struct(pt) || btf_is_union(pt))) {
		*load = lvalue;		/* print what it points to */
		aggregate(&pg, pt, 0, 0, true);
	} else if (!lvalue && t && (btf_is_int(t) || btf_is_any_enum(t))) {
		bool sg = btf_is_int(t) ? (btf_int_encoding(t) & BTF_INT_SIGNED) != 0 :
			  btf_kflag(t);

		entry(&pg, sg ? "STP_PP_INT | STP_PP_VALUE" : "STP_PP_UINT | STP_PP_VALUE",
		      8, 0, 0, 0);
	} else if (!lvalue && t && btf_is_ptr(t)) {
		entry(&pg, is_char(btf, pt) ? "STP_PP_STRP | STP_PP_VALUE" :
		      "STP_PP_PTR | STP_PP_VALUE", 8, 0, 0, 0);
	} else if (!lvalue) {
		lit(&pg, "?");
	} else {
		value(&pg, type, 0, 0, 0, 0, true);
	}
	if (pg.lit.len)
		entry(&pg, "STP_PP_LIT", 0, 0, 0, 0);
	sb_puts(&tab, "\t{ NULL, STP_PP_END, 0, 0, 0, 0 },\n");
	tr_line(g, "static const struct stp_pp %s[] = {", name);
	sb_puts(g->body, tab.buf);
	tr_line(g, "};");
	sb_free(&tab);
	sb_free(&pg.lit);
	return name;
}

const char *tr_pretty(struct gen *g, const struct deref *d, const char *acc)
{
	const char *t = tr_new_tmp(g, T_STRING), *tab;
	int load;

	tr_line(g, "{");
	g->indent++;
	tab = table(g, d, &load);
	tr_line(g, "stp_pretty(c, %s, %s, %d, %s);", t, acc, load | (d->user ? 2 : 0), tab);
	g->indent--;
	tr_line(g, "}");
	return t;
}

/* ---- $var$, $$parms$ ---------------------------------------------------- */

/* An unreadable variable of $$parms$ and the like: "?", a struct (or one
 * a pointer points to) as its members, each "?", as 4.8 shows it. */
static const char *unknown_shape(struct session *s, const struct btf *btf, unsigned int id,
				 int level, int depth, bool dwarf)
{
	const struct btf_type *t = btf ? deref_skip(btf, &id) : NULL;
	const struct btf_member *m;
	struct strbuf sb;
	const char *r;
	int n = 0;

	if (t && btf_is_ptr(t) && !depth) {
		id = t->type;
		t = deref_skip(btf, &id);
		/* 4.8 follows a pointer to a pointer to the struct there */
		while (dwarf && t && btf_is_ptr(t)) {
			id = t->type;
			t = deref_skip(btf, &id);
		}
	}
	if (t && btf_is_array(t))
		return "[...]";
	if (!t || !(btf_is_struct(t) || btf_is_union(t)))
		return "?";
	if ((depth && level < 2) || depth > PP_MAX_DEPTH || !has_members(btf, t))
		return "{...}";
	sb_init(&sb);
	sb_putc(&sb, '{');
	m = btf_members(t);
	for (int i = 0; i < btf_vlen(t); i++, m++) {
		const char *name = btf__name_by_offset(btf, m->name_off);

		if (!shown(btf, m->type))
			continue;
		sb_printf(&sb, "%s%s%s=%s", n++ ? ", " : "", name && *name ? "." : "",
			  name && *name ? name : "<union>",
			  unknown_shape(s, btf, m->type, level, depth + 1, dwarf));
	}
	sb_putc(&sb, '}');
	r = arena_strdup(s->arena, sb.buf);
	sb_free(&sb);
	return r;
}

/* The variables of point r (of d's group) into out, "a=... b=...". */
static void pretty_list(struct gen *g, const struct deref *d, struct node *n,
			const struct rprobe *r, const char *out)
{
	struct node base = *n;

	for (int i = 0, k = 0; i < r->nargs; i++) {
		struct deref one = { .btf = r->args[i].btf, .type = r->args[i].type_id,
				     .pretty = d->pretty,
				     .dwarf = (r->flags & RF_DWARF) != 0 };
		const char *v;
		int np = rp_nparams(r);

		if (!strncmp(n->op, "$$locals", 8) ? i < np : !strncmp(n->op, "$$parms", 7) && i >= np)
			continue;
		one.user = r->flags & RF_USER;
		one.lvalue = targ_lvalue(g->s, r, r->args[i].name);

		base.op = arena_printf(g->s->arena, "$%s", r->args[i].name);
		base.type = T_LONG;
		tr_line(g, "stp_str_cat(%s, %s);", out, tr_cstr(g, arena_printf(g->s->arena,
			"%s%s=", k++ ? " " : "", r->args[i].name)));
		if (!one.btf || !one.type || !elab_target_arg(g->s, r, r->args[i].name)) {
			tr_line(g, "stp_str_cat(%s, %s);", out, tr_cstr(g, unknown_shape(g->s,
				one.btf, one.type, d->pretty, 0, one.dwarf)));
			continue;
		}
		v = tr_pretty(g, &one, tr_target(g, &base));
		tr_line(g, "stp_str_cat(%s, %s);", out, v);
	}
}

const char *tr_pretty_target(struct gen *g, struct node *n)
{
	const struct deref *d = n->deref;
	const struct rprobe *r;
	const char *out, *name;
	struct node base = *n;

	if (!d) {	/* a probe without points */
		out = tr_new_tmp(g, T_STRING);
		tr_line(g, "%s[0] = '\\0';", out);
		return out;
	}
	r = d->parms;
	name = arena_strndup(g->s->arena, n->op, strlen(n->op) - (size_t)d->pretty);
	if (!strncmp(n->op, "$$return$", 9)) {
		base.op = "$return";
		base.type = T_LONG;
		name = tr_pretty(g, d, tr_target(g, &base));
		out = tr_new_tmp(g, T_STRING);
		tr_line(g, "stp_str_copy(%s, \"return=\");", out);
		tr_line(g, "stp_str_cat(%s, %s);", out, name);
		return out;
	}
	if (n->op[1] != '$') {
		base.op = name;
		base.type = T_LONG;
		return tr_pretty(g, d, tr_target(g, &base));
	}
	out = tr_new_tmp(g, T_STRING);
	tr_line(g, "%s[0] = '\\0';", out);
	if (!r)
		return out;
	if (d->ngroups < 2) {
		pretty_list(g, d, n, r, out);
		return out;
	}
	/* the points differ: each row says its group (stp_probe.pgroup) */
	tr_line(g, "switch (c->probe ? c->probe->pgroup : 0) {");
	for (int i = 0; i < d->ngroups; i++) {
		tr_line(g, "case %d: {", i);
		g->indent++;
		pretty_list(g, d, n, d->groups[i], out);
		tr_line(g, "break;");
		g->indent--;
		tr_line(g, "}");
	}
	tr_line(g, "}");
	return out;
}
