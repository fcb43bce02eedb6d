/*
 * uobjs.c - the user objects whose symbols a session carries: those named
 * with `-d` (ELF files), the binaries of process() probes and, with
 * `--ldd`, the libraries they need, found as the dynamic loader would;
 * and, for each, what libelf reads of it: its function and data symbols
 * (from .symtab, else from the separate debug file found by build ID,
 * else from .dynsym), its load segments and its .eh_frame /
 * .eh_frame_hdr sections. gen/usyms.c writes them into a module's
 * tables, bpf/bpf_out.c the symbols into a BPF object's metadata for the
 * loader.
 */
#include <fcntl.h>
#include <gelf.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ubin.h"

struct ulist {
	const char *paths[UOBJ_MAX];
	int n;
};

static const char *const lib_dirs[] = {
	"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib64",
	"/usr/lib64", "/lib", "/usr/lib", NULL
};

static bool ulist_add(struct ulist *l, const char *path)
{
	for (int i = 0; i < l->n; i++)
		if (!strcmp(l->paths[i], path))
			return false;
	if (l->n == UOBJ_MAX)
		return false;
	l->paths[l->n++] = path;
	return true;
}

static bool is_elf(const char *path)
{
	char magic[4];
	int fd = open(path, O_RDONLY);
	bool ok;

	if (fd < 0)
		return false;
	ok = read(fd, magic, 4) == 4 && !memcmp(magic, "\177ELF", 4);
	close(fd);
	return ok;
}

/* A DT_NEEDED name as the loader finds it (no RUNPATH support). */
static const char *find_lib(struct session *s, const char *name)
{
	char buf[PATH_MAX], real[PATH_MAX];

	if (strchr(name, '/'))
		return realpath(name, real) ? arena_strdup(s->arena, real) : NULL;
	for (int i = 0; lib_dirs[i]; i++) {
		snprintf(buf, sizeof(buf), "%s/%s", lib_dirs[i], name);
		if (is_elf(buf) && realpath(buf, real))
			return arena_strdup(s->arena, real);
	}
	return NULL;
}

/* The DT_NEEDED libraries and the interpreter of one object. */
static void add_needed(struct session *s, struct ulist *l, const char *path)
{
	int fd = open(path, O_RDONLY);
	Elf *e;
	Elf_Scn *scn = NULL;
	size_t n;

	if (fd < 0)
		return;
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (e && elf_getphdrnum(e, &n) == 0) {
		for (size_t i = 0; i < n; i++) {
			GElf_Phdr ph;
			Elf_Data *d;

			if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_INTERP)
				continue;
			d = elf_getdata_rawchunk(e, (int64_t)ph.p_offset, ph.p_filesz,
						 ELF_T_BYTE);
			if (d && d->d_size && ((char *)d->d_buf)[d->d_size - 1] == '\0') {
				const char *lib = find_lib(s, d->d_buf);

				if (lib)
					ulist_add(l, lib);
			}
		}
	}
	while (e && (scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;
		GElf_Dyn dyn;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNAMIC)
			continue;
		d = elf_getdata(scn, NULL);
		for (int i = 0; d && gelf_getdyn(d, i, &dyn); i++) {
			const char *name, *lib;

			if (dyn.d_tag != DT_NEEDED)
				continue;
			name = elf_strptr(e, sh.sh_link, dyn.d_un.d_val);
			lib = name ? find_lib(s, name) : NULL;
			if (lib)
				ulist_add(l, lib);
		}
	}
	if (e)
		elf_end(e);
	close(fd);
}

static int cmp_usym(const void *a, const void *b)
{
	const struct usym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

static bool wanted_sym(const GElf_Sym *sym)
{
	int t = GELF_ST_TYPE(sym->st_info);

	if (t != STT_FUNC && t != STT_OBJECT && t != STT_GNU_IFUNC)
		return false;
	return sym->st_shndx != SHN_UNDEF && sym->st_shndx != SHN_ABS && sym->st_value;
}

/* Symbols of one table (SHT_SYMTAB or SHT_DYNSYM) of e, in o->syms. */
static bool read_syms(struct session *s, Elf *e, Elf64_Word type, struct uobj *o)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;
		size_t n, k = 0;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != type || !sh.sh_entsize)
			continue;
		d = elf_getdata(scn, NULL);
		if (!d)
			continue;
		n = sh.sh_size / sh.sh_entsize;
		o->syms = arena_alloc(s->arena, (n + 1) * sizeof(*o->syms));
		for (size_t i = 0; i < n; i++) {
			GElf_Sym sym;
			const char *name;

			if (!gelf_getsym(d, (int)i, &sym) || !wanted_sym(&sym))
				continue;
			name = elf_strptr(e, sh.sh_link, sym.st_name);
			if (!name || !*name)
				continue;
			o->syms[k++] = (struct usym){ sym.st_value, sym.st_size,
				arena_strdup(s->arena, name), i };
		}
		o->nsyms = k;
		return k > 0;
	}
	return false;
}

static bool debug_syms(struct session *s, Elf *e, struct uobj *o)
{
	const char *path = elf_debug_path(s, e);
	int fd = path ? open(path, O_RDONLY) : -1;
	Elf *de;
	bool ok = false;

	if (fd < 0)
		return false;
	de = elf_begin(fd, ELF_C_READ, NULL);
	if (de)
		ok = read_syms(s, de, SHT_SYMTAB, o);
	if (de)
		elf_end(de);
	close(fd);
	return ok;
}

/* Sort by address; of several symbols at one address keep the last of
 * the table, as upstream's table does. */
static void finish_syms(struct uobj *o)
{
	size_t k = 0;

	qsort(o->syms, o->nsyms, sizeof(*o->syms), cmp_usym);
	for (size_t i = 0; i < o->nsyms; i++) {
		if (k && o->syms[k - 1].addr == o->syms[i].addr)
			k--;
		o->syms[k++] = o->syms[i];
	}
	o->nsyms = k;
	o->sym_end = k ? o->syms[k - 1].addr + o->syms[k - 1].size : 0;
}

static unsigned char *section_bytes(struct session *s, Elf *e, const char *want,
				    size_t *len, uint64_t *addr)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (elf_getshdrstrndx(e, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;
		const char *name;
		unsigned char *p;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS)
			continue;
		name = elf_strptr(e, shstrndx, sh.sh_name);
		if (!name || strcmp(name, want))
			continue;
		d = elf_rawdata(scn, NULL);
		if (!d || !d->d_size)
			return NULL;
		p = arena_alloc(s->arena, d->d_size);
		memcpy(p, d->d_buf, d->d_size);
		*len = d->d_size;
		*addr = sh.sh_addr;
		return p;
	}
	return NULL;
}

static void read_segments(Elf *e, struct uobj *o)
{
	size_t n;

	if (elf_getphdrnum(e, &n))
		return;
	for (size_t i = 0; i < n && o->nsegs < UOBJ_MAXSEGS; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		o->seg[o->nsegs][0] = ph.p_offset;
		o->seg[o->nsegs][1] = ph.p_vaddr;
		o->seg[o->nsegs][2] = ph.p_filesz;
		o->nsegs++;
	}
}

bool uobj_read(struct session *s, const char *path, struct uobj *o)
{
	int fd = open(path, O_RDONLY);
	struct stat st;
	Elf *e;
	GElf_Ehdr eh;
	bool ok = false;

	if (fd < 0)
		return false;
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (e && gelf_getehdr(e, &eh) && fstat(fd, &st) == 0) {
		o->path = path;
		o->is_dyn = eh.e_type == ET_DYN;
		o->file_size = (uint64_t)st.st_size;
		read_segments(e, o);
		if (!read_syms(s, e, SHT_SYMTAB, o) && !debug_syms(s, e, o))
			read_syms(s, e, SHT_DYNSYM, o);
		finish_syms(o);
		o->eh = section_bytes(s, e, ".eh_frame", &o->eh_len, &o->eh_addr);
		o->hdr = section_bytes(s, e, ".eh_frame_hdr", &o->hdr_len, &o->hdr_addr);
		ok = true;
	}
	if (e)
		elf_end(e);
	close(fd);
	return ok;
}

/* The user objects named with -d (those that are ELF files; "kernel" is
 * for kernel symbols, always there) and the binaries process() probes
 * name, plus with --ldd the libraries they need. */
static void collect(struct session *s, struct ulist *l, const char *const *bins, int nbins,
		    bool warn)
{
	char real[PATH_MAX];

	for (int i = 0; i < s->nusym_objs; i++) {
		const char *name = s->usym_objs[i];

		if (is_elf(name) && realpath(name, real))
			ulist_add(l, arena_strdup(s->arena, real));
		else if (warn && strcmp(name, "kernel") && !s->suppress_warnings)
			/* 4.8's words, for a file it cannot read or a name
			 * it finds no debuginfo for */
			fprintf(s->err, "WARNING: missing unwind/symbol data for module '%s'\n",
				name);
	}
	for (int i = 0; i < nbins; i++)
		if (realpath(bins[i], real))
			ulist_add(l, arena_strdup(s->arena, real));
	for (int i = 0; s->ldd && i < l->n; i++)
		add_needed(s, l, l->paths[i]);
}

int uobjs_collect(struct session *s, const char *const *bins, int nbins, const char **paths,
		  bool warn)
{
	struct ulist l = { .n = 0 };

	elf_version(EV_CURRENT);
	collect(s, &l, bins, nbins, warn);
	for (int i = 0; i < l.n; i++)
		paths[i] = l.paths[i];
	return l.n;
}
