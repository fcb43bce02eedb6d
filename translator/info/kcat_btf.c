/*
 * kcat_btf.c - finds the target kernel's BTF without debuginfo, trying in
 * order: the running kernel's /sys/kernel/btf/vmlinux (only when the target
 * is the running kernel), a vmlinux in the build directory, and the vmlinux
 * inside /boot/vmlinuz-RELEASE (its xz payload decompressed with liblzma,
 * the .BTF section found with libelf). An extracted BTF is cached as the
 * raw .BTF bytes under the per-release cache directory, keyed by the
 * vmlinuz path, size and mtime, so the extraction happens once.
 */
#include <errno.h>
#include <gelf.h>
#include <lzma.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "kcatalog.h"

#define BTF_SYSFS "/sys/kernel/btf/vmlinux"

/* libbpf's own messages would duplicate ours. */
static int libbpf_quiet(enum libbpf_print_level level, const char *fmt,
			va_list ap)
{
	(void)level;
	(void)fmt;
	(void)ap;
	return 0;
}

static bool is_running_kernel(const char *release)
{
	struct utsname u;

	return uname(&u) == 0 && !strcmp(u.release, release);
}

/* ---- the cache directory -------------------------------------------------- */

static int mkdir_p(char *path)
{
	for (char *p = path + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(path, 0755) && errno != EEXIST) {
			*p = '/';
			return -1;
		}
		*p = '/';
	}
	return mkdir(path, 0755) && errno != EEXIST ? -1 : 0;
}

/* $SYSTEMTAP_DIR/cache/REL, else $XDG_CACHE_HOME/stap/REL, else
 * ~/.cache/stap/REL; created on demand. */
const char *kbtf_cache_dir(struct session *s)
{
	const char *sd = getenv("SYSTEMTAP_DIR"), *xdg = getenv("XDG_CACHE_HOME");
	const char *home = getenv("HOME");
	char *rel = arena_strdup(s->arena, s->kernel_release), *dir;

	for (char *p = rel; *p; p++) {
		if (*p == '/')
			*p = '_';
	}
	if (sd && *sd)
		dir = arena_printf(s->arena, "%s/cache/%s", sd, rel);
	else if (xdg && *xdg == '/')
		dir = arena_printf(s->arena, "%s/stap/%s", xdg, rel);
	else if (home && *home)
		dir = arena_printf(s->arena, "%s/.cache/stap/%s", home, rel);
	else
		return NULL;
	return mkdir_p(dir) ? NULL : dir;
}

/* Write through a temporary file and rename(): readers never see a part. */
int kbtf_write_atomic(const char *path, const void *data, size_t len)
{
	size_t n = strlen(path);
	char *tmp = malloc(n + 8);
	int fd, rc = -1;

	if (!tmp)
		return -1;
	memcpy(tmp, path, n);
	memcpy(tmp + n, ".XXXXXX", 8);
	fd = mkstemp(tmp);
	if (fd >= 0) {
		const char *p = data;
		size_t left = len;
		ssize_t w = 0;

		while (left && (w = write(fd, p, left)) > 0) {
			p += w;
			left -= (size_t)w;
		}
		if (close(fd) == 0 && !left &&
		    rename(tmp, path) == 0)
			rc = 0;
		else
			unlink(tmp);
	}
	free(tmp);
	return rc;
}

/* ---- the vmlinux inside a bzImage ----------------------------------------- */

static bool grow(unsigned char **buf, size_t *cap, size_t need)
{
	unsigned char *p;

	if (need <= *cap)
		return true;
	p = realloc(*buf, need * 2);
	if (!p)
		return false;
	*buf = p;
	*cap = need * 2;
	return true;
}

/* Decompress the one xz stream at z (trailing bytes are ignored); NULL
 * unless it is a whole stream whose output starts as an ELF file. */
static unsigned char *xz_elf(const unsigned char *z, size_t zlen, size_t *len)
{
	lzma_stream strm = LZMA_STREAM_INIT;
	unsigned char *out = NULL;
	size_t cap = 0;
	lzma_ret ret = LZMA_MEM_ERROR;

	if (lzma_stream_decoder(&strm, UINT64_MAX, 0) != LZMA_OK)
		return NULL;
	strm.next_in = z;
	strm.avail_in = zlen;
	do {
		if (!grow(&out, &cap, strm.total_out + (1 << 20)))
			break;
		strm.next_out = out + strm.total_out;
		strm.avail_out = cap - strm.total_out;
		ret = lzma_code(&strm, LZMA_FINISH);
		if (strm.total_out >= 4 && memcmp(out, "\177ELF", 4))
			break;
	} while (ret == LZMA_OK);
	*len = strm.total_out;
	lzma_end(&strm);
	if (ret == LZMA_STREAM_END && *len >= 4 && !memcmp(out, "\177ELF", 4))
		return out;
	free(out);
	return NULL;
}

/* The kernel ELF in a bzImage: the first xz stream that holds one. */
static unsigned char *bzimage_vmlinux(const unsigned char *img, size_t n,
				      size_t *len)
{
	static const unsigned char magic[6] = { 0xfd, '7', 'z', 'X', 'Z', 0 };
	const unsigned char *p = img;
	unsigned char *elf;

	while ((p = memmem(p, n - (size_t)(p - img), magic, sizeof(magic)))) {
		elf = xz_elf(p, n - (size_t)(p - img), len);
		if (elf)
			return elf;
		p++;
	}
	return NULL;
}

/* A malloc'd copy of the .BTF section of an ELF image in memory. */
static void *elf_btf_section(unsigned char *img, size_t n, size_t *len)
{
	Elf_Scn *scn = NULL;
	void *copy = NULL;
	size_t shstrndx;
	Elf *e;

	elf_version(EV_CURRENT);
	e = elf_memory((char *)img, n);
	if (!e || elf_getshdrstrndx(e, &shstrndx))
		goto out;
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		const char *name;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh))
			continue;
		name = elf_strptr(e, shstrndx, sh.sh_name);
		if (!name || strcmp(name, ".BTF"))
			continue;
		d = elf_getdata(scn, NULL);
		if (d && d->d_size && (copy = malloc(d->d_size))) {
			memcpy(copy, d->d_buf, d->d_size);
			*len = d->d_size;
		}
		break;
	}
out:
	if (e)
		elf_end(e);
	return copy;
}

/* Raw BTF bytes from a vmlinuz; NULL with *why set on failure. */
static void *vmlinuz_btf(struct session *s, const char *path, size_t *len,
			 const char **why)
{
	size_t zlen, elen;
	unsigned char *z = (unsigned char *)read_file(path, &zlen), *elf;
	void *btf;

	if (!z) {
		*why = arena_strdup(s->arena, strerror(errno));
		return NULL;
	}
	elf = bzimage_vmlinux(z, zlen, &elen);
	free(z);
	if (!elf) {
		*why = "no xz-compressed ELF kernel in it";
		return NULL;
	}
	btf = elf_btf_section(elf, elen, len);
	free(elf);
	if (!btf)
		*why = "its vmlinux has no .BTF section (CONFIG_DEBUG_INFO_BTF off?)";
	return btf;
}

/* ---- the sources, in order ------------------------------------------------ */

struct attempt {
	struct session *s;
	struct strbuf tried;	/* "PATH (why); ..." for the error */
	const char *origin;
};

static void failed(struct attempt *a, const char *what, const char *why)
{
	sb_printf(&a->tried, "%s%s (%s)", a->tried.len ? ", " : "", what, why);
}

static struct btf *from_cache(struct attempt *a, const char *dir,
			      const char *key)
{
	struct session *s = a->s;
	size_t len;
	char *have = read_file(arena_printf(s->arena, "%s/vmlinux.btf.key", dir),
			       &len);
	struct btf *btf = NULL;

	if (have && !strcmp(have, key))
		btf = btf__parse_raw(arena_printf(s->arena, "%s/vmlinux.btf", dir));
	free(have);
	return btf;
}

static void to_cache(struct attempt *a, const char *dir, const char *key,
		     const void *raw, size_t len)
{
	struct session *s = a->s;
	const char *btf = arena_printf(s->arena, "%s/vmlinux.btf", dir);

	if (kbtf_write_atomic(btf, raw, len) ||
	    kbtf_write_atomic(arena_printf(s->arena, "%s.key", btf), key,
			      strlen(key))) {
		if (s->verbose > 1)
			fprintf(s->err, "kcatalog: cannot cache the BTF in %s: %s\n",
				dir, strerror(errno));
	}
}

static struct btf *from_vmlinuz(struct attempt *a, const char *path)
{
	struct session *s = a->s;
	const char *dir = kbtf_cache_dir(s), *why = NULL, *key;
	struct btf *btf = NULL;
	struct stat st;
	size_t len;
	void *raw;

	if (stat(path, &st)) {
		failed(a, path, strerror(errno));
		return NULL;
	}
	key = arena_printf(s->arena, "%s %lld %lld.%09ld\n", path,
			   (long long)st.st_size, (long long)st.st_mtim.tv_sec,
			   st.st_mtim.tv_nsec);
	if (dir && (btf = from_cache(a, dir, key))) {
		a->origin = arena_printf(s->arena, "%s/vmlinux.btf (from %s)", dir, path);
		return btf;
	}
	raw = vmlinuz_btf(s, path, &len, &why);
	if (raw)
		btf = btf__new(raw, (__u32)len);
	if (!btf) {
		failed(a, path, why ? why : "its .BTF section does not parse");
		free(raw);
		return NULL;
	}
	if (dir)
		to_cache(a, dir, key, raw, len);
	free(raw);
	a->origin = path;
	return btf;
}

static struct btf *from_sysfs(struct attempt *a)
{
	struct btf *btf;

	if (!is_running_kernel(a->s->kernel_release)) {
		failed(a, BTF_SYSFS, "not the running kernel");
		return NULL;
	}
	btf = btf__parse_raw(BTF_SYSFS);
	if (!btf)
		failed(a, BTF_SYSFS, strerror(errno));
	else
		a->origin = BTF_SYSFS;
	return btf;
}

static struct btf *from_build_dir(struct attempt *a)
{
	const char *path;
	struct btf *btf;

	if (!a->s->kernel_build_dir)
		return NULL;
	path = arena_printf(a->s->arena, "%s/vmlinux", a->s->kernel_build_dir);
	if (access(path, R_OK)) {
		failed(a, path, strerror(errno));
		return NULL;
	}
	btf = btf__parse_elf(path, NULL);
	if (!btf)
		failed(a, path, "no .BTF section");
	else
		a->origin = path;
	return btf;
}

struct btf *kbtf_load(struct session *s, const char **origin)
{
	struct attempt a = { .s = s };
	struct btf *btf;

	libbpf_set_print(libbpf_quiet);
	sb_init(&a.tried);
	btf = from_sysfs(&a);
	if (!btf)
		btf = from_build_dir(&a);
	if (!btf)
		btf = from_vmlinuz(&a, arena_printf(s->arena, "/boot/vmlinuz-%s",
						    s->kernel_release));
	if (btf)
		*origin = a.origin;
	else
		diag_plain(s, "cannot read the BTF of kernel %s (function and "
			   "tracepoint names come from it); tried %s",
			   s->kernel_release, a.tried.buf);
	sb_free(&a.tried);
	return btf;
}
