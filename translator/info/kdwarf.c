/*
 * kdwarf.c - the kernel and its modules read through their DWARF: the
 * kernel's vmlinux with DWARF found as 4.8 finds it (Debian's
 * linux-image-*-dbg: DIR/boot/vmlinux-KVER of the debuginfo path, or by
 * build ID, or the -r tree's vmlinux), its build ID checked against the
 * kernel's, its CUs read on demand (a point's file part names them);
 * 4.8's blacklist by file and section. A kernel module with DWARF (a .ko
 * built with -g, or its debug .ko in the path): the .ko opened with
 * libdwfl (ubin.c), so that
 * module("M").function(), .statement("F@FILE:N") and inlined instances
 * resolve as the process family does (uprobes.c places and emits them as
 * kprobes on "M:function+offset"), and the module symbols the generated
 * code needs at run time (a static variable's address, DW_OP_addr), which
 * the runtime resolves when the session starts (stp_ksym()).
 */
#include <fcntl.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "ubin.h"
#include "kcatalog.h"
#include "ubin_int.h"

int kdwarf_ksym_index(struct session *s, const char *name)
{
	for (int i = 0; i < s->nksyms; i++)
		if (!strcmp(s->ksyms[i], name))
			return i;
	if (s->nksyms == s->capksyms) {
		const char **v = arena_alloc(s->arena, sizeof(*v) * (size_t)(s->capksyms * 2 + 8));

		if (s->nksyms)
			memcpy(v, s->ksyms, sizeof(*v) * (size_t)s->nksyms);
		s->ksyms = v;
		s->capksyms = s->capksyms * 2 + 8;
	}
	s->ksyms[s->nksyms] = name;
	return s->nksyms++;
}

/* Before the runtime: the build ID of the kernel's DWARF the probes were
 * placed by (the runtime refuses to start on another kernel), and the
 * names of stp_ksym()'s symbols. */
void kdwarf_emit_ksyms(struct session *s, struct strbuf *c)
{
	const char *id = s->kvmlinux ? s->kvmlinux_id : NULL;

	if (id && *id) {
		sb_puts(c, "#define STP_KERNEL_BUILD_ID ");
		for (size_t i = 0; id[i] && id[i + 1]; i += 2)
			sb_printf(c, "%s0x%.2s", i ? "," : "", id + i);
		sb_puts(c, "\n");
	}
	if (!s->nksyms)
		return;
	sb_printf(c, "#define STP_NKSYMS %d\nstatic const char *const stp_ksym_names[STP_NKSYMS] = {\n",
		  s->nksyms);
	for (int i = 0; i < s->nksyms; i++)
		sb_printf(c, "\t\"%s\",\n", s->ksyms[i]);
	sb_puts(c, "};\n");
	s->ksyms = NULL;
	s->nksyms = s->capksyms = 0;
}

/*
 * The module `spec` names ("name" from modules.dep, or "/path/to/m.ko"),
 * opened with its DWARF, labelled as written for pp(); NULL when it is
 * unknown or has no DWARF (the caller uses its BTF).
 */
struct ubin *kdwarf_module(struct session *s, const char *spec)
{
	const char **names;
	const char *path;
	struct ubin *b;

	if (kmod_match_modules(s, spec, &names) != 1)
		return NULL;
	path = kmod_path(s, names[0]);
	if (!path)
		return NULL;
	b = ubin_open_kmod(s, path, names[0]);
	if (b)
		ubin_set_label(b, spec);
	return b;
}

/* ---- the kernel's vmlinux ------------------------------------------------- */

static bool gnu_build_id(void *arg, const GElf_Nhdr *nh, const char *name,
			 const unsigned char *desc)
{
	char *hex = arg;

	if (nh->n_type != NT_GNU_BUILD_ID || nh->n_namesz != 4 || memcmp(name, "GNU", 4) ||
	    !nh->n_descsz || nh->n_descsz > 64)
		return false;
	for (size_t i = 0; i < nh->n_descsz; i++)
		sprintf(hex + i * 2, "%02x", desc[i]);
	return true;
}

/* An ELF file's GNU build ID as hex into hex[129] ("" if none); whether it
 * has DWARF (.debug_info) into *dwarf. */
bool ubin_elf_facts(const char *path, char *hex, bool *dwarf)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf *e;
	size_t shstrndx;
	Elf_Scn *scn = NULL;

	hex[0] = 0;
	*dwarf = false;
	if (fd < 0)
		return false;
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!e || elf_kind(e) != ELF_K_ELF) {
		if (e)
			elf_end(e);
		close(fd);
		return false;
	}
	elf_each_note(e, gnu_build_id, hex);
	if (!elf_getshdrstrndx(e, &shstrndx))
		while ((scn = elf_nextscn(e, scn))) {
			GElf_Shdr sh;
			const char *n;

			if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_PROGBITS &&
			    (n = elf_strptr(e, shstrndx, sh.sh_name)) && !strcmp(n, ".debug_info"))
				*dwarf = true;
		}
	elf_end(e);
	close(fd);
	return true;
}

/* The running kernel's build ID (/sys/kernel/notes) into hex. */
static void running_build_id(char *hex)
{
	unsigned char buf[4096];
	int fd = open("/sys/kernel/notes", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf)) : -1;
	size_t off = 0;

	hex[0] = 0;
	if (fd >= 0)
		close(fd);
	while (n > 0 && off + 12 <= (size_t)n) {
		uint32_t nsz, dsz, type;
		size_t name_at = off + 12, desc_at;

		memcpy(&nsz, buf + off, 4);
		memcpy(&dsz, buf + off + 4, 4);
		memcpy(&type, buf + off + 8, 4);
		desc_at = name_at + ((nsz + 3) & ~3u);
		if (desc_at + dsz > (size_t)n)
			break;
		if (type == NT_GNU_BUILD_ID && nsz == 4 && !memcmp(buf + name_at, "GNU", 4) &&
		    dsz && dsz <= 64) {
			for (uint32_t i = 0; i < dsz; i++)
				sprintf(hex + i * 2, "%02x", buf[desc_at + i]);
			return;
		}
		off = desc_at + ((dsz + 3) & ~3u);
	}
}

/* The build ID of the kernel the session is for, when it can be known:
 * the running kernel's, or the -r tree's vmlinux's; "" otherwise. */
static void target_build_id(struct session *s, char *hex)
{
	struct utsname u;
	bool dw;

	hex[0] = 0;
	if (!uname(&u) && !strcmp(u.release, s->kernel_release))
		running_build_id(hex);
	if (!hex[0])
		ubin_elf_facts(arena_printf(s->arena, "%s/vmlinux", s->kernel_build_dir), hex, &dw);
}

/* The candidates, in 4.8's (libdwfl's) order: the -r tree's vmlinux;
 * then for /boot/vmlinux-KVER and /lib/modules/KVER/vmlinux each entry
 * of the debuginfo path (empty: the file itself, relative: a directory
 * beside it, absolute: a tree mirroring it, "build": the build tree);
 * then the build ID under the path's trees. */
static const char *find_vmlinux(struct session *s, const char *want_id, const char **why)
{
	const char *rel = s->kernel_release;
	const char *names[] = { arena_printf(s->arena, "/boot/vmlinux-%s", rel),
				arena_printf(s->arena, "/lib/modules/%s/vmlinux", rel) };
	const char **cands = arena_alloc(s->arena, sizeof(*cands) * 64);
	char *dirs = arena_strdup(s->arena, debuginfo_path(s, true)), *dir, *rest;
	int n = 0;

	cands[n++] = arena_printf(s->arena, "%s/vmlinux", s->kernel_build_dir);
	for (int k = 0; k < 2; k++) {
		const char *base = strrchr(names[k], '/') + 1;
		const char *parent = arena_strndup(s->arena, names[k], (size_t)(base - names[k] - 1));

		dirs = arena_strdup(s->arena, debuginfo_path(s, true));
		for (rest = dirs; (dir = strsep(&rest, ":")) && n < 60;) {
			if (*dir == '+' || *dir == '-')
				dir++;
			if (!*dir)
				cands[n++] = names[k];
			else if (!strcmp(dir, "build"))
				cands[n++] = arena_printf(s->arena, "%s/vmlinux", s->kernel_build_dir);
			else if (*dir == '/')
				cands[n++] = arena_printf(s->arena, "%s%s", dir, names[k]);
			else
				cands[n++] = arena_printf(s->arena, "%s/%s/%s", parent, dir, base);
		}
	}
	if (want_id[0]) {
		dirs = arena_strdup(s->arena, debuginfo_path(s, true));
		for (rest = dirs; (dir = strsep(&rest, ":")) && n < 63;) {
			if (*dir == '+' || *dir == '-')
				dir++;
			if (*dir == '/')
				cands[n++] = arena_printf(s->arena, "%s/.build-id/%.2s/%s.debug", dir,
							  want_id, want_id + 2);
		}
	}
	for (int i = 0; i < n; i++) {
		char id[160];
		bool dw;

		if (access(cands[i], R_OK) || !ubin_elf_facts(cands[i], id, &dw) || !dw)
			continue;
		if (want_id[0] && strcmp(id, want_id)) {
			*why = arena_printf(s->arena, "the kernel debuginfo %s (build ID %s) is not for kernel %s (build ID %s)",
					    cands[i], id[0] ? id : "none", s->kernel_release, want_id);
			return NULL;
		}
		s->kvmlinux_id = arena_strdup(s->arena, id);
		return cands[i];
	}
	return NULL;
}

struct ubin *kdwarf_kernel(struct session *s, const char **why)
{
	char id[160];
	const char *path;

	*why = NULL;
	if (s->kvmlinux_tried) {
		*why = s->kvmlinux_why;
		return s->kvmlinux;
	}
	s->kvmlinux_tried = true;
	target_build_id(s, id);
	path = find_vmlinux(s, id, why);
	s->kvmlinux_why = *why;
	if (path)
		s->kvmlinux = ubin_open_vmlinux(s, path);
	if (s->kvmlinux)
		ubin_set_label(s->kvmlinux, "kernel");
	return s->kvmlinux;
}

Elf *ubin_elf(struct ubin *b);

/* .debug_aranges (DWARF 2-5, 64-bit addresses): the sets are final
 * addresses in a linked vmlinux. */
bool kdwarf_aranges_cu(struct ubin *b, uint64_t addr, uint64_t *cu_off)
{
	Elf *e = ubin_elf(b);
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	Elf_Data *d = NULL;
	const unsigned char *p, *end;

	if (!e || elf_getshdrstrndx(e, &shstrndx))
		return false;
	while (!d && (scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		const char *n;

		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_PROGBITS &&
		    (n = elf_strptr(e, shstrndx, sh.sh_name)) && !strcmp(n, ".debug_aranges"))
			d = elf_getdata(scn, NULL);
	}
	if (!d || !d->d_buf)
		return false;
	p = d->d_buf;
	end = p + d->d_size;
	while (p + 16 <= end) {
		uint32_t len, off;
		uint16_t ver;
		const unsigned char *set = p, *next;

		memcpy(&len, p, 4);
		memcpy(&ver, p + 4, 2);
		memcpy(&off, p + 6, 4);
		next = p + 4 + len;
		if (len == 0xffffffff || next > end || p[10] != 8)
			return false;	/* 64-bit DWARF or 32-bit addresses: libdw's */
		/* the tuples start at a multiple of twice the address size */
		set += 16;
		for (; set + 16 <= next; set += 16) {
			uint64_t lo, n;

			memcpy(&lo, set, 8);
			memcpy(&n, set + 8, 8);
			if (!lo && !n)
				break;
			if (addr >= lo && addr < lo + n) {
				*cu_off = off;
				return true;
			}
		}
		(void)ver;
		p = next;
	}
	return false;
}

/* Does the CU named cu hold functions declared in a file matching arg? */
static bool cu_wanted(void *arg, const char *cu)
{
	return ubin_file_matches(cu, arg);
}

static bool every_cu(void *arg, const char *cu)
{
	(void)arg;
	(void)cu;
	return true;
}

void kdwarf_prepare(struct session *s, struct ubin *b, const char *fn, const char *file)
{
	uint64_t addr;
	size_t len = file ? strlen(file) : 0, n;
	struct kindex *k;
	uint64_t *offs;

	/* a .c file's functions are declared in its own CU */
	if (file && len > 2 && !strcmp(file + len - 2, ".c")) {
		if ((k = kindex_get(s, b))) {
			n = kindex_cus_named(s, k, cu_wanted, (void *)file, &offs);
			ubin_read_cu_offs(b, offs, n, NULL);
		} else {
			ubin_read_cus(b, cu_wanted, (void *)file, NULL);
		}
		return;
	}
	/* a global function: its CU has its code and its inlined copies
	 * (no LTO); a static one may be a header's, inlined anywhere */
	if (!file && fn && !strpbrk(fn, "*?[") && kstab_global_func(ubin_kstab(b), fn, &addr)) {
		ubin_read_cu_at(b, addr);
		return;
	}
	/* every CU, only the functions the pattern names; and the symbol
	 * table's functions without DWARF (name.cold) */
	if ((k = kindex_get(s, b))) {
		n = kindex_cus_defining(s, k, fn, &offs);
		ubin_read_cu_offs(b, offs, n, fn && strcmp(fn, "*") ? fn : NULL);
	} else {
		ubin_read_cus(b, every_cu, NULL, fn && strcmp(fn, "*") ? fn : NULL);
	}
	if (!file && fn) {
		struct ufunc *syms;
		size_t nsyms = kstab_match_funcs(s, ubin_kstab(b), fn, &syms);

		ubin_add_symbol_funcs(b, syms, nsyms);
	}
}

const char kdwarf_bl_section[] = "SystemTap 4.8's blacklist of sections";
const char kdwarf_bl_file[] = "SystemTap 4.8's blacklist of files";

/* 4.8's blacklist of kernel files (declaring a function) and sections. */
static const char *const bl_files[] = {
	"kernel/kprobes.c", "arch/*/kernel/kprobes.c", "arch/*/kernel/kprobes/*",
	"*/include/asm/io.h", "*/include/asm/io-defs.h", "*/include/asm/io_64.h",
	"*/include/asm/bitops.h", "drivers/ide/ide-iops.c", "arch/*/kernel/paravirt.c",
	"*/include/asm/paravirt.h", "fs/seq_file.c", NULL
};
static const char *const bl_sections[] = {
	"*.init.*", "*.exit.*", "*.devinit.*", "*.devexit.*", "*.cpuinit.*", "*.cpuexit.*",
	"*.meminit.*", "*.memexit.*", NULL
};
/* Code the kernel itself refuses kprobes in, inside .text (its start and
 * end symbols): __kprobes, the entry code. Not noinstr code, which 4.8
 * lists and places (its registration then fails, with a warning). */
static const char *const bl_ranges[] = {
	"__kprobes_text", "__entry_text", "__irqentry_text", "__softirqentry_text", NULL
};

bool kdwarf_file_blacklisted(const char *file)
{
	for (int i = 0; file && bl_files[i]; i++)
		if (ubin_file_matches(file, bl_files[i]))
			return true;
	return false;
}

const char *kdwarf_blacklisted(struct session *s, struct ubin *b, const struct ufunc *f)
{
	const char *sec = ubin_section_of(b, f->entry);

	/* a function whose out-of-line code is only a compiler clone
	 * (name.part.0): 4.8 finds no symbol there and probes only its
	 * inlined copies; a weak one another overrides (no symbol at all
	 * left at its code) 4.8 probes */
	if (!f->inlined && f->die && !kstab_has_at(ubin_kstab(b), f->name, f->entry) &&
	    kstab_any_at(ubin_kstab(b), f->entry))
		return "no symbol of that name at its entry";

	for (int i = 0; bl_sections[i]; i++)	/* first: 4.8's order */
		if (!fnmatch(bl_sections[i], sec, 0))
			return KDWARF_BL_SECTION;
	if (kdwarf_file_blacklisted(f->file))
		return KDWARF_BL_FILE;
	for (int i = 0; !s->kbl_ranges_read && bl_ranges[i]; i++) {
		s->kbl_ranges[i][0] = kstab_addr(ubin_kstab(b), arena_printf(s->arena, "%s_start",
								     bl_ranges[i]));
		s->kbl_ranges[i][1] = kstab_addr(ubin_kstab(b), arena_printf(s->arena, "%s_end",
								     bl_ranges[i]));
	}
	s->kbl_ranges_read = true;
	for (int i = 0; bl_ranges[i]; i++) {
		const uint64_t *r = s->kbl_ranges[i];

		if (r[0] && r[1] && f->entry >= r[0] && f->entry < r[1])
			return "code the kernel does not let kprobes probe";
	}
	return NULL;
}
