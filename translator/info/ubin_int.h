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
	/* vmlinux: a sink for the names of the functions of a CU (kindex.c) */
	void (*name_sink)(void *arg, const char *name);
	void *sink_arg;
	char *map;		/* vmlinux: the file's read-only mapping, or NULL */
	size_t map_size;
	uint64_t interned;	/* vmlinux: libdw knows the CUs below this */
	Dwarf *ldw;		/* vmlinux: the handle lines are read with */
	uint64_t lcus[8];		/* ... the CUs whose lines it read */
	size_t nlcus;
	uint64_t linterned;	/* ... the CUs it knows */
	unsigned long nvars_read;	/* vmlinux: ubin_vars() calls */
	const char *sym_glob;	/* a module: ubin_kmod_symbol_funcs() done for it */
	struct kindex *kindex;	/* vmlinux: kindex.c's index, once tried */
	bool kindex_tried;
	struct ubin *next;
};

/* ubin.c: append f to b's functions (unsorted until the caller sorts) */
void ubin_add_func(struct ubin *b, const struct ufunc *f);
/* usymtab.c: the symbol table's functions DWARF does not describe, and
 * the other names of those it does (read once, at ubin_open()) */
void ubin_read_symtab_funcs(struct ubin *b);
/* vmlinux: the CU DIE of the unit whose header is at off, libdw
 * learning the units before it a few megabytes at a time (ubin_vm_trim()
 * between): false if none */
bool ubin_vm_cu(struct ubin *b, uint64_t off, Dwarf_Die *cu);
/* kvm.c: vmlinux: find the mapping ubin_vm_trim() lets go of */
void ubin_vm_map(struct ubin *b);
/* vmlinux: die (of b->dw) as a DIE of the handle its CU's lines are read
 * with (others: die itself); valid until the next call */
bool ubin_lines_die(struct ubin *b, Dwarf_Die *die, Dwarf_Die *out);
/* vmlinux: let go of the pages of its file this process has mapped (all
 * read-only: the next read maps them again from the page cache) */
void ubin_vm_trim(struct ubin *b);
/* vmlinux: call b->name_sink on the name of each function and inlined
 * instance of the CU (the names ubin_read_cus() may take from it) */
void ubin_cu_func_names(struct ubin *b, Dwarf_Die *cu);
/* The file declaring die (a DIE of b->dw), NULL if none; valid until
 * the next call (vmlinux: read through the handle of lines_die()). */
const char *ubin_decl_file(struct ubin *b, Dwarf_Die *die);
/* kindex.c: the directory of the DWARF indexes ($SYSTEMTAP_DIR/cache/kdwarf),
 * made if needed; NULL when there is none to write (--disable-cache) */
const char *kindex_dir(struct session *s);
/* kdwarf.c: an ELF file's GNU build ID as hex into hex[129] ("" if none),
 * whether it has .debug_info into *dwarf; false if it is not ELF */
bool ubin_elf_facts(const char *path, char *hex, bool *dwarf);
/* kindex.c: the index's memory */
void kindex_free(struct ubin *b);
/* the order of b->funcs: by name, then entry (qsort) */
int ufunc_by_name_entry(const void *a, const void *b);

#endif /* UBIN_INT_H */
