/*
 * ubin_int.h - the inside of a struct ubin, shared by the files of info/
 * that read a binary's functions (ubin.c: ELF, DWARF, lines, variables;
 * usymtab.c: its symbol table and the aliases of its functions). Nothing
 * outside info/ includes it: ubin.h is the interface.
 */
#ifndef UBIN_INT_H
#define UBIN_INT_H

#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>

#include "ubin.h"

/* A symbol-table name of a DWARF function (malloc for __libc_malloc). */
struct ualias {
	const char *name;
	uint64_t entry;
};

struct ubin {
	struct session *s;
	const char *path;
	int fd;
	Elf *elf;
	Dwarf *dw;		/* NULL without DWARF */
	int dbg_fd;		/* the separate debuginfo file, or -1 */
	Elf *dbg_elf;
	struct ufunc *funcs;	/* sorted by name, then entry */
	size_t nfuncs, capfuncs;
	struct ualias *aliases;	/* other symbol names of DWARF functions */
	size_t naliases, capaliases;
	struct usdt *sdts;
	size_t nsdts;
	Dwarf_CFI *cfi;		/* .eh_frame, read on first use */
	struct btf *btf;	/* utypes.c */
	void *types;		/* utypes.c: DIE -> BTF id memo */
	Dwfl *dwfl;		/* a kernel module (.ko): libdwfl relocated it */
	Dwfl_Module *dwmod;
	const char *kmod;	/* its name as the kernel knows it */
	const char *label;	/* as the probe point wrote it (pp()) */
	bool vmlinux;		/* the kernel: functions read by CU, on demand */
	uint64_t *cus;		/* vmlinux: the CUs read (DIE offsets) */
	size_t ncus, capcus;
	struct kstab *kstab;	/* vmlinux: its symbol table (ksymtab.c) */
	const char *name_glob;	/* vmlinux: read only the functions it matches */
	struct ubin *next;
};

/* ubin.c: append f to b's functions (unsorted until the caller sorts) */
void ubin_add_func(struct ubin *b, const struct ufunc *f);
/* usymtab.c: the symbol table's functions DWARF does not describe, and
 * the other names of those it does (read once, at ubin_open()) */
void ubin_read_symtab_funcs(struct ubin *b);
/* the order of b->funcs: by name, then entry (qsort) */
int ufunc_by_name_entry(const void *a, const void *b);

#endif /* UBIN_INT_H */
