/* SPDX-License-Identifier: GPL-2.0 */
/*
 * map.c - global arrays: 1 to 9 keys (long or string), a long, string or
 * statistic value. Every map preallocates its maxentries rows in one block
 * at creation (module init), so probe handlers never allocate.
 *
 * A row (struct stp_map_entry, stp_runtime.h) holds slot[0], the long
 * value or the offset of the string or statistic value within the row, and
 * slot[1 + i] for key i: the long, or (length << 32 | offset) of the
 * string's bytes. Offsets are fixed when the map is made.
 *
 * Order, as in SystemTap 4.8: rows are kept in a list in insertion order
 * (a new key goes last; updating a key keeps its place; a deleted and
 * re-added key goes last). Unsorted foreach walks that list. A sorted
 * foreach sorts the list itself, stably (ties keep their list order), and
 * the list stays sorted afterwards. With a limit of 1..30 rows, 4.8 only
 * brings the best `limit` rows to the front (a bubble sort of the first
 * `limit` rows, then an insertion pass over the rest); this is reproduced
 * so that the list left behind is the same. A full `%` array reuses the
 * first row of the list.
 *
 * Statistics arrays are per CPU, as in 4.8: `<<<` updates this CPU's map
 * with no lock (the translator takes the global's lock for reading, and
 * handlers do not nest on a CPU); every read (the lock held for writing)
 * merges the CPUs' rows. foreach first rebuilds the aggregate map: CPU by
 * CPU, each CPU's rows in its own insertion order. That is the order 4.8
 * produces for one of its random hash seeds (it walks each CPU's hash table
 * bucket by bucket, so its order changes from run to run), and it is the
 * base order that the stable sort keeps for ties.
 *
 * Other maps: the translator's per-global rwlock protects them.
 */
#include <linux/log2.h>
#include <linux/vmalloc.h>

#define STP_MAP_MAXKEYS 9
#define STP_MAP_TOPN_MAX 30	/* 4.8's partial sort for limits 1..30 */
#define STP_HASH_MUL 0x9e3779b97f4a7c15ULL

struct stp_map {
	int nkeys;
	char kinds[STP_MAP_MAXKEYS];
	bool all_long;			/* no string key */
	enum stp_value_kind vk;
	bool wrap;
	struct stp_stat_spec spec;
	int nbuckets;
	int64_t maxentries, num;
	size_t entry_size;
	struct list_head head, pool;
	struct hlist_head *hashes;
	u32 hash_mask;
	void *block;			/* the rows */
	struct stp_map_entry **sorted;	/* foreach snapshot */
	struct stp_sortrow *rows, *tmp;	/* sorting: key, row */
	struct stp_map **cpu;		/* statistics: per-CPU maps (this is the aggregate) */
	int sort_col, sort_dir;
	char sort_agg;
};

/* A key being looked up: its hash and its strings' lengths. */
struct stp_sortrow {
	int64_t key;			/* a long column, else unused */
	struct stp_map_entry *e;
};

struct stp_kprep {
	u32 hash;
	u32 len[STP_MAP_MAXKEYS];
};

static inline const char *stp_keystr(const char *s)
{
	return s ? s : "";
}

static inline char *stp_entry_at(const struct stp_map_entry *e, u64 slot)
{
	return (char *)e + (u32)slot;
}

static inline u64 stp_hash_mix(u64 h, u64 x)
{
	return (h ^ x) * STP_HASH_MUL;
}

static inline u64 stp_hash_str(u64 h, const char *s, u32 *lenp)
{
	const unsigned char *p = (const unsigned char *)s;
	u32 n = 0;

	while (n < MAXSTRINGLEN - 1 && p[n]) {
		h = (h ^ p[n]) * 0x100000001b3ULL;
		n++;
	}
	*lenp = n;
	return stp_hash_mix(h, n);
}

static inline u32 stp_hash_final(u64 h)
{
	return (u32)((h ^ (h >> 29)) >> 32) ^ (u32)h;
}

/* The hash of long keys only: multiplicative, top bits. */
static inline u32 stp_hash_longs(const struct stp_map *m, const struct stp_key *k)
{
	u64 h = 0;
	int i;

	for (i = 0; i < m->nkeys; i++)
		h = stp_hash_mix(h, (u64)k[i].n);
	return (u32)(h >> 32);
}

static inline void stp_map_prep(const struct stp_map *m, const struct stp_key *k,
				struct stp_kprep *kp)
{
	u64 h = 0;
	int i;

	if (m->all_long) {
		kp->hash = stp_hash_longs(m, k);
		return;
	}
	for (i = 0; i < m->nkeys; i++) {
		if (m->kinds[i] == 's')
			h = stp_hash_str(h, stp_keystr(k[i].s), &kp->len[i]);
		else
			h = stp_hash_mix(h, (u64)k[i].n);
	}
	kp->hash = stp_hash_final(h);
}

static inline bool stp_entry_match(const struct stp_map *m,
				   const struct stp_map_entry *e,
				   const struct stp_key *k,
				   const struct stp_kprep *kp)
{
	int i;

	if (e->hash != kp->hash)
		return false;
	for (i = 0; i < m->nkeys; i++) {
		u64 s = e->slot[1 + i];

		if (m->kinds[i] != 's') {
			if ((int64_t)s != k[i].n)
				return false;
		} else if ((u32)(s >> 32) != kp->len[i] ||
			   memcmp(stp_entry_at(e, s), stp_keystr(k[i].s),
				  kp->len[i])) {
			return false;
		}
	}
	return true;
}

static inline struct stp_map_entry *stp_map_find(const struct stp_map *m,
						 const struct stp_key *k,
						 const struct stp_kprep *kp)
{
	struct stp_map_entry *e;

	hlist_for_each_entry(e, &m->hashes[kp->hash & m->hash_mask], hnode)
		if (stp_entry_match(m, e, k, kp))
			return e;
	return NULL;
}

/* Long keys only: compare the keys themselves. */
static inline struct stp_map_entry *stp_find_longs(const struct stp_map *m,
						   const struct stp_key *k, u32 h)
{
	struct stp_map_entry *e;
	int i;

	hlist_for_each_entry(e, &m->hashes[h & m->hash_mask], hnode) {
		for (i = 0; i < m->nkeys; i++)
			if (e->slot[1 + i] != (u64)k[i].n)
				break;
		if (i == m->nkeys)
			return e;
	}
	return NULL;
}

static noinline struct stp_map_entry *stp_find_strs(const struct stp_map *m,
						    const struct stp_key *k)
{
	struct stp_kprep kp;

	stp_map_prep(m, k, &kp);
	return stp_map_find(m, k, &kp);
}

/* The row of k, or NULL. */
static inline struct stp_map_entry *stp_map_row(const struct stp_map *m,
						const struct stp_key *k)
{
	if (likely(m->all_long))
		return stp_find_longs(m, k, stp_hash_longs(m, k));
	return stp_find_strs(m, k);
}

/* A row for a new key: from the pool, or the oldest of a full `%` map. */
static struct stp_map_entry *stp_map_take(struct stp_map *m, u32 hash)
{
	struct stp_map_entry *e;

	if (!list_empty(&m->pool)) {
		e = list_first_entry(&m->pool, struct stp_map_entry, lnode);
		m->num++;
	} else if (m->wrap && !list_empty(&m->head)) {
		e = list_first_entry(&m->head, struct stp_map_entry, lnode);
		hlist_del_init(&e->hnode);
	} else {
		return NULL;
	}
	list_move_tail(&e->lnode, &m->head);
	e->hash = hash;
	hlist_add_head(&e->hnode, &m->hashes[hash & m->hash_mask]);
	return e;
}

static void stp_entry_init_value(struct stp_map *m, struct stp_map_entry *e)
{
	switch (m->vk) {
	case STP_VAL_STAT:
		stp_stat_shape((void *)stp_entry_at(e, e->slot[0]), &m->spec,
			       m->nbuckets);
		break;
	case STP_VAL_STR:
		*stp_entry_at(e, e->slot[0]) = '\0';
		break;
	default:
		e->slot[0] = 0;
		break;
	}
}

static noinline struct stp_map_entry *stp_add_longs(struct stp_map *m,
						    const struct stp_key *k, u32 h)
{
	struct stp_map_entry *e = stp_map_take(m, h);
	int i;

	if (!e)
		return NULL;
	for (i = 0; i < m->nkeys; i++)
		e->slot[1 + i] = (u64)k[i].n;
	stp_entry_init_value(m, e);
	return e;
}

static noinline struct stp_map_entry *stp_lookup_add_strs(struct stp_map *m,
							  const struct stp_key *k)
{
	struct stp_kprep kp;
	struct stp_map_entry *e;
	int i;

	stp_map_prep(m, k, &kp);
	e = stp_map_find(m, k, &kp);
	if (e)
		return e;
	e = stp_map_take(m, kp.hash);
	if (!e)
		return NULL;
	for (i = 0; i < m->nkeys; i++) {
		u64 s = e->slot[1 + i];

		if (m->kinds[i] != 's') {
			e->slot[1 + i] = (u64)k[i].n;
			continue;
		}
		memcpy(stp_entry_at(e, s), stp_keystr(k[i].s), kp.len[i]);
		stp_entry_at(e, s)[kp.len[i]] = '\0';
		e->slot[1 + i] = (u32)s | ((u64)kp.len[i] << 32);
	}
	stp_entry_init_value(m, e);
	return e;
}

/* Find k or make a row for it (last in the list); NULL when full. */
static inline struct stp_map_entry *stp_map_lookup_add(struct stp_map *m,
						       const struct stp_key *k)
{
	struct stp_map_entry *e;
	u32 h;

	if (unlikely(!m->all_long))
		return stp_lookup_add_strs(m, k);
	h = stp_hash_longs(m, k);
	e = stp_find_longs(m, k, h);
	if (likely(e))
		return e;
	return stp_add_longs(m, k, h);
}

/* ---- making and freeing --------------------------------------------------- */

static void stp_map_free_one(struct stp_map *m)
{
	if (!m)
		return;
	kvfree(m->block);
	kvfree(m->sorted);
	kvfree(m->rows);
	kvfree(m->tmp);
	kvfree(m->hashes);
	kfree(m);
}

static struct stp_map *stp_map_alloc(const char *keykinds, enum stp_value_kind vk,
				     int64_t maxentries, bool wrap,
				     const struct stp_stat_spec *spec, int nbuckets)
{
	struct stp_map *m;
	size_t off, voff, koff[STP_MAP_MAXKEYS], vsize;
	int64_t i;
	u32 nhash;
	int j;

	m = kzalloc(sizeof(*m), GFP_KERNEL);
	if (!m)
		return NULL;
	m->nkeys = strlen(keykinds);
	memcpy(m->kinds, keykinds, m->nkeys);
	m->all_long = !strchr(keykinds, 's');
	m->vk = vk;
	m->wrap = wrap;
	m->spec = *spec;
	m->nbuckets = nbuckets;
	m->maxentries = maxentries;
	INIT_LIST_HEAD(&m->head);
	INIT_LIST_HEAD(&m->pool);

	off = sizeof(struct stp_map_entry) + (m->nkeys + 1) * sizeof(u64);
	for (j = 0; j < m->nkeys; j++) {
		koff[j] = off;
		if (m->kinds[j] == 's')
			off += ALIGN(MAXSTRINGLEN, 8);
	}
	voff = off;
	vsize = vk == STP_VAL_STAT ? stp_stat_size(nbuckets) :
		vk == STP_VAL_STR ? ALIGN(MAXSTRINGLEN, 8) : 0;
	m->entry_size = ALIGN(off + vsize, 8);

	nhash = roundup_pow_of_two(maxentries);
	m->hash_mask = nhash - 1;
	m->hashes = kvcalloc(nhash, sizeof(*m->hashes), GFP_KERNEL);
	m->sorted = kvcalloc(maxentries, sizeof(*m->sorted), GFP_KERNEL);
	m->rows = kvcalloc(maxentries, sizeof(*m->rows), GFP_KERNEL);
	m->tmp = kvcalloc(maxentries, sizeof(*m->tmp), GFP_KERNEL);
	m->block = kvzalloc(array_size(maxentries, m->entry_size), GFP_KERNEL);
	if (!m->hashes || !m->sorted || !m->rows || !m->tmp || !m->block) {
		stp_map_free_one(m);
		return NULL;
	}
	for (i = 0; i < nhash; i++)
		INIT_HLIST_HEAD(&m->hashes[i]);
	for (i = 0; i < maxentries; i++) {
		struct stp_map_entry *e = m->block + i * m->entry_size;

		e->slot[0] = vk == STP_VAL_LONG ? 0 : voff;
		for (j = 0; j < m->nkeys; j++)
			e->slot[1 + j] = m->kinds[j] == 's' ? koff[j] : 0;
		INIT_HLIST_NODE(&e->hnode);
		list_add_tail(&e->lnode, &m->pool);
	}
	return m;
}

struct stp_map *stp_map_new(const char *keykinds, enum stp_value_kind vk,
			    int64_t maxentries, bool wrap,
			    const struct stp_stat_spec *ss)
{
	static const struct stp_stat_spec none = { .hist = STP_HIST_NONE };
	int nkeys = strlen(keykinds), nb = 0;
	unsigned int cpu;
	struct stp_map *m;

	if (!maxentries)
		maxentries = MAXMAPENTRIES;
	if (maxentries < 0 || maxentries > (1 << 30) || nkeys < 1 ||
	    nkeys > STP_MAP_MAXKEYS)
		return NULL;
	if (!ss)
		ss = &none;
	if (vk == STP_VAL_STAT) {
		nb = stp_stat_buckets(ss);
		if (nb < 0) {
			stp_warn_msg("histogram: Number of buckets must be between 1 and %d\n",
				     STP_HIST_MAX_BUCKETS - 2);
			return NULL;
		}
	}
	m = stp_map_alloc(keykinds, vk, maxentries, wrap, ss, nb);
	if (!m || vk != STP_VAL_STAT)
		return m;
	m->cpu = kcalloc(nr_cpu_ids, sizeof(*m->cpu), GFP_KERNEL);
	if (!m->cpu)
		goto fail;
	for_each_possible_cpu(cpu) {
		m->cpu[cpu] = stp_map_alloc(keykinds, vk, maxentries, wrap, ss, nb);
		if (!m->cpu[cpu])
			goto fail;
	}
	return m;
fail:
	stp_map_free(m);
	return NULL;
}

void stp_map_free(struct stp_map *m)
{
	unsigned int cpu;

	if (!m)
		return;
	if (m->cpu) {
		for_each_possible_cpu(cpu)
			stp_map_free_one(m->cpu[cpu]);
		kfree(m->cpu);
	}
	stp_map_free_one(m);
}

/* ---- long and string values ------------------------------------------------ */

int64_t stp_map_get_long(struct stp_map *m, const struct stp_key *k)
{
	struct stp_map_entry *e = stp_map_row(m, k);

	return e ? (int64_t)e->slot[0] : 0;
}

void stp_map_get_str(struct stp_map *m, const struct stp_key *k, char *dst)
{
	struct stp_map_entry *e = stp_map_row(m, k);

	strscpy(dst, e ? stp_entry_at(e, e->slot[0]) : "", MAXSTRINGLEN);
}

int stp_map_set_long(struct stp_map *m, const struct stp_key *k, int64_t v)
{
	struct stp_map_entry *e = stp_map_lookup_add(m, k);

	if (unlikely(!e))
		return -1;
	e->slot[0] = (u64)v;
	return 0;
}

int stp_map_add_long(struct stp_map *m, const struct stp_key *k, int64_t d,
		     int64_t *old)
{
	struct stp_map_entry *e = stp_map_lookup_add(m, k);

	if (unlikely(!e))
		return -1;
	*old = (int64_t)e->slot[0];
	e->slot[0] += (u64)d;
	return 0;
}

int stp_map_set_str(struct stp_map *m, const struct stp_key *k, const char *v)
{
	struct stp_map_entry *e = stp_map_lookup_add(m, k);

	if (unlikely(!e))
		return -1;
	strscpy(stp_entry_at(e, e->slot[0]), v ? v : "", MAXSTRINGLEN);
	return 0;
}

/* ---- statistics ---------------------------------------------------------------- */

int stp_map_add_stat(struct stp_map *m, const struct stp_key *k, int64_t v)
{
	struct stp_map *cm = m->cpu[raw_smp_processor_id()];
	struct stp_map_entry *e = stp_map_lookup_add(cm, k);

	if (unlikely(!e))
		return -1;
	stp_stat_accum((void *)stp_entry_at(e, e->slot[0]), &m->spec, v);
	return 0;
}

static void stp_map_del_entry(struct stp_map *m, struct stp_map_entry *e)
{
	hlist_del_init(&e->hnode);
	list_move(&e->lnode, &m->pool);
	m->num--;
}

static void stp_map_clear_one(struct stp_map *m)
{
	struct stp_map_entry *e, *tmp;

	list_for_each_entry_safe(e, tmp, &m->head, lnode)
		stp_map_del_entry(m, e);
}

/* Copy the keys of row src (of a map with the same layout) into dst. */
static void stp_entry_copy_keys(const struct stp_map *m, struct stp_map_entry *dst,
				const struct stp_map_entry *src)
{
	int i;

	dst->hash = src->hash;
	for (i = 0; i < m->nkeys; i++) {
		u64 s = src->slot[1 + i];

		dst->slot[1 + i] = s;
		if (m->kinds[i] == 's')
			memcpy(stp_entry_at(dst, s), stp_entry_at(src, s),
			       (s >> 32) + 1);
	}
}

static bool stp_entry_same_keys(const struct stp_map *m,
				const struct stp_map_entry *a,
				const struct stp_map_entry *b)
{
	int i;

	if (a->hash != b->hash)
		return false;
	for (i = 0; i < m->nkeys; i++) {
		u64 s = a->slot[1 + i];

		if (s != b->slot[1 + i])
			return false;
		if (m->kinds[i] == 's' &&
		    memcmp(stp_entry_at(a, s), stp_entry_at(b, s), s >> 32))
			return false;
	}
	return true;
}

/* The aggregate's row for the keys of src, made (empty) if missing. */
static struct stp_map_entry *stp_agg_row(struct stp_map *m,
					 const struct stp_map_entry *src,
					 bool *fresh)
{
	struct stp_map_entry *e;

	hlist_for_each_entry(e, &m->hashes[src->hash & m->hash_mask], hnode)
		if (stp_entry_same_keys(m, e, src)) {
			*fresh = false;
			return e;
		}
	e = stp_map_take(m, src->hash);
	if (e) {
		stp_entry_copy_keys(m, e, src);
		stp_entry_init_value(m, e);
		*fresh = true;
	}
	return e;
}

/* Rebuild the aggregate from the CPUs' maps (see the top of the file). */
static void stp_map_aggregate(struct stp_map *m)
{
	struct stp_map_entry *ce, *e;
	unsigned int cpu;
	bool fresh;

	stp_map_clear_one(m);
	for_each_possible_cpu(cpu) {
		list_for_each_entry(ce, &m->cpu[cpu]->head, lnode) {
			e = stp_agg_row(m, ce, &fresh);
			if (!e)
				return;		/* more keys than rows: the rest is left out */
			stp_stat_merge((void *)stp_entry_at(e, e->slot[0]),
				       (const void *)stp_entry_at(ce, ce->slot[0]),
				       &m->spec, fresh);
		}
	}
}

const struct stp_stat *stp_map_get_stat(struct stp_map *m,
					const struct stp_key *k)
{
	struct stp_map_entry *ce, *e = NULL;
	struct stp_kprep kp;
	unsigned int cpu;
	bool fresh = true;

	stp_map_prep(m, k, &kp);
	for_each_possible_cpu(cpu) {
		ce = stp_map_find(m->cpu[cpu], k, &kp);
		if (!ce)
			continue;
		if (!e) {
			e = stp_agg_row(m, ce, &fresh);
			if (!e)
				return NULL;
			fresh = true;
		}
		stp_stat_merge((void *)stp_entry_at(e, e->slot[0]),
			       (const void *)stp_entry_at(ce, ce->slot[0]),
			       &m->spec, fresh);
		fresh = false;
	}
	return e ? (const void *)stp_entry_at(e, e->slot[0]) : NULL;
}

/* ---- keys ------------------------------------------------------------------------ */

bool stp_map_exists(struct stp_map *m, const struct stp_key *k)
{
	struct stp_kprep kp;
	unsigned int cpu;

	if (!m->cpu)
		return stp_map_row(m, k) != NULL;
	stp_map_prep(m, k, &kp);
	for_each_possible_cpu(cpu)
		if (stp_map_find(m->cpu[cpu], k, &kp))
			return true;
	return false;
}

static void stp_map_delete_one(struct stp_map *m, const struct stp_key *k,
			       const struct stp_kprep *kp)
{
	struct stp_map_entry *e = stp_map_find(m, k, kp);

	if (e)
		stp_map_del_entry(m, e);
}

void stp_map_delete(struct stp_map *m, const struct stp_key *k)
{
	struct stp_kprep kp;
	unsigned int cpu;

	stp_map_prep(m, k, &kp);
	stp_map_delete_one(m, k, &kp);
	if (m->cpu)
		for_each_possible_cpu(cpu)
			stp_map_delete_one(m->cpu[cpu], k, &kp);
}

/* Row e matches k on every key whose bit is clear in wild. */
static bool stp_entry_match_some(const struct stp_map *m,
				 const struct stp_map_entry *e,
				 const struct stp_key *k, unsigned int wild)
{
	int i;

	for (i = 0; i < m->nkeys; i++) {
		if (wild & (1U << i))
			continue;
		if (m->kinds[i] == 's') {
			if (strcmp(stp_entry_key_str(e, i), stp_keystr(k[i].s)))
				return false;
		} else if (stp_entry_key_long(e, i) != k[i].n) {
			return false;
		}
	}
	return true;
}

static void stp_map_delete_matching_one(struct stp_map *m, const struct stp_key *k,
					unsigned int wild)
{
	struct stp_map_entry *e, *tmp;

	list_for_each_entry_safe(e, tmp, &m->head, lnode)
		if (stp_entry_match_some(m, e, k, wild))
			stp_map_del_entry(m, e);
}

void stp_map_delete_matching(struct stp_map *m, const struct stp_key *k,
			     unsigned int wildcard_mask)
{
	unsigned int cpu;

	stp_map_delete_matching_one(m, k, wildcard_mask);
	if (m->cpu)
		for_each_possible_cpu(cpu)
			stp_map_delete_matching_one(m->cpu[cpu], k, wildcard_mask);
}

/* [k1, *] in a: is there a row matching k on every key not in wild? */
static bool stp_map_exists_matching_one(const struct stp_map *m, const struct stp_key *k,
					unsigned int wild)
{
	const struct stp_map_entry *e;

	list_for_each_entry(e, &m->head, lnode)
		if (stp_entry_match_some(m, e, k, wild))
			return true;
	return false;
}

bool stp_map_exists_matching(struct stp_map *m, const struct stp_key *k,
			     unsigned int wildcard_mask)
{
	unsigned int cpu;

	if (stp_map_exists_matching_one(m, k, wildcard_mask))
		return true;
	if (m->cpu)
		for_each_possible_cpu(cpu)
			if (stp_map_exists_matching_one(m->cpu[cpu], k, wildcard_mask))
				return true;
	return false;
}

void stp_map_clear(struct stp_map *m)
{
	unsigned int cpu;

	stp_map_clear_one(m);
	if (m->cpu)
		for_each_possible_cpu(cpu)
			stp_map_clear_one(m->cpu[cpu]);
}

int64_t stp_map_size(struct stp_map *m)
{
	if (m->cpu)
		stp_map_aggregate(m);
	return m->num;
}

/* ---- foreach --------------------------------------------------------------------- */

struct stp_map_entry *stp_map_first(struct stp_map *m)
{
	if (m->cpu)
		stp_map_aggregate(m);
	if (list_empty(&m->head))
		return NULL;
	return list_first_entry(&m->head, struct stp_map_entry, lnode);
}

struct stp_map_entry *stp_map_next(struct stp_map *m, struct stp_map_entry *e)
{
	if (e->lnode.next == &m->head)
		return NULL;
	return list_next_entry(e, lnode);
}

/* The long a row sorts by (when the sort column is not a string). */
static int64_t stp_sort_key(const struct stp_map *m, const struct stp_map_entry *e)
{
	const struct stp_stat *st;

	if (m->sort_col > 0)
		return stp_entry_key_long(e, m->sort_col - 1);
	if (m->vk == STP_VAL_LONG)
		return stp_entry_long(e);
	st = stp_entry_stat(e);
	switch (m->sort_agg) {
	case 's':
		return st->sum;
	case 'm':
		return st->min;
	case 'M':
		return st->max;
	case 'a':
		return stp_sdiv(st->sum, st->count);
	default:
		return st->count;
	}
}

static bool stp_sort_by_str(const struct stp_map *m)
{
	return m->sort_col > 0 ? m->kinds[m->sort_col - 1] == 's' :
		m->vk == STP_VAL_STR;
}

/* <0, 0, >0: row a before, tied with, after row b in the current order. */
static int stp_row_order(const struct stp_map *m, const struct stp_sortrow *a,
			 const struct stp_sortrow *b)
{
	int r;

	if (stp_sort_by_str(m))
		r = m->sort_col > 0 ?
			strcmp(stp_entry_key_str(a->e, m->sort_col - 1),
			       stp_entry_key_str(b->e, m->sort_col - 1)) :
			strcmp(stp_entry_str(a->e), stp_entry_str(b->e));
	else
		r = a->key < b->key ? -1 : a->key > b->key;
	return m->sort_dir < 0 ? -r : r;
}

static int stp_entry_order(const struct stp_map *m, const struct stp_map_entry *a,
			   const struct stp_map_entry *b)
{
	struct stp_sortrow x = { 0, (struct stp_map_entry *)a };
	struct stp_sortrow y = { 0, (struct stp_map_entry *)b };

	if (!stp_sort_by_str(m)) {
		x.key = stp_sort_key(m, a);
		y.key = stp_sort_key(m, b);
	}
	return stp_row_order(m, &x, &y);
}

/* Stable merge sort of rows[0..n), bottom up; runs already in order are
 * not merged, so a sorted map sorts in linear time. */
static void stp_sort_rows(struct stp_map *m, struct stp_sortrow *rows, int64_t n)
{
	struct stp_sortrow *src = rows, *dst = m->tmp, *t;
	int64_t w, lo, mid, hi, i, j, k;

	for (w = 1; w < n; w *= 2) {
		for (lo = 0; lo < n; lo += 2 * w) {
			mid = min(lo + w, n);
			hi = min(lo + 2 * w, n);
			if (mid >= hi || stp_row_order(m, &src[mid - 1], &src[mid]) <= 0) {
				memcpy(dst + lo, src + lo, (hi - lo) * sizeof(*src));
				continue;
			}
			for (i = lo, j = mid, k = lo; k < hi; k++) {
				if (j >= hi || (i < mid && stp_row_order(m, &src[j], &src[i]) >= 0))
					dst[k] = src[i++];
				else
					dst[k] = src[j++];
			}
		}
		t = src;
		src = dst;
		dst = t;
	}
	if (src != rows)
		memcpy(rows, src, n * sizeof(*rows));
}

/*
 * 4.8's partial sort for `limit n`, 1 <= n <= 30: the first n rows are
 * sorted (stably), then each later row that sorts strictly before the
 * n-th row moves up into place (after the rows it ties with) and pushes
 * the n-th row out, just past the first n rows.
 */
static void stp_map_topn(struct stp_map *m, int n, int64_t rows)
{
	struct list_head *head = &m->head, *a, *c, *last, *next;
	int k = min_t(int64_t, n, rows), i;

	stp_sort_rows(m, m->rows, k);
	for (i = k - 1; i >= 0; i--)
		list_move(&m->rows[i].e->lnode, head);
	last = &m->rows[k - 1].e->lnode;
	for (a = last->next; a != head; a = next) {
		next = a->next;
		c = last;
		while (c != head &&
		       stp_entry_order(m, list_entry(c, struct stp_map_entry, lnode),
				       list_entry(a, struct stp_map_entry, lnode)) > 0)
			c = c->prev;
		if (c != last) {
			list_move(a, c);
			last = last->prev;
		}
	}
}

int64_t stp_map_sorted(struct stp_map *m, int col, int dir, char agg,
		       int64_t limit, struct stp_map_entry ***out)
{
	struct stp_map_entry *e;
	int64_t n = 0, i;
	bool by_str;

	if (m->cpu)
		stp_map_aggregate(m);
	m->sort_col = col;
	m->sort_dir = dir;
	m->sort_agg = agg;
	by_str = stp_sort_by_str(m);
	list_for_each_entry(e, &m->head, lnode) {
		m->rows[n].e = e;
		if (col != 0 && !by_str)
			m->rows[n].key = stp_sort_key(m, e);
		n++;
	}
	if (col != 0 && n > 0) {
		if (limit >= 1 && limit <= STP_MAP_TOPN_MAX) {
			stp_map_topn(m, limit, n);
			i = 0;
			list_for_each_entry(e, &m->head, lnode)
				m->sorted[i++] = e;
			goto out;
		}
		stp_sort_rows(m, m->rows, n);
		for (i = 0; i < n; i++)
			list_move_tail(&m->rows[i].e->lnode, &m->head);
	}
	for (i = 0; i < n; i++)
		m->sorted[i] = m->rows[i].e;
out:
	*out = m->sorted;
	return limit >= 0 && limit < n ? limit : n;
}
