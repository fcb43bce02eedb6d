/*
 * utypes.c - a user binary's DWARF types as BTF (built with libbpf's
 * btf__add_*), so that the typed target expressions of kernel probes
 * (elab/deref.c: $p->member, $a[i], $var$ pretty printing) and the -L type
 * names (kbtf_type_name) work unchanged on process() probes.
 *
 * Each DWARF type DIE becomes one BTF type, memoized by DIE offset; a
 * struct, union, enum or typedef defined in a header becomes one for
 * every CU's copy of it (the same name, size, declaring line and
 * members), or the kernel's types would be converted once per CU.
 * A struct's members are converted before the struct is added (BTF wants
 * its fields right after it); pointers are added pointing at void and
 * patched once their target exists, which also breaks the cycles of
 * self-referencing structs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/btf.h>
#include <elfutils/libdw.h>
#include <dwarf.h>

#include "ubin.h"
#include "ubin_int.h"

struct memo {
	uint64_t die;
	unsigned int id;
};

/* A named type by where it is declared: the same for every CU's copy. */
struct named {
	uint64_t hash;
	const char *key;
	unsigned int id;
};

struct tstate {
	struct memo *v;
	size_t n, cap;
	struct named *nv;	/* the types converted, by named_key() */
	size_t nn, ncap;
	struct {
		unsigned int ptr;
		uint64_t target;
	} *fix;
	size_t nfix, capfix;
};

/* ubin's private fields, through ubin.c's accessors */
struct btf **ubin_btf_slot(struct ubin *b);
void **ubin_types_slot(struct ubin *b);

static struct tstate *state(struct ubin *b)
{
	void **slot = ubin_types_slot(b);

	if (!*slot) {
		*slot = calloc(1, sizeof(struct tstate));
		if (!*slot)
			abort();
	}
	return *slot;
}

static struct btf *btf_of(struct ubin *b)
{
	struct btf **slot = ubin_btf_slot(b);

	if (!*slot) {
		*slot = btf__new_empty();
		if (!*slot)
			abort();
	}
	return *slot;
}

const struct btf *ubin_btf(struct ubin *b)
{
	return btf_of(b);
}

void utypes_free(struct ubin *b)
{
	struct tstate *st = *ubin_types_slot(b);

	if (st) {
		free(st->v);
		for (size_t i = 0; i < st->ncap; i++)
			free((char *)st->nv[i].key);
		free(st->nv);
		free(st->fix);
		free(st);
	}
	if (*ubin_btf_slot(b))
		btf__free(*ubin_btf_slot(b));
}

static size_t slot_of(const struct tstate *st, uint64_t die)
{
	size_t h = (size_t)(die * 0x9e3779b97f4a7c15ULL >> 17) & (st->cap - 1);

	while (st->v[h].die && st->v[h].die != die)
		h = (h + 1) & (st->cap - 1);
	return h;
}

/* The memo is an open-addressing table (DIE offsets are never 0): the
 * kernel's DWARF has a copy of its types in every CU. */
static void remember(struct tstate *st, uint64_t die, unsigned int id)
{
	size_t h;

	if ((st->n + 1) * 2 > st->cap) {
		struct memo *old = st->v;
		size_t oldcap = st->cap;

		st->cap = st->cap ? st->cap * 2 : 1024;
		st->v = calloc(st->cap, sizeof(*st->v));
		if (!st->v)
			abort();
		for (size_t i = 0; i < oldcap; i++)
			if (old[i].die)
				st->v[slot_of(st, old[i].die)] = old[i];
		free(old);
	}
	h = slot_of(st, die);
	if (!st->v[h].die)
		st->n++;
	st->v[h].die = die;
	st->v[h].id = id;
}

static bool recall(const struct tstate *st, uint64_t die, unsigned int *id)
{
	size_t h;

	if (!st->cap)
		return false;
	h = slot_of(st, die);
	if (!st->v[h].die)
		return false;
	*id = st->v[h].id;
	return true;
}

static unsigned int convert(struct session *s, struct ubin *b, Dwarf_Die *d, int depth);

/* The type a DIE refers to (0: void). */
static unsigned int ref_type(struct session *s, struct ubin *b, Dwarf_Die *d, int depth)
{
	Dwarf_Attribute at;
	Dwarf_Die t;

	if (!dwarf_attr_integrate(d, DW_AT_type, &at) || !dwarf_formref_die(&at, &t))
		return 0;
	return convert(s, b, &t, depth + 1);
}

static uint64_t ref_die(Dwarf_Die *d)
{
	Dwarf_Attribute at;
	Dwarf_Die t;

	if (!dwarf_attr_integrate(d, DW_AT_type, &at) || !dwarf_formref_die(&at, &t))
		return 0;
	return dwarf_dieoffset(&t);
}

static int base_type(struct btf *bt, Dwarf_Die *d, const char *name)
{
	Dwarf_Word enc = 0;
	Dwarf_Attribute at;
	int size = dwarf_bytesize(d), flags = 0;

	if (dwarf_attr(d, DW_AT_encoding, &at))
		dwarf_formudata(&at, &enc);
	if (enc == DW_ATE_float)
		return btf__add_float(bt, name, size > 0 ? (size_t)size : 8);
	if (enc == DW_ATE_signed || enc == DW_ATE_signed_char)
		flags |= BTF_INT_SIGNED;
	if (enc == DW_ATE_signed_char || enc == DW_ATE_unsigned_char)
		flags |= BTF_INT_CHAR;
	if (enc == DW_ATE_boolean)
		flags = BTF_INT_BOOL;
	if (size != 1 && size != 2 && size != 4 && size != 8 && size != 16)
		size = 8;
	return btf__add_int(bt, name, (size_t)size, flags);
}

static bool type_definition(struct session *s, struct ubin *b, int tag, const char *name,
			    bool need_index, uint64_t *die);

static int aggregate(struct session *s, struct ubin *b, Dwarf_Die *d, const char *name,
		     bool is_union, int depth)
{
	struct btf *bt = btf_of(b);
	Dwarf_Die c;
	unsigned int ids[256];
	int n = 0, id, size = dwarf_bytesize(d);

	if (dwarf_hasattr(d, DW_AT_declaration)) {
		/* the kernel's or a module's: the definition another unit
		 * has, as 4.8 resolves a declaration */
		uint64_t def;
		Dwarf_Die dd;

		if (ubin_is_kernel(b) && name && *name &&
		    type_definition(s, b, dwarf_tag(d), name, true, &def) &&
		    def != dwarf_dieoffset(d) && dwarf_offdie(ubin_dwarf(b), def, &dd) &&
		    (id = (int)convert(s, b, &dd, depth + 1)) > 0)
			return id;
		return btf__add_fwd(bt, name, is_union ? BTF_FWD_UNION : BTF_FWD_STRUCT);
	}
	if (!dwarf_child(d, &c)) {
		do {
			if (dwarf_tag(&c) == DW_TAG_member && n < 256)
				ids[n++] = ref_type(s, b, &c, depth);
		} while (dwarf_siblingof(&c, &c) == 0);
	}
	id = is_union ? btf__add_union(bt, name, size > 0 ? (__u32)size : 0) :
			btf__add_struct(bt, name, size > 0 ? (__u32)size : 0);
	if (id < 0 || dwarf_child(d, &c))
		return id;
	n = 0;
	do {
		Dwarf_Attribute at;
		Dwarf_Word off = 0;
		int bits = dwarf_bitsize(&c), boff;

		if (dwarf_tag(&c) != DW_TAG_member || n >= 256)
			continue;
		if (dwarf_attr(&c, DW_AT_data_member_location, &at))
			dwarf_formudata(&at, &off);
		boff = (int)off * 8;
		if (bits > 0) {
			Dwarf_Word dbo = 0;

			if (dwarf_attr(&c, DW_AT_data_bit_offset, &at)) {
				dwarf_formudata(&at, &dbo);
				boff = (int)dbo;
			}
		} else {
			bits = 0;
		}
		btf__add_field(bt, dwarf_diename(&c) ? dwarf_diename(&c) : "", (int)ids[n++],
			       (__u32)boff, (__u32)bits);
	} while (dwarf_siblingof(&c, &c) == 0);
	return id;
}

static int array_type(struct session *s, struct ubin *b, Dwarf_Die *d, int depth)
{
	unsigned int elem = ref_type(s, b, d, depth), idx;
	Dwarf_Die c;
	Dwarf_Word n = 0;

	if (!dwarf_child(d, &c) && dwarf_tag(&c) == DW_TAG_subrange_type) {
		Dwarf_Attribute at;

		if (dwarf_attr(&c, DW_AT_count, &at)) {
			dwarf_formudata(&at, &n);
		} else if (dwarf_attr(&c, DW_AT_upper_bound, &at)) {
			dwarf_formudata(&at, &n);
			n++;
		}
	}
	idx = (unsigned int)btf__add_int(btf_of(b), "long unsigned int", 8, 0);
	return btf__add_array(btf_of(b), (int)idx, (int)elem, (__u32)n);
}

static int enum_type(struct ubin *b, Dwarf_Die *d, const char *name)
{
	int size = dwarf_bytesize(d), id = btf__add_enum(btf_of(b), name,
							 size > 0 ? (__u32)size : 4);
	Dwarf_Die c;

	if (id < 0 || dwarf_child(d, &c))
		return id;
	do {
		Dwarf_Attribute at;
		Dwarf_Sword v = 0;

		if (dwarf_tag(&c) == DW_TAG_enumerator && dwarf_attr(&c, DW_AT_const_value, &at)) {
			dwarf_formsdata(&at, &v);
			btf__add_enum_value(btf_of(b), dwarf_diename(&c), v);
		}
	} while (dwarf_siblingof(&c, &c) == 0);
	return id;
}

static int one_type(struct session *s, struct ubin *b, Dwarf_Die *d, int depth)
{
	struct btf *bt = btf_of(b);
	const char *name = dwarf_diename(d);
	struct tstate *st = state(b);
	int id;

	if (!name)
		name = "";
	switch (dwarf_tag(d)) {
	case DW_TAG_base_type:
		return base_type(bt, d, name);
	case DW_TAG_pointer_type:
	case DW_TAG_reference_type:
	case DW_TAG_rvalue_reference_type:
		id = btf__add_ptr(bt, 0);
		if (id > 0 && ref_die(d)) {
			if (st->nfix == st->capfix) {
				st->capfix = st->capfix ? st->capfix * 2 : 32;
				st->fix = realloc(st->fix, sizeof(*st->fix) * st->capfix);
				if (!st->fix)
					abort();
			}
			st->fix[st->nfix].ptr = (unsigned int)id;
			st->fix[st->nfix++].target = ref_die(d);
		}
		return id;
	case DW_TAG_structure_type:
	case DW_TAG_class_type:
		return aggregate(s, b, d, name, false, depth);
	case DW_TAG_union_type:
		return aggregate(s, b, d, name, true, depth);
	case DW_TAG_array_type:
		return array_type(s, b, d, depth);
	case DW_TAG_enumeration_type:
		return enum_type(b, d, name);
	case DW_TAG_typedef:
		return btf__add_typedef(bt, name, (int)ref_type(s, b, d, depth));
	case DW_TAG_const_type:
		return btf__add_const(bt, (int)ref_type(s, b, d, depth));
	case DW_TAG_volatile_type:
		return btf__add_volatile(bt, (int)ref_type(s, b, d, depth));
	case DW_TAG_restrict_type:
		return btf__add_restrict(bt, (int)ref_type(s, b, d, depth));
	case DW_TAG_subroutine_type:
		return btf__add_func_proto(bt, (int)ref_type(s, b, d, depth));
	default:
		return btf__add_int(bt, name, 8, 0);
	}
}

/* The DIE's type's tag and name, into f. */
static void put_ref(FILE *f, Dwarf_Die *d)
{
	Dwarf_Attribute at;
	Dwarf_Die t;
	const char *n;

	if (!dwarf_attr_integrate(d, DW_AT_type, &at) || !dwarf_formref_die(&at, &t)) {
		fputs(":void", f);
		return;
	}
	n = dwarf_diename(&t);
	fprintf(f, ":%d/%s", dwarf_tag(&t), n ? n : "");
}

/* The identity of a named type's definition: tag, name, size, declaring
 * line, and its members (name, offset, their types' tags and names) or
 * enumerators or the type it names; NULL for the others (a declaration,
 * anonymous, or without a declaring line). Not its declaring file: that
 * needs the CU's line table, which libdw would keep for every CU. */
static char *named_key(Dwarf_Die *d)
{
	int tag = dwarf_tag(d), line = 0;
	const char *name = dwarf_diename(d);
	char *key = NULL;
	size_t len = 0;
	Dwarf_Die c;
	FILE *f;

	if ((tag != DW_TAG_structure_type && tag != DW_TAG_class_type &&
	     tag != DW_TAG_union_type && tag != DW_TAG_enumeration_type &&
	     tag != DW_TAG_typedef) || !name || dwarf_hasattr(d, DW_AT_declaration) ||
	    dwarf_decl_line(d, &line) || line <= 0 || !(f = open_memstream(&key, &len)))
		return NULL;
	fprintf(f, "%d %s %d %d", tag, name, dwarf_bytesize(d), line);
	if (tag == DW_TAG_typedef)
		put_ref(f, d);
	else if (!dwarf_child(d, &c))
		do {
			Dwarf_Attribute at;
			Dwarf_Word off = 0;
			Dwarf_Sword v = 0;
			const char *n = dwarf_diename(&c);

			if (dwarf_tag(&c) == DW_TAG_member) {
				if (dwarf_attr(&c, DW_AT_data_member_location, &at))
					dwarf_formudata(&at, &off);
				if (dwarf_attr(&c, DW_AT_data_bit_offset, &at))
					dwarf_formudata(&at, &off);
				fprintf(f, " %s@%llu/%d", n ? n : "", (unsigned long long)off,
					dwarf_bitsize(&c));
				put_ref(f, &c);
			} else if (dwarf_tag(&c) == DW_TAG_enumerator &&
				   dwarf_attr(&c, DW_AT_const_value, &at)) {
				dwarf_formsdata(&at, &v);
				fprintf(f, " %s=%lld", n ? n : "", (long long)v);
			}
		} while (dwarf_siblingof(&c, &c) == 0);
	if (fclose(f)) {
		free(key);
		return NULL;
	}
	return key;
}

static uint64_t str_hash(const char *k)
{
	uint64_t h = 0xcbf29ce484222325ull;

	while (*k)
		h = (h ^ (unsigned char)*k++) * 0x100000001b3ull;
	return h ? h : 1;
}

/* The slot of key in st->nv: its entry, or the empty one to fill. */
static struct named *named_slot(struct tstate *st, const char *key, uint64_t h)
{
	size_t i = (size_t)h & (st->ncap - 1);

	while (st->nv[i].hash && (st->nv[i].hash != h || strcmp(st->nv[i].key, key)))
		i = (i + 1) & (st->ncap - 1);
	return &st->nv[i];
}

static void name_type(struct tstate *st, char *key, unsigned int id)
{
	uint64_t h = str_hash(key);
	struct named *e;

	if ((st->nn + 1) * 2 > st->ncap) {
		struct named *old = st->nv;
		size_t oldcap = st->ncap;

		st->ncap = st->ncap ? st->ncap * 2 : 1024;
		st->nv = calloc(st->ncap, sizeof(*st->nv));
		if (!st->nv)
			abort();
		for (size_t i = 0; i < oldcap; i++)
			if (old[i].hash)
				*named_slot(st, old[i].key, old[i].hash) = old[i];
		free(old);
	}
	e = named_slot(st, key, h);
	if (e->hash) {
		free(key);
		return;
	}
	*e = (struct named){ h, key, id };
	st->nn++;
}

static unsigned int convert(struct session *s, struct ubin *b, Dwarf_Die *d, int depth)
{
	struct tstate *st = state(b);
	uint64_t off = dwarf_dieoffset(d);
	unsigned int id;
	char *key;
	int r;

	if (recall(st, off, &id))
		return id;
	if (depth > 64)
		return 0;
	key = named_key(d);
	if (key && st->ncap) {
		struct named *e = named_slot(st, key, str_hash(key));

		if (e->hash) {
			free(key);
			remember(st, off, e->id);
			return e->id;
		}
	}
	r = one_type(s, b, d, depth);
	id = r > 0 ? (unsigned int)r : 0;
	remember(st, off, id);
	if (key)
		name_type(st, key, id);
	return id;
}

/* Resolve the pointers added so far (their targets may add more). */
static void fix_pointers(struct session *s, struct ubin *b)
{
	struct tstate *st = state(b);

	while (st->nfix) {
		unsigned int ptr = st->fix[st->nfix - 1].ptr;
		uint64_t target = st->fix[st->nfix - 1].target;
		Dwarf_Die t;
		unsigned int id = 0;

		st->nfix--;
		if (dwarf_offdie(ubin_dwarf(b), target, &t))
			id = convert(s, b, &t, 0);
		((struct btf_type *)btf__type_by_id(btf_of(b), ptr))->type = id;
	}
}

unsigned int utype_to_btf(struct session *s, struct ubin *b, uint64_t type_die)
{
	Dwarf_Die d;
	unsigned int id;

	if (!ubin_dwarf(b) || !dwarf_offdie(ubin_dwarf(b), type_die, &d))
		return 0;
	id = convert(s, b, &d, 0);
	fix_pointers(s, b);
	return id;
}

/* The DIE defining the named type (tag, name; tag 0: a typedef, base
 * type, struct or union) in the first compile unit that defines it (a
 * vmlinux: the unit its index names, and none if the index says none);
 * false when none does or none is known. */
static bool type_definition(struct session *s, struct ubin *b, int tag, const char *name,
			    bool need_index, uint64_t *die)
{
	Dwarf *dw = ubin_dwarf(b);
	Dwarf_Off off = 0, next;
	size_t hsize;
	int done = 0;
	bool only = false;

	if (dw && ubin_is_vmlinux(b)) {
		int r = kindex_type_cu(s, b, tag, name, &off);

		if (!r || (r < 0 && need_index))
			return false;
		if (r > 0)
			only = true;
	}
	while (dw && dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu, c;

		if (only && done++)
			break;
		if ((ubin_is_vmlinux(b) ? ubin_vm_cu(b, off, &cu) :
		     dwarf_offdie(dw, off + hsize, &cu) != NULL) && !dwarf_child(&cu, &c)) {
			do {
				int t = dwarf_tag(&c);
				const char *n = dwarf_diename(&c);

				if (!n || strcmp(n, name) || dwarf_hasattr(&c, DW_AT_declaration))
					continue;
				if (tag ? t == tag : (t == DW_TAG_typedef || t == DW_TAG_base_type ||
						      t == DW_TAG_structure_type ||
						      t == DW_TAG_union_type)) {
					*die = dwarf_dieoffset(&c);
					return true;
				}
			} while (dwarf_siblingof(&c, &c) == 0);
		}
		off = next;
	}
	return false;
}

/* A named type of the binary: "struct NAME", "union NAME", "enum NAME" or
 * a typedef or base type NAME, from the first compile unit that defines
 * it; 0 when none does. */
unsigned int utype_by_name(struct session *s, struct ubin *b, const char *name)
{
	static const struct { const char *prefix; int tag; } tags[] = {
		{ "struct ", DW_TAG_structure_type }, { "union ", DW_TAG_union_type },
		{ "enum ", DW_TAG_enumeration_type },
	};
	int tag = 0;
	uint64_t die;

	for (size_t i = 0; i < sizeof(tags) / sizeof(tags[0]); i++)
		if (!strncmp(name, tags[i].prefix, strlen(tags[i].prefix))) {
			tag = tags[i].tag;
			name += strlen(tags[i].prefix);
		}
	if (!type_definition(s, b, tag, name, false, &die))
		return 0;
	return utype_to_btf(s, b, die);
}
