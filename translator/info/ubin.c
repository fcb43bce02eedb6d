/*
 * ubin.c - the ELF and DWARF of user-space binaries (process("PATH")
 * probes), read with libelf and libdw: finding the binary as SystemTap
 * 4.8 does (relative paths, $PATH), its functions (DWARF subprograms with
 * their declaring file and line, plus the symbol table's other
 * functions), SDT markers (.note.stapsdt), file offsets of addresses (the
 * PT_LOAD segments), line-table lookups for .statement("f@file:N") and
 * for the end of a prologue, and the variables a probe can read.
 * Binaries are opened once per session and kept until ubin_close_all().
 */
#include <fcntl.h>
#include <fnmatch.h>
#include <glob.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <gelf.h>
#include <dwarf.h>

#include "ubin.h"
#include "ubin_int.h"
#include "kcatalog.h"


struct kstab *ubin_kstab(struct ubin *b)
{
	if (!b->kstab)
		b->kstab = kstab_read(b->elf);
	return b->kstab;
}

const char *ubin_path(const struct ubin *b)
{
	return b->path;
}

const struct ubin *ubin_next(const struct ubin *b)
{
	return b->next;
}

struct Dwarf *ubin_dwarf(struct ubin *b)
{
	return b->dw;
}

Elf *ubin_elf(struct ubin *b);
Dwarf_CFI *ubin_cfi(struct ubin *b);

/* The .eh_frame call frame information (NULL if none), kept until close. */
Dwarf_CFI *ubin_cfi(struct ubin *b)
{
	Dwarf_Addr bias;

	if (b->dwmod)	/* .debug_frame, relocated; libdwfl keeps it */
		return dwfl_module_dwarf_cfi(b->dwmod, &bias);
	if (!b->cfi)
		b->cfi = dwarf_getcfi_elf(b->elf);
	return b->cfi;
}

Elf *ubin_elf(struct ubin *b)
{
	return b->elf;
}

/* utypes.c's state */
struct btf **ubin_btf_slot(struct ubin *b);
void **ubin_types_slot(struct ubin *b);

struct btf **ubin_btf_slot(struct ubin *b)
{
	return &b->btf;
}

void **ubin_types_slot(struct ubin *b)
{
	return &b->types;
}

/* ---- finding the file ---------------------------------------------------- */

static bool is_exec_file(const char *p)
{
	struct stat st;

	return !stat(p, &st) && S_ISREG(st.st_mode);
}

/* An ELF file of that class (what a glob may pick)? */
static bool is_elf(const char *p, int class)
{
	char m[5] = { 0 };
	int fd = open(p, O_RDONLY | O_CLOEXEC);
	bool r = fd >= 0 && read(fd, m, 5) == 5 && !memcmp(m, "\177ELF", 4) &&
		 m[EI_CLASS] == class;

	if (fd >= 0)
		close(fd);
	return r;
}

bool ubin_is_64bit(const char *path)
{
	return is_elf(path, ELFCLASS64);
}

/* The first ELF file of that class a glob matches, as a real path. */
static const char *glob_elf(struct session *s, const char *name, int class)
{
	glob_t g;
	const char *r = NULL;

	if (!glob(name, 0, NULL, &g))
		for (size_t i = 0; !r && i < g.gl_pathc; i++)
			if (is_elf(g.gl_pathv[i], class))
				r = ubin_find(s, g.gl_pathv[i]);
	globfree(&g);
	return r;
}

/*
 * The first 64-bit ELF file a glob with a '/' matches, as a real path;
 * else its first 32-bit one, which ubin_open() refuses with the reason
 * (4.8 probes those; this version does not).
 */
const char *ubin_find(struct session *s, const char *name)
{
	char buf[PATH_MAX];
	const char *path;

	if (!*name)
		return NULL;
	if (strchr(name, '/') && strpbrk(name, "*?[")) {
		path = glob_elf(s, name, ELFCLASS64);
		return path ? path : glob_elf(s, name, ELFCLASS32);
	}
	if (strchr(name, '/')) {
		if (!is_exec_file(name) || !realpath(name, buf))
			return NULL;
		return arena_strdup(s->arena, buf);
	}
	path = getenv("PATH");
	while (path && *path) {
		size_t n = strcspn(path, ":");
		const char *cand = arena_printf(s->arena, "%.*s/%s", (int)n, n ? path : ".", name);

		if (is_exec_file(cand) && !access(cand, X_OK) && realpath(cand, buf))
			return arena_strdup(s->arena, buf);
		path += n + (path[n] == ':');
	}
	return NULL;
}

/* ---- functions ------------------------------------------------------------ */

void ubin_add_func(struct ubin *b, const struct ufunc *f)
{
	if (b->nfuncs == b->capfuncs) {
		b->capfuncs = b->capfuncs ? b->capfuncs * 2 : 64;
		b->funcs = realloc(b->funcs, sizeof(*b->funcs) * b->capfuncs);
		if (!b->funcs)
			abort();
	}
	b->funcs[b->nfuncs++] = *f;
}

/* The entry of a function with code, and the end of its code there (0:
 * unknown): code split in ranges (a hot and a cold part) starts at its
 * first range. */
static bool die_entry(Dwarf_Die *die, Dwarf_Addr *lo, Dwarf_Addr *hi)
{
	Dwarf_Addr base, s, e;
	ptrdiff_t off;

	*hi = 0;
	if (dwarf_entrypc(die, lo) == 0) {
		if (dwarf_highpc(die, hi) != 0)
			*hi = 0;
		return true;
	}
	off = dwarf_ranges(die, 0, &base, &s, &e);
	if (off <= 0)
		return false;
	*lo = s;
	*hi = e;
	return true;
}

/* A function (or an inlined instance, inside `outer`) with code. */
static void add_dwarf_func(struct ubin *b, Dwarf_Die *die, uint64_t outer)
{
	struct ufunc f = { 0 };
	Dwarf_Addr lo, hi;
	const char *name = dwarf_diename(die), *file;

	if (b->name_sink) {
		if (name && !dwarf_hasattr(die, DW_AT_declaration) && die_entry(die, &lo, &hi))
			b->name_sink(b->sink_arg, name);
		return;
	}
	if (!name || (b->name_glob && fnmatch(b->name_glob, name, 0)) ||
	    dwarf_hasattr(die, DW_AT_declaration) || !die_entry(die, &lo, &hi))
		return;
	f.name = arena_strdup(b->s->arena, name);
	file = ubin_decl_file(b, die);
	f.file = arena_strdup(b->s->arena, file ? file : "");
	dwarf_decl_line(die, &f.line);
	f.entry = lo;
	f.end = hi;
	f.die = dwarf_dieoffset(die);
	f.outer = outer ? outer : f.die;
	f.inlined = outer != 0;
	ubin_add_func(b, &f);
}

/* The inlined instances anywhere inside d. */
static void inlined_funcs(struct ubin *b, Dwarf_Die *d, uint64_t outer, int depth)
{
	Dwarf_Die c;

	if (depth > 32 || dwarf_child(d, &c))
		return;
	do {
		int tag = dwarf_tag(&c);

		if (tag == DW_TAG_inlined_subroutine)
			add_dwarf_func(b, &c, outer);
		if (tag == DW_TAG_inlined_subroutine || tag == DW_TAG_lexical_block)
			inlined_funcs(b, &c, outer, depth + 1);
	} while (dwarf_siblingof(&c, &c) == 0);
}

/* The inlined instances directly inside d (in its lexical blocks, not
 * in other inlined instances) whose code is one range (DW_AT_low_pc: the
 * callees 4.8 finds), in DWARF order. */
static void direct_inlined(struct ubin *b, Dwarf_Die *d, uint64_t outer, int depth)
{
	Dwarf_Die c;

	if (depth > 32 || dwarf_child(d, &c))
		return;
	do {
		int tag = dwarf_tag(&c);

		if (tag == DW_TAG_inlined_subroutine && dwarf_hasattr(&c, DW_AT_low_pc))
			add_dwarf_func(b, &c, outer);
		else if (tag == DW_TAG_lexical_block)
			direct_inlined(b, &c, outer, depth + 1);
	} while (dwarf_siblingof(&c, &c) == 0);
}

size_t ubin_inlined_in(struct ubin *b, const struct ufunc *f, const struct ufunc ***out)
{
	Dwarf_Die d;
	size_t before = b->nfuncs, n;
	struct ufunc *v;
	const struct ufunc **p;

	*out = NULL;
	if (!b->dw || !f->die || !dwarf_offdie(b->dw, f->die, &d))
		return 0;
	direct_inlined(b, &d, f->outer, 0);
	n = b->nfuncs - before;
	v = arena_alloc(b->s->arena, sizeof(*v) * (n + 1));
	p = arena_alloc(b->s->arena, sizeof(*p) * (n + 1));
	for (size_t i = 0; i < n; i++) {
		v[i] = b->funcs[before + i];
		p[i] = &v[i];
	}
	b->nfuncs = before;
	*out = p;
	return n;
}

static int dwarf_func_cb(Dwarf_Die *die, void *arg)
{
	struct ubin *b = arg;
	Dwarf_Addr lo, hi;

	add_dwarf_func(b, die, 0);
	if (die_entry(die, &lo, &hi))
		inlined_funcs(b, die, dwarf_dieoffset(die), 0);
	return DWARF_CB_OK;
}

static void read_dwarf_funcs(struct ubin *b)
{
	Dwarf_Off off = 0, next;
	size_t hsize;

	while (dwarf_nextcu(b->dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu;

		if (dwarf_offdie(b->dw, off + hsize, &cu))
			dwarf_getfuncs(&cu, dwarf_func_cb, b, 0);
		off = next;
	}
}

/* vmlinux: the functions of one CU, unless read already; their ends of
 * prologue found now, while the CU's lines are at hand. */
static void read_cu(struct ubin *b, Dwarf_Die *cu)
{
	uint64_t off = dwarf_dieoffset(cu);
	size_t before = b->nfuncs;

	for (size_t i = 0; i < b->ncus; i++)
		if (b->cus[i] == off)
			return;
	if (!b->name_glob) {	/* some functions only: the CU is not done */
		if (b->ncus == b->capcus) {
			b->capcus = b->capcus ? b->capcus * 2 : 64;
			b->cus = realloc(b->cus, sizeof(*b->cus) * b->capcus);
			if (!b->cus)
				abort();
		}
		b->cus[b->ncus++] = off;
	}
	dwarf_getfuncs(cu, dwarf_func_cb, b, 0);
	for (size_t i = before; i < b->nfuncs; i++)
		if (!b->funcs[i].inlined)
			b->funcs[i].prologue = ubin_after_prologue(b, &b->funcs[i]);
}

/* The name of the function an inlined copy f is in (f's own otherwise). */
const char *ubin_outer_name(struct ubin *b, const struct ufunc *f)
{
	Dwarf_Die d;
	const char *n;

	if (!f->inlined || !b->dw || !dwarf_offdie(b->dw, f->outer, &d) ||
	    !(n = dwarf_diename(&d)))
		return f->name;
	return arena_strdup(b->s->arena, n);
}

/* The name of the (not inlined) function holding addr, or "". */
const struct ufunc *ubin_func_holding(struct ubin *b, uint64_t addr)
{
	for (size_t i = 0; i < b->nfuncs; i++) {
		const struct ufunc *f = &b->funcs[i];

		if (!f->inlined && f->end && addr >= f->entry && addr < f->end)
			return f;
	}
	return NULL;
}

const char *ubin_func_at(struct ubin *b, uint64_t addr)
{
	const struct ufunc *f = ubin_func_holding(b, addr);

	return f ? f->name : "";
}

/* ---- SDT notes ------------------------------------------------------------- */

static uint64_t section_addr(Elf *elf, const char *want)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return 0;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name;

		if (!gelf_getshdr(scn, &sh))
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (name && !strcmp(name, want))
			return sh.sh_addr ? sh.sh_addr : 1;
	}
	return 0;
}

static void read_sdt_note(struct ubin *b, const char *desc, size_t len, uint64_t base)
{
	struct usdt *u;
	uint64_t v[3];
	const char *p = desc + 24, *end = desc + len;

	if (len < 27)
		return;
	memcpy(v, desc, sizeof(v));
	b->sdts = realloc(b->sdts, sizeof(*b->sdts) * (b->nsdts + 1));
	if (!b->sdts)
		abort();
	u = &b->sdts[b->nsdts];
	memset(u, 0, sizeof(*u));
	u->pc = v[0];
	u->sem = v[2];
	if (base && v[1]) {		/* prelinked: move by .stapsdt.base */
		u->pc += base - v[1];
		if (u->sem)
			u->sem += base - v[1];
	}
	u->provider = arena_strndup(b->s->arena, p, strnlen(p, (size_t)(end - p)));
	p += strlen(u->provider) + 1;
	if (p >= end)
		return;
	u->name = arena_strndup(b->s->arena, p, strnlen(p, (size_t)(end - p)));
	p += strlen(u->name) + 1;
	u->args = p < end ? arena_strndup(b->s->arena, p, strnlen(p, (size_t)(end - p))) : "";
	b->nsdts++;
}

void elf_each_note(Elf *e, elf_note_fn fn, void *arg)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;
		GElf_Nhdr nh;
		size_t off = 0, noff, doff;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		d = elf_getdata(scn, NULL);
		while (d && (off = gelf_getnote(d, off, &nh, &noff, &doff)) > 0)
			if (fn(arg, &nh, (const char *)d->d_buf + noff,
			       (const unsigned char *)d->d_buf + doff))
				return;
	}
}

struct sdt_walk {
	struct ubin *b;
	uint64_t base;
};

static bool sdt_note(void *arg, const GElf_Nhdr *nh, const char *name,
		     const unsigned char *desc)
{
	struct sdt_walk *w = arg;

	if (nh->n_type == 3 && nh->n_namesz == 8 && !memcmp(name, "stapsdt", 8))
		read_sdt_note(w->b, (const char *)desc, nh->n_descsz, w->base);
	return false;
}

static void read_sdts(struct ubin *b)
{
	struct sdt_walk w = { b, section_addr(b->elf, ".stapsdt.base") };

	elf_each_note(b->elf, sdt_note, &w);
}

size_t ubin_match_sdts(struct ubin *b, const char *provider, const char *glob,
		       const struct usdt ***out)
{
	const struct usdt **v = arena_alloc(b->s->arena, sizeof(*v) * (b->nsdts + 1));
	size_t n = 0;

	for (size_t i = 0; i < b->nsdts; i++) {
		const struct usdt *u = &b->sdts[i];

		if (fnmatch(glob, u->name, 0) || (provider && fnmatch(provider, u->provider, 0)))
			continue;
		v[n++] = u;
	}
	*out = v;
	return n;
}

/* ---- libraries ---------------------------------------------------------------- */

static const char *const lib_dirs[] = {
	"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib64", "/usr/lib64",
	"/lib", "/usr/lib", NULL
};

/* The libraries b needs (DT_NEEDED) that glob names, as real paths found
 * in the standard directories; a glob with a '/' is a path itself. */
size_t ubin_libraries(struct session *s, struct ubin *b, const char *glob,
		      const char ***out)
{
	const char **v = arena_alloc(s->arena, sizeof(*v) * 64);
	Elf_Scn *scn = NULL;
	size_t n = 0;

	*out = v;
	if (strchr(glob, '/')) {
		v[0] = ubin_find(s, glob);
		return v[0] ? 1 : 0;
	}
	while ((scn = elf_nextscn(b->elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNAMIC || !sh.sh_entsize)
			continue;
		d = elf_getdata(scn, NULL);
		for (size_t i = 0; d && i < sh.sh_size / sh.sh_entsize && n < 64; i++) {
			GElf_Dyn dyn;
			const char *name;

			if (!gelf_getdyn(d, (int)i, &dyn) || dyn.d_tag != DT_NEEDED)
				continue;
			name = elf_strptr(b->elf, sh.sh_link, dyn.d_un.d_val);
			if (!name || fnmatch(glob, name, 0))
				continue;
			for (int k = 0; lib_dirs[k]; k++) {
				const char *p = ubin_find(s, arena_printf(s->arena, "%s/%s",
									  lib_dirs[k], name));

				if (p) {
					v[n++] = p;
					break;
				}
			}
		}
	}
	return n;
}

/* ---- opening ---------------------------------------------------------------- */

/*
 * Where separate debuginfo is searched, in elfutils' syntax (a leading
 * "+" or "-" to check CRCs or not, then ":"-separated directories: empty
 * for the binary's own, relative for a subdirectory of it, absolute for a
 * tree holding .build-id/ and the binaries' absolute paths): as 4.8,
 * SYSTEMTAP_DEBUGINFO_PATH when set (empty too), else its default, the
 * kernel's with the module build tree ("build") last.
 */
const char *debuginfo_path(struct session *s, bool kernel)
{
	if (s->debuginfo_path)
		return s->debuginfo_path;
	return kernel ? "+:.debug:/usr/lib/debug:/var/cache/abrt-di/usr/lib/debug:build" :
			"+:.debug:/usr/lib/debug:/var/cache/abrt-di/usr/lib/debug";
}

struct id_walk {
	struct session *s;
	const char *path;
};

/* The first DIR/.build-id/xx/rest.debug of the search path's absolute
 * directories that exists, as libdwfl looks a build ID up. */
static bool build_id_note(void *arg, const GElf_Nhdr *nh, const char *name,
			  const unsigned char *id)
{
	struct id_walk *w = arg;
	char *hex, *dirs, *dir, *rest;

	if (nh->n_type != NT_GNU_BUILD_ID || nh->n_namesz != 4 ||
	    memcmp(name, "GNU", 4) || nh->n_descsz < 2 || nh->n_descsz > 64)
		return false;
	hex = arena_alloc(w->s->arena, nh->n_descsz * 2 + 1);
	for (size_t i = 0; i < nh->n_descsz; i++)
		sprintf(hex + i * 2, "%02x", id[i]);
	dirs = arena_strdup(w->s->arena, debuginfo_path(w->s, false));
	for (rest = dirs; (dir = strsep(&rest, ":"));) {
		const char *cand;

		if (*dir == '+' || *dir == '-')
			dir++;
		if (*dir != '/')
			continue;
		cand = arena_printf(w->s->arena, "%s/.build-id/%.2s/%s.debug", dir, hex, hex + 2);
		if (!access(cand, R_OK)) {
			w->path = cand;
			break;
		}
	}
	return true;
}

const char *elf_debug_path(struct session *s, Elf *e)
{
	struct id_walk w = { s, NULL };

	elf_each_note(e, build_id_note, &w);
	return w.path;
}

/* The DWARF of b: its own, else the separate debuginfo its build ID
 * names in the debuginfo path (Debian's -dbg packages). */
static void open_dwarf(struct ubin *b)
{
	const char *dbg;

	b->dbg_fd = -1;
	b->dw = dwarf_begin_elf(b->elf, DWARF_C_READ, NULL);
	if (b->dw)
		return;
	dbg = elf_debug_path(b->s, b->elf);
	if (!dbg)
		return;
	b->dbg_fd = open(dbg, O_RDONLY | O_CLOEXEC);
	if (b->dbg_fd < 0)
		return;
	b->dbg_elf = elf_begin(b->dbg_fd, ELF_C_READ_MMAP, NULL);
	if (b->dbg_elf)
		b->dw = dwarf_begin_elf(b->dbg_elf, DWARF_C_READ, NULL);
}

struct ubin *ubin_open(struct session *s, const char *path, struct loc at)
{
	struct ubin *b;

	for (b = s->ubins; b; b = b->next)
		if (!strcmp(b->path, path))
			return b;
	b = arena_alloc(s->arena, sizeof(*b));
	b->s = s;
	b->path = path;
	elf_version(EV_CURRENT);
	b->fd = open(path, O_RDONLY | O_CLOEXEC);
	b->elf = b->fd >= 0 ? elf_begin(b->fd, ELF_C_READ_MMAP, NULL) : NULL;
	if (!b->elf || elf_kind(b->elf) != ELF_K_ELF || gelf_getclass(b->elf) != ELFCLASS64) {
		diag_error(s, at, b->elf && elf_kind(b->elf) == ELF_K_ELF ?
			   "cannot probe '%s': a 32-bit program (only x86_64 ones are supported)" :
			   "cannot read '%s': not an ELF file", path);
		if (b->elf)
			elf_end(b->elf);
		if (b->fd >= 0)
			close(b->fd);
		return NULL;
	}
	open_dwarf(b);
	if (b->dw)
		read_dwarf_funcs(b);
	ubin_read_symtab_funcs(b);
	if (b->nfuncs)
		qsort(b->funcs, b->nfuncs, sizeof(*b->funcs), ufunc_by_name_entry);
	read_sdts(b);
	b->next = s->ubins;
	s->ubins = b;
	return b;
}

/* ---- kernel modules ---------------------------------------------------------- */

/*
 * A kernel module's .ko, `name` to the kernel, with its DWARF relocated by
 * libdwfl (its sections laid out one after the other, as in a linked
 * file): the .ko's own, else the separate debuginfo libdwfl finds in the
 * kernel's debuginfo path (by build ID, or by the module's path under a
 * tree: Debian's linux-image-*-dbg); NULL when it has none (nothing
 * reported: the caller falls back to the module's BTF).
 */
static struct ubin *open_dwfl(struct session *s, const char *path, const char *name,
			      bool vmlinux)
{
	struct ubin *b;
	Dwarf_Addr bias;
	GElf_Addr ebias;
	Dwfl_Callbacks *cb;
	char **dirs;

	for (b = s->ubins; b; b = b->next)
		if (!strcmp(b->path, path))
			return b;
	b = arena_alloc(s->arena, sizeof(*b));
	b->s = s;
	b->path = path;
	b->kmod = name;
	b->vmlinux = vmlinux;
	b->fd = b->dbg_fd = -1;
	elf_version(EV_CURRENT);
	/* libdwfl keeps the callbacks and reads the path through them */
	cb = arena_alloc(s->arena, sizeof(*cb));
	dirs = arena_alloc(s->arena, sizeof(*dirs));
	*dirs = arena_strdup(s->arena, debuginfo_path(s, true));
	cb->find_elf = dwfl_build_id_find_elf;
	cb->find_debuginfo = dwfl_standard_find_debuginfo;
	cb->section_address = dwfl_offline_section_address;
	cb->debuginfo_path = dirs;
	b->dwfl = dwfl_begin(cb);
	if (!b->dwfl)
		return NULL;
	b->dwmod = dwfl_report_offline(b->dwfl, name, path, -1);
	dwfl_report_end(b->dwfl, NULL, NULL);
	if (b->dwmod) {
		b->elf = dwfl_module_getelf(b->dwmod, &ebias);
		b->dw = dwfl_module_getdwarf(b->dwmod, &bias);
	}
	if (!b->elf || !b->dw || bias || ebias) {
		dwfl_end(b->dwfl);
		return NULL;
	}
	if (!vmlinux)
		read_dwarf_funcs(b);
	else
		ubin_vm_map(b);
	if (b->nfuncs)
		qsort(b->funcs, b->nfuncs, sizeof(*b->funcs), ufunc_by_name_entry);
	b->next = s->ubins;
	s->ubins = b;
	return b;
}

struct ubin *ubin_open_kmod(struct session *s, const char *path, const char *name)
{
	return open_dwfl(s, path, name, false);
}

/* The kernel's vmlinux with DWARF at path: nothing is read until asked
 * (ubin_read_cus()), its DWARF being hundreds of megabytes. */
struct ubin *ubin_open_vmlinux(struct session *s, const char *path)
{
	return open_dwfl(s, path, "kernel", true);
}

bool ubin_is_vmlinux(const struct ubin *b)
{
	return b->vmlinux;
}

/* vmlinux: the functions of the CUs whose name `want` accepts (only those
 * matching name_glob when not NULL), each CU read whole once. */
void ubin_read_cus(struct ubin *b, bool (*want)(void *arg, const char *cu), void *arg,
		   const char *name_glob)
{
	Dwarf_Off off = 0, next;
	size_t hsize, before = b->nfuncs;

	while (dwarf_nextcu(b->dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu;
		const char *name;

		if (ubin_vm_cu(b, off, &cu) && (name = dwarf_diename(&cu)) && want(arg, name)) {
			b->name_glob = name_glob;
			read_cu(b, &cu);
			b->name_glob = NULL;
		}
		off = next;
	}
	if (b->nfuncs != before)
		qsort(b->funcs, b->nfuncs, sizeof(*b->funcs), ufunc_by_name_entry);
	ubin_vm_trim(b);
}

/* vmlinux: the functions of the n CUs at offs[] (their headers), only
 * those matching name_glob when not NULL. */
void ubin_read_cu_offs(struct ubin *b, const uint64_t *offs, size_t n, const char *name_glob)
{
	size_t before = b->nfuncs;

	for (size_t i = 0; i < n; i++) {
		Dwarf_Die cu;

		if (!ubin_vm_cu(b, offs[i], &cu))
			continue;
		b->name_glob = name_glob;
		read_cu(b, &cu);
		b->name_glob = NULL;
		ubin_vm_trim(b);
	}
	if (b->nfuncs != before)
		qsort(b->funcs, b->nfuncs, sizeof(*b->funcs), ufunc_by_name_entry);
}

void ubin_cu_func_names(struct ubin *b, Dwarf_Die *cu)
{
	dwarf_getfuncs(cu, dwarf_func_cb, b, 0);
}

/* A module: add its symbol table's functions matching glob that no DWARF
 * function (not an inlined copy) starts at (name.cold parts), as 4.8
 * takes them for a pattern without a file; once per glob. */
void ubin_kmod_symbol_funcs(struct ubin *b, const char *glob)
{
	int n = b->dwmod && !b->vmlinux ? dwfl_module_getsymtab(b->dwmod) : -1;
	struct ufunc *v;
	size_t k = 0;

	if (n <= 0 || (b->sym_glob && !strcmp(b->sym_glob, glob)))
		return;
	b->sym_glob = arena_strdup(b->s->arena, glob);
	v = arena_alloc(b->s->arena, sizeof(*v) * (size_t)n);
	for (int i = 1; i < n; i++) {
		GElf_Sym sym;
		GElf_Addr addr;
		const char *name = dwfl_module_getsym_info(b->dwmod, i, &sym, &addr, NULL, NULL,
							   NULL);

		if (!name || !*name || GELF_ST_TYPE(sym.st_info) != STT_FUNC ||
		    sym.st_shndx == SHN_UNDEF || fnmatch(glob, name, 0))
			continue;
		v[k].name = arena_strdup(b->s->arena, name);
		v[k].entry = addr;
		v[k++].end = sym.st_size ? addr + sym.st_size : 0;
	}
	ubin_add_outer_symbol_funcs(b, v, k);
}

/* vmlinux: the functions of the CU whose code holds addr. */
void ubin_read_cu_at(struct ubin *b, uint64_t addr)
{
	Dwarf_Die cu;
	size_t before = b->nfuncs;
	uint64_t off;

	/* .debug_aranges read directly: libdw's dwarf_addrdie() would read
	 * every CU's DIE (and abbreviations) of vmlinux, ~100 MB */
	if (kdwarf_aranges_cu(b, addr, &off)) {
		if (ubin_vm_cu(b, off, &cu))
			read_cu(b, &cu);
	} else if (dwarf_addrdie(b->dw, addr, &cu)) {
		read_cu(b, &cu);
	}
	if (b->nfuncs != before)
		qsort(b->funcs, b->nfuncs, sizeof(*b->funcs), ufunc_by_name_entry);
	ubin_vm_trim(b);
}

/* The section holding addr ("" if none), for the blacklist. */
const char *ubin_section_of(struct ubin *b, uint64_t addr)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	const char *n;

	if (elf_getshdrstrndx(b->elf, &shstrndx))
		return "";
	while ((scn = elf_nextscn(b->elf, scn)))
		if (gelf_getshdr(scn, &sh) && (sh.sh_flags & SHF_ALLOC) && addr >= sh.sh_addr &&
		    addr < sh.sh_addr + sh.sh_size)
			return (n = elf_strptr(b->elf, shstrndx, sh.sh_name)) ? n : "";
	return "";
}

bool ubin_is_kernel(const struct ubin *b)
{
	return b->dwfl != NULL;
}

const char *ubin_kmod(const struct ubin *b)
{
	return b->kmod;
}

void ubin_set_label(struct ubin *b, const char *label)
{
	b->label = label;
}

const char *ubin_label(const struct ubin *b)
{
	return b->label ? b->label : b->path;
}

/* The section of a module's address (its relocated layout). */
static Elf_Scn *kmod_section(struct ubin *b, uint64_t addr, GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(b->elf, scn)))
		if (gelf_getshdr(scn, sh) && (sh->sh_flags & SHF_ALLOC) &&
		    addr >= sh->sh_addr && addr < sh->sh_addr + sh->sh_size)
			return scn;
	return NULL;
}

uint64_t ubin_section_offset(struct ubin *b, uint64_t addr)
{
	GElf_Shdr sh;

	return kmod_section(b, addr, &sh) ? addr - sh.sh_addr : addr;
}

/*
 * Where a module's address is once loaded, as the kernel resolves it: the
 * symbol (a function, or a variable) holding it, and the offset in it;
 * false if no symbol does.
 */
bool ubin_ksym(struct ubin *b, uint64_t addr, bool code, const char **sym, uint64_t *off)
{
	GElf_Shdr sh;
	Elf_Scn *scn = kmod_section(b, addr, &sh), *st = NULL;
	size_t shndx = scn ? elf_ndxscn(scn) : 0;

	uint64_t best_at = 0;
	int best_rank = -1;

	if (b->vmlinux)
		return kstab_at(ubin_kstab(b), addr, code, sym, off);
	if (!scn)
		return false;
	/* the symbol starting nearest, a global one before a weak one
	 * before a local one (init_module, not init_v9fs), as libdwfl's
	 * dwfl_module_addrsym gives 4.8 */
	while ((st = elf_nextscn(b->elf, st))) {
		GElf_Shdr ssh;
		Elf_Data *d;

		if (!gelf_getshdr(st, &ssh) || ssh.sh_type != SHT_SYMTAB || !ssh.sh_entsize)
			continue;
		d = elf_getdata(st, NULL);
		for (size_t i = 0; d && i < ssh.sh_size / ssh.sh_entsize; i++) {
			GElf_Sym y;
			const char *name;
			uint64_t at;

			if (!gelf_getsym(d, (int)i, &y) || y.st_shndx != shndx ||
			    GELF_ST_TYPE(y.st_info) != (code ? STT_FUNC : STT_OBJECT))
				continue;
			/* st_value is the offset in its section (ET_REL) */
			at = sh.sh_addr + y.st_value;
			name = elf_strptr(b->elf, ssh.sh_link, y.st_name);
			int rank = GELF_ST_BIND(y.st_info) == STB_GLOBAL ? 2 :
				   GELF_ST_BIND(y.st_info) == STB_WEAK;

			if (!name || !*name || addr < at || addr >= at + (y.st_size ? y.st_size : 1))
				continue;
			if (best_rank >= 0 && (at < best_at || (at == best_at && rank <= best_rank)))
				continue;
			best_at = at;
			best_rank = rank;
			*sym = name;
		}
	}
	if (best_rank < 0)
		return false;
	*sym = arena_strdup(b->s->arena, *sym);
	*off = addr - best_at;
	return true;
}

/* Is a module's code at addr a call instruction (e8: the __fentry__
 * call ftrace patches, first in every traceable function)? */
bool ubin_kcall_at(struct ubin *b, uint64_t addr)
{
	GElf_Shdr sh;
	Elf_Scn *scn = kmod_section(b, addr, &sh);
	Elf_Data *d = scn ? elf_getdata(scn, NULL) : NULL;
	uint64_t off = addr - sh.sh_addr;

	return d && d->d_buf && off < d->d_size && ((const unsigned char *)d->d_buf)[off] == 0xe8;
}

void ubin_close_all(struct session *s)
{
	for (struct ubin *b = s->ubins; b; b = b->next) {
		utypes_free(b);
		free(b->funcs);
		free(b->aliases);
		free(b->cus);
		kstab_free(b->kstab);
		kindex_free(b);
		if (b->ldw)
			dwarf_end(b->ldw);
		if (b->dwfl) {		/* libdwfl owns the ELF, DWARF and CFI */
			dwfl_end(b->dwfl);
			continue;
		}
		if (b->cfi)
			dwarf_cfi_end(b->cfi);
		if (b->dw)
			dwarf_end(b->dw);
		if (b->dbg_elf)
			elf_end(b->dbg_elf);
		if (b->dbg_fd >= 0)
			close(b->dbg_fd);
		elf_end(b->elf);
		close(b->fd);
		free(b->sdts);
	}
	s->ubins = NULL;
}

/* ---- addresses ---------------------------------------------------------------- */

bool ubin_file_offset(const struct ubin *b, uint64_t addr, uint64_t *off)
{
	size_t n;

	if (elf_getphdrnum(b->elf, &n))
		return false;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(b->elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (addr >= ph.p_vaddr && addr < ph.p_vaddr + ph.p_filesz) {
			*off = addr - ph.p_vaddr + ph.p_offset;
			return true;
		}
	}
	return false;
}

bool ubin_is_dyn(const struct ubin *b)
{
	GElf_Ehdr eh;

	return gelf_getehdr(b->elf, &eh) && eh.e_type == ET_DYN;
}

uint64_t ubin_load_base(const struct ubin *b)
{
	size_t n;
	uint64_t base = UINT64_MAX;

	if (elf_getphdrnum(b->elf, &n))
		return 0;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(b->elf, (int)i, &ph) && ph.p_type == PT_LOAD &&
		    ph.p_vaddr < base)
			base = ph.p_vaddr;
	}
	return base == UINT64_MAX ? 0 : base & ~(uint64_t)0xfff;
}

static bool cu_of(struct ubin *b, const struct ufunc *f, Dwarf_Die *cu)
{
	Dwarf_Die die, ld;

	return b->dw && f->die && dwarf_offdie(b->dw, f->die, &die) &&
	       ubin_lines_die(b, &die, &ld) && dwarf_diecu(&ld, cu, NULL, NULL);
}

const char *ubin_producer(struct ubin *b, const struct ufunc *f)
{
	Dwarf_Die cu;
	Dwarf_Attribute at;

	if (!cu_of(b, f, &cu) || !dwarf_attr(&cu, DW_AT_producer, &at))
		return NULL;
	return dwarf_formstring(&at);
}

uint64_t ubin_after_prologue(struct ubin *b, const struct ufunc *f)
{
	Dwarf_Die cu;
	Dwarf_Lines *lines;
	size_t n;
	int entry_line = -1;

	if (f->prologue)
		return f->prologue;
	if (!cu_of(b, f, &cu) || dwarf_getsrclines(&cu, &lines, &n))
		return f->entry;
	/* the row after the entry's own one (in address order), which may
	 * share its address when there is no prologue */
	for (size_t i = 0; i < n; i++) {
		Dwarf_Line *l = dwarf_onesrcline(lines, i);
		Dwarf_Addr a;
		int ln;

		if (!l || dwarf_lineaddr(l, &a) || dwarf_lineno(l, &ln))
			continue;
		if (entry_line < 0) {
			if (a == f->entry)
				entry_line = ln;
			continue;
		}
		if (a < f->entry || (f->end && a >= f->end))
			break;
		if (ln != entry_line)
			return a;
	}
	return f->entry;
}

/* Does the line table's path `src` name `file` (a glob of it whole, or of
 * its tail after a '/': "mm/ *.c" names arch/x86/mm/tlb.c, as 4.8)? */
bool ubin_file_matches(const char *src, const char *file)
{
	if (!fnmatch(file, src, 0))
		return true;
	for (const char *p = strchr(src, '/'); p; p = strchr(p + 1, '/'))
		if (!fnmatch(file, p + 1, 0))
			return true;
	return false;
}

/* Does row l (at address a) belong to FILE inside f? */
/* Is row l at a in f (an inlined instance: in its address ranges, which
 * may leave out some of [entry, end)) and of file (NULL: any)? */
static bool row_in(const struct ufunc *f, Dwarf_Die *inl, const char *file, Dwarf_Line *l,
		   Dwarf_Addr a)
{
	const char *src;

	if (a < f->entry || (f->end && a >= f->end) || (inl && dwarf_haspc(inl, a) <= 0))
		return false;
	src = dwarf_linesrc(l, NULL, NULL);
	return !file || (src && ubin_file_matches(src, file));
}

/* Insert (line, a) into the line-sorted *out of *n, keeping a line's
 * lowest address. */
static void keep_lowest(struct uline_addr *out, size_t *n, int line, uint64_t a)
{
	size_t i = 0;

	while (i < *n && out[i].line < line)
		i++;
	if (i < *n && out[i].line == line) {
		if (a < out[i].addr)
			out[i].addr = a;
		return;
	}
	memmove(out + i + 1, out + i, (*n - i) * sizeof(*out));
	out[i].line = line;
	out[i].addr = a;
	(*n)++;
}

size_t ubin_func_lines(struct session *s, struct ubin *b, const struct ufunc *f,
		       const char *file, struct uline_addr **out)
{
	Dwarf_Die cu, die, *inl = NULL;
	Dwarf_Lines *lines;
	size_t n, k = 0;

	*out = NULL;
	if (!cu_of(b, f, &cu) || dwarf_getsrclines(&cu, &lines, &n) || !n)
		return 0;
	if (f->inlined && dwarf_offdie(b->dw, f->die, &die))
		inl = &die;
	*out = arena_alloc(s->arena, n * sizeof(**out));
	for (size_t i = 0; i < n; i++) {
		Dwarf_Line *l = dwarf_onesrcline(lines, i);
		Dwarf_Addr a;
		int ln;
		bool end;

		if (!l || dwarf_lineaddr(l, &a) || dwarf_lineno(l, &ln) || ln <= 0 ||
		    dwarf_lineendsequence(l, &end) || end || !row_in(f, inl, file, l, a))
			continue;
		keep_lowest(*out, &k, ln, a);
	}
	return k;
}

int ubin_line_at(struct ubin *b, const struct ufunc *f, uint64_t addr)
{
	Dwarf_Die cu;
	Dwarf_Lines *lines;
	size_t n;
	int line = 0;

	if (!cu_of(b, f, &cu) || dwarf_getsrclines(&cu, &lines, &n))
		return 0;
	for (size_t i = 0; i < n; i++) {
		Dwarf_Line *l = dwarf_onesrcline(lines, i);
		Dwarf_Addr a;
		int ln;
		bool end;

		if (l && !dwarf_lineaddr(l, &a) && a == addr && !dwarf_lineno(l, &ln) &&
		    !dwarf_lineendsequence(l, &end) && !end)
			line = ln;
	}
	return line;
}

bool ubin_row_at(struct ubin *b, const struct ufunc *f, uint64_t addr, uint64_t *prev)
{
	Dwarf_Die cu;
	Dwarf_Lines *lines;
	size_t n;

	*prev = 0;
	if (!cu_of(b, f, &cu) || dwarf_getsrclines(&cu, &lines, &n))
		return false;
	for (size_t i = 0; i < n; i++) {
		Dwarf_Line *l = dwarf_onesrcline(lines, i);
		Dwarf_Addr a;
		bool end;

		if (!l || dwarf_lineaddr(l, &a) || dwarf_lineendsequence(l, &end) || end)
			continue;
		if (a == addr)
			return true;
		if (a < addr && a > *prev)
			*prev = a;
	}
	return false;
}

/* The line of FILE (in f's compilation unit) with code nearest to line (a
 * later one on a tie, as 4.8's .nearest), into *found; false if none. */
bool ubin_nearest_line(struct ubin *b, const struct ufunc *f, const char *file, int line,
		       int *found)
{
	Dwarf_Die cu;
	Dwarf_Lines *lines;
	size_t n;
	int best = 0;

	if (!cu_of(b, f, &cu) || dwarf_getsrclines(&cu, &lines, &n))
		return false;
	for (size_t i = 0; i < n; i++) {
		Dwarf_Line *l = dwarf_onesrcline(lines, i);
		Dwarf_Addr a;
		int ln, d, bd;
		bool stmt;
		const char *src;

		if (!l || dwarf_lineaddr(l, &a) || dwarf_lineno(l, &ln) || ln <= 0 ||
		    dwarf_linebeginstatement(l, &stmt) || !stmt)
			continue;
		src = dwarf_linesrc(l, NULL, NULL);
		if (file && (!src || !ubin_file_matches(src, file)))
			continue;
		d = abs(ln - line);
		bd = abs(best - line);
		if (!best || d < bd || (d == bd && ln > best))
			best = ln;
	}
	*found = best;
	return best > 0;
}

/* ---- variables ------------------------------------------------------------------ */

/* "char[16]" as 4.8 lists it: "char[]" */
static const char *array_dims_elided(struct session *s, const char *type)
{
	char *t = arena_strdup(s->arena, type), *w = t;

	for (const char *p = type; *p; p++) {
		*w++ = *p;
		if (*p == '[')
			p += strspn(p + 1, "0123456789");
	}
	*w = '\0';
	return t;
}

static bool var_of(struct session *s, struct ubin *b, Dwarf_Die *d, struct uvar *v)
{
	Dwarf_Attribute at;
	Dwarf_Die t;
	const char *name = dwarf_diename(d);

	if (!name)
		return false;
	memset(v, 0, sizeof(*v));
	v->name = arena_strdup(s->arena, name);
	v->die = dwarf_dieoffset(d);
	v->param = dwarf_tag(d) == DW_TAG_formal_parameter;
	if (dwarf_attr_integrate(d, DW_AT_type, &at) && dwarf_formref_die(&at, &t))
		v->type_id = utype_to_btf(s, b, dwarf_dieoffset(&t));
	v->type = array_dims_elided(s, kbtf_type_name(s, ubin_btf(b), v->type_id));
	return true;
}

static void push_var(struct session *s, struct uvar **vec, int *n, int *cap,
		     const struct uvar *v)
{
	for (int i = 0; i < *n; i++)
		if (!strcmp((*vec)[i].name, v->name))
			return;		/* an inner one hides it: keep the first */
	if (*n == *cap) {
		struct uvar *nv = arena_alloc(s->arena, sizeof(*nv) * (size_t)(*cap * 2 + 8));

		if (*n)
			memcpy(nv, *vec, sizeof(*nv) * (size_t)*n);
		*vec = nv;
		*cap = *cap * 2 + 8;
	}
	(*vec)[(*n)++] = *v;
}

/* Is the type of variable d a struct, union, class or array? */
static bool aggregate_var(Dwarf_Die *d)
{
	Dwarf_Attribute at;
	Dwarf_Die t = *d;

	for (int depth = 0; depth < 16; depth++) {
		if (!dwarf_attr_integrate(&t, DW_AT_type, &at) || !dwarf_formref_die(&at, &t))
			return false;
		switch (dwarf_tag(&t)) {
		case DW_TAG_structure_type: case DW_TAG_union_type:
		case DW_TAG_class_type: case DW_TAG_array_type:
			return true;
		case DW_TAG_typedef: case DW_TAG_const_type: case DW_TAG_volatile_type:
		case DW_TAG_restrict_type:
			continue;
		default:
			return false;
		}
	}
	return false;
}

/* Has variable d a location (or a constant value) at pc (0: anywhere)?
 * A parameter of a struct or array type counts as located anywhere: 4.8's
 * $$parms names it ("{...}") without reading it. */
static bool located(Dwarf_Die *d, uint64_t pc)
{
	Dwarf_Attribute at;
	Dwarf_Op *ops;
	size_t n;

	if (dwarf_hasattr_integrate(d, DW_AT_const_value))
		return true;
	if (dwarf_tag(d) == DW_TAG_formal_parameter && aggregate_var(d))
		return true;
	if (!dwarf_attr_integrate(d, DW_AT_location, &at))
		return false;
	return !pc || (dwarf_getlocation_addr(&at, pc, &ops, &n, 1) > 0 && n > 0);
}

/* The variables of scope d (and of the blocks inside it holding pc). */
/* The variables of scope d visible at pc, innermost scope first, each
 * scope's in declaration order (a function's parameters, then its
 * locals), as 4.8 lists them; only those with a location (locals, and a
 * kernel's parameters too: at loc_pc when not 0) or a constant value. */
static void scope_vars(struct session *s, struct ubin *b, Dwarf_Die *d, uint64_t pc,
		       uint64_t loc_pc, struct uvar **vec, int *n, int *cap, int depth)
{
	Dwarf_Die c;

	if (depth > 64 || dwarf_child(d, &c))
		return;
	do {		/* the block holding pc first */
		if (pc && dwarf_tag(&c) == DW_TAG_lexical_block && dwarf_haspc(&c, pc) > 0)
			scope_vars(s, b, &c, pc, loc_pc, vec, n, cap, depth + 1);
	} while (dwarf_siblingof(&c, &c) == 0);
	dwarf_child(d, &c);
	do {
		int tag = dwarf_tag(&c);
		bool param = tag == DW_TAG_formal_parameter;
		struct uvar v;

		if ((param || tag == DW_TAG_variable) &&
		    located(&c, param && !b->dwfl && dwarf_tag(d) != DW_TAG_inlined_subroutine ?
			    0 : loc_pc) &&
		    var_of(s, b, &c, &v))
			push_var(s, vec, n, cap, &v);
	} while (dwarf_siblingof(&c, &c) == 0);
}

int ubin_vars(struct session *s, struct ubin *b, const struct ufunc *f,
	      uint64_t pc, uint64_t loc_pc, struct uvar **out, struct uvar *ret)
{
	Dwarf_Die d, t;
	Dwarf_Attribute at;
	int n = 0, cap = 0;

	*out = NULL;
	memset(ret, 0, sizeof(*ret));
	/* vmlinux: the pages read for the last functions' variables and
	 * types are let go now and then (read again if needed) */
	if (b->map && ++b->nvars_read % 8 == 0)
		ubin_vm_trim(b);
	if (!b->dw || !f->die || !dwarf_offdie(b->dw, f->die, &d))
		return 0;
	if (dwarf_attr_integrate(&d, DW_AT_type, &at) && dwarf_formref_die(&at, &t)) {
		ret->name = "return";
		ret->type_id = utype_to_btf(s, b, dwarf_dieoffset(&t));
		ret->type = kbtf_type_name(s, ubin_btf(b), ret->type_id);
	}
	scope_vars(s, b, &d, pc, loc_pc, out, &n, &cap, 0);
	return n;
}

/* A global `name` of file `file` (NULL: any) with a location, or (decl)
 * only declared there. */
static bool find_global(struct session *s, struct ubin *b, const char *name,
			const char *file, bool decl, struct uvar *out)
{
	Dwarf_Off off = 0, next;
	size_t hsize;

	while (b->dw && dwarf_nextcu(b->dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu, c;
		const char *cuname;

		if (!dwarf_offdie(b->dw, off + hsize, &cu) || dwarf_child(&cu, &c)) {
			off = next;
			continue;
		}
		cuname = dwarf_diename(&cu);
		/* vmlinux: a .c file's variables are in its own CU only */
		if (b->vmlinux && file && strlen(file) > 2 && !strcmp(file + strlen(file) - 2, ".c") &&
		    !(cuname && ubin_file_matches(cuname, file))) {
			off = next;
			continue;
		}
		do {
			const char *n = dwarf_diename(&c), *df;

			if (dwarf_tag(&c) != DW_TAG_variable || !n || strcmp(n, name) ||
			    !dwarf_hasattr_integrate(&c, decl ? DW_AT_declaration : DW_AT_location))
				continue;
			df = ubin_decl_file(b, &c);
			if (file && !(df && ubin_file_matches(df, file)) &&
			    !(cuname && ubin_file_matches(cuname, file)))
				continue;
			return var_of(s, b, &c, out);
		} while (dwarf_siblingof(&c, &c) == 0);
		off = next;
	}
	return false;
}

/* As 4.8: a kernel global only declared in the DWARF (jiffies, which the
 * linker script defines) is read at its symbol's address. */
bool ubin_global(struct session *s, struct ubin *b, const char *name,
		 const char *file, struct uvar *out)
{
	uint64_t addr;

	if (find_global(s, b, name, file, false, out))
		return true;
	if (!b->vmlinux || !(addr = kstab_addr(ubin_kstab(b), name)) ||
	    !find_global(s, b, name, file, true, out))
		return false;
	out->addr = addr;
	return true;
}
