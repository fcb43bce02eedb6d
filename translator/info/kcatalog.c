/*
 * kcatalog.c - the kernel probe-point catalog's interface: opens the
 * target's BTF (kcat_btf.c), keeps its functions as a sorted, unique name
 * table, matches SystemTap wildcards against it and against the tracepoint
 * table (kcat_trace.c), and names BTF types the way upstream's stap -L
 * prints DWARF types ("char const*", "int (*) (unsigned int)").
 */
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/btf.h>

#include "kcatalog.h"

struct kcatalog {
	struct session *s;
	struct btf *btf;
	const char *origin;
	const char **names;		/* kernel functions: sorted, unique */
	unsigned int *ids;		/* the BTF FUNC of each */
	size_t n;
	const struct kcat_func **funcs;	/* prototypes, built on demand */
	struct kcat_tracepoint **tps;	/* loaded on first use */
	size_t ntps;
	bool tps_loaded;
};

/* ---- BTF type names ------------------------------------------------------- */

static void tname(struct strbuf *sb, const struct btf *btf, __u32 id,
		      int depth);

static const char *btf_str(const struct btf *btf, __u32 off)
{
	const char *p = btf__name_by_offset(btf, off);

	return p ? p : "";
}

static void tagged(struct strbuf *sb, const char *tag, const struct btf *btf,
		   const struct btf_type *t)
{
	const char *name = btf_str(btf, t->name_off);

	sb_printf(sb, "%s %s", tag, *name ? name : "{...}");
}

/* "(int, char*)"; a trailing void parameter is C's "..." */
static void param_types(struct strbuf *sb, const struct btf *btf,
			const struct btf_type *proto, int depth)
{
	const struct btf_param *p = btf_params(proto);
	int n = btf_vlen(proto);

	sb_putc(sb, '(');
	for (int i = 0; i < n; i++) {
		if (i)
			sb_puts(sb, ", ");
		if (p[i].type == 0 && i == n - 1)
			sb_puts(sb, "...");
		else
			tname(sb, btf, p[i].type, depth + 1);
	}
	if (n == 0)
		sb_puts(sb, "void");
	sb_putc(sb, ')');
}

static void pointer(struct strbuf *sb, const struct btf *btf, __u32 to,
		    int depth)
{
	const struct btf_type *t = to ? btf__type_by_id(btf, to) : NULL;

	if (t && btf_is_func_proto(t)) {
		tname(sb, btf, t->type, depth + 1);
		sb_puts(sb, " (*) ");
		param_types(sb, btf, t, depth);
		return;
	}
	tname(sb, btf, to, depth + 1);
	sb_putc(sb, '*');
}

static void tname(struct strbuf *sb, const struct btf *btf, __u32 id,
		      int depth)
{
	const struct btf_type *t = id ? btf__type_by_id(btf, id) : NULL;

	if (depth > 32 || (id && !t)) {
		sb_puts(sb, "?");
		return;
	}
	if (!t) {
		sb_puts(sb, "void");
		return;
	}
	switch (btf_kind(t)) {
	case BTF_KIND_INT:
	case BTF_KIND_FLOAT:
	case BTF_KIND_TYPEDEF:
		sb_puts(sb, btf_str(btf, t->name_off));
		break;
	case BTF_KIND_STRUCT:
		tagged(sb, "struct", btf, t);
		break;
	case BTF_KIND_UNION:
		tagged(sb, "union", btf, t);
		break;
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
		tagged(sb, "enum", btf, t);
		break;
	case BTF_KIND_FWD:
		tagged(sb, btf_kflag(t) ? "union" : "struct", btf, t);
		break;
	case BTF_KIND_PTR:
		pointer(sb, btf, t->type, depth);
		break;
	case BTF_KIND_CONST:
		tname(sb, btf, t->type, depth + 1);
		sb_puts(sb, " const");
		break;
	case BTF_KIND_VOLATILE:
		tname(sb, btf, t->type, depth + 1);
		sb_puts(sb, " volatile");
		break;
	case BTF_KIND_ARRAY:
		tname(sb, btf, btf_array(t)->type, depth + 1);
		sb_printf(sb, "[%u]", btf_array(t)->nelems);
		break;
	case BTF_KIND_FUNC_PROTO:
		tname(sb, btf, t->type, depth + 1);
		sb_putc(sb, ' ');
		param_types(sb, btf, t, depth);
		break;
	default:	/* restrict, type tags: transparent */
		tname(sb, btf, t->type, depth + 1);
		break;
	}
}

const char *kbtf_type_name(struct session *s, const struct btf *btf,
			   unsigned int id)
{
	struct strbuf sb;
	const char *r;

	sb_init(&sb);
	tname(&sb, btf, id, 0);
	r = arena_strdup(s->arena, sb.buf);
	sb_free(&sb);
	return r;
}

/* ---- the function table --------------------------------------------------- */

struct named_id {
	const char *name;
	__u32 id;
};

static int by_name_then_id(const void *a, const void *b)
{
	const struct named_id *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : (x->id > y->id) - (x->id < y->id);
}

/* Every defined FUNC (a FUNC's vlen is its linkage: not extern ones), by
 * name, the first id kept. */
static void build_functions(struct kcatalog *kc)
{
	__u32 ntypes = btf__type_cnt(kc->btf), i;
	struct named_id *v = malloc(sizeof(*v) * ntypes);
	size_t n = 0, u = 0;

	if (!v)
		abort();
	for (i = 1; i < ntypes; i++) {
		const struct btf_type *t = btf__type_by_id(kc->btf, i);

		if (btf_is_func(t) && btf_vlen(t) != BTF_FUNC_EXTERN)
			v[n++] = (struct named_id){ btf_str(kc->btf, t->name_off), i };
	}
	qsort(v, n, sizeof(*v), by_name_then_id);
	kc->names = arena_alloc(kc->s->arena, sizeof(*kc->names) * (n + 1));
	kc->ids = arena_alloc(kc->s->arena, sizeof(*kc->ids) * (n + 1));
	for (i = 0; i < n; i++) {
		if (u && !strcmp(kc->names[u - 1], v[i].name))
			continue;
		kc->names[u] = v[i].name;
		kc->ids[u++] = v[i].id;
	}
	kc->n = u;
	kc->funcs = arena_alloc(kc->s->arena, sizeof(*kc->funcs) * (u + 1));
	free(v);
}

struct kcatalog *kcat_open(struct session *s)
{
	struct kcatalog *kc = arena_alloc(s->arena, sizeof(*kc));
	double t0 = now_ms();

	kc->s = s;
	kc->btf = kbtf_load(s, &kc->origin);
	if (!kc->btf)
		return NULL;
	build_functions(kc);
	if (s->verbose > 1)
		fprintf(s->err, "kcatalog: %zu kernel functions from %s in %.1f ms\n",
			kc->n, kc->origin, now_ms() - t0);
	return kc;
}

void kcat_close(struct kcatalog *kc)
{
	if (kc)
		btf__free(kc->btf);
}

const struct btf *kcat_btf(struct kcatalog *kc)
{
	return kc->btf;
}

const char *kcat_btf_origin(const struct kcatalog *kc)
{
	return kc->origin;
}

/* The BTF's bytes (the same for one kernel from sysfs or its vmlinuz). */
const void *kcat_btf_raw(struct kcatalog *kc, unsigned int *size)
{
	*size = 0;
	return kc->btf ? btf__raw_data(kc->btf, size) : NULL;
}

/* ---- wildcards ------------------------------------------------------------ */

/* Bytes of glob before its first wildcard or escape. */
static size_t literal_prefix(const char *glob)
{
	return strcspn(glob, "*?[\\");
}

/* First index whose name is >= key (key of length klen, as a prefix). */
static size_t lower_bound(struct kcatalog *kc, const char *key, size_t klen)
{
	size_t lo = 0, hi = kc->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strncmp(kc->names[mid], key, klen) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static long find_function(struct kcatalog *kc, const char *name)
{
	size_t len = strlen(name), i = lower_bound(kc, name, len + 1);

	return i < kc->n && !strcmp(kc->names[i], name) ? (long)i : -1;
}

size_t kcat_match_functions(struct kcatalog *kc, const char *glob,
			    const char ***out)
{
	size_t plen = literal_prefix(glob), i = lower_bound(kc, glob, plen);
	size_t n = 0, cap = 16;
	const char **v = malloc(sizeof(*v) * cap);

	for (; v && i < kc->n && !strncmp(kc->names[i], glob, plen); i++) {
		if (fnmatch(glob, kc->names[i], 0))
			continue;
		if (n + 1 >= cap)
			v = realloc(v, sizeof(*v) * (cap *= 2));
		if (v)
			v[n++] = kc->names[i];
	}
	if (!v)
		abort();
	*out = arena_alloc(kc->s->arena, sizeof(**out) * (n + 1));
	memcpy(*out, v, sizeof(*v) * n);
	free(v);
	return n;
}

bool kcat_has_function(struct kcatalog *kc, const char *name)
{
	return find_function(kc, name) >= 0;
}

/* ---- prototypes ----------------------------------------------------------- */

static const struct kcat_func *make_func(struct kcatalog *kc, size_t i)
{
	struct session *s = kc->s;
	const struct btf_type *fn = btf__type_by_id(kc->btf, kc->ids[i]);
	const struct btf_type *proto = btf__type_by_id(kc->btf, fn->type);
	const struct btf_param *p = btf_params(proto);
	struct kcat_func *f = arena_alloc(s->arena, sizeof(*f));
	struct kcat_arg *args;
	int n = btf_vlen(proto);

	f->name = kc->names[i];
	f->ret = kbtf_type_name(s, kc->btf, proto->type);
	f->retv = (struct kcat_arg){ "return", f->ret, kc->btf, proto->type };
	if (n && p[n - 1].type == 0) {
		f->varargs = true;
		n--;
	}
	args = arena_alloc(s->arena, sizeof(*args) * (size_t)(n + 1));
	for (int k = 0; k < n; k++) {
		const char *name = btf_str(kc->btf, p[k].name_off);

		args[k].name = *name ? name : arena_printf(s->arena, "arg%d", k + 1);
		args[k].type = kbtf_type_name(s, kc->btf, p[k].type);
		args[k].btf = kc->btf;
		args[k].type_id = p[k].type;
	}
	f->args = args;
	f->nargs = n;
	return f;
}

const struct kcat_func *kcat_function(struct kcatalog *kc, const char *name)
{
	long i = find_function(kc, name);

	if (i < 0)
		return NULL;
	if (!kc->funcs[i])
		kc->funcs[i] = make_func(kc, (size_t)i);
	return kc->funcs[i];
}

bool kcat_function_proto(struct kcatalog *kc, const char *name,
			 struct strbuf *sb)
{
	const struct kcat_func *f = kcat_function(kc, name);

	if (!f)
		return false;
	sb_printf(sb, "%s(", f->name);
	for (int k = 0; k < f->nargs; k++)
		sb_printf(sb, "%s%s %s", k ? ", " : "", f->args[k].type,
			  f->args[k].name);
	if (f->varargs)
		sb_puts(sb, f->nargs ? ", ..." : "...");
	else if (!f->nargs)
		sb_puts(sb, "void");
	sb_putc(sb, ')');
	return true;
}

void kcat_format_args(struct strbuf *sb, const struct kcat_arg *args, int n)
{
	for (int k = 0; k < n; k++)
		sb_printf(sb, " $%s:%s", args[k].name, args[k].type);
}

/* ---- tracepoints ---------------------------------------------------------- */

static void load_tracepoints(struct kcatalog *kc)
{
	if (kc->tps_loaded)
		return;
	kc->tps_loaded = true;
	kc->tps = ktrace_load(kc->s, kc->btf, &kc->ntps);
}

/* "SYS:NAME" or "NAME" (any system, including none). */
size_t kcat_match_tracepoints(struct kcatalog *kc, const char *pattern,
			      const struct kcat_tracepoint ***out)
{
	const char *colon = strchr(pattern, ':');
	const char *sys = colon ? arena_strndup(kc->s->arena, pattern,
						(size_t)(colon - pattern)) : "*";
	const char *name = colon ? colon + 1 : pattern;
	size_t n = 0;

	load_tracepoints(kc);
	*out = arena_alloc(kc->s->arena, sizeof(**out) * (kc->ntps + 1));
	for (size_t i = 0; i < kc->ntps; i++) {
		const struct kcat_tracepoint *tp = kc->tps[i];

		if (!fnmatch(sys, tp->system, 0) && !fnmatch(name, tp->name, 0))
			(*out)[n++] = tp;
	}
	return n;
}

const struct kcat_tracepoint *kcat_tracepoint(struct kcatalog *kc,
					      const char *system,
					      const char *name)
{
	load_tracepoints(kc);
	for (size_t i = 0; i < kc->ntps; i++) {
		if (!strcmp(kc->tps[i]->name, name) &&
		    (!system || !strcmp(kc->tps[i]->system, system)))
			return kc->tps[i];
	}
	return NULL;
}

/* ---- type widths, for pass 3 (family/) ------------------------------- */

/* The BTF type named `type` (a name as kbtf_type_name gives it, not a
 * pointer), with typedefs and modifiers resolved; NULL when unknown. */
static const struct btf_type *resolve_named(struct kcatalog *kc, const char *type)
{
	char buf[256];
	size_t n = strlen(type);
	const struct btf_type *t;
	__s32 id;
	int kind = BTF_KIND_TYPEDEF;
	const char *name = buf;

	if (n >= sizeof(buf))
		return NULL;
	strcpy(buf, type);
	while (n > 6 && !strcmp(buf + n - 6, " const"))
		buf[n -= 6] = '\0';
	while (n > 9 && !strcmp(buf + n - 9, " volatile"))
		buf[n -= 9] = '\0';
	if (!strncmp(buf, "enum ", 5)) {
		kind = BTF_KIND_ENUM;
		name += 5;
	} else if (!strncmp(buf, "struct ", 7) || !strncmp(buf, "union ", 6)) {
		kind = buf[0] == 's' ? BTF_KIND_STRUCT : BTF_KIND_UNION;
		name += buf[0] == 's' ? 7 : 6;
	}
	id = btf__find_by_name_kind(kc->btf, name, kind);
	if (id < 0 && kind == BTF_KIND_TYPEDEF)
		id = btf__find_by_name_kind(kc->btf, name, BTF_KIND_INT);
	if (id < 0 && kind == BTF_KIND_ENUM)
		id = btf__find_by_name_kind(kc->btf, name, BTF_KIND_ENUM64);
	if (id < 0)
		return NULL;
	t = btf__type_by_id(kc->btf, (__u32)id);
	while (t && (btf_is_typedef(t) || btf_is_mod(t))) {
		if (!t->type)
			return NULL;
		t = btf__type_by_id(kc->btf, t->type);
	}
	return t;
}

static bool is_pointer_name(const char *type)
{
	size_t n = strlen(type);

	return n && (type[n - 1] == '*' || type[n - 1] == ')' ||
		     strstr(type, "* const") || strstr(type, "(*)"));
}

/* Bytes and signedness of a value of the type named `type` (a name as
 * kbtf_type_name gives it); 0 when unknown or not passed in a register. */
int kcat_type_width(struct kcatalog *kc, const char *type, bool *is_signed)
{
	const struct btf_type *t;

	*is_signed = false;
	if (is_pointer_name(type))
		return 8;	/* pointers, function pointers */
	t = resolve_named(kc, type);
	if (!t)
		return 0;
	if (btf_is_ptr(t))
		return 8;
	if (btf_is_int(t)) {
		*is_signed = btf_int_encoding(t) & BTF_INT_SIGNED;
		return t->size <= 8 ? (int)t->size : 0;
	}
	if (btf_is_any_enum(t)) {
		*is_signed = btf_kflag(t);
		return t->size <= 8 ? (int)t->size : 0;
	}
	if ((btf_is_struct(t) || btf_is_union(t)) && t->size <= 8 &&
	    (t->size & (t->size - 1)) == 0)
		return (int)t->size;	/* small aggregates travel in a register */
	return 0;
}

/* Does t (a struct or union) hold only integers and pointers, at their
 * natural alignment: x86-64's INTEGER class, passed in general registers
 * when at most 16 bytes? */
static bool int_class(const struct btf *btf, const struct btf_type *t, int depth)
{
	const struct btf_member *m = btf_members(t);

	if (depth > 8)
		return false;
	for (int i = 0; i < btf_vlen(t); i++, m++) {
		__u32 id = m->type;
		const struct btf_type *mt = btf__type_by_id(btf, id);
		__u32 bits = btf_member_bit_offset(t, (__u32)i);

		while (mt && (btf_is_typedef(mt) || btf_is_mod(mt)))
			mt = btf__type_by_id(btf, mt->type);
		if (!mt)
			return false;
		if (btf_is_array(mt)) {
			mt = btf__type_by_id(btf, btf_array(mt)->type);
			while (mt && (btf_is_typedef(mt) || btf_is_mod(mt)))
				mt = btf__type_by_id(btf, mt->type);
			if (!mt)
				return false;
		}
		if ((btf_is_struct(mt) || btf_is_union(mt)) && !int_class(btf, mt, depth + 1))
			return false;
		if (!btf_is_struct(mt) && !btf_is_union(mt) && !btf_is_int(mt) &&
		    !btf_is_ptr(mt) && !btf_is_any_enum(mt))
			return false;
		if (!btf_member_bitfield_size(t, (__u32)i) && mt->size &&
		    bits % (8 * (mt->size < 8 ? mt->size : 8)) && !btf_is_struct(mt) &&
		    !btf_is_union(mt))
			return false;	/* packed: passed in memory */
	}
	return true;
}

/* The size of the struct or union named `type` when a parameter of it
 * travels in one or two general registers; 0 for other types. */
int kcat_type_agg_size(struct kcatalog *kc, const char *type)
{
	const struct btf_type *t = is_pointer_name(type) ? NULL : resolve_named(kc, type);

	if (!t || !(btf_is_struct(t) || btf_is_union(t)) || !t->size || t->size > 16 ||
	    !int_class(kc->btf, t, 0))
		return 0;
	return (int)t->size;
}

/* How many argument registers a parameter of the type named `type` takes
 * (x86-64: 1 for scalars, pointers and aggregates of up to 8 bytes, 2 for
 * aggregates of 9 to 16 bytes, which the kernel's have no floating point
 * in); 0 when it is unknown or passed on the stack. */
int kcat_type_regs(struct kcatalog *kc, const char *type)
{
	const struct btf_type *t;
	bool sg;

	int size = kcat_type_agg_size(kc, type);

	if (size)
		return size > 8 ? 2 : 1;
	if (kcat_type_width(kc, type, &sg))
		return 1;
	t = resolve_named(kc, type);
	if (t && (btf_is_struct(t) || btf_is_union(t)) && t->size > 8 && t->size <= 16)
		return 2;
	return 0;
}
