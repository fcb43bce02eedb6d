/*
 * deref.c - pass 2 of typed target expressions, from the kernel's BTF
 * (or a program's DWARF as BTF): $var->member->sub (SystemTap's '->' for
 * pointers and embedded structs alike), $ptr[i], $var->array[i],
 * @cast(p, "type"[, "kernel"])->member, &...->member, @defined(...) of
 * all of these, and the pretty printed $var$, $var$$, $var->member$,
 * $$parms$.
 *
 * Each expression becomes steps on one address: load the pointer stored
 * there, add a constant, add index * size; then a final read of an
 * integer (width, sign, bit field), or the address itself (arrays, '&'),
 * or a pretty-printing table. gen/tr_deref.c writes the steps as C and
 * gen/tr_pretty.c the tables; every read goes through the runtime's
 * fault-tolerant stp_kread(), every guru-mode store through stp_kwrite().
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#include <bpf/btf.h>

#include "elab.h"
#include "kcatalog.h"
#include "ubin.h"

static bool is_cast(const struct node *n)
{
	return n->kind == N_CALL && !strcmp(n->op, "@cast");
}

/* the state of a walk: acc holds an address (lv) or a pointer value */
struct walk {
	struct session *s;
	const struct btf *btf;
	struct deref *d;
	bool lv;
	unsigned int type;
	unsigned int bit_off, bit_size;	/* a bit field at acc */
	const char *err;
	struct loc err_loc;
	const char *ubin;	/* a process probe's binary: @cast's default */
	const char *kmod;	/* a module probe's module: @cast's default */
	struct ubin *kbin;	/* ... read through its DWARF, or NULL: its BTF */
	bool cast_first;	/* a first [i] indexes from acc, as @cast's */
};

static bool fail(struct walk *w, struct loc at, const char *msg)
{
	if (!w->err) {
		w->err = msg;
		w->err_loc = at;
	}
	return false;
}

/* Past typedefs and qualifiers; NULL for void. */
const struct btf_type *deref_skip(const struct btf *btf, unsigned int *id)
{
	const struct btf_type *t = *id ? btf__type_by_id(btf, *id) : NULL;

	for (int depth = 0; t && depth < 64; depth++) {
		switch (btf_kind(t)) {
		case BTF_KIND_TYPEDEF:
		case BTF_KIND_CONST:
		case BTF_KIND_VOLATILE:
		case BTF_KIND_RESTRICT:
		case BTF_KIND_TYPE_TAG:
			*id = t->type;
			t = *id ? btf__type_by_id(btf, *id) : NULL;
			continue;
		default:
			return t;
		}
	}
	return t;
}

static bool is_aggregate(const struct btf_type *t)
{
	return t && (btf_is_struct(t) || btf_is_union(t));
}

static const char *tname(struct walk *w, unsigned int id)
{
	return kbtf_type_name(w->s, w->btf, id);
}

static void add_step(struct walk *w, enum dstep_op op, int64_t n,
		     struct node *idx)
{
	struct deref *d = w->d;

	if (op == DS_ADD && !idx && d->nsteps && d->steps[d->nsteps - 1].op == DS_ADD) {
		d->steps[d->nsteps - 1].n += n;	/* merge constant offsets */
		return;
	}
	if (op == DS_ADD && !n)
		return;
	if (d->nsteps == d->cap) {
		struct dstep *v = arena_alloc(w->s->arena, sizeof(*v) * (size_t)(d->cap * 2 + 4));

		if (d->nsteps)
			memcpy(v, d->steps, sizeof(*v) * (size_t)d->nsteps);
		d->steps = v;
		d->cap = d->cap * 2 + 4;
	}
	d->steps[d->nsteps++] = (struct dstep){ op, n, idx };
}

static void add_core(struct walk *w, enum dcore_op op, unsigned int type,
		     unsigned int mtype, const char *name, struct node *idx, bool ptr)
{
	struct deref *d = w->d;

	if (d->ncore == d->ccore) {
		struct dcore *v = arena_alloc(w->s->arena, sizeof(*v) * (size_t)(d->ccore * 2 + 4));

		if (d->ncore)
			memcpy(v, d->core, sizeof(*v) * (size_t)d->ncore);
		d->core = v;
		d->ccore = d->ccore * 2 + 4;
	}
	d->core[d->ncore++] = (struct dcore){ op, type, mtype, name, idx, ptr };
}

/* A member by name, looking into anonymous structs and unions. */
static bool find_member(const struct btf *btf, const struct btf_type *t,
			const char *name, unsigned int *type,
			unsigned int *bit_off, unsigned int *bit_size, int depth)
{
	const struct btf_member *m = btf_members(t);

	for (int i = 0; i < btf_vlen(t); i++, m++) {
		const char *mn = btf__name_by_offset(btf, m->name_off);
		unsigned int off = btf_member_bit_offset(t, (__u32)i), id = m->type;
		const struct btf_type *mt;

		if (mn && *mn) {
			if (strcmp(mn, name))
				continue;
			*type = m->type;
			*bit_off = off;
			*bit_size = btf_member_bitfield_size(t, (__u32)i);
			return true;
		}
		mt = deref_skip(btf, &id);
		if (is_aggregate(mt) && depth < 16 &&
		    find_member(btf, mt, name, type, bit_off, bit_size, depth + 1)) {
			*bit_off += off;
			return true;
		}
	}
	return false;
}

static void member_names(const struct btf *btf, const struct btf_type *t,
			 struct strbuf *sb, int depth)
{
	const struct btf_member *m = btf_members(t);

	for (int i = 0; i < btf_vlen(t); i++, m++) {
		const char *mn = btf__name_by_offset(btf, m->name_off);
		unsigned int id = m->type;
		const struct btf_type *mt;

		if (mn && *mn) {
			sb_printf(sb, "%s%s", sb->len ? ", " : "", mn);
			continue;
		}
		mt = deref_skip(btf, &id);
		if (is_aggregate(mt) && depth < 16)
			member_names(btf, mt, sb, depth + 1);
	}
}

/* The first named member, for "such as '->x'". */
static const char *first_member(struct session *s, const struct btf *btf,
				const struct btf_type *t)
{
	struct strbuf sb;
	const char *r;

	sb_init(&sb);
	member_names(btf, t, &sb, 0);
	r = sb.len ? arena_strndup(s->arena, sb.buf, strcspn(sb.buf, ",")) : "?";
	sb_free(&sb);
	return r;
}

static bool not_scalar(struct walk *w, struct loc at, unsigned int id,
		       const struct btf_type *t)
{
	return fail(w, at, arena_printf(w->s->arena,
		    "'%s' is being accessed instead of a member such as '->%s'",
		    tname(w, id), first_member(w->s, w->btf, t)));
}

/* The pointer at acc (an lvalue) becomes the address acc. */
static void through_pointer(struct walk *w, const struct btf_type *ptr)
{
	if (w->lv) {
		add_step(w, DS_LOAD, 8, NULL);
		add_core(w, DC_LOAD, 0, 0, NULL, NULL, false);
	}
	w->lv = true;
	w->type = ptr->type;
}

static bool step_member(struct walk *w, struct node *m, const char *name)
{
	unsigned int id = w->type, mtype, off, bits;
	const struct btf_type *t = deref_skip(w->btf, &id);

	if (w->bit_size)
		return fail(w, m->loc, arena_printf(w->s->arena,
			    "invalid access '->%s' vs. %s", name, tname(w, id)));
	/* through pointers to the member's struct, as 4.8 (a pointer to a
	 * scalar is "vs." the scalar) */
	for (int depth = 0; t && btf_is_ptr(t) && depth < 8; depth++) {
		unsigned int to = t->type;
		const struct btf_type *pt = deref_skip(w->btf, &to);

		if (!t->type)
			return fail(w, m->loc, arena_printf(w->s->arena,
				    "invalid access '->%s' vs '%s'", name, tname(w, id)));
		through_pointer(w, t);
		id = to;
		t = pt;
	}
	if (t && btf_is_array(t))
		return fail(w, m->loc, arena_printf(w->s->arena,
			    "invalid access '->%s' for array type", name));
	if (!is_aggregate(t))
		return fail(w, m->loc, arena_printf(w->s->arena,
			    "invalid access '->%s' vs. %s", name,
			    t ? tname(w, id) : "void"));
	if (!w->lv)
		return fail(w, m->loc, arena_printf(w->s->arena,
			    "'%s' is passed by value: its members cannot be read (not supported)",
			    tname(w, id)));
	if (!find_member(w->btf, t, name, &mtype, &off, &bits, 0)) {
		struct strbuf sb;
		const char *msg;

		sb_init(&sb);
		member_names(w->btf, t, &sb, 0);
		msg = arena_printf(w->s->arena, "unable to find member '%s' for %s (alternatives: %s)",
				   name, tname(w, id), sb.len ? sb.buf : "");
		sb_free(&sb);
		return fail(w, m->loc, msg);
	}
	add_step(w, DS_ADD, off / 8, NULL);
	add_core(w, DC_MEMBER, id, mtype, name, NULL, false);
	w->type = mtype;
	w->bit_off = bits ? off % 8 : 0;
	w->bit_size = bits;
	if (!bits && off % 8)
		return fail(w, m->loc, "a member that is not byte aligned (not supported)");
	return true;
}

static const char *index_text(struct walk *w, const struct node *idx)
{
	return idx->kind == N_NUM ? arena_printf(w->s->arena, "[%lld]", (long long)idx->num) :
				    "[...]";
}

static bool step_index(struct walk *w, struct node *sub)
{
	unsigned int id = w->type, elem;
	const struct btf_type *t = deref_skip(w->btf, &id);
	__s64 size;

	bool ptr = false;

	if (t && btf_is_ptr(t) && !t->type && !w->bit_size) {
		return fail(w, sub->loc, arena_printf(w->s->arena, "invalid access '%s' vs '%s'",
			    index_text(w, sub->a), tname(w, id)));
	} else if (t && btf_is_ptr(t) && !w->bit_size) {
		through_pointer(w, t);
		elem = t->type;
		ptr = true;
	} else if (t && btf_is_array(t)) {
		elem = btf_array(t)->type;
	} else {
		return fail(w, sub->loc, arena_printf(w->s->arena, is_aggregate(t) ?
			    "invalid access '%s' for %s" : "invalid access '%s' vs. %s",
			    index_text(w, sub->a), t ? tname(w, id) : "void"));
	}
	size = elem ? btf__resolve_size(w->btf, elem) : -1;
	if (size <= 0)
		return fail(w, sub->loc, arena_printf(w->s->arena,
			    "invalid access '%s': the size of %s is unknown",
			    index_text(w, sub->a), elem ? tname(w, elem) : "void"));
	add_core(w, DC_INDEX, elem, 0, NULL, sub->a, ptr);
	if (sub->a->kind == N_NUM)
		add_step(w, DS_ADD, sub->a->num * size, NULL);
	else
		add_step(w, DS_INDEX, size, sub->a);
	w->type = elem;
	return true;
}

/* The value at acc: an integer read, an address, or a pretty print. */
static bool finish(struct walk *w, struct node *n, const char *last)
{
	struct deref *d = w->d;
	unsigned int id = w->type;
	const struct btf_type *t = deref_skip(w->btf, &id);

	d->type = w->type;
	d->lvalue = w->lv;
	d->bit_off = (int)w->bit_off;
	d->bit_size = (int)w->bit_size;
	if (d->pretty) {
		d->res = DR_PRETTY;
		return true;
	}
	if (d->addr) {
		if (w->bit_size)
			return fail(w, n->loc, "cannot take the address of a bit field");
		if (!w->lv)
			return fail(w, n->loc, "cannot take address of object in register");
		d->res = DR_ADDR;
		return true;
	}
	if (t && btf_is_array(t)) {
		d->res = DR_ADDR;	/* as upstream: kernel_string($p->comm) */
		return true;
	}
	if (is_aggregate(t))
		return not_scalar(w, n->loc, id, t);
	if (!t || !(btf_is_int(t) || btf_is_any_enum(t) || btf_is_ptr(t)) ||
	    (!btf_is_ptr(t) && (t->size == 0 || t->size > 8)))
		return fail(w, n->loc, arena_printf(w->s->arena,
			    "'%s' has type %s, which cannot be read as a number",
			    last ? last : "[...]", t || w->type ? tname(w, w->type) : "void"));
	d->res = DR_READ;
	d->width = btf_is_ptr(t) ? 8 : (int)t->size;
	d->is_signed = btf_is_int(t) ? (btf_int_encoding(t) & BTF_INT_SIGNED) != 0 :
		       btf_is_any_enum(t) ? btf_kflag(t) : false;
	if (w->bit_size && (w->bit_off + w->bit_size + 7) / 8 > 8)
		return fail(w, n->loc, "a bit field across 8 bytes (not supported)");
	return true;
}

/* "name$" or "name$$": the pretty level, name without the '$'s. */
static const char *strip_pretty(struct session *s, const char *name, int *pretty)
{
	size_t n = strlen(name);

	*pretty = 0;
	while (n > 1 && name[n - 1] == '$' && *pretty < 2) {
		n--;
		(*pretty)++;
	}
	return *pretty ? arena_strndup(s->arena, name, n) : name;
}

/* @cast(p, "T")[i]: p is taken as the start of an array of T. */
static bool cast_index(struct walk *w, struct node *sub)
{
	__s64 size = btf__resolve_size(w->btf, w->type);

	if (size <= 0)
		return fail(w, sub->loc, arena_printf(w->s->arena,
			    "invalid access '%s': the size of %s is unknown",
			    index_text(w, sub->a), tname(w, w->type)));
	add_core(w, DC_INDEX, w->type, 0, NULL, sub->a, true);
	if (sub->a->kind == N_NUM)
		add_step(w, DS_ADD, sub->a->num * size, NULL);
	else
		add_step(w, DS_INDEX, size, sub->a);
	return true;
}

/* The chain of n (an N_DEREF) from the current state. */
static bool walk_chain(struct walk *w, struct node *n)
{
	const char *last = NULL;

	for (struct node *c = n->args; c; c = c->next) {
		if (c == n->args && c->kind == N_SUBSCRIPT && w->cast_first) {
			if (!cast_index(w, c))
				return false;
			continue;
		}
		if (c->kind == N_MEMBER) {
			int pretty;

			last = strip_pretty(w->s, c->op, &pretty);
			if (pretty && c->next)
				return fail(w, c->loc, arena_printf(w->s->arena,
					    "'%s' is a pretty-printed string: it cannot be dereferenced",
					    c->op));
			w->d->pretty = pretty;
			if (!step_member(w, c, last))
				return false;
		} else if (!step_index(w, c)) {
			return false;
		}
	}
	if (n->flags & 3) {
		if (w->d->pretty)
			return fail(w, n->loc, "pretty printing a pretty-printed member");
		w->d->pretty = n->flags & 3;
	}
	for (struct node *c = n->args; c; c = c->next)
		if (!c->next)
			n = c;	/* errors of the whole point at its last part */
	return finish(w, n, last);
}

/* ---- bases: $var and @cast ------------------------------------------------ */

/* @cast's type: "struct x", "union x", "enum x", or a bare name looked up
 * as a struct, union, typedef, integer or enum, in the kernel's BTF, or in
 * a module's ("kernel" and "kernel<linux/sched.h>" mean the kernel). */
/* @cast(p, "T", "PATH"): a type of the program PATH, in user memory. */
/* A kernel module's .ko ("/path/m.ko"), typed through its DWARF? */
static bool is_ko(const char *mname)
{
	size_t n = strlen(mname);

	return n > 3 && !strcmp(mname + n - 3, ".ko");
}

/* @cast(p, "T", "/path/prog") or "/path/m.ko": the type in its DWARF */
static bool cast_user_type(struct walk *w, struct node *cast, const char *name,
			   const char *mname, struct ubin *kmod)
{
	bool kernel = kmod || is_ko(mname);
	const char *path = kernel ? NULL : ubin_find(w->s, mname);
	struct ubin *b = kmod ? kmod : kernel ? kdwarf_module(w->s, mname) :
			 path ? ubin_open(w->s, path, cast->loc) : NULL;
	unsigned int id;

	while (*name == ' ')
		name++;
	if (!b)
		return fail(w, cast->loc, arena_printf(w->s->arena,
			    "type definition '%s' not found in '%s' (no such program)", name, mname));
	id = utype_by_name(w->s, b, name);
	if (!id && strncmp(name, "struct ", 7) && strncmp(name, "union ", 6))
		id = utype_by_name(w->s, b, arena_printf(w->s->arena, "struct %s", name));
	if (!id)
		return fail(w, cast->loc, arena_printf(w->s->arena,
			    "type definition '%s' not found in '%s'", name, mname));
	w->btf = ubin_btf(b);
	w->type = id;
	w->lv = true;
	w->d->user = !kernel;
	w->d->dwarf = kernel;
	return true;
}

/* Is r a point whose module 4.8 gives a @cast naming none: a kernel or
 * module function or statement, or a point read through DWARF? */
static bool cast_has_module(const struct rprobe *r)
{
	/* not kernel.trace: 4.8 looks a tracepoint's up in '' (checked with
	 * a fresh cache: a stale one of tracequery modules matches none) */
	static const char *const fams[] = { "kernel.function", "module.function",
					    "kernel.statement", "module.statement" };

	if (r->flags & RF_DWARF)
		return true;
	for (size_t i = 0; i < sizeof(fams) / sizeof(fams[0]); i++)
		if (r->family && !strcmp(r->family, fams[i]))
			return true;
	return false;
}

/* @cast's module when the script names none, into w: the binary of p's
 * first process("PATH") point (4.8 looks the types up there), a module
 * probe's module (its DWARF or its BTF, as 4.8 its DWARF), "" for the
 * kernel's types in a kernel function or statement, or NULL where 4.8
 * has no module to look in (begin, timer, kprobe, perf...: "type
 * definition 'T' not found in ''"). A function's (p NULL) are the
 * kernel's: 4.8 gives it the module of the DWARF probes calling it (a
 * copy for a probe, resolve.c, passes that probe), and castctx.c refuses
 * it where 4.8 does, by the call graph. */
static void cast_context(struct session *s, const struct probe *p, struct walk *w)
{
	const struct rprobe *first = NULL;

	w->ubin = "";
	w->kmod = NULL;
	w->kbin = NULL;
	if (!p)
		return;
	for (const struct rprobe *r = s->rprobes; r; r = r->next) {
		if (r->probe != p)
			continue;
		if (!cast_has_module(r)) {
			w->ubin = NULL;
			return;
		}
		if (!first)
			first = r;
	}
	if (!first)
		w->ubin = NULL;
	else if (first->kmod_dwarf)
		w->kmod = w->ubin = ubin_kmod(first->kmod_dwarf), w->kbin = first->kmod_dwarf;
	else if (first->module && !strncmp(first->family, "module.", 7))
		w->kmod = w->ubin = first->module;
	else if (first->flags & RF_DWARF && first->binary)
		w->ubin = first->binary;
}

/* Does p give a @cast naming no module one (castctx.c)? */
bool elab_cast_probe_module(struct session *s, const struct probe *p)
{
	struct walk w;

	cast_context(s, p, &w);
	return w.ubin != NULL;
}

/* Are p's types for such a @cast other than the kernel's (a module's or
 * a program's: a function holding one is copied for p, resolve.c)? */
bool elab_cast_own_types(struct session *s, const struct probe *p)
{
	struct walk w;

	cast_context(s, p, &w);
	return w.ubin && *w.ubin;
}

/* headers -> the program built to read their types (s->header_progs) */
struct header_prog {
	const char *headers, *path;
	struct header_prog *next;
};

/* A program whose DWARF has the types of user headers ("<stdio.h>",
 * "</usr/include/x.h><y.h>"): each #included in a main() built with -g,
 * unused types kept, in the session's temporary directory. NULL when
 * it does not build. */
static const char *header_program(struct session *s, const char *headers)
{
	struct header_prog *h;
	const char *src, *bin;
	FILE *f;
	pid_t pid;
	int status;

	for (h = s->header_progs; h; h = h->next)
		if (!strcmp(h->headers, headers))
			return h->path;
	if (!s->tmpdir && session_tmpdir(s))
		return NULL;
	src = arena_printf(s->arena, "%s/typequery_%p.c", s->tmpdir, (void *)headers);
	bin = arena_strndup(s->arena, src, strlen(src) - 2);
	f = fopen(src, "w");
	if (!f)
		return NULL;
	for (const char *p = headers; *p == '<';) {
		size_t n = strcspn(p, ">");

		fprintf(f, "#include %.*s>\n", (int)n, p);
		p += n + (p[n] == '>');
	}
	fputs("int main(void) { return 0; }\n", f);
	if (fclose(f))
		return NULL;
	pid = fork();
	if (pid == 0) {
		if (s->verbose < 3 && !freopen("/dev/null", "w", stderr))
			_exit(127);
		execlp("gcc", "gcc", "-g", "-O0", "-fno-eliminate-unused-debug-types",
		       "-o", bin, src, (char *)NULL);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		return NULL;
	h = arena_alloc(s->arena, sizeof(*h));
	h->headers = headers;
	h->path = bin;
	h->next = s->header_progs;
	s->header_progs = h;
	return bin;
}

/* Is the kernel's DWARF debuginfo found (for the kernel being built for)? */
static bool kernel_dwarf_cast(struct session *s)
{
	const char *why;

	return kdwarf_kernel(s, &why) != NULL;
}

static bool cast_type(struct walk *w, struct node *cast)
{
	static const int kinds[] = { BTF_KIND_STRUCT, BTF_KIND_UNION, BTF_KIND_TYPEDEF,
				     BTF_KIND_INT, BTF_KIND_ENUM, BTF_KIND_ENUM64 };
	struct node *tn = cast->args->next, *mod = tn ? tn->next : NULL;
	const char *name = tn->str, *mname = mod ? mod->str : "";
	struct kcatalog *kc;
	__s32 id = -1;

	if (mod && mname[0] == '<') {	/* user headers */
		const char *prog = header_program(w->s, mname);

		if (!prog)
			return fail(w, cast->loc, arena_printf(w->s->arena,
				    "type definition '%s' not found in '%s' (the headers do not compile)",
				    name, mname));
		return cast_user_type(w, cast, name, prog, NULL);
	}
	if (mod && strchr(mname, '/') && strncmp(mname, "kernel", 6))
		return cast_user_type(w, cast, name, mname, NULL);
	if (!mod && !w->ubin)	/* no probe module to default to, as 4.8 */
		return fail(w, cast->loc, arena_printf(w->s->arena,
			    "type definition '%s' not found in ''", name));
	if (!mod && !*w->ubin)	/* a kernel function's: the kernel's */
		mname = "kernel";
	if (!mod && w->kbin)	/* a module's, through its DWARF */
		return cast_user_type(w, cast, name, w->kmod, w->kbin);
	if (!mod && w->kmod)	/* through its BTF, as it were named */
		mname = w->kmod;
	if (!mod && *w->ubin && !w->kmod) {	/* else the kernel's, when the program has none */
		struct walk before = *w;

		if (cast_user_type(w, cast, name, w->ubin, NULL))
			return true;
		*w = before;
	}
	if (mod && kernel_dwarf_cast(w->s)) {
		/* the kernel's debuginfo is installed: its DWARF, or the
		 * module's, as 4.8 reads them ("<header>" ignored) */
		const char *m = arena_strndup(w->s->arena, mname, strcspn(mname, "<"));
		const char *why;
		struct ubin *kb = !strcmp(m, "kernel") ? kdwarf_kernel(w->s, &why) :
				  kdwarf_module(w->s, m);

		if (kb)
			return cast_user_type(w, cast, name, mname, kb);
	}
	if ((mod || w->kmod) && strncmp(mname, "kernel", 6)) {
		/* a module's own BTF, split on the kernel's; "<header>" ignored */
		const char *m = arena_strndup(w->s->arena, mname, strcspn(mname, "<"));
		struct ubin *kb;

		w->btf = kmod_btf(w->s, m);
		if (!w->btf && (kb = kdwarf_module(w->s, m)))	/* a module with DWARF */
			return cast_user_type(w, cast, name, m, kb);
		if (!w->btf)
			return fail(w, cast->loc, arena_printf(w->s->arena,
				    "type definition '%s' not found in '%s' (no BTF for module '%s')",
				    name, mname, m));
	} else {
		kc = kernel_catalog(w->s);
		if (!kc)
			return fail(w, cast->loc, arena_printf(w->s->arena,
				    "type definition '%s' not found in '%s' (no kernel BTF)",
				    name, mname));
		w->btf = kcat_btf(kc);
	}
	while (*name == ' ')
		name++;
	if (!strncmp(name, "struct ", 7))
		id = btf__find_by_name_kind(w->btf, name + 7, BTF_KIND_STRUCT);
	else if (!strncmp(name, "union ", 6))
		id = btf__find_by_name_kind(w->btf, name + 6, BTF_KIND_UNION);
	else if (!strncmp(name, "enum ", 5))
		id = btf__find_by_name_kind(w->btf, name + 5, BTF_KIND_ENUM);
	else
		for (size_t k = 0; id < 0 && k < sizeof(kinds) / sizeof(kinds[0]); k++)
			id = btf__find_by_name_kind(w->btf, name, kinds[k]);
	if (id < 0)	/* in the probed program (the kernel's neither), as 4.8 says */
		return fail(w, cast->loc, arena_printf(w->s->arena,
			    "type definition '%s' not found in '%s'", tn->str,
			    !mod && *w->ubin ? w->ubin : mname));
	w->type = (unsigned int)id;
	w->lv = true;		/* @cast(p, "T") is the T at p */
	return true;
}

bool deref_is_typed(const struct node *n)
{
	return n->kind == N_DEREF && n->a &&
	       ((n->a->kind == N_TARGET && n->a->op[1] != '$' &&
		 n->a->op[strlen(n->a->op) - 1] != '$') || is_cast(n->a));
}

/* An error at a part of n's chain is said at that part's '->' or '[',
 * as 4.8 says it; any other where it is. */
static struct loc part_op_loc(const struct node *n, struct loc at)
{
	for (const struct node *c = n->args; c; c = c->next)
		if (c->loc.line == at.line && c->loc.col == at.col && c->loc.src == at.src) {
			if (c->kind == N_MEMBER && c->num)
				at.col = (int)c->num;
			break;
		}
	return at;
}

/* Walk n for one point r (NULL for @cast); the deref in *d. */
static bool walk_one(struct session *s, const struct rprobe *r, struct node *n,
		     struct deref *d, const char **err, struct loc *at, const struct probe *cp)
{
	struct walk w = { .s = s, .d = d };

	memset(d, 0, sizeof(*d));
	d->addr = n->flags & DEREF_ADDR;
	if (is_cast(n->a)) {
		cast_context(s, cp, &w);
		w.cast_first = true;
		if (!cast_type(&w, n->a))
			goto out;
	} else {
		const struct kcat_arg *a = elab_target_arg(s, r, n->a->op + 1);

		if (!a || !a->btf || !a->type_id) {
			fail(&w, n->a->loc, arena_printf(s->arena,
			     "target variable '%s' has no type here", n->a->op));
			goto out;
		}
		w.btf = a->btf;
		w.type = a->type_id;
		if (r && (r->flags & RF_DWARF)) {
			d->user = r->flags & RF_USER;
			d->dwarf = !d->user;
		}
		w.lv = r && targ_lvalue(s, r, n->a->op + 1);
	}
	d->btf = w.btf;
	walk_chain(&w, n);
out:
	*err = w.err;
	*at = part_op_loc(n, w.err_loc);
	return !w.err;
}

static bool same_deref(const struct deref *a, const struct deref *b)
{
	if (a->nsteps != b->nsteps || a->res != b->res || a->width != b->width ||
	    a->is_signed != b->is_signed || a->bit_off != b->bit_off ||
	    a->bit_size != b->bit_size || a->lvalue != b->lvalue || a->user != b->user ||
	    a->dwarf != b->dwarf)
		return false;
	for (int i = 0; i < a->nsteps; i++)
		if (a->steps[i].op != b->steps[i].op || a->steps[i].n != b->steps[i].n)
			return false;
	/* pretty printing needs the same type too */
	return a->res != DR_PRETTY || (a->btf == b->btf && a->type == b->type);
}

/* Walk n for each point of p; the first error, or NULL and n->deref. */
static const char *resolve(struct session *s, struct probe *p, struct node *n,
			   struct loc *at)
{
	struct deref *d = arena_alloc(s->arena, sizeof(*d)), other;
	const char *err = NULL;
	bool first = true;
	int npoints = 0;

	if (is_cast(n->a)) {
		if (!walk_one(s, NULL, n, d, &err, at, p))
			return err;
		n->deref = d;
		return NULL;
	}
	if (!p)
		return arena_printf(s->arena, ELAB_TARGET_IN_FUNCTION, n->a->op);
	for (const struct rprobe *r = s->rprobes; r; r = r->next)
		npoints += r->probe == p;
	for (const struct rprobe *r = s->rprobes; r; r = r->next) {
		if (r->probe != p)
			continue;
		if (!walk_one(s, r, n, first ? d : &other, &err, at, NULL))
			return npoints > 1 ? arena_printf(s->arena, "%s (in %s)", err, r->pp) : err;
		if (!first && !same_deref(d, &other)) {
			*at = n->loc;
			return arena_printf(s->arena, "'%s' differs between the points of this "
					    "probe (%s): not supported", n->a->op, r->pp);
		}
		first = false;
	}
	if (first)
		return "no probe point";
	n->deref = d;
	return NULL;
}

/* A probe none of whose points resolved (their errors are out already):
 * its typed accesses are not checked, as upstream drops such probes. */
static bool same_args(const struct rprobe *a, const struct rprobe *b)
{
	if (a->nargs != b->nargs)
		return false;
	for (int i = 0; i < a->nargs; i++)
		if (a->args[i].btf != b->args[i].btf || a->args[i].type_id != b->args[i].type_id ||
		    strcmp(a->args[i].name, b->args[i].name))
			return false;
	return true;
}

/* r into d's groups of points alike (a new one if none has its
 * arguments): r->pgroup */
static void group_point(struct session *s, struct deref *d, struct rprobe *r)
{
	int i;

	for (i = 0; i < d->ngroups && !same_args(d->groups[i], r); i++)
		;
	r->pgroup = i;
	if (i < d->ngroups)
		return;
	if (!(d->ngroups & (d->ngroups - 1))) {	/* 0, 1, 2, 4...: grown */
		const struct rprobe **g = arena_alloc(s->arena, sizeof(*g) *
						       (size_t)(d->ngroups ? d->ngroups * 2 : 1));

		if (d->ngroups)
			memcpy(g, d->groups, sizeof(*g) * (size_t)d->ngroups);
		d->groups = g;
	}
	d->groups[d->ngroups++] = r;
}

bool elab_no_points(struct session *s, struct probe *p)
{
	if (!p)
		return false;
	for (const struct rprobe *r = s->rprobes; r; r = r->next)
		if (r->probe == p)
			return false;
	return true;
}

/* May the handler of p store through n (guru mode; kernel memory, or the
 * task's in a process probe)? As
 * 4.8: without -g, @cast and tracepoint bases have their own messages;
 * in a .return probe only through $return. False after an error. */
static bool deref_write_ok(struct session *s, struct probe *p, struct node *n)
{
	const char *msg = NULL, *base = is_cast(n->a) ? "@cast" : n->a->op;
	bool user = false;

	for (const struct rprobe *r = p ? s->rprobes : NULL; r; r = r->next)
		user |= r->probe == p && (r->flags & RF_DWARF);
	if (is_cast(n->a)) {
		const struct node *m = n->a->args->next->next;

		user |= m && strchr(m->str, '/') && strncmp(m->str, "kernel", 6);
		if (!user && !s->guru)
			msg = "write to @cast context variable not permitted; need stap -g";
	}
	for (const struct rprobe *r = s->rprobes; r && !msg && !user && !is_cast(n->a);
	     r = r->next) {
		if (r->probe != p)
			continue;
		if (!s->guru)
			msg = (r->flags & RF_TP_VARS) ?
			      arena_printf(s->arena, "write to tracepoint variable '%s' not permitted; need stap -g",
					   base) :
			      "write to target variable not permitted; need stap -g";
		else if (r->ret && strcmp(base, "$return"))
			msg = "write to target variable not permitted in .return probes";
	}
	if (user && !s->guru)	/* process probes: user memory, as 4.8 */
		msg = "write to target variable not permitted; need stap -g";
	for (const struct rprobe *r = s->rprobes; r && !msg && user; r = r->next)
		if (r->probe == p && r->ret && strcmp(base, "$return"))
			msg = "write to target variable not permitted in .return probes";
	if (msg)
		diag_error(s, n->a->loc, "%s", msg);
	return !msg;
}

void elab_deref(struct session *s, struct probe *p, struct node *n, bool written)
{
	struct loc at = n->loc;
	const char *err;

	n->type = T_LONG;
	if (elab_no_points(s, p))
		return;
	if (written && !deref_write_ok(s, p, n))
		return;
	if (!is_cast(n->a)) {
		int before = s->errors;

		s->target_whole = n;
		elab_target(s, p, n->a, false);	/* the base's own errors first */
		s->target_whole = NULL;
		if (s->errors > before)
			return;
		if (n->a->kind == N_NUM) {	/* --skip-badvars: all of it is 0 */
			n->kind = N_NUM;
			n->num = 0;
			n->a = NULL;
			return;
		}
	}
	err = resolve(s, p, n, &at);
	if (err && s->skip_badvars && !written && !is_cast(n->a)) {
		elab_skip_badvar(s, n, n->a);	/* the whole access, as 4.8 */
		return;
	}
	if (err) {
		elab_defer_typed(s, n, at, err);
		return;
	}
	if (written && n->deref->user && n->deref->bit_size) {
		diag_error(s, n->loc, "writing a bit field of user memory ('%s') is not supported "
			   "by this version yet", is_cast(n->a) ? "@cast" : n->a->op);
		return;
	}
	if (n->deref->res == DR_PRETTY)
		n->type = T_STRING;
	if (written && n->deref->res != DR_READ)
		diag_error(s, n->loc, "cannot write to '%s': %s", is_cast(n->a) ? "@cast" : n->a->op,
			   n->deref->res == DR_PRETTY ? "it is a pretty-printed string" :
			   "it is not a number (an array or an address)");
}

/* ---- autocast: a chain on any value of known type (autocast.c) ---------- */

/* The C type of the value d gives, in *t; false for none (a pretty
 * printed string). */
bool deref_value_type(const struct deref *d, struct autocast *t)
{
	if (!d || !d->btf || d->res == DR_PRETTY)
		return false;
	memset(t, 0, sizeof(*t));
	t->btf = d->btf;
	t->type = d->type;
	t->user = d->user;
	t->lv = d->res == DR_ADDR;	/* an array's or '&''s address */
	t->cast = d->addr;		/* (&x)[i]: x's neighbours, as @cast */
	return true;
}

/* Where 4.8 reports an error of an autocast n: at the operator of its
 * first part ('->' or '['), or at the '$' of (v)$; c, when not NULL,
 * one of its parts: that part's operator. */
struct loc elab_autocast_loc(const struct node *n, const struct node *c)
{
	struct loc at;

	if (!c)
		c = n->args;
	if (!c) {	/* (v)$: the parser keeps the '$' column in num */
		at = n->loc;
		if (n->num)
			at.col = (int)n->num;
		return at;
	}
	at = c->loc;
	if (c->kind == N_MEMBER && c->num)
		at.col = (int)c->num;	/* the '->' */
	return at;
}

/* 4.8 takes an autocast's value as a pointer: one of a base type or a
 * void* has no members or elements (its "autocast variable ''" error),
 * an array's value is the address of its first element. */
static bool autocast_first(struct walk *w, const struct node *n, const struct autocast *t)
{
	const struct node *c = n->args;
	unsigned int id = t->type, elem;
	const struct btf_type *bt = deref_skip(t->btf, &id), *et;

	if (!c || t->cast)
		return true;
	if (t->lv && bt && btf_is_array(bt)) {
		if (c->kind != N_MEMBER)
			return true;
		elem = btf_array(bt)->type;
		et = deref_skip(t->btf, &elem);
		if (!is_aggregate(et))
			return fail(w, c->loc, arena_printf(w->s->arena,
				    "invalid access '->%s' vs. %s", c->op,
				    et ? tname(w, elem) : "void"));
		w->type = elem;
		return true;
	}
	if (t->lv || (bt && btf_is_ptr(bt) && bt->type))
		return true;
	return fail(w, c->loc, c->kind == N_MEMBER ?
		    "autocast variable '' may not be used as a structure" :
		    "autocast variable '' may not be used as array");
}

/* n, an autocast (its chain on n->a, a value of type t): n->deref, or
 * false and the error in *err, at *at (said by the caller, in 4.8's
 * order). A store through it needs guru mode. */
bool elab_autocast(struct session *s, struct node *n, const struct autocast *t,
		   struct loc *at, const char **err)
{
	struct deref *d = arena_alloc(s->arena, sizeof(*d));
	struct walk w = { .s = s, .d = d, .btf = t->btf, .type = t->type, .lv = t->lv,
			  .cast_first = t->cast };
	bool written = n->flags & DEREF_WRITTEN;

	*at = elab_autocast_loc(n, NULL);
	memset(d, 0, sizeof(*d));
	d->addr = n->flags & DEREF_ADDR;
	d->btf = t->btf;
	d->user = t->user;
	if (written && !s->guru) {
		*err = "write not permitted; need stap -g";
		return false;
	}
	if (n->flags & DEREF_OPASSIGN) {
		at->line = (int)(n->len >> 20);
		at->col = (int)(n->len & 0xfffff);
		*err = "Only the following assign operator is implemented on "
		       "target variables:  =";
		return false;
	}
	if (!autocast_first(&w, n, t) || !walk_chain(&w, n)) {
		/* a part's error: at its operator, as 4.8 says it */
		*at = w.err_loc;
		for (const struct node *c = n->args; c; c = c->next)
			if (c->loc.line == w.err_loc.line && c->loc.col == w.err_loc.col &&
			    c->loc.src == w.err_loc.src) {
				*at = elab_autocast_loc(n, c);
				break;
			}
		*err = w.err;
		return false;
	}
	if (written && d->user && d->bit_size) {
		*err = "writing a bit field of user memory is not supported by this version yet";
		return false;
	}
	if (written && d->res != DR_READ) {
		*err = d->res == DR_PRETTY ?
		       "cannot write there: it is a pretty-printed string" :
		       "cannot write there: it is not a number (an array or an address)";
		return false;
	}
	n->type = d->res == DR_PRETTY ? T_STRING : T_LONG;
	n->deref = d;
	return true;
}

void elab_cast_alone(struct session *s, struct probe *p, struct node *n)
{
	struct deref d = { 0 };
	struct walk w = { .s = s, .d = &d };
	unsigned int id;
	const struct btf_type *t;

	cast_context(s, p, &w);
	if (elab_no_points(s, p))
		return;
	if (!cast_type(&w, n)) {
		diag_error(s, w.err_loc, "%s", w.err);
		return;
	}
	id = w.type;
	t = deref_skip(w.btf, &id);
	if (!is_aggregate(t) && d.dwarf) {
		/* a kernel type of the DWARF: 4.8 reads the scalar at p */
		struct node *next = n->next, *cast = arena_alloc(s->arena, sizeof(*cast));

		*cast = *n;
		cast->next = NULL;
		memset(n, 0, sizeof(*n));
		n->kind = N_DEREF;
		n->loc = cast->loc;
		n->next = next;
		n->a = cast;
		elab_deref(s, p, n, false);
		return;
	}
	if (is_aggregate(t))
		not_scalar(&w, n->loc, w.type, t);
	else
		fail(&w, n->loc, arena_printf(s->arena, "@cast to '%s' needs a member or an index",
					      tname(&w, w.type)));
	diag_error(s, w.err_loc, "%s", w.err);
}

/* &@cast(p, "T"): the address of the whole object, p itself, once the
 * type is known: the type of that value; NULL (said) when it is not. */
const struct autocast *elab_cast_addr(struct session *s, struct probe *p, struct node *n)
{
	struct deref d = { 0 };
	struct walk w = { .s = s, .d = &d };
	struct autocast *t;

	cast_context(s, p, &w);
	if (elab_no_points(s, p))
		return NULL;
	if (!cast_type(&w, n)) {
		diag_error(s, w.err_loc, "%s", w.err);
		return NULL;
	}
	t = arena_alloc(s->arena, sizeof(*t));
	memset(t, 0, sizeof(*t));
	t->btf = w.btf;
	t->type = w.type;
	t->lv = t->cast = true;
	t->user = d.user;
	return t;
}

/* ---- @defined ------------------------------------------------------------- */

static bool defined_target(struct session *s, struct probe *p, const struct node *n)
{
	bool any = false;

	if (!p)
		return false;
	for (const struct rprobe *r = s->rprobes; r; r = r->next) {
		if (r->probe != p)
			continue;
		if (!elab_target_defined_at(s, r, n->op))
			return false;
		any = true;
	}
	return any;
}

bool elab_defined(struct session *s, struct probe *p, struct node *n)
{
	for (; n; n = n->next) {
		struct loc at;

		if (n->kind == N_TARGET) {
			if (!defined_target(s, p, n))
				return false;
			continue;
		}
		if (deref_is_typed(n)) {
			if ((!is_cast(n->a) && !defined_target(s, p, n->a)) ||
			    resolve(s, p, n, &at))
				return false;
			for (struct node *c = n->args; c; c = c->next)
				if (c->kind == N_SUBSCRIPT && !elab_defined(s, p, c->a))
					return false;
			continue;
		}
		if (elab_is_autocast(n))
			return false;	/* 4.8: typed after @defined is decided */
		if (is_cast(n)) {
			struct deref d = { 0 };
			struct walk w = { .s = s, .d = &d };

			cast_context(s, p, &w);
			if (!cast_type(&w, n))
				return false;
		}
		if (!elab_defined(s, p, n->a) || !elab_defined(s, p, n->b) ||
		    !elab_defined(s, p, n->c) || !elab_defined(s, p, n->d) ||
		    !elab_defined(s, p, n->args))
			return false;
	}
	return true;
}

/* ---- $var$, $$parms$ ---------------------------------------------------- */

static bool is_parms(const char *op)
{
	return !strncmp(op, "$$parms$", 8) || !strncmp(op, "$$vars$", 7);
}

/* n->deref for $var$ (one variable) or $$parms$ (the arguments of the
 * first point; the others must match). */
bool elab_pretty_target(struct session *s, struct probe *p, struct node *n)
{
	size_t len = strlen(n->op);
	int level = len > 2 && n->op[len - 2] == '$' && (len > 3 || n->op[1] != '$') ? 2 : 1;
	const char *name = arena_strndup(s->arena, n->op + 1, len - 1 - (size_t)level);
	const struct rprobe *first = NULL;
	struct deref *d = arena_alloc(s->arena, sizeof(*d));

	if (elab_no_points(s, p))
		return false;
	if (!strncmp(n->op, "$$return$", 9)) {
		name = "return";	/* "return=" and $return$ */
	} else if (n->op[1] == '$') {
		name = NULL;
		if (!is_parms(n->op) && strncmp(n->op, "$$locals$", 9)) {
			diag_error(s, n->loc, "target variable '%s' is not supported by this version yet",
				   n->op);
			return false;
		}
	}
	if (!p) {
		diag_error(s, n->loc, ELAB_TARGET_IN_FUNCTION, n->op);
		return false;
	}
	for (const struct rprobe *r = s->rprobes; r; r = r->next) {
		const struct kcat_arg *a;

		if (r->probe != p)
			continue;
		d->dwarf = (r->flags & RF_DWARF) != 0;
		if (!name) {
			if (!(r->flags & RF_PARMS)) {
				diag_error(s, n->loc, "target variable '%s' is not available in %s: "
					   "it is not a kernel.function or kernel.trace probe",
					   n->op, r->pp);
				return false;
			}
			group_point(s, d, (struct rprobe *)r);
			first = first ? first : r;
			continue;
		}
		a = elab_target_arg(s, r, name);
		if (!a || !a->btf || !a->type_id) {
			diag_error(s, n->loc, "target variable '%s' is not available in %s",
				   n->op, r->pp);
			return false;
		}
		if (d->btf && (d->btf != a->btf || d->type != a->type_id)) {
			diag_error(s, n->loc, "'%s' differs between the points of this probe (%s): not supported",
				   n->op, r->pp);
			return false;
		}
		d->btf = a->btf;
		d->type = a->type_id;
		d->user = r->flags & RF_USER;
		d->lvalue = targ_lvalue(s, r, name);
	}
	d->pretty = level;
	d->parms = first;	/* $$parms$: the first group's arguments */
	if (d->ngroups > 1)
		p->pretty_groups = true;
	n->deref = d;
	return true;
}
