/*
 * kindex.c - an index of the kernel's DWARF kept per build ID in the
 * user's cache directory ($SYSTEMTAP_DIR/cache/kdwarf/BUILDID.idx, default
 * ~/.systemtap/cache): the offset and name of each compilation unit of the
 * debug vmlinux, and the names of the functions (and inlined instances)
 * each one defines, and the named types (struct, union, enum, typedef,
 * base type) each CU is the first to define, for @cast. kdwarf_prepare() asks it which CUs a point needs, so
 * that only those are read: the first run walks the whole DWARF once to
 * write it, the next ones read it. An index that is not whole, not ours,
 * or for another build is rebuilt, never trusted (its header names the
 * build ID and the sizes, a checksum covers the rest).
 */
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <dwarf.h>

#include "ubin.h"
#include "ubin_int.h"

#define KIDX_MAGIC "STPKIDX2"

struct kidx_hdr {
	char magic[8];
	uint32_t ncus, nnames, nrefs, strsize;
	uint64_t sum;		/* FNV-1a of everything after the header */
	char id[136];		/* the build ID, hex, NUL padded */
};

struct kidx_cu {
	uint64_t off;		/* its header in .debug_info */
	uint32_t name;		/* in str */
	uint32_t ref0, nref;	/* its functions' names: refs[ref0..+nref] */
	uint32_t pad;
};

struct kindex {
	char *buf;		/* the file: mapped, or built (malloc) */
	size_t len;
	bool mapped;
	const struct kidx_hdr *h;
	const struct kidx_cu *cus;
	const uint32_t *names;	/* offsets in str */
	const uint32_t *refs;	/* indexes in names */
	const char *str;
};

static uint64_t fnv(const void *p, size_t n)
{
	const unsigned char *c = p;
	uint64_t h = 0xcbf29ce484222325ull;

	while (n--)
		h = (h ^ *c++) * 0x100000001b3ull;
	return h;
}

/* ---- building ------------------------------------------------------------- */

struct builder {
	struct kidx_cu *cus;
	size_t ncus, capcus;
	uint32_t *names, *refs;
	size_t nnames, capnames, nrefs, caprefs;
	uint32_t *stamp;	/* per name: 1 + the last CU it was seen in */
	char *str;
	size_t strsize, capstr;
	uint32_t *slots;	/* hash of names: 1 + index, 0 empty */
	size_t nslots;
};

static void *grow(void *p, size_t *cap, size_t need, size_t each)
{
	if (need <= *cap)
		return p;
	*cap = *cap ? *cap * 2 : 1024;
	if (*cap < need)
		*cap = need;
	p = realloc(p, *cap * each);
	if (!p)
		abort();
	return p;
}

static uint32_t add_str(struct builder *x, const char *s)
{
	size_t n = strlen(s) + 1;
	uint32_t at = (uint32_t)x->strsize;

	x->str = grow(x->str, &x->capstr, x->strsize + n, 1);
	memcpy(x->str + x->strsize, s, n);
	x->strsize += n;
	return at;
}

static void rehash(struct builder *x)
{
	size_t n = x->nslots ? x->nslots * 2 : 1 << 16;

	free(x->slots);
	x->slots = calloc(n, sizeof(*x->slots));
	if (!x->slots)
		abort();
	x->nslots = n;
	for (size_t i = 0; i < x->nnames; i++) {
		size_t h = fnv(x->str + x->names[i], strlen(x->str + x->names[i])) & (n - 1);

		while (x->slots[h])
			h = (h + 1) & (n - 1);
		x->slots[h] = (uint32_t)i + 1;
	}
}

static uint32_t name_index(struct builder *x, const char *name)
{
	size_t h, len = strlen(name);

	if (x->nnames * 2 >= x->nslots)
		rehash(x);
	h = fnv(name, len) & (x->nslots - 1);
	for (; x->slots[h]; h = (h + 1) & (x->nslots - 1))
		if (!strcmp(x->str + x->names[x->slots[h] - 1], name))
			return x->slots[h] - 1;
	x->names = grow(x->names, &x->capnames, x->nnames + 1, sizeof(*x->names));
	x->stamp = realloc(x->stamp, x->capnames * sizeof(*x->stamp));
	if (!x->stamp)
		abort();
	x->names[x->nnames] = add_str(x, name);
	x->stamp[x->nnames] = 0;
	x->slots[h] = (uint32_t)++x->nnames;
	return (uint32_t)x->nnames - 1;
}

/* b->name_sink: a function name of the CU being read, once per CU */
static void sink(void *arg, const char *name)
{
	struct builder *x = arg;
	uint32_t i = name_index(x, name);

	if (x->stamp[i] == x->ncus)
		return;
	x->stamp[i] = (uint32_t)x->ncus;
	x->refs = grow(x->refs, &x->caprefs, x->nrefs + 1, sizeof(*x->refs));
	x->refs[x->nrefs++] = i;
	x->cus[x->ncus - 1].nref++;
}

/* A type's key among the names: '\1', a letter for its tag, its name
 * (never a function's name, never matched by a glob of functions). */
static const char *type_key(char *buf, size_t size, int tag, const char *name)
{
	char t = tag == DW_TAG_structure_type ? 's' : tag == DW_TAG_union_type ? 'u' :
		 tag == DW_TAG_enumeration_type ? 'e' : tag == DW_TAG_typedef ? 't' :
		 tag == DW_TAG_base_type ? 'b' : 0;

	if (!t || snprintf(buf, size, "\1%c%s", t, name) >= (int)size)
		return NULL;
	return buf;
}

/* The named types the CU defines at its top level that no CU before it
 * defined: a ref of the CU each. */
static void cu_types(struct builder *x, Dwarf_Die *cu)
{
	Dwarf_Die c;
	char buf[512];

	if (dwarf_child(cu, &c))
		return;
	do {
		const char *name = dwarf_diename(&c), *key;
		uint32_t i;

		if (!name || dwarf_hasattr(&c, DW_AT_declaration) ||
		    !(key = type_key(buf, sizeof(buf), dwarf_tag(&c), name)))
			continue;
		i = name_index(x, key);
		if (x->stamp[i])
			continue;
		x->stamp[i] = (uint32_t)x->ncus;
		x->refs = grow(x->refs, &x->caprefs, x->nrefs + 1, sizeof(*x->refs));
		x->refs[x->nrefs++] = i;
		x->cus[x->ncus - 1].nref++;
	} while (dwarf_siblingof(&c, &c) == 0);
}

/* The index of b's DWARF, every CU read once, as the file's bytes (*len). */
static char *build(struct ubin *b, const char *id, size_t *len)
{
	struct builder x = { 0 };
	struct kidx_hdr h = { 0 };
	Dwarf_Off off = 0, next, trimmed = 0;
	size_t hsize, at;
	char *out;

	while (dwarf_nextcu(b->dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu;
		const char *name;

		if (ubin_vm_cu(b, off, &cu) && (name = dwarf_diename(&cu))) {
			x.cus = grow(x.cus, &x.capcus, x.ncus + 1, sizeof(*x.cus));
			x.cus[x.ncus++] = (struct kidx_cu){ off, add_str(&x, name),
							    (uint32_t)x.nrefs, 0, 0 };
			b->name_sink = sink;
			b->sink_arg = &x;
			ubin_cu_func_names(b, &cu);
			b->name_sink = NULL;
			cu_types(&x, &cu);
		}
		if (next - trimmed > (4u << 20)) {
			ubin_vm_trim(b);
			trimmed = next;
		}
		off = next;
	}
	ubin_vm_trim(b);
	memcpy(h.magic, KIDX_MAGIC, 8);
	h.ncus = (uint32_t)x.ncus;
	h.nnames = (uint32_t)x.nnames;
	h.nrefs = (uint32_t)x.nrefs;
	h.strsize = (uint32_t)x.strsize;
	snprintf(h.id, sizeof(h.id), "%s", id);
	*len = sizeof(h) + x.ncus * sizeof(*x.cus) + (x.nnames + x.nrefs) * 4 + x.strsize;
	out = malloc(*len);
	if (!out)
		abort();
	at = sizeof(h);
	memcpy(out + at, x.cus, x.ncus * sizeof(*x.cus));
	at += x.ncus * sizeof(*x.cus);
	memcpy(out + at, x.names, x.nnames * 4);
	at += x.nnames * 4;
	memcpy(out + at, x.refs, x.nrefs * 4);
	at += x.nrefs * 4;
	memcpy(out + at, x.str, x.strsize);
	h.sum = fnv(out + sizeof(h), *len - sizeof(h));
	memcpy(out, &h, sizeof(h));
	free(x.cus);
	free(x.names);
	free(x.refs);
	free(x.stamp);
	free(x.str);
	free(x.slots);
	return out;
}

/* ---- reading --------------------------------------------------------------- */

/* buf (len bytes) as an index of build id; false if it is not a whole
 * one of ours for that build. */
static bool parse(struct kindex *k, char *buf, size_t len, const char *id)
{
	const struct kidx_hdr *h = (const void *)buf;
	size_t need;

	if (len < sizeof(*h) || memcmp(h->magic, KIDX_MAGIC, 8) ||
	    strncmp(h->id, id, sizeof(h->id)) || h->id[sizeof(h->id) - 1])
		return false;
	need = sizeof(*h) + (size_t)h->ncus * sizeof(struct kidx_cu) +
	       ((size_t)h->nnames + h->nrefs) * 4 + h->strsize;
	if (need != len || !h->strsize || fnv(buf + sizeof(*h), len - sizeof(*h)) != h->sum)
		return false;
	k->buf = buf;
	k->h = h;
	k->cus = (const void *)(buf + sizeof(*h));
	k->names = (const void *)(k->cus + h->ncus);
	k->refs = k->names + h->nnames;
	k->str = (const char *)(k->refs + h->nrefs);
	if (k->str[h->strsize - 1])
		return false;
	for (uint32_t i = 0; i < h->nnames; i++)
		if (k->names[i] >= h->strsize)
			return false;
	for (uint32_t i = 0; i < h->nrefs; i++)
		if (k->refs[i] >= h->nnames)
			return false;
	for (uint32_t i = 0; i < h->ncus; i++)
		if (k->cus[i].name >= h->strsize || k->cus[i].ref0 > h->nrefs ||
		    k->cus[i].nref > h->nrefs - k->cus[i].ref0)
			return false;
	return true;
}

/* The file at path mapped read-only (*len bytes), or NULL. */
static char *map_file(const char *path, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	void *p = MAP_FAILED;

	if (fd < 0)
		return NULL;
	if (!fstat(fd, &st) && S_ISREG(st.st_mode) && st.st_size > 0)
		p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	*len = p == MAP_FAILED ? 0 : (size_t)st.st_size;
	return p == MAP_FAILED ? NULL : p;
}

/* The directory of the indexes ($SYSTEMTAP_DIR/cache/kdwarf), made if
 * needed; NULL when there is none to write (--disable-cache). */
const char *kindex_dir(struct session *s)
{
	const char *data = getenv("SYSTEMTAP_DIR"), *dir;

	if (s->no_cache)
		return NULL;
	if (!data || !*data) {
		const char *home = getenv("HOME");
		struct passwd *pw;

		if ((!home || !*home) && (pw = getpwuid(getuid())))
			home = pw->pw_dir;
		if (!home || !*home)
			return NULL;
		data = arena_printf(s->arena, "%s/.systemtap", home);
	}
	dir = arena_printf(s->arena, "%s/cache/kdwarf", data);
	for (char *p = (char *)dir + 1; *p; p++)
		if (*p == '/') {
			*p = 0;
			if (mkdir(dir, 0755) && errno != EEXIST) {
				*p = '/';
				return NULL;
			}
			*p = '/';
		}
	if (mkdir(dir, 0755) && errno != EEXIST)
		return NULL;
	return dir;
}

struct kindex *kindex_get(struct session *s, struct ubin *b)
{
	const char *id = s->kvmlinux_id, *dir, *path, *tmp;
	struct kindex *k;
	size_t len;
	char *buf;
	int fd;

	if (b->kindex_tried)
		return b->kindex;
	b->kindex_tried = true;
	if (!id || !*id || !ubin_is_vmlinux(b) || !(dir = kindex_dir(s)))
		return NULL;
	k = arena_alloc(s->arena, sizeof(*k));
	path = arena_printf(s->arena, "%s/%s.idx", dir, id);
	buf = map_file(path, &len);
	if (buf && parse(k, buf, len, id)) {
		/* checked whole: its pages are read again as asked */
		madvise(buf, len, MADV_DONTNEED);
		k->len = len;
		k->mapped = true;
		return b->kindex = k;
	}
	if (buf)
		munmap(buf, len);
	buf = build(b, id, &len);
	if (!parse(k, buf, len, id)) {
		free(buf);
		return NULL;
	}
	/* written whole under another name, then renamed: a reader sees
	 * the old file or the new one */
	tmp = arena_printf(s->arena, "%s.%d.tmp", path, (int)getpid());
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd >= 0) {
		bool ok = write(fd, buf, len) == (ssize_t)len;

		if (close(fd) || !ok || rename(tmp, path))
			unlink(tmp);
	}
	return b->kindex = k;
}

void kindex_free(struct ubin *b)
{
	if (b->kindex && b->kindex->mapped)
		munmap(b->kindex->buf, b->kindex->len);
	else if (b->kindex)
		free(b->kindex->buf);
	b->kindex = NULL;
}

static size_t push_off(struct session *s, uint64_t **v, size_t n, uint64_t off)
{
	if (!(n & (n - 1)) || !n) {
		uint64_t *w = arena_alloc(s->arena, sizeof(*w) * (n ? n * 2 : 16));

		if (n)
			memcpy(w, *v, sizeof(*w) * n);
		*v = w;
	}
	(*v)[n] = off;
	return n + 1;
}

size_t kindex_cus_named(struct session *s, struct kindex *k,
			bool (*want)(void *arg, const char *cu), void *arg, uint64_t **offs)
{
	size_t n = 0;

	*offs = NULL;
	for (uint32_t i = 0; i < k->h->ncus; i++)
		if (want(arg, k->str + k->cus[i].name))
			n = push_off(s, offs, n, k->cus[i].off);
	return n;
}

size_t kindex_cus_defining(struct session *s, struct kindex *k, const char *glob,
			   uint64_t **offs)
{
	unsigned char *hit = calloc(k->h->nnames + 1, 1);
	size_t n = 0;

	if (!hit)
		abort();
	*offs = NULL;
	for (uint32_t i = 0; i < k->h->nnames; i++)
		hit[i] = k->str[k->names[i]] != '\1' &&
			 (!glob || !fnmatch(glob, k->str + k->names[i], 0));
	for (uint32_t i = 0; i < k->h->ncus; i++) {
		const struct kidx_cu *c = &k->cus[i];

		for (uint32_t r = 0; r < c->nref; r++)
			if (hit[k->refs[c->ref0 + r]]) {
				n = push_off(s, offs, n, c->off);
				break;
			}
	}
	free(hit);
	return n;
}

/* The CU the index has first defining the type (tag, name): its offset in
 * *off; false when no CU defines it. */
static bool type_cu(struct kindex *k, int tag, const char *name, uint64_t *off)
{
	char buf[512];
	const char *key = type_key(buf, sizeof(buf), tag, name);
	uint32_t n = UINT32_MAX;

	for (uint32_t i = 0; key && i < k->h->nnames; i++)
		if (!strcmp(k->str + k->names[i], key)) {
			n = i;
			break;
		}
	if (n == UINT32_MAX)
		return false;
	for (uint32_t i = 0; i < k->h->ncus; i++) {
		const struct kidx_cu *c = &k->cus[i];

		for (uint32_t r = 0; r < c->nref; r++)
			if (k->refs[c->ref0 + r] == n) {
				*off = c->off;
				return true;
			}
	}
	return false;
}

int kindex_type_cu(struct session *s, struct ubin *b, int tag, const char *name, uint64_t *off)
{
	static const int any[] = { DW_TAG_typedef, DW_TAG_base_type, DW_TAG_structure_type,
				   DW_TAG_union_type };
	struct kindex *k = kindex_get(s, b);
	bool found = false;

	if (!k)
		return -1;
	if (tag)
		return type_cu(k, tag, name, off);
	/* any of them: the first CU defining one, as a walk of every CU */
	for (size_t i = 0; i < sizeof(any) / sizeof(any[0]); i++) {
		uint64_t o;

		if (type_cu(k, any[i], name, &o) && (!found || o < *off)) {
			*off = o;
			found = true;
		}
	}
	return found;
}
