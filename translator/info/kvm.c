/*
 * kvm.c - the debug vmlinux's DWARF read in bounded memory (ubin.c opens
 * it, kdwarf.c and kindex.c say what to read): libdw learns the units one
 * after the other up to the one asked for, walked here a few megabytes at
 * a time with the file pages this process mapped let go between (the
 * private mapping of an ET_EXEC file nobody writes: a page is read again
 * from the page cache when needed); line tables, which libdw keeps until
 * dwarf_end(), are read through a second handle ended every few CUs.
 */
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include <gelf.h>

#include "ubin.h"
#include "ubin_int.h"

/* vmlinux: the private mapping of the whole file libelf made, where
 * .debug_info is (checked in /proc/self/maps: a file's mapping, not
 * memory of ours), for ubin_vm_trim(); NULL if not found. Nothing writes
 * to it: libdwfl relocates only ET_REL files' DWARF in place. */
void ubin_vm_map(struct ubin *b)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	GElf_Shdr sh;
	const char *n;
	char line[4096];
	FILE *f;
	struct stat st;
	uintptr_t base = 0;
	GElf_Ehdr eh;

	if (!gelf_getehdr(b->elf, &eh) || eh.e_type != ET_EXEC ||
	    elf_getshdrstrndx(b->elf, &shstrndx) || stat(b->path, &st))
		return;
	while ((scn = elf_nextscn(b->elf, scn)))
		if (gelf_getshdr(scn, &sh) && (n = elf_strptr(b->elf, shstrndx, sh.sh_name)) &&
		    !strcmp(n, ".debug_info") && sh.sh_type == SHT_PROGBITS &&
		    !(sh.sh_flags & SHF_COMPRESSED)) {
			Elf_Data *d = elf_rawdata(scn, NULL);

			if (d && d->d_buf)
				base = (uintptr_t)d->d_buf - sh.sh_offset;
			break;
		}
	if (!base || (base & 4095) || !(f = fopen("/proc/self/maps", "re")))
		return;
	while (fgets(line, sizeof(line), f)) {
		unsigned long lo, hi, foff;
		char perms[8], path[4096];

		if (sscanf(line, "%lx-%lx %7s %lx %*s %*s %4095s", &lo, &hi, perms, &foff,
			   path) == 5 && lo == base && !foff && perms[3] == 'p' &&
		    hi - lo >= (uint64_t)st.st_size && path[0] == '/') {
			b->map = (char *)base;
			b->map_size = (size_t)st.st_size;
			break;
		}
	}
	fclose(f);
}

/* Bytes of .debug_info libdw may walk between two trims. */
#define VM_STEP (4u << 20)

/* dw's DIE at off, libdw learning the units before it (from *known, a
 * unit's start) VM_STEP bytes at a time, each step's pages let go. */
static bool vm_offdie(struct ubin *b, Dwarf *dw, uint64_t *known, uint64_t off, Dwarf_Die *die)
{
	Dwarf_Off at = *known, next, last = *known;
	size_t hsize;

	while (b->map && at + VM_STEP < off &&
	       dwarf_nextcu(dw, at, &next, &hsize, NULL, NULL, NULL) == 0) {
		if (next - last >= VM_STEP) {
			if (!dwarf_offdie(dw, at + hsize, die))
				break;
			ubin_vm_trim(b);
			last = at;
		}
		at = next;
	}
	if (at > *known && at <= off)
		*known = at;
	return dwarf_offdie(dw, off, die) != NULL;
}

bool ubin_vm_cu(struct ubin *b, uint64_t off, Dwarf_Die *cu)
{
	Dwarf_Off next;
	size_t hsize;

	return dwarf_nextcu(b->dw, off, &next, &hsize, NULL, NULL, NULL) == 0 &&
	       vm_offdie(b, b->dw, &b->interned, off + hsize, cu);
}

/*
 * vmlinux: libdw keeps the line table of each CU it read one of until
 * dwarf_end(), tens of megabytes for a few hundred CUs: lines (and
 * declaring files, read from them) are read through a second handle on
 * the same file, ended and begun again once LINES_CUS CUs have had theirs
 * read. die, of b->dw, becomes that handle's DIE at the same offset (what
 * it gives lives until the next call).
 */
#define LINES_CUS 8

bool ubin_lines_die(struct ubin *b, Dwarf_Die *die, Dwarf_Die *out)
{
	Dwarf_Die cu;
	uint64_t key;
	size_t i;

	if (!b->vmlinux) {
		*out = *die;
		return true;
	}
	if (!dwarf_diecu(die, &cu, NULL, NULL))
		return false;
	key = dwarf_dieoffset(&cu);
	for (i = 0; i < b->nlcus && b->lcus[i] != key; i++)
		;
	if (i == b->nlcus) {
		if (b->nlcus == LINES_CUS) {
			dwarf_end(b->ldw);
			b->ldw = NULL;
			b->nlcus = 0;
			b->linterned = 0;
			ubin_vm_trim(b);
		}
		if (!b->ldw && !(b->ldw = dwarf_begin_elf(b->elf, DWARF_C_READ, NULL)))
			return false;
		b->lcus[b->nlcus++] = key;
	}
	return vm_offdie(b, b->ldw, &b->linterned, dwarf_dieoffset(die), out);
}

/* The file declaring die (its DW_AT_decl_file), NULL if none. */
const char *ubin_decl_file(struct ubin *b, Dwarf_Die *die)
{
	Dwarf_Die d;

	return ubin_lines_die(b, die, &d) ? dwarf_decl_file(&d) : NULL;
}

void ubin_vm_trim(struct ubin *b)
{
	if (b->map)
		madvise(b->map, b->map_size, MADV_DONTNEED);
}
