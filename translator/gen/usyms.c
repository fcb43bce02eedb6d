/*
 * usyms.c - pass 3: symbol and unwind tables of user-space objects.
 *
 * `-d BINARY` names an ELF program or library whose symbols and unwind
 * information the module must carry (`--ldd` adds the shared libraries
 * those need, found as the dynamic loader would).  For each object this
 * reads with libelf its function and data symbols (from .symtab, else
 * from the separate debug file found by build-id, else from .dynsym), its
 * load segments and its .eh_frame / .eh_frame_hdr sections, and writes
 * them into the module source as constant tables (`struct stp_umod`, see
 * runtime/stp_usyms.h) that runtime/ustack.c uses to unwind and name user
 * addresses.  Nothing is written when no user object was named.
 */
#include <fcntl.h>
#include <gelf.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "translate.h"
#include "ubin.h"

#define MAX_UOBJS 64
#define MAX_USEGS 8

struct usym {
	uint64_t addr, size;
	const char *name;
	size_t index;		/* order in the symbol table: last one wins */
};

struct uobj {
	const char *path;
	struct usym *syms;
	size_t nsyms;
	uint64_t sym_end;
	bool is_dyn;
	uint64_t file_size;
	uint64_t seg[MAX_USEGS][3];	/* offset, vaddr, filesz */
	int nsegs;
	unsigned char *eh, *hdr;
	size_t eh_len, hdr_len;
	uint64_t eh_addr, hdr_addr;
	size_t nlines;		/* rows of its line table, 0: none */
};

struct ulist {
	const char *paths[MAX_UOBJS];
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
	if (l->n == MAX_UOBJS)
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
	for (size_t i = 0; i < n && o->nsegs < MAX_USEGS; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		o->seg[o->nsegs][0] = ph.p_offset;
		o->seg[o->nsegs][1] = ph.p_vaddr;
		o->seg[o->nsegs][2] = ph.p_filesz;
		o->nsegs++;
	}
}

static bool read_uobj(struct session *s, const char *path, struct uobj *o)
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

/* Bytes as a C string literal (octal escapes never run into a digit). */
static void emit_bytes(struct strbuf *c, const unsigned char *p, size_t n)
{
	sb_puts(c, "\"");
	for (size_t i = 0; i < n; i++) {
		sb_printf(c, "\\%03o", p[i]);
		if (i % 32 == 31 && i + 1 < n)
			sb_puts(c, "\"\n\"");
	}
	sb_puts(c, "\"");
}

static void emit_uobj(struct session *s, struct strbuf *c, struct uobj *o, int k,
		      bool lines)
{
	if (lines)
		ulines_emit(s, c, o->path, k, &o->nlines);
	sb_printf(c, "static const unsigned long stp_usym_addr_%d[] = {", k);
	for (size_t i = 0; i < o->nsyms; i++)
		sb_printf(c, "%s%#lx,", i % 8 ? " " : "\n\t", (unsigned long)o->syms[i].addr);
	sb_printf(c, " 0 };\nstatic const char *const stp_usym_name_%d[] = {", k);
	for (size_t i = 0; i < o->nsyms; i++) {
		sb_puts(c, "\n\t");
		sb_c_string(c, o->syms[i].name);
		sb_puts(c, ",");
	}
	sb_printf(c, " NULL };\nstatic const struct stp_useg stp_useg_%d[] = {", k);
	for (int i = 0; i < o->nsegs; i++)
		sb_printf(c, " { %#lx, %#lx, %#lx },", (unsigned long)o->seg[i][0],
			  (unsigned long)o->seg[i][1], (unsigned long)o->seg[i][2]);
	sb_puts(c, " { 0, 0, 0 } };\n");
	if (o->eh && o->hdr) {
		sb_printf(c, "static const unsigned char stp_ueh_%d[] =\n", k);
		emit_bytes(c, o->eh, o->eh_len);
		sb_printf(c, ";\nstatic const unsigned char stp_uehdr_%d[] =\n", k);
		emit_bytes(c, o->hdr, o->hdr_len);
		sb_puts(c, ";\n");
	}
}

static void emit_table(struct strbuf *c, const struct uobj *objs, int n)
{
	sb_printf(c, "#define STP_NUMODS %d\nstatic const struct stp_umod stp_umods[STP_NUMODS] = {\n", n);
	for (int k = 0; k < n; k++) {
		const struct uobj *o = &objs[k];
		const char *base = strrchr(o->path, '/');

		sb_puts(c, "\t{ .path = ");
		sb_c_string(c, o->path);
		sb_puts(c, ", .name = ");
		sb_c_string(c, base ? base + 1 : o->path);
		sb_printf(c, ", .file_size = %#lx, .is_dyn = %d,\n\t  .segs = stp_useg_%d, "
			  ".nsegs = %d, .sym_addr = stp_usym_addr_%d, .sym_name = stp_usym_name_%d,"
			  " .nsyms = %zu, .sym_end = %#lx,\n",
			  (unsigned long)o->file_size, o->is_dyn, k, o->nsegs, k, k,
			  o->nsyms, (unsigned long)o->sym_end);
		if (o->nlines)
			sb_printf(c, "\t  .line_addr = stp_uline_addr_%d, .line_info = stp_uline_info_%d,"
				  " .line_file = stp_uline_file_%d, .nlines = %zu,\n", k, k, k,
				  o->nlines);
		if (o->eh && o->hdr)
			sb_printf(c, "\t  .eh = stp_ueh_%d, .eh_len = %zu, .eh_addr = %#lx, "
				  ".hdr = stp_uehdr_%d, .hdr_len = %zu, .hdr_addr = %#lx },\n",
				  k, o->eh_len, (unsigned long)o->eh_addr, k, o->hdr_len,
				  (unsigned long)o->hdr_addr);
		else
			sb_puts(c, "\t},\n");
	}
	sb_puts(c, "};\n\n");
}

/* The user objects named with -d (those that are ELF files; "kernel" is
 * for kernel symbols, always there) and the binaries process() probes
 * name, plus with --ldd the libraries they need. */
static void collect(struct session *s, struct ulist *l, bool warn)
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
	for (const struct rprobe *rp = s->rprobes; rp; rp = rp->next) {
		const char *bin = rp->binary;

		if (bin && realpath(bin, real))
			ulist_add(l, arena_strdup(s->arena, real));
	}
	for (int i = 0; s->ldd && i < l->n; i++)
		add_needed(s, l, l->paths[i]);
}

/* Does the script look up source lines (a function with pragma:lines)? */
static bool ulines_wanted(struct session *s)
{
	for (struct func *f = s->funcs; f; f = f->next_used)
		if (f->body && f->body->kind == N_EMBEDDED_STMT && f->body->str &&
		    strstr(f->body->str, "pragma:lines"))
			return true;
	return false;
}


void usyms_emit(struct session *s, struct strbuf *c)
{
	struct ulist l = { .n = 0 };
	struct uobj *objs;
	bool lines;
	int n = 0;

	elf_version(EV_CURRENT);
	collect(s, &l, true);
	if (!l.n)
		return;
	objs = arena_alloc(s->arena, l.n * sizeof(*objs));
	for (int i = 0; i < l.n; i++)
		if (read_uobj(s, l.paths[i], &objs[n]))
			n++;
	if (!n)
		return;
	sb_puts(c, "#include \"stp_usyms.h\"\n");
	lines = ulines_wanted(s);
	for (int k = 0; k < n; k++)
		emit_uobj(s, c, &objs[k], k, lines);
	emit_table(c, objs, n);
}

int usyms_objects(struct session *s, const char **paths, int max)
{
	struct ulist l = { .n = 0 };
	int n = 0;

	elf_version(EV_CURRENT);
	collect(s, &l, false);
	for (; n < l.n && n < max; n++)
		paths[n] = l.paths[n];
	return n;
}
