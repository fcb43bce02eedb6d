/*
 * bpf_core.c - CO-RE for --runtime=bpf: `$p->a->b[i]` as offsets that
 * libbpf relocates when it loads the object, so a -p4 object built here
 * runs on another kernel. Pass 2 (elab/deref.c) leaves the walk by BTF
 * names (struct dcore); each run of members from a named aggregate
 * becomes one __builtin_preserve_field_info(((struct T *)0)->a.b[3].c,
 * BYTE_OFFSET), and the aggregates are declared here with only the
 * members used (libbpf matches members by name, also inside the target
 * kernel's anonymous structs and unions). A walk that starts at an
 * anonymous aggregate keeps the translating kernel's offsets.
 */
#include <string.h>

#include <bpf/btf.h>

#include "bpf.h"

struct bc_member {
	const char *name;
	unsigned int type;
	struct bc_member *next;
};

struct bc_type {
	const struct btf *btf;
	unsigned int id;
	const char *cname;	/* "struct task_struct", "union stp_anon_12" */
	struct bc_member *members;
	bool emitted;
	struct bc_type *next;
};

struct bcore {
	struct bc_type *types;
	int nenum;
};

static struct bcore *core(struct bgen *g)
{
	if (!g->core)
		g->core = arena_alloc(g->s->arena, sizeof(*g->core));
	return g->core;
}

static struct bc_type *type_of(struct bgen *g, const struct btf *btf, unsigned int id)
{
	struct bcore *c = core(g);
	const struct btf_type *t = btf__type_by_id(btf, id);
	const char *name = btf__name_by_offset(btf, t->name_off), *kw;
	struct bc_type *bt, **tail = &c->types;
	bool clash = false;

	for (bt = c->types; bt; bt = bt->next) {
		if (bt->btf == btf && bt->id == id)
			return bt;
		tail = &bt->next;
	}
	kw = btf_is_union(t) ? "union" : "struct";
	for (bt = c->types; bt && name && *name; bt = bt->next)
		if (!strcmp(bt->cname, arena_printf(g->s->arena, "%s %s", kw, name)))
			clash = true;
	bt = arena_alloc(g->s->arena, sizeof(*bt));
	bt->btf = btf;
	bt->id = id;
	if (!name || !*name)
		bt->cname = arena_printf(g->s->arena, "%s stp_anon_%u", kw, id);
	else if (clash)		/* a flavor: libbpf ignores "___..." */
		bt->cname = arena_printf(g->s->arena, "%s %s___stp%u", kw, name, id);
	else
		bt->cname = arena_printf(g->s->arena, "%s %s", kw, name);
	*tail = bt;
	return bt;
}

static bool named(const struct btf *btf, unsigned int id)
{
	const struct btf_type *t = deref_skip(btf, &id);
	const char *name = t ? btf__name_by_offset(btf, t->name_off) : NULL;

	return t && (btf_is_struct(t) || btf_is_union(t)) && name && *name;
}

/* the C declaration of `decl` as BTF type id, registering aggregates */
static const char *declare(struct bgen *g, const struct btf *btf, unsigned int id,
			   const char *decl, int depth)
{
	struct arena *ar = g->s->arena;
	const struct btf_type *t = deref_skip(btf, &id);

	if (!t || depth > 8)
		return arena_printf(ar, "char %s", decl);
	switch (btf_kind(t)) {
	case BTF_KIND_INT:
		return arena_printf(ar, "%s %s", t->size == 1 ? "__u8" : t->size == 2 ? "__u16" :
				    t->size == 4 ? "__u32" : t->size == 8 ? "__u64" :
				    "unsigned __int128", decl);
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
		return arena_printf(ar, "enum { STP_ENUM_%d } %s", core(g)->nenum++, decl);
	case BTF_KIND_PTR:
		return arena_printf(ar, "void *%s", decl);
	case BTF_KIND_FLOAT:
		return arena_printf(ar, "%s %s", t->size == 4 ? "float" : "double", decl);
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		return arena_printf(ar, "%s %s", type_of(g, btf, id)->cname, decl);
	case BTF_KIND_ARRAY:
		return declare(g, btf, btf_array(t)->type,
			       arena_printf(ar, "%s[%u]", decl, btf_array(t)->nelems), depth + 1);
	default:
		return arena_printf(ar, "char %s", decl);
	}
}

static void use_member(struct bgen *g, const struct btf *btf, unsigned int agg,
		       const char *name, unsigned int mtype)
{
	struct bc_type *bt = type_of(g, btf, agg);
	struct bc_member *m, **tail = &bt->members;

	for (m = bt->members; m; m = m->next) {
		if (!strcmp(m->name, name))
			return;
		tail = &m->next;
	}
	m = arena_alloc(g->s->arena, sizeof(*m));
	m->name = name;
	m->type = mtype;
	*tail = m;
}

/* Can every run of members be relocated from a named aggregate? */
static bool relocatable(const struct deref *d)
{
	bool open = false;

	if (!d->ncore || !d->btf || d->user)	/* a program's types: as built */
		return false;
	for (int i = 0; i < d->ncore; i++) {
		const struct dcore *e = &d->core[i];

		if (e->op == DC_LOAD || (e->op == DC_INDEX && e->ptr)) {
			open = false;
		} else if (e->op == DC_MEMBER && !open) {
			if (!named(d->btf, e->type))
				return false;
			open = true;
		}
	}
	return true;
}

struct chain {
	const char *root;	/* "struct task_struct", or NULL: none open */
	struct strbuf path;	/* "->a.b[3]" */
};

static const char *offset_of(struct bgen *g, const char *root, const char *path)
{
	return arena_printf(g->s->arena,
			    "(long)__builtin_preserve_field_info(((%s *)0)%s, 0)", root, path);
}

static void flush(struct bgen *g, struct chain *ch, const char *acc)
{
	if (ch->root && ch->path.len)
		bg_line(g, "%s += %s;", acc, offset_of(g, ch->root, ch->path.buf));
	ch->root = NULL;
	sb_free(&ch->path);
	sb_init(&ch->path);
}

/* element size of a pointer index: relocated for a named aggregate */
static const char *elem_size(struct bgen *g, const struct btf *btf, unsigned int id)
{
	unsigned int sid = id;

	if (named(btf, id)) {
		deref_skip(btf, &sid);
		return arena_printf(g->s->arena, "(long)__builtin_preserve_type_info(*(%s *)0, 1)",
				    declare(g, btf, sid, "", 0));
	}
	return arena_printf(g->s->arena, "%lldLL", (long long)btf__resolve_size(btf, id));
}

bool bc_deref(struct bgen *g, const struct deref *d, const char *acc, const struct node *at)
{
	struct chain ch = { NULL };

	if (!relocatable(d))
		return false;
	sb_init(&ch.path);
	for (int i = 0; i < d->ncore; i++) {
		const struct dcore *e = &d->core[i];

		if (e->op == DC_LOAD) {
			flush(g, &ch, acc);
			bg_line(g, "if (bpf_probe_read_kernel(&%s, 8, (void *)%s))", acc, acc);
			g->indent++;
			bg_deref_fault(g, at, acc);
			g->indent--;
		} else if (e->op == DC_MEMBER) {
			use_member(g, d->btf, e->type, e->name, e->mtype);
			declare(g, d->btf, e->mtype, "x", 0);
			if (!ch.root) {
				unsigned int id = e->type;

				deref_skip(d->btf, &id);
				ch.root = type_of(g, d->btf, id)->cname;
				sb_puts(&ch.path, "->");
			} else {
				sb_puts(&ch.path, ".");
			}
			sb_puts(&ch.path, e->name);
		} else if (e->ptr || !ch.root) {
			flush(g, &ch, acc);
			if (e->idx->kind == N_NUM)
				bg_line(g, "%s += %lldLL * %s;", acc, (long long)e->idx->num,
					elem_size(g, d->btf, e->type));
			else
				bg_line(g, "%s += %s * %s;", acc, bg_expr(g, e->idx),
					elem_size(g, d->btf, e->type));
		} else if (e->idx->kind == N_NUM) {
			sb_printf(&ch.path, "[%lld]", (long long)e->idx->num);
		} else {
			/* a variable index: element [0] of the chain, plus
			 * idx times the distance from [0] to [1] */
			const char *v = bg_expr(g, e->idx);
			const char *p0 = offset_of(g, ch.root,
						   arena_printf(g->s->arena, "%s[0]", ch.path.buf));
			const char *p1 = offset_of(g, ch.root,
						   arena_printf(g->s->arena, "%s[1]", ch.path.buf));

			bg_line(g, "%s += %s * (%s - %s);", acc, v, p1, p0);
			sb_puts(&ch.path, "[0]");
		}
	}
	flush(g, &ch, acc);
	sb_free(&ch.path);
	return true;
}

static void emit(struct strbuf *c, struct bgen *g, struct bc_type *bt)
{
	struct strbuf body;

	if (bt->emitted)
		return;
	bt->emitted = true;
	sb_init(&body);
	for (struct bc_member *m = bt->members; m; m = m->next) {
		unsigned int id = m->type;
		const struct btf_type *t = deref_skip(bt->btf, &id);

		while (t && btf_is_array(t)) {
			id = btf_array(t)->type;
			t = deref_skip(bt->btf, &id);
		}
		if (t && (btf_is_struct(t) || btf_is_union(t)))
			emit(c, g, type_of(g, bt->btf, id));
		sb_printf(&body, "\t%s;\n", declare(g, bt->btf, m->type, m->name, 0));
	}
	sb_printf(c, "%s {\n%s};\n", bt->cname, body.buf ? body.buf : "");
	sb_free(&body);
}

/* A BPF subprogram the verifier checks once, whatever calls it; only
 * when called ($$parms, a read fault's message): a global function is
 * compiled even if unused, and it was an eighth of clang's time on a
 * one-line script. */
static void emit_hex(struct strbuf *c)
{
	sb_puts(c, "/* $$parms' values: \"0x\" and the digits, as %#x; the new length */\n"
		"struct stp_hexbuf { char s[STP_MAXSTR]; };\n"
		"__attribute__((noinline)) long stp_hex(struct stp_hexbuf *d, long len, "
		"unsigned long v)\n{\n\tlong nd = 1;\n\n"
		"\tif (!d || len < 0 || len > STP_MAXSTR - 20)\n\t\treturn len;\n"
		"\tfor (int i = 1; i < 16; i++)\n\t\tif (v >> (4 * i))\n\t\t\tnd = i + 1;\n"
		"\td->s[len & STP_MASK] = '0';\n\td->s[(len + 1) & STP_MASK] = 'x';\n"
		"\tfor (int i = 0; i < 16; i++)\n\t\tif (i < nd)\n"
		"\t\t\td->s[(len + 2 + i) & STP_MASK] = "
		"\"0123456789abcdef\"[(v >> ((4 * (nd - 1 - i)) & 63)) & 15];\n"
		"\treturn len + 2 + nd;\n}\n");
	/* a read fault at addr raised: pre, the address as %#x, post */
	sb_puts(c, "static __always_inline void stp_raise_fault(struct stp_scratch *S, long loc, "
		"const char *pre, long addr, const char *post)\n{\n\tlong n;\n\n"
		"\tstp_raise(S, 1, loc, pre);\n\tn = stp_strlen(S, S->errmsg);\n"
		"\tn = stp_hex((struct stp_hexbuf *)S->errmsg, n, addr);\n"
		"\tS->errmsg[n & STP_MASK] = 0;\n\tstp_strcat(S, S->errmsg, post);\n}\n");
}

void bc_types(struct bgen *g, struct strbuf *c)
{
	/* a .rodata section for the BTF of the string literals (libbpf 1.1
	 * cannot size .rodata from .rodata.str1.1 alone) */
	sb_puts(c, "const volatile char stp_ro_pad[8] = { 1 };\n");
	sb_puts(c, "static long (*stp_probe_read_user)(void *dst, __u32 size, const void *p) = "
		"(void *)112;\n");
	if (g->need_hex)
		emit_hex(c);
	bt_types(g, c);
	bs_types(g, c);
	if (!g->core)
		return;
	sb_puts(c, "/* the kernel's types as far as the script reads them (CO-RE) */\n");
	for (struct bc_type *bt = g->core->types; bt; bt = bt->next)
		emit(c, g, bt);
	sb_puts(c, "\n");
}
