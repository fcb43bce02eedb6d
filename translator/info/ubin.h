/*
 * ubin.h - user-space binaries for process("PATH") probes: the ELF and
 * DWARF of an executable or library read with libelf/libdw (ubin.c),
 * its variables' types as BTF (utypes.c) and their DWARF locations as C
 * (uloc.c), line tables (ulines.c), labels and calls (ulabel.c), PLT
 * entries (uplt.c), and kernel modules read the same way (kdwarf.c). The
 * process family (family/process/) probes what they find.
 */
#ifndef UBIN_H
#define UBIN_H

#include <stdbool.h>
#include <stdint.h>

#include <gelf.h>

#include "stap.h"

/* the bytes of one object copy in the runtime (STP_UOBJ_SIZE) */
#define STP_UOBJ_BYTES 64

struct ubin;
struct kcat_arg;
struct strbuf;

/* A function: from DWARF (file and line known) or only the symbol table. */
struct ufunc {
	const char *name;
	const char *file;	/* declaring file (absolute), NULL: no DWARF */
	int line;
	uint64_t entry;		/* link-time address of its first instruction */
	uint64_t end;		/* one past its last, 0 when unknown */
	uint64_t die;		/* DWARF DIE offset, 0: symbol table only */
	uint64_t outer;		/* the subprogram holding it (frame base) */
	bool inlined;		/* an inlined instance (no ABI, no .return) */
	uint64_t prologue;	/* vmlinux: ubin_after_prologue(), 0: not known */
};

/* An SDT marker of .note.stapsdt. */
struct usdt {
	const char *provider, *name;
	const char *args;	/* "-4@%eax 8@-24(%rbp)" */
	uint64_t pc;		/* link-time address */
	uint64_t sem;		/* semaphore's link-time address, 0: none */
};

/* A PLT entry: the function it calls. */
struct uplt {
	const char *name;
	uint64_t addr;		/* link-time address of the entry */
};

/* A DWARF label of a function. */
struct ulabel {
	const char *name, *file;
	int line;
	uint64_t addr;
};

/* A call site of a function: the function called and the return address. */
struct ucall {
	const struct ufunc *callee;
	uint64_t ret;
};

/* A variable a probe at some pc can read. */
struct uvar {
	const char *name;
	const char *type;	/* as upstream's -L prints it */
	unsigned int type_id;	/* in ubin_btf() */
	uint64_t die;
	uint64_t addr;		/* a global only declared (the kernel's jiffies,
				 * which the linker script defines): its symbol's */
	bool param;
};

/* ---- ubin.c ---- */
/* The binary `name` means as 4.8 finds it: a path (relative to the
 * current directory) made absolute, or a bare name looked up in $PATH;
 * NULL when there is no such regular file. */
const char *ubin_find(struct session *s, const char *name);
/* Is path a 64-bit ELF file (the only ones ubin_open takes)? */
bool ubin_is_64bit(const char *path);
/* Opened once per session; NULL (reported) when it is not ELF. */
struct ubin *ubin_open(struct session *s, const char *path, struct loc at);
void ubin_close_all(struct session *s);
/* A kernel module's .ko with its DWARF (relocated by libdwfl), `name` to
 * the kernel; NULL when it has no DWARF. */
struct ubin *ubin_open_kmod(struct session *s, const char *path, const char *name);
bool ubin_is_kernel(const struct ubin *b);
/* The kernel's own vmlinux with DWARF (kdwarf.c finds it): its functions
 * are read by compilation unit, on demand. */
struct ubin *ubin_open_vmlinux(struct session *s, const char *path);
bool ubin_is_vmlinux(const struct ubin *b);
/* vmlinux: read the functions of the CUs whose name want() accepts (only
 * those name_glob matches, if not NULL), or of the CU holding addr. */
void ubin_read_cus(struct ubin *b, bool (*want)(void *arg, const char *cu), void *arg,
		   const char *name_glob);
void ubin_read_cu_at(struct ubin *b, uint64_t addr);
/* vmlinux: read the functions of the n CUs whose headers are at offs
 * (only those name_glob matches, if not NULL). */
void ubin_read_cu_offs(struct ubin *b, const uint64_t *offs, size_t n, const char *name_glob);
/* vmlinux: add those of the n symbol-table functions syms (name, entry,
 * end) no DWARF function starts at. */
void ubin_add_symbol_funcs(struct ubin *b, const struct ufunc *syms, size_t n);
/* ... where no function starts but inlined copies (a module's, as 4.8) */
void ubin_add_outer_symbol_funcs(struct ubin *b, const struct ufunc *syms, size_t n);
/* A module: add the functions of its symbol table matching glob that
 * no DWARF function starts at (name.cold). */
void ubin_kmod_symbol_funcs(struct ubin *b, const char *glob);
/* vmlinux: its symbol table (ksymtab.c), read on first use. */
struct kstab *ubin_kstab(struct ubin *b);
/* The name of the section holding addr, "" if none. */
const char *ubin_section_of(struct ubin *b, uint64_t addr);
/* addr's offset in that section */
uint64_t ubin_section_offset(struct ubin *b, uint64_t addr);
const char *ubin_kmod(const struct ubin *b);
/* The module as the probe point names it (pp()): the path, or the name. */
void ubin_set_label(struct ubin *b, const char *label);
const char *ubin_label(const struct ubin *b);
/* The function (code) or variable symbol of a module holding addr, and
 * the offset in it: the kernel resolves "module:symbol" at load time. */
bool ubin_ksym(struct ubin *b, uint64_t addr, bool code, const char **sym, uint64_t *off);
/* Is the module's instruction at addr a call (the __fentry__ one)? */
bool ubin_kcall_at(struct ubin *b, uint64_t addr);
/* The libraries b needs whose names match glob (or the path glob), as
 * real paths. */
size_t ubin_libraries(struct session *s, struct ubin *b, const char *glob,
		      const char ***out);
const char *ubin_path(const struct ubin *b);
/* the session's binaries after b (s->ubins first), for the module cache */
const struct ubin *ubin_next(const struct ubin *b);
/* Call fn on each ELF note of e until it returns true. */
typedef bool (*elf_note_fn)(void *arg, const GElf_Nhdr *nh, const char *name,
			    const unsigned char *desc);
void elf_each_note(Elf *e, elf_note_fn fn, void *arg);
/* Where separate debuginfo is searched (elfutils' syntax): every lookup
 * of it goes through this (SYSTEMTAP_DEBUGINFO_PATH, else 4.8's default
 * for the kernel and its modules, or for user space). */
const char *debuginfo_path(struct session *s, bool kernel);
/* The separate debuginfo file e's GNU build ID names under a directory
 * of the debuginfo path (Debian's -dbg packages), or NULL. */
const char *elf_debug_path(struct session *s, Elf *e);
/* Functions matching a wildcard, by name (DWARF ones and the symbol
 * table's others). */
size_t ubin_match_funcs(struct ubin *b, const char *glob, const struct ufunc ***out);
const char *ubin_func_at(struct ubin *b, uint64_t addr);
/* The (not inlined) function whose code holds addr, or NULL. */
const struct ufunc *ubin_func_holding(struct ubin *b, uint64_t addr);
/* The inlined instances directly in f (a function or an inlined
 * instance: in its blocks, not in the instances inlined in those) whose
 * code is one range, in DWARF order. */
size_t ubin_inlined_in(struct ubin *b, const struct ufunc *f, const struct ufunc ***out);
/* The name of the function an inlined copy f is in (f's own otherwise). */
const char *ubin_outer_name(struct ubin *b, const struct ufunc *f);
size_t ubin_symbols(struct ubin *b, const struct ufunc ***out);
/* ---- uorder.c ---- */
/* The order of n names in 4.8's hash table of them, filled in this
 * order: out[i] is the index of the i-th it walks. */
void uorder(const char *const *names, size_t n, size_t *out);
/* ... then the m of extra (one range insert), their indexes n + j */
void uorder_more(const char *const *names, size_t n, const char *const *extra, size_t m,
		 size_t *out);
uint64_t uorder_hash(const char *s);
/* fs (a kernel's or module's functions) in the order 4.8 probes them:
 * by unit, in each its functions as its table walks them, then their
 * inlined copies; those without DWARF last. For a name without wildcard
 * or file, exact: the kinds the probe takes (UORDER_*), else 0. */
#define UORDER_FUNCS 1
#define UORDER_INLINED 2
void ubin_upstream_order(struct session *s, struct ubin *b, const struct ufunc **fs, size_t n,
			 int exact);
/* Does the source path src name file (a glob of it, or its tail)? */
bool ubin_file_matches(const char *src, const char *file);
size_t ubin_match_sdts(struct ubin *b, const char *provider, const char *glob,
		       const struct usdt ***out);
/* The file offset of a link-time address (PT_LOAD); false if unmapped. */
bool ubin_file_offset(const struct ubin *b, uint64_t addr, uint64_t *off);
/* A shared object or PIE (ET_DYN), not a fixed-address executable? */
bool ubin_is_dyn(const struct ubin *b);
/* The page of its lowest PT_LOAD address (0 for a PIE). */
uint64_t ubin_load_base(const struct ubin *b);
/* The address after f's prologue (the second line-table row), else entry. */
/* The DW_AT_producer of f's CU (the compiler and its flags), or NULL. */
const char *ubin_producer(struct ubin *b, const struct ufunc *f);
uint64_t ubin_after_prologue(struct ubin *b, const struct ufunc *f);
/* A source line and its address. */
struct uline_addr {
	int line;
	uint64_t addr;
};
/* The lines of FILE (NULL: any) with line-table rows inside f, ascending,
 * each at the lowest address of its rows there (statement or not, as
 * 4.8); their number. */
size_t ubin_func_lines(struct session *s, struct ubin *b, const struct ufunc *f,
		       const char *file, struct uline_addr **out);
/* The line of the last line-table row at addr (f's compilation unit): the
 * one in effect there; 0 if none. */
int ubin_line_at(struct ubin *b, const struct ufunc *f, uint64_t addr);
/* Does a line-table row of f's unit start at addr? If not, *prev is the
 * highest row address below it (0: none). */
bool ubin_row_at(struct ubin *b, const struct ufunc *f, uint64_t addr, uint64_t *prev);
/* The line of FILE with code nearest to line in f's compilation unit
 * (.nearest); false if none. */
bool ubin_nearest_line(struct ubin *b, const struct ufunc *f, const char *file, int line,
		       int *found);
/* f's parameters then its locals visible at pc (0: the outermost scope),
 * the locals only if they have a location at loc_pc (when not 0), as
 * upstream lists them; the return type (NULL for void) in *ret. */
int ubin_vars(struct session *s, struct ubin *b, const struct ufunc *f,
	      uint64_t pc, uint64_t loc_pc, struct uvar **out, struct uvar *ret);
/* A global variable `name` declared in a file matching `file` (NULL:
 * any); false if none. */
bool ubin_global(struct session *s, struct ubin *b, const char *name,
		 const char *file, struct uvar *out);

/* ---- uplt.c ---- */
/* The PLT entries whose function matches glob, sorted by name. */
size_t ubin_match_plts(struct session *s, struct ubin *b, const char *glob,
		       struct uplt **out);

/* ---- ulabel.c ---- */
/* f's labels whose name matches glob, in DWARF order. */
size_t ubin_labels(struct session *s, struct ubin *b, const struct ufunc *f,
		   const char *glob, struct ulabel **out);
/* f's (GNU) call sites of functions of b matching glob, sorted by callee
 * then return address. */
size_t ubin_calls(struct session *s, struct ubin *b, const struct ufunc *f,
		  const char *glob, struct ucall **out);

/* ---- utypes.c: DWARF types as BTF, for elab/deref.c ---- */
struct btf;
const struct btf *ubin_btf(struct ubin *b);
unsigned int utype_to_btf(struct session *s, struct ubin *b, uint64_t type_die);
void utypes_free(struct ubin *b);
unsigned int utype_by_name(struct session *s, struct ubin *b, const char *name);

/* ---- uloc.c: a variable's value as C ---- */
/* The body of `static int64_t f(struct stp_context *c)` that returns the
 * value of variable v (its address when it is in memory and *lvalue is
 * then set) at link-time pc; NULL with *why set when it cannot be read. */
const char *uloc_getter(struct session *s, struct ubin *b, const struct ufunc *f,
			const struct uvar *v, uint64_t pc, int width,
			bool *lvalue, const char **why);
/* The body of a setter `static void f(struct stp_context *c, int64_t v)`
 * (guru writes): v's register or memory at pc; NULL and *why if none. */
const char *uloc_setter(struct session *s, struct ubin *b, const struct ufunc *f,
			const struct uvar *v, uint64_t pc, int width, const char **why);
/* 4.8's lines about v having no location at pc ("\n        dieoffset: ...",
 * "function: F at FILE:LINE:COL", "alternative locations: [LO,HI], ..."). */
const char *uloc_unavailable_detail(struct session *s, struct ubin *b, const struct ufunc *f,
				    const struct uvar *v, uint64_t pc);
/* 4.8's "unable to find local 'name'" message for a kernel or module
 * variable that f's innermost scope at pc does not hold (its
 * alternatives: the nearest names of that scope). */
const char *uloc_unfound_local(struct session *s, struct ubin *b, const struct ufunc *f,
			       const char *name, uint64_t pc);
/* The same for the SDT operand text `arg` ("-4@%eax", "8@-24(%rbp)"). */
const char *uloc_sdt_getter(struct session *s, const char *arg, const char **why);

/* ---- uobjs.c: the user objects whose symbols a session carries ---- */
#define UOBJ_MAX 64
#define UOBJ_MAXSEGS 8

/* One symbol (a function, data object or ifunc) at its link-time address. */
struct usym {
	uint64_t addr, size;
	const char *name;
	size_t index;		/* order in the symbol table: last one wins */
};

/* One object: its canonical path, symbols sorted by address (one per
 * address, the last of the table), the end of the last, its segments and
 * unwind sections. */
struct uobj {
	const char *path;
	struct usym *syms;
	size_t nsyms;
	uint64_t sym_end;
	bool is_dyn;
	uint64_t file_size;
	uint64_t seg[UOBJ_MAXSEGS][3];	/* offset, vaddr, filesz */
	int nsegs;
	unsigned char *eh, *hdr;
	size_t eh_len, hdr_len;
	uint64_t eh_addr, hdr_addr;
	size_t nlines;		/* rows of its line table, 0: none */
};

/* The objects named with -d (ELF files; with warn, 4.8's warning for
 * another name but "kernel"), the nbins binaries of process probes
 * (elab's rp_binaries()), with --ldd the libraries they need: their
 * canonical paths (UOBJ_MAX at most) into paths, their number returned. */
int uobjs_collect(struct session *s, const char *const *bins, int nbins, const char **paths,
		  bool warn);
/* Read the object at path into o (zeroed by the caller); false: no ELF. */
bool uobj_read(struct session *s, const char *path, struct uobj *o);

/* ---- ulines.c ---- */
/* The line table of the object at path as stp_uline_*_K arrays; false
 * (and nothing written) when it has none. */
bool ulines_emit(struct session *s, struct strbuf *c, const char *path, int k,
		 size_t *nrows);

/* ---- kdwarf.c: the kernel and its modules with DWARF ---- */
struct ubin *kdwarf_module(struct session *s, const char *spec);
/* The kernel's vmlinux with DWARF found in the debuginfo path (as 4.8:
 * DIR/boot/vmlinux-KVER, DIR/lib/modules/KVER/vmlinux, by build ID, the
 * -r tree's vmlinux), checked against the kernel's build ID when that is
 * known; NULL (nothing said) when there is none, *why set when one was
 * found but does not match. */
struct ubin *kdwarf_kernel(struct session *s, const char **why);
/* Read the CUs a point needs: those whose name matches file (a .c glob),
 * else the CU of fn when it is one global function, else the functions
 * fn matches in every CU. */
void kdwarf_prepare(struct session *s, struct ubin *b, const char *fn, const char *file);
/* The offset of the CU (its header) whose code holds addr, from
 * .debug_aranges; false if it says none. */
bool kdwarf_aranges_cu(struct ubin *b, uint64_t addr, uint64_t *cu_off);
/* Why kernel function f must not be probed by DWARF, as 4.8's
 * blacklist by file and section; NULL if it may. */
const char *kdwarf_blacklisted(struct session *s, struct ubin *b, const struct ufunc *f);
/* what it returns for 4.8's blacklists of sections and of files */
#define KDWARF_BL_SECTION kdwarf_bl_section
#define KDWARF_BL_FILE kdwarf_bl_file
extern const char kdwarf_bl_section[], kdwarf_bl_file[];
/* Is a function declared in file on 4.8's blacklist of files (modules too)? */
bool kdwarf_file_blacklisted(const char *file);
/* The index of "module:symbol" in the table the runtime resolves. */
int kdwarf_ksym_index(struct session *s, const char *name);
void kdwarf_emit_ksyms(struct session *s, struct strbuf *c);

/* ---- kmodidx.c: the function names of a module's DWARF, in the cache ---- */
/* Does the DWARF of the module whose .ko is at path define a function or
 * inlined function that glob matches: 1 or 0; -1 when it has no DWARF
 * (or build ID) to tell. */
int kmodidx_defines(struct session *s, const char *path, const char *glob);

/* ---- kindex.c: the index of vmlinux's DWARF in the cache ---- */
struct kindex;
/* The index of vmlinux b (its build ID known), read from the user's
 * cache directory, else built and written there; NULL without one. */
struct kindex *kindex_get(struct session *s, struct ubin *b);
/* The header offsets of the CUs whose name want() accepts, ascending. */
size_t kindex_cus_named(struct session *s, struct kindex *k,
			bool (*want)(void *arg, const char *cu), void *arg, uint64_t **offs);
/* ... of the CUs defining a function or inlined instance whose name
 * matches glob (NULL: any). */
/* The offset of the first CU defining the named type of tag (0: a
 * typedef, base type, struct or union): 1, 0 when none does, -1 when
 * there is no index. */
int kindex_type_cu(struct session *s, struct ubin *b, int tag, const char *name,
		   uint64_t *off);
size_t kindex_cus_defining(struct session *s, struct kindex *k, const char *glob,
			   uint64_t **offs);

/* ---- ksymtab.c: vmlinux's symbol table ---- */
struct kstab;
struct kstab *kstab_read(Elf *e);
void kstab_free(struct kstab *t);
/* Where a kprobe goes for code at addr: the holding function's symbol if
 * its name is unique, else _stext (data: always _stext); the offset. */
bool kstab_at(struct kstab *t, uint64_t addr, bool code, const char **sym, uint64_t *off);
/* The function symbols matching glob, as symbol-only ufuncs (in the
 * session's arena); how many. */
size_t kstab_match_funcs(struct session *s, struct kstab *t, const char *glob,
			 struct ufunc **out);
/* The address of `name` when its only symbol is a global function. */
bool kstab_global_func(struct kstab *t, const char *name, uint64_t *addr);
/* Is there a symbol `name` (or a constprop/isra clone) at addr? */
bool kstab_has_at(struct kstab *t, const char *name, uint64_t addr);
/* Is the first symbol `name` a global (or weak) function (4.8's
 * .exported)? */
bool kstab_exported(struct kstab *t, const char *name);
/* Does any symbol start at addr? */
bool kstab_any_at(struct kstab *t, uint64_t addr);
/* The address of symbol name, 0 if none. */
uint64_t kstab_addr(struct kstab *t, const char *name);

/* Internal: libdw handles of a ubin. */
struct Dwarf;
struct Dwarf *ubin_dwarf(struct ubin *b);
struct Dwarf_CFI_s;

#endif /* UBIN_H */
