/*
 * uorder.c - the order SystemTap 4.8 visits a compilation unit's
 * functions in. 4.8 keeps each CU's functions in a hash table keyed by
 * name (a C++ std::unordered_multimap of GCC 12's libstdc++, the one
 * Debian's 4.8 is built and run with), filled in DIE order, and walks
 * it to match a wildcard: its probes come out in that table's order,
 * which is neither by name nor by address. This file models that table
 * (its 64-bit string hash, its prime bucket counts and growth, where a
 * node goes in its bucket, how a rehash relinks the nodes) to give the
 * same order (test_kdwarf_order.py compares with 4.8's -p2).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <dwarf.h>
#include <elfutils/libdw.h>

#include "ubin.h"

#define NONE (-2)		/* an empty bucket */
#define HEAD (-1)		/* the node before the first one */

/* libstdc++'s bucket counts above 13 (its prime list's start) */
static const unsigned long primes[] = {
	17ul, 19ul, 23ul, 29ul, 31ul, 37ul, 41ul, 43ul, 47ul, 53ul, 59ul, 61ul, 67ul, 71ul,
	73ul, 79ul, 83ul, 89ul, 97ul, 103ul, 109ul, 113ul, 127ul, 137ul, 139ul, 149ul, 157ul,
	167ul, 179ul, 193ul, 199ul, 211ul, 227ul, 241ul, 257ul, 277ul, 293ul, 313ul, 337ul,
	359ul, 383ul, 409ul, 439ul, 467ul, 503ul, 541ul, 577ul, 619ul, 661ul, 709ul, 761ul,
	823ul, 887ul, 953ul, 1031ul, 1109ul, 1193ul, 1289ul, 1381ul, 1493ul, 1613ul, 1741ul,
	1879ul, 2029ul, 2179ul, 2357ul, 2549ul, 2753ul, 2971ul, 3209ul, 3469ul, 3739ul, 4027ul,
	4349ul, 4703ul, 5087ul, 5503ul, 5953ul, 6427ul, 6949ul, 7517ul, 8123ul, 8783ul, 9497ul,
	10273ul, 11113ul, 12011ul, 12983ul, 14033ul, 15173ul, 16411ul, 17749ul, 19183ul,
	20753ul, 22447ul, 24281ul, 26267ul, 28411ul, 30727ul, 33223ul, 35933ul, 38873ul,
	42043ul, 45481ul, 49201ul, 53201ul, 57557ul, 62233ul, 67307ul, 72817ul, 78779ul,
	85229ul, 92203ul, 99733ul, 107897ul, 116731ul, 126271ul, 136607ul, 147793ul,
	159871ul, 172933ul, 187091ul, 202409ul, 218971ul, 236897ul, 256279ul, 277261ul,
	299951ul, 324503ul, 351061ul, 379787ul, 410857ul, 444487ul, 480881ul, 520241ul,
	562841ul, 608903ul, 658753ul, 712697ul, 771049ul, 834181ul, 902483ul, 976369ul,
};

struct table {
	const uint64_t *code;	/* each node's hash */
	const char *const *key;
	int *next;		/* each node's successor, NONE at the end */
	int *bkt;		/* each bucket's node before its first, NONE, or HEAD */
	int head;		/* the first node */
	size_t nbkt, next_resize, n;
};

static uint64_t shift_mix(uint64_t v)
{
	return v ^ (v >> 47);
}

/* libstdc++'s std::hash of a string (_Hash_bytes, 64 bits, its seed) */
uint64_t uorder_hash(const char *s)
{
	const uint64_t mul = (0xc6a4a793ull << 32) + 0x5bd1e995ull;
	size_t len = strlen(s), whole = len & ~(size_t)7;
	uint64_t h = 0xc70f6907ull ^ (len * mul);

	for (size_t i = 0; i < whole; i += 8) {
		uint64_t d;

		memcpy(&d, s + i, 8);
		h ^= shift_mix(d * mul) * mul;
		h *= mul;
	}
	if (len & 7) {
		uint64_t d = 0;

		for (size_t i = len; i > whole; i--)
			d = (d << 8) + (unsigned char)s[i - 1];
		h ^= d;
		h *= mul;
	}
	return shift_mix(shift_mix(h) * mul);
}

/* The bucket count for at least n (the policy's next_bkt) */
static size_t next_bkt(struct table *t, size_t n)
{
	static const unsigned char fast[] = { 2, 2, 2, 3, 5, 5, 7, 7, 11, 11, 11, 11, 13, 13 };
	size_t i = 0, np = sizeof(primes) / sizeof(primes[0]);

	if (n < sizeof(fast)) {
		if (!n)
			return 1;
		t->next_resize = fast[n];
		return fast[n];
	}
	while (i < np - 1 && primes[i] < n)
		i++;
	t->next_resize = primes[i];
	return primes[i];
}

static int *link_of(struct table *t, int p)
{
	return p == HEAD ? &t->head : &t->next[p];
}

static size_t bucket(const struct table *t, int node, size_t nbkt)
{
	return (size_t)(t->code[node] % nbkt);
}

/* Relink every node into nbkt buckets, keeping equal keys together in
 * their order (the multi-key rehash). */
static void rehash(struct table *t, size_t nbkt)
{
	int *nb = malloc(sizeof(*nb) * nbkt), p = t->head, prev = NONE;
	size_t first_bkt = 0, prev_bkt = 0;
	bool check = false;

	if (!nb)
		abort();
	for (size_t i = 0; i < nbkt; i++)
		nb[i] = NONE;
	t->head = NONE;
	while (p != NONE) {
		int next = t->next[p];
		size_t b = bucket(t, p, nbkt);

		if (prev != NONE && prev_bkt == b) {
			t->next[p] = t->next[prev];
			t->next[prev] = p;
			check = true;
		} else {
			if (check) {
				if (t->next[prev] != NONE &&
				    bucket(t, t->next[prev], nbkt) != prev_bkt)
					nb[bucket(t, t->next[prev], nbkt)] = prev;
				check = false;
			}
			if (nb[b] == NONE) {
				t->next[p] = t->head;
				t->head = p;
				nb[b] = HEAD;
				if (t->next[p] != NONE)
					nb[first_bkt] = p;
				first_bkt = b;
			} else {
				t->next[p] = *link_of(t, nb[b]);
				*link_of(t, nb[b]) = p;
			}
		}
		prev = p;
		prev_bkt = b;
		p = next;
	}
	if (check && t->next[prev] != NONE && bucket(t, t->next[prev], nbkt) != prev_bkt)
		nb[bucket(t, t->next[prev], nbkt)] = prev;
	free(t->bkt);
	t->bkt = nb;
	t->nbkt = nbkt;
}

static bool same(const struct table *t, int a, int b)
{
	return t->code[a] == t->code[b] && !strcmp(t->key[a], t->key[b]);
}

/* The node before the first one of b's bucket whose key is node's */
static int before_equal(const struct table *t, size_t b, int node)
{
	int prev = t->bkt[b];

	if (prev == NONE)
		return NONE;
	for (int p = prev == HEAD ? t->head : t->next[prev];; p = t->next[p]) {
		if (same(t, p, node))
			return prev;
		if (t->next[p] == NONE || bucket(t, t->next[p], t->nbkt) != b)
			return NONE;
		prev = p;
	}
}

/* Room for nins more nodes: the buckets grow (at least double) when
 * the nodes would outnumber them. */
static void grow(struct table *t, size_t nins)
{
	size_t want = t->n + nins;
	double min = (double)(want > 11 || t->next_resize ? want : 11);

	if (!nins || want <= t->next_resize)
		return;
	if (min >= (double)t->nbkt) {
		size_t at_least = (size_t)floor(min) + 1;

		rehash(t, next_bkt(t, at_least > t->nbkt * 2 ? at_least : t->nbkt * 2));
	} else {
		t->next_resize = t->nbkt;
	}
}

/* A small table (20 nodes at most) is searched from its start for a
 * node of the same key, which the new one follows. */
static int first_equal(const struct table *t, int node)
{
	if (t->n > 20)
		return NONE;
	for (int p = t->head; p != NONE; p = t->next[p])
		if (same(t, p, node))
			return p;
	return NONE;
}

static void insert(struct table *t, int node)
{
	size_t b;
	int prev, hint = first_equal(t, node);

	grow(t, 1);
	b = bucket(t, node, t->nbkt);
	if (hint != NONE) {	/* after the first equal one */
		t->next[node] = t->next[hint];
		t->next[hint] = node;
		if (t->next[node] != NONE && !same(t, node, t->next[node]) &&
		    bucket(t, t->next[node], t->nbkt) != b)
			t->bkt[bucket(t, t->next[node], t->nbkt)] = node;
		t->n++;
		return;
	}
	prev = before_equal(t, b, node);
	if (prev != NONE) {
		t->next[node] = *link_of(t, prev);
		*link_of(t, prev) = node;
	} else if (t->bkt[b] != NONE) {
		t->next[node] = *link_of(t, t->bkt[b]);
		*link_of(t, t->bkt[b]) = node;
	} else {
		t->next[node] = t->head;
		t->head = node;
		if (t->next[node] != NONE)
			t->bkt[bucket(t, t->next[node], t->nbkt)] = node;
		t->bkt[b] = HEAD;
	}
	t->n++;
}

/* The n names inserted in this order, then the m of extra at once (a
 * range insert: one growth for all first), as the table walks them:
 * out[i] is the index of the i-th name visited (extra's after names'). */
void uorder_more(const char *const *names, size_t n, const char *const *extra, size_t m,
		 size_t *out)
{
	uint64_t *code = malloc(sizeof(*code) * (n + m + 1));
	const char **keys = malloc(sizeof(*keys) * (n + m + 1));
	struct table t = { code, keys, malloc(sizeof(int) * (n + m + 1)), malloc(sizeof(int)),
			   NONE, 1, 0, 0 };
	size_t k = 0;

	if (!code || !keys || !t.next || !t.bkt)
		abort();
	t.bkt[0] = NONE;
	for (size_t i = 0; i < n + m; i++) {
		keys[i] = i < n ? names[i] : extra[i - n];
		code[i] = uorder_hash(keys[i]);
		if (i == n)
			grow(&t, m);
		insert(&t, (int)i);
	}
	for (int p = t.head; p != NONE; p = t.next[p])
		out[k++] = (size_t)p;
	free(code);
	free(keys);
	free(t.next);
	free(t.bkt);
}

void uorder(const char *const *names, size_t n, size_t *out)
{
	uorder_more(names, n, NULL, 0, out);
}

/* A compilation unit's named functions, in DIE order, and where the
 * table walks each (a DIE may be there twice: under a symbol's other
 * name too). */
struct cu_order {
	uint64_t cu;
	size_t n;
	uint64_t *off;		/* ascending */
	size_t *rank;
};

struct cu_dies {
	const char **names;
	uint64_t *off, *entry;	/* entry: 0 for an inline one */
	size_t n, cap;
};

static void add_die(struct cu_dies *d, const char *name, uint64_t off, uint64_t entry)
{
	if (d->n == d->cap) {
		d->cap = d->cap ? 2 * d->cap : 64;
		d->names = realloc(d->names, sizeof(*d->names) * d->cap);
		d->off = realloc(d->off, sizeof(*d->off) * d->cap);
		d->entry = realloc(d->entry, sizeof(*d->entry) * d->cap);
		if (!d->names || !d->off || !d->entry)
			abort();
	}
	d->names[d->n] = name;
	d->off[d->n] = off;
	d->entry[d->n++] = entry;
}

/* The DW_TAG_subprogram children of the CU at cu_off that 4.8's table
 * holds (abstract and concrete copies, named through their origin; no
 * declarations: the table of read_write.c's CU holds 228 of its 266, as
 * `stap -vvvvv` says). */
static void read_cu_dies(Dwarf *dw, uint64_t cu_off, struct cu_dies *d)
{
	Dwarf_Die cu, c;
	Dwarf_Addr pc;

	if (!dwarf_offdie(dw, cu_off, &cu) || dwarf_child(&cu, &c))
		return;
	do {
		const char *name;

		if (dwarf_tag(&c) != DW_TAG_subprogram || dwarf_hasattr(&c, DW_AT_declaration) ||
		    !(name = dwarf_diename(&c)))
			continue;
		add_die(d, name, dwarf_dieoffset(&c),
			!dwarf_func_inline(&c) && !dwarf_entrypc(&c, &pc) ? pc : 0);
	} while (dwarf_siblingof(&c, &c) == 0);
}

/* The index of the DIE at off in o, o->n if none */
static size_t off_index(const struct cu_order *o, uint64_t off)
{
	size_t lo = 0, hi = o->n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (o->off[mid] < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < o->n && o->off[lo] == off ? lo : o->n;
}

static size_t rank_of(const struct cu_order *o, uint64_t off)
{
	size_t at = off_index(o, off);

	return at < o->n ? o->rank[at] : SIZE_MAX;
}

/* A module's function under another symbol name at its entry (4.8 adds
 * that name to the table after the unit's: init_module for a module's
 * init function), in the order its table walks them. */
static void add_aliases(struct ubin *b, struct cu_dies *d, const size_t *walk, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		size_t at = walk[i];
		const char *sym;
		uint64_t off;

		if (d->entry[at] && ubin_ksym(b, d->entry[at], true, &sym, &off) && !off &&
		    strcmp(sym, d->names[at]))
			add_die(d, sym, d->off[at], 0);
	}
}

/* The unit's functions ranked as 4.8's table walks them: the rank of
 * the first of a DIE's names it walks. */
static void read_cu_order(struct session *s, struct ubin *b, uint64_t cu_off,
			  struct cu_order *o)
{
	struct cu_dies d = { 0 };
	size_t n, m, *walk;
	const char **more;
	uint64_t *more_off;

	read_cu_dies(ubin_dwarf(b), cu_off, &d);
	n = d.n;
	walk = malloc(sizeof(*walk) * (2 * n + 1));
	if (!walk)
		abort();
	uorder(d.names, n, walk);
	if (ubin_is_kernel(b) && !ubin_is_vmlinux(b))
		add_aliases(b, &d, walk, n);
	m = d.n - n;
	more = malloc(sizeof(*more) * (m + 1));
	more_off = malloc(sizeof(*more_off) * (m + 1));
	if (!more || !more_off)
		abort();
	uorder(d.names + n, m, walk);	/* the aliases' own table first */
	for (size_t i = 0; i < m; i++) {
		more[i] = d.names[n + walk[i]];
		more_off[i] = d.off[n + walk[i]];
	}
	uorder_more(d.names, n, more, m, walk);
	o->cu = cu_off;
	o->n = n;
	o->off = arena_alloc(s->arena, sizeof(*o->off) * (n + 1));
	o->rank = arena_alloc(s->arena, sizeof(*o->rank) * (n + 1));
	memcpy(o->off, d.off, sizeof(*o->off) * n);
	for (size_t i = 0; i < n; i++)
		o->rank[i] = SIZE_MAX;
	for (size_t i = n + m; i-- > 0;) {	/* the first walked last */
		uint64_t off = walk[i] < n ? d.off[walk[i]] : more_off[walk[i] - n];
		size_t at = off_index(o, off);

		if (at < n)
			o->rank[at] = i;
	}
	free(walk);
	free(more);
	free(more_off);
	free(d.names);
	free(d.off);
	free(d.entry);
}

static int cmp_off(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

static size_t unique(uint64_t *v, size_t n)
{
	size_t w = 0;

	for (size_t i = 0; i < n; i++)
		if (!w || v[w - 1] != v[i])
			v[w++] = v[i];
	return w;
}

struct okey {
	const struct ufunc *f;
	uint64_t cu, die;
	size_t rank, at;
	bool inl;
};

/* f's unit and the function DIE whose place in the table orders it (an
 * inlined copy's abstract origin) */
static bool key_dies(Dwarf *dw, const struct ufunc *f, uint64_t *cu, uint64_t *fn)
{
	Dwarf_Die d, c, o;
	Dwarf_Attribute a;

	if (!f->die || !dwarf_offdie(dw, f->die, &d) || !dwarf_diecu(&d, &c, NULL, NULL))
		return false;
	*cu = dwarf_dieoffset(&c);
	*fn = f->die;
	if (f->inlined && dwarf_attr(&d, DW_AT_abstract_origin, &a) && dwarf_formref_die(&a, &o))
		*fn = dwarf_dieoffset(&o);
	return true;
}

static int by_okey(const void *a, const void *b)
{
	const struct okey *x = a, *y = b;

	if (x->cu != y->cu)
		return x->cu < y->cu ? -1 : 1;
	if (x->cu == UINT64_MAX && x->f->entry != y->f->entry)	/* no DWARF: by address */
		return x->f->entry < y->f->entry ? -1 : 1;
	if (x->inl != y->inl)
		return x->inl ? 1 : -1;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	if (x->die != y->die)
		return x->die < y->die ? -1 : 1;
	return (x->at > y->at) - (x->at < y->at);
}

/*
 * A name without wildcard or file: 4.8 finds its DIEs in a table of all
 * the module's functions, where those of one name are in reverse DIE
 * order, and reads their units in that order, those of its functions
 * first, then those of its inlined copies (only the kinds the probe
 * takes: want_fn, want_inl). The units' keys (k[].cu) become that order.
 */
static void exact_unit_order(struct okey *k, size_t n, bool want_fn, bool want_inl)
{
	for (size_t i = 0; i < n; i++) {
		bool fn = false;

		if (k[i].cu == UINT64_MAX)
			continue;
		for (size_t j = 0; j < n && !fn; j++)
			fn = k[j].cu == k[i].cu && !k[j].inl && want_fn;
		k[i].cu = (fn || !want_inl ? 0 : 1ull << 62) + ((1ull << 62) - 1 - k[i].cu);
	}
}

/*
 * Put a kernel's or module's functions fs (a pattern's matches) in the
 * order 4.8 probes them: unit by unit (DIE order, or exact_unit_order()
 * for a name without wildcard or file: exact says which kinds the probe
 * takes, UORDER_FUNCS and UORDER_INLINED), in each the functions
 * as its table walks them, then the inlined copies (those of each inline
 * function as the table walks them, in DIE order); the symbol table's
 * functions without DWARF after, by address.
 */
void ubin_upstream_order(struct session *s, struct ubin *b, const struct ufunc **fs, size_t n,
			 int exact)
{
	Dwarf *dw = ubin_dwarf(b);
	struct okey *k = malloc(sizeof(*k) * (n + 1));
	uint64_t *fn = malloc(sizeof(*fn) * (n + 1)), *cu = malloc(sizeof(*cu) * (n + 1));
	struct cu_order *cus;
	size_t ncus = 0;

	if (!k || !fn || !cu)
		abort();
	for (size_t i = 0; i < n; i++) {
		k[i] = (struct okey){ fs[i], UINT64_MAX, fs[i]->die, SIZE_MAX, i, fs[i]->inlined };
		if (dw && key_dies(dw, fs[i], &k[i].cu, &fn[i]))
			cu[ncus++] = k[i].cu;
	}
	qsort(cu, ncus, sizeof(*cu), cmp_off);
	ncus = unique(cu, ncus);
	cus = arena_alloc(s->arena, sizeof(*cus) * (ncus + 1));
	for (size_t i = 0; i < ncus; i++)
		read_cu_order(s, b, cu[i], &cus[i]);
	for (size_t i = 0; i < n; i++) {
		uint64_t *at = k[i].cu == UINT64_MAX ? NULL :
			bsearch(&k[i].cu, cu, ncus, sizeof(*cu), cmp_off);

		if (at)
			k[i].rank = rank_of(&cus[at - cu], fn[i]);
	}
	if (exact)
		exact_unit_order(k, n, exact & UORDER_FUNCS, exact & UORDER_INLINED);
	qsort(k, n, sizeof(*k), by_okey);
	for (size_t i = 0; i < n; i++)
		fs[i] = k[i].f;
	free(k);
	free(fn);
	free(cu);
}
