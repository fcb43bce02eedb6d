/*
 * kmodidx.c - the names of the functions a kernel module's DWARF defines
 * (its debug .ko, found by libdwfl as ubin_open_kmod() finds it), inlined
 * ones too, kept per the module's build ID in the user's cache directory
 * ($SYSTEMTAP_DIR/cache/kdwarf/BUILDID.fn). module("GLOB").function("P")
 * over many modules opens only those defining a function P names: the
 * first run reads each module's DWARF once to write its file, the next
 * ones read the files. A file that is not whole or not for that build
 * (its first line names the build ID, its last is a checksum of the
 * names) is rewritten, never trusted.
 */
#include <fcntl.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <dwarf.h>
#include <elfutils/libdwfl.h>

#include "ubin.h"
#include "ubin_int.h"

#define KMODIDX_MAGIC "STPKFN1"

static uint64_t fnv(const char *p, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ull;

	while (n--)
		h = (h ^ (unsigned char)*p++) * 0x100000001b3ull;
	return h;
}

/* The named, defined subprograms of the module's DWARF (a function, or
 * the abstract origin of inlined copies), one a line, into sb; false when
 * the module has no DWARF libdwfl can find. */
static bool module_names(struct session *s, const char *path, struct strbuf *sb)
{
	char *dirs = arena_strdup(s->arena, debuginfo_path(s, true));
	Dwfl_Callbacks cb = {
		.find_elf = dwfl_build_id_find_elf,
		.find_debuginfo = dwfl_standard_find_debuginfo,
		.section_address = dwfl_offline_section_address,
		.debuginfo_path = &dirs,
	};
	Dwfl *dwfl = dwfl_begin(&cb);
	Dwfl_Module *m;
	Dwarf *dw = NULL;
	Dwarf_Addr bias;
	Dwarf_Off off = 0, next;
	size_t hsize;

	if (!dwfl)
		return false;
	m = dwfl_report_offline(dwfl, "kmod", path, -1);
	dwfl_report_end(dwfl, NULL, NULL);
	if (m)
		dw = dwfl_module_getdwarf(m, &bias);
	if (!dw) {
		dwfl_end(dwfl);
		return false;
	}
	while (dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu, c;

		if (dwarf_offdie(dw, off + hsize, &cu) && !dwarf_child(&cu, &c))
			do {
				const char *name = dwarf_diename(&c);

				if (dwarf_tag(&c) == DW_TAG_subprogram && name && *name &&
				    !dwarf_hasattr(&c, DW_AT_declaration))
					sb_printf(sb, "%s\n", name);
			} while (dwarf_siblingof(&c, &c) == 0);
		off = next;
	}
	dwfl_end(dwfl);
	return true;
}

/* buf (len bytes) as the file of build id: its names (NUL-terminated in
 * place, *names .. *end), or false. */
static bool parse(char *buf, size_t len, const char *id, char **names, char **end)
{
	char *nl = memchr(buf, '\n', len), *last;
	unsigned long long sum;

	if (!nl || (size_t)(nl - buf) != strlen(KMODIDX_MAGIC) + 1 + strlen(id) ||
	    memcmp(buf, KMODIDX_MAGIC " ", strlen(KMODIDX_MAGIC) + 1) ||
	    memcmp(buf + strlen(KMODIDX_MAGIC) + 1, id, strlen(id)) ||
	    len < 17 || buf[len - 1] != '\n')
		return false;
	last = buf + len - 17;	/* "%016llx\n" */
	if (last < nl + 1 || (last > nl + 1 && last[-1] != '\n') ||
	    sscanf(last, "%16llx", &sum) != 1 || fnv(nl + 1, (size_t)(last - nl - 1)) != sum)
		return false;
	*names = nl + 1;
	*end = last;
	return true;
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "re");
	char *buf = NULL;
	long n;

	if (!f)
		return NULL;
	if (!fseek(f, 0, SEEK_END) && (n = ftell(f)) > 0 && !fseek(f, 0, SEEK_SET) &&
	    (buf = malloc((size_t)n + 1)) && fread(buf, 1, (size_t)n, f) == (size_t)n) {
		*len = (size_t)n;
		buf[n] = 0;
	} else {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	return buf;
}

/* The file's text for the module at path (build ID id), written if
 * missing or bad; NULL when the module has no DWARF. */
static char *names_file(struct session *s, const char *path, const char *id, size_t *len)
{
	const char *dir = kindex_dir(s);
	const char *file = dir ? arena_printf(s->arena, "%s/%s.fn", dir, id) : NULL;
	char *buf = file ? slurp(file, len) : NULL, *names, *end;
	struct strbuf sb;
	size_t body;

	if (buf && parse(buf, *len, id, &names, &end))
		return buf;
	free(buf);
	sb_init(&sb);
	sb_printf(&sb, "%s %s\n", KMODIDX_MAGIC, id);
	body = sb.len;
	if (!module_names(s, path, &sb)) {
		sb_free(&sb);
		return NULL;
	}
	sb_printf(&sb, "%016llx\n", (unsigned long long)fnv(sb.buf + body, sb.len - body));
	if (file) {
		/* written whole under another name, then renamed */
		const char *tmp = arena_printf(s->arena, "%s.%d.tmp", file, (int)getpid());
		int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

		if (fd >= 0) {
			bool ok = write(fd, sb.buf, sb.len) == (ssize_t)sb.len;

			if (close(fd) || !ok || rename(tmp, file))
				unlink(tmp);
		}
	}
	*len = sb.len;
	buf = strdup(sb.buf);
	sb_free(&sb);
	if (!buf)
		abort();
	return buf;
}

int kmodidx_defines(struct session *s, const char *path, const char *glob)
{
	char id[160], *buf, *names, *end;
	size_t len;
	bool dw;
	int found = 0;

	if (!ubin_elf_facts(path, id, &dw) || !id[0] ||
	    !(buf = names_file(s, path, id, &len)))
		return -1;
	if (!parse(buf, len, id, &names, &end)) {
		free(buf);
		return -1;
	}
	for (char *p = names, *nl; p < end && !found; p = nl + 1) {
		nl = memchr(p, '\n', (size_t)(end - p));
		*nl = 0;
		found = !fnmatch(glob, p, 0);
	}
	free(buf);
	return found;
}
