/*
 * usymtab.c - the symbol-table side of a binary's functions (ubin.c reads
 * its DWARF ones): the ELF symbols DWARF does not describe (_start, a
 * stripped library's .dynsym), the other names of DWARF functions that
 * users probe them by (libc's malloc for __libc_malloc, fopen@@GLIBC_2.2.5),
 * matching functions by name through both, the functions by address for
 * a module's symbol table, and vmlinux's symbol-only functions.
 */
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include <gelf.h>

#include "ubin.h"
#include "ubin_int.h"

static bool have_entry(const struct ubin *b, size_t n, uint64_t addr)
{
	for (size_t i = 0; i < n; i++)
		if (b->funcs[i].entry == addr)
			return true;
	return false;
}

/* A symbol name without its version ("fopen@@GLIBC_2.2.5" -> "fopen"). */
static const char *unversioned(struct session *s, const char *name)
{
	const char *at = strchr(name, '@');

	return at && at != name ? arena_strndup(s->arena, name, (size_t)(at - name)) : name;
}

/* Another name of the function at addr (a global, weak or versioned
 * alias in the symbol table), if DWARF calls it otherwise. */
static void add_alias(struct ubin *b, const char *name, uint64_t addr)
{
	if (b->naliases == b->capaliases) {
		b->capaliases = b->capaliases ? b->capaliases * 2 : 64;
		b->aliases = realloc(b->aliases, sizeof(*b->aliases) * b->capaliases);
		if (!b->aliases)
			abort();
	}
	b->aliases[b->naliases].name = unversioned(b->s, name);
	b->aliases[b->naliases++].entry = addr;
}

/* Has the file a .symtab (else only the dynamic symbols are there)? */
static bool has_symtab(Elf *elf)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB)
			return true;
	return false;
}

/* The symbol table's functions DWARF does not describe (_start, _init);
 * a stripped library's from its .dynsym. */
void ubin_read_symtab_funcs(struct ubin *b)
{
	Elf_Scn *scn = NULL;
	size_t ndwarf = b->nfuncs;
	unsigned int want = has_symtab(b->elf) ? SHT_SYMTAB : SHT_DYNSYM;

	while ((scn = elf_nextscn(b->elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != want)
			continue;
		d = elf_getdata(scn, NULL);
		for (size_t i = 0; d && sh.sh_entsize && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;
			const char *name;
			struct ufunc f = { 0 };

			if (!gelf_getsym(d, (int)i, &sym) || GELF_ST_TYPE(sym.st_info) != STT_FUNC ||
			    sym.st_shndx == SHN_UNDEF || !sym.st_value)
				continue;
			name = elf_strptr(b->elf, sh.sh_link, sym.st_name);
			if (!name || !*name)
				continue;
			if (have_entry(b, ndwarf, sym.st_value)) {
				if (GELF_ST_BIND(sym.st_info) != STB_LOCAL)
					add_alias(b, name, sym.st_value);
				continue;
			}
			if (want == SHT_DYNSYM && have_entry(b, b->nfuncs, sym.st_value))
				continue;	/* one name per address (aliases) */
			f.name = arena_strdup(b->s->arena, name);
			f.entry = sym.st_value;
			f.end = sym.st_size ? sym.st_value + sym.st_size : 0;
			ubin_add_func(b, &f);
		}
	}
}

int ufunc_by_name_entry(const void *a, const void *b)
{
	const struct ufunc *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : (x->entry > y->entry) - (x->entry < y->entry);
}

/* The DWARF function (not an inlined copy) whose entry is addr. */
static const struct ufunc *dwarf_func_at(const struct ubin *b, uint64_t addr)
{
	for (size_t i = 0; i < b->nfuncs; i++)
		if (b->funcs[i].entry == addr && b->funcs[i].die && !b->funcs[i].inlined)
			return &b->funcs[i];
	return NULL;
}

static int by_func_name_entry(const void *a, const void *b)
{
	return ufunc_by_name_entry(*(const struct ufunc *const *)a, *(const struct ufunc *const *)b);
}

/* Add the functions whose symbol-table aliases match glob, as 4.8 does:
 * "malloc" is __libc_malloc's, under its DWARF name. */
static size_t match_aliases(struct ubin *b, const char *glob, const struct ufunc **v, size_t n)
{
	size_t had = n;

	for (size_t i = 0; i < b->naliases; i++) {
		const struct ufunc *f;
		size_t k;

		if (fnmatch(glob, b->aliases[i].name, 0) ||
		    !(f = dwarf_func_at(b, b->aliases[i].entry)))
			continue;
		for (k = 0; k < n && v[k]->entry != f->entry; k++)
			;
		if (k == n)
			v[n++] = f;
	}
	if (n > had)
		qsort(v, n, sizeof(*v), by_func_name_entry);
	return n;
}

size_t ubin_match_funcs(struct ubin *b, const char *glob, const struct ufunc ***out)
{
	const struct ufunc **v = arena_alloc(b->s->arena, sizeof(*v) * (b->nfuncs + b->naliases + 1));
	size_t n = 0;

	for (size_t i = 0; i < b->nfuncs; i++) {
		const struct ufunc *f = &b->funcs[i];

		if (fnmatch(glob, f->name, 0))
			continue;
		/* one per name and address (a function in two CUs' tables) */
		if (n && !strcmp(v[n - 1]->name, f->name) && v[n - 1]->entry == f->entry)
			continue;
		v[n++] = f;
	}
	*out = v;
	return match_aliases(b, glob, v, n);
}

/* b's functions with a size, by address (one per address), for the
 * module's symbol table (usymname()). */
size_t ubin_symbols(struct ubin *b, const struct ufunc ***out)
{
	const struct ufunc **v = arena_alloc(b->s->arena, sizeof(*v) * (b->nfuncs + 1));
	size_t n = 0;

	for (size_t i = 0; i < b->nfuncs; i++)
		if (!b->funcs[i].inlined && b->funcs[i].end > b->funcs[i].entry)
			v[n++] = &b->funcs[i];
	for (size_t i = 1; i < n; i++)	/* insertion sort: by entry */
		for (size_t k = i; k > 0 && v[k - 1]->entry > v[k]->entry; k--) {
			const struct ufunc *t = v[k];

			v[k] = v[k - 1];
			v[k - 1] = t;
		}
	for (size_t i = 1, w = 1; i <= n; i++) {
		if (i == n) {
			n = w;
			break;
		}
		if (v[i]->entry != v[w - 1]->entry)
			v[w++] = v[i];
	}
	*out = v;
	return n;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* vmlinux: the n symbol-table functions syms[] (name, addr, size each)
 * that no function read from DWARF starts at (name.cold parts), as 4.8
 * takes them for a pattern without a file. */
static void add_symbol_funcs(struct ubin *b, const struct ufunc *syms, size_t n, bool outer)
{
	uint64_t *entries = malloc(sizeof(*entries) * (b->nfuncs + 1));
	size_t ne = 0, before = b->nfuncs;

	if (!entries)
		abort();
	for (size_t i = 0; i < b->nfuncs; i++)
		if (!outer || !b->funcs[i].inlined)
			entries[ne++] = b->funcs[i].entry;
	qsort(entries, ne, sizeof(*entries), cmp_u64);
	for (size_t i = 0; i < n; i++)
		if (!bsearch(&syms[i].entry, entries, ne, sizeof(*entries), cmp_u64))
			ubin_add_func(b, &syms[i]);
	free(entries);
	if (b->nfuncs != before)
		qsort(b->funcs, b->nfuncs, sizeof(*b->funcs), ufunc_by_name_entry);
}

void ubin_add_symbol_funcs(struct ubin *b, const struct ufunc *syms, size_t n)
{
	add_symbol_funcs(b, syms, n, false);
}

void ubin_add_outer_symbol_funcs(struct ubin *b, const struct ufunc *syms, size_t n)
{
	add_symbol_funcs(b, syms, n, true);
}
