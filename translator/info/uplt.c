/*
 * uplt.c - the PLT entries of a user-space binary, for
 * process("PATH").plt("GLOB") probes: each R_X86_64_JUMP_SLOT relocation
 * of .rela.plt names the function its entry calls, in the order of the
 * entries (x86_64 ld: .plt.sec entry i, or .plt entry i + 1 after the
 * resolver stub; 16 bytes each). Sorted by name, as 4.8 lists them.
 */
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "ubin.h"

#define PLT_ENTRY 16
#define R_JUMP_SLOT 7	/* R_X86_64_JUMP_SLOT */

Elf *ubin_elf(struct ubin *b);

static bool find_section(Elf *e, const char *want, Elf_Scn **out, GElf_Shdr *sh)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;

	if (elf_getshdrstrndx(e, &shstrndx))
		return false;
	while ((scn = elf_nextscn(e, scn))) {
		const char *name;

		if (!gelf_getshdr(scn, sh))
			continue;
		name = elf_strptr(e, shstrndx, sh->sh_name);
		if (name && !strcmp(name, want)) {
			*out = scn;
			return true;
		}
	}
	return false;
}

static int by_name(const void *a, const void *b)
{
	const struct uplt *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : (x->addr > y->addr) - (x->addr < y->addr);
}

size_t ubin_match_plts(struct session *s, struct ubin *b, const char *glob,
		       struct uplt **out)
{
	Elf *e = ubin_elf(b);
	Elf_Scn *rel, *plt;
	GElf_Shdr rsh, psh;
	Elf_Data *d;
	uint64_t base;
	struct uplt *v;
	size_t n, k = 0;

	*out = NULL;
	if (!find_section(e, ".rela.plt", &rel, &rsh) || rsh.sh_type != SHT_RELA ||
	    !rsh.sh_entsize || !(d = elf_getdata(rel, NULL)))
		return 0;
	if (find_section(e, ".plt.sec", &plt, &psh))
		base = psh.sh_addr;
	else if (find_section(e, ".plt", &plt, &psh))
		base = psh.sh_addr + PLT_ENTRY;
	else
		return 0;
	n = rsh.sh_size / rsh.sh_entsize;
	v = arena_alloc(s->arena, (n + 1) * sizeof(*v));
	for (size_t i = 0; i < n; i++) {
		GElf_Rela r;
		GElf_Sym sym;
		Elf_Scn *dyn = elf_getscn(e, rsh.sh_link);
		GElf_Shdr dsh;
		Elf_Data *dd;
		const char *name;

		if (!gelf_getrela(d, (int)i, &r) || GELF_R_TYPE(r.r_info) != R_JUMP_SLOT ||
		    !dyn || !gelf_getshdr(dyn, &dsh) || !(dd = elf_getdata(dyn, NULL)) ||
		    !gelf_getsym(dd, (int)GELF_R_SYM(r.r_info), &sym))
			continue;
		name = elf_strptr(e, dsh.sh_link, sym.st_name);
		if (!name || !*name || fnmatch(glob, name, 0))
			continue;
		v[k++] = (struct uplt){ arena_strdup(s->arena, name),
					base + PLT_ENTRY * (uint64_t)i };
	}
	qsort(v, k, sizeof(*v), by_name);
	*out = v;
	return k;
}
