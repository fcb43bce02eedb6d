/*
 * ksymtab.c - the symbol table of the kernel's vmlinux (kdwarf.c), sorted
 * by address: where a kprobe goes for an address of its code (the
 * function's unique symbol plus an offset, else _stext plus one, which
 * KASLR moves with it), the functions a name has, whether a DWARF
 * function's entry has its symbol (not only a compiler clone's).
 */
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "ubin.h"

/* A symbol: unique (its name once in the table) or not. */
struct kstab_ent {
	uint64_t addr, size;
	const char *name;
	bool code, dup, global;
	uint32_t idx;		/* in .symtab */
};

struct kstab {
	struct kstab_ent *ents;
	size_t n;
	uint64_t stext;
	const struct kstab_ent **by_name;	/* then by idx; made on first use */
};

/* By address, then name (then place in the table: a total order). */
static int ksym_by_addr(const void *a, const void *b)
{
	const struct kstab_ent *x = a, *y = b;
	int c;

	if (x->addr != y->addr)
		return (x->addr > y->addr) - (x->addr < y->addr);
	c = strcmp(x->name, y->name);
	return c ? c : (x->idx > y->idx) - (x->idx < y->idx);
}

static uint64_t name_hash(const char *p)
{
	uint64_t h = 0xcbf29ce484222325ull;

	while (*p)
		h = (h ^ (unsigned char)*p++) * 0x100000001b3ull;
	return h;
}

/* Mark the entries whose name is not unique (a hash of the names: the
 * table has some 150,000). */
static void mark_dups(struct kstab *t)
{
	size_t cap = 1024;
	struct {
		uint32_t hash;
		uint32_t i;	/* 1 + index, 0 empty */
	} *slot;

	while (cap < t->n * 2)
		cap *= 2;
	slot = calloc(cap, sizeof(*slot));
	if (!slot)
		abort();
	for (size_t i = 0; i < t->n; i++) {
		uint64_t full = name_hash(t->ents[i].name);
		uint32_t hash = (uint32_t)(full >> 32);
		size_t h = (size_t)full & (cap - 1);

		for (; slot[h].i; h = (h + 1) & (cap - 1))
			if (slot[h].hash == hash && !strcmp(t->ents[slot[h].i - 1].name,
							   t->ents[i].name)) {
				t->ents[slot[h].i - 1].dup = t->ents[i].dup = true;
				break;
			}
		if (!slot[h].i) {
			slot[h].hash = hash;
			slot[h].i = (uint32_t)i + 1;
		}
	}
	free(slot);
}

/* vmlinux's function and object symbols, by address, each marked when
 * its name is not unique (kprobes find a name's first only). */
struct kstab *kstab_read(Elf *e)
{
	struct kstab *t = calloc(1, sizeof(*t));
	Elf_Scn *scn = NULL;
	Elf_Data *strs;
	size_t cap = 0;

	if (!t)
		abort();
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || !sh.sh_entsize)
			continue;
		d = elf_getdata(scn, NULL);
		/* the names straight from .strtab (ends with a NUL: checked),
		 * not elf_strptr()'s checks of each of some 150,000 */
		strs = elf_getscn(e, sh.sh_link) ? elf_getdata(elf_getscn(e, sh.sh_link), NULL) : NULL;
		if (!strs || !strs->d_buf || !strs->d_size ||
		    ((const char *)strs->d_buf)[strs->d_size - 1])
			d = NULL;
		cap = d ? sh.sh_size / sh.sh_entsize : 0;
		t->ents = calloc(cap + 1, sizeof(*t->ents));
		if (!t->ents)
			abort();
		for (size_t i = 0; i < cap; i++) {
			GElf_Sym y;
			const char *name;
			int ty;

			if (!gelf_getsym(d, (int)i, &y) || y.st_shndx == SHN_UNDEF)
				continue;
			ty = GELF_ST_TYPE(y.st_info);
			if ((ty != STT_FUNC && ty != STT_OBJECT && ty != STT_NOTYPE) ||
			    y.st_name >= strs->d_size)
				continue;
			name = (const char *)strs->d_buf + y.st_name;
			if (!*name)
				continue;
			t->ents[t->n++] = (struct kstab_ent){ y.st_value, y.st_size, name,
							      ty == STT_FUNC, false,
							      GELF_ST_BIND(y.st_info) != STB_LOCAL,
							      (uint32_t)i };
		}
		break;
	}
	if (!t->ents && !(t->ents = calloc(1, sizeof(*t->ents))))
		abort();
	mark_dups(t);
	for (size_t i = 0; i < t->n; i++)
		if (!strcmp(t->ents[i].name, "_stext"))
			t->stext = t->ents[i].addr;
	qsort(t->ents, t->n, sizeof(*t->ents), ksym_by_addr);
	return t;
}

void kstab_free(struct kstab *t)
{
	if (t) {
		free(t->ents);
		free(t->by_name);
		free(t);
	}
}

/* vmlinux: a code address as its function's unique symbol plus an
 * offset, else as _stext plus one (KASLR moves them together); a data
 * address always from _stext. */
bool kstab_at(struct kstab *t, uint64_t addr, bool code, const char **sym,
			 uint64_t *off)
{
	size_t lo = 0, hi;

		hi = t->n;
	while (lo < hi) {	/* the first symbol above addr */
		size_t mid = (lo + hi) / 2;

		if (t->ents[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; code && i-- > 0 && t->ents[i].addr + 4096 * 16 > addr;) {
		const struct kstab_ent *k = &t->ents[i];

		if (!k->code || addr >= k->addr + (k->size ? k->size : 1))
			continue;
		if (k->dup)
			break;
		*sym = k->name;
		*off = addr - k->addr;
		return true;
	}
	if (!t->stext)
		return false;
	*sym = "_stext";
	*off = addr - t->stext;
	return true;
}


/* The address of `name` when its only symbol is a global function (its
 * code, and any inlined copy of it, then in its own CU alone). */
bool kstab_global_func(struct kstab *t, const char *name, uint64_t *addr)
{
	size_t n = 0;

	for (size_t i = 0; i < t->n; i++) {
		const struct kstab_ent *k = &t->ents[i];

		if (strcmp(k->name, name))
			continue;
		if (!k->code || !k->global || n++)
			return false;
		*addr = k->addr;
	}
	return n == 1;
}

/* Has vmlinux a function symbol `name` (or a clone of it) at addr? */
bool kstab_has_at(struct kstab *t, const char *name, uint64_t addr)
{
	size_t i = 0, hi;

		for (hi = t->n; i < hi;) {
		size_t mid = (i + hi) / 2;

		if (t->ents[mid].addr < addr)
			i = mid + 1;
		else
			hi = mid;
	}
	for (; i < t->n && t->ents[i].addr == addr; i++) {
		const char *n = t->ents[i].name;
		size_t len = strlen(name);

		if (!strcmp(n, name))
			return true;
		/* a clone of it with other arguments (name.constprop.0,
		 * name.isra.0) is the function, as 4.8 finds it; its partial
		 * out-of-line part (name.part.0) is not */
		if (!strncmp(n, name, len) && n[len] == '.' && strncmp(n + len, ".part.", 6))
			return true;
	}
	return false;
}

/* The address of symbol name (vmlinux), 0 if none. */
uint64_t kstab_addr(struct kstab *t, const char *name)
{
	uint64_t a = 0;

		if (!strcmp(name, "_stext"))
		return t->stext;
	for (size_t i = 0; i < t->n; i++)
		if (!strcmp(t->ents[i].name, name))
			return t->ents[i].addr;
	return a;
}

size_t kstab_match_funcs(struct session *s, struct kstab *t, const char *glob,
			 struct ufunc **out)
{
	size_t n = 0;

	for (size_t i = 0; i < t->n; i++)
		n += t->ents[i].code && !fnmatch(glob, t->ents[i].name, 0);
	*out = arena_alloc(s->arena, sizeof(**out) * (n + 1));
	n = 0;
	for (size_t i = 0; i < t->n; i++) {
		const struct kstab_ent *k = &t->ents[i];

		if (!k->code || fnmatch(glob, k->name, 0))
			continue;
		memset(&(*out)[n], 0, sizeof(**out));
		(*out)[n].name = k->name;
		(*out)[n].entry = k->addr;
		(*out)[n++].end = k->size ? k->addr + k->size : 0;
	}
	return n;
}

static int ksym_ptr_by_name_idx(const void *a, const void *b)
{
	const struct kstab_ent *x = *(const struct kstab_ent *const *)a;
	const struct kstab_ent *y = *(const struct kstab_ent *const *)b;
	int c = strcmp(x->name, y->name);

	return c ? c : (x->idx > y->idx) - (x->idx < y->idx);
}

/* As 4.8's .exported: the first symbol named `name` in the table is a
 * function of global (or weak) binding. */
bool kstab_exported(struct kstab *t, const char *name)
{
	size_t lo = 0, hi = t->n;

	if (!t->by_name) {
		t->by_name = malloc(sizeof(*t->by_name) * (t->n + 1));
		if (!t->by_name)
			abort();
		for (size_t i = 0; i < t->n; i++)
			t->by_name[i] = &t->ents[i];
		qsort(t->by_name, t->n, sizeof(*t->by_name), ksym_ptr_by_name_idx);
	}
	while (lo < hi) {	/* the first entry not below name */
		size_t mid = (lo + hi) / 2;

		if (strcmp(t->by_name[mid]->name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < t->n && !strcmp(t->by_name[lo]->name, name) && t->by_name[lo]->code &&
	       t->by_name[lo]->global;
}

/* Does any symbol start at addr? */
bool kstab_any_at(struct kstab *t, uint64_t addr)
{
	size_t lo = 0, hi = t->n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (t->ents[mid].addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < t->n && t->ents[lo].addr == addr;
}
