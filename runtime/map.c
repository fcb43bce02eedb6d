/* SPDX-License-Identifier: GPL-2.0 */
/*
 * map.c - global arrays: 1 to 9 keys (long or string), a long, string or
 * statistic value. Every map preallocates its maxentries rows in one block
 * at creation (module init), so probe handlers never allocate.
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
 * Locking: the translator's per-global rwlock protects maps, except that
 * `<<<` into a statistics array may run under the read lock; stat maps
 * serialise their own updates with a spinlock.
 */
#include <linux/jhash.h>
#include <linux/log2.h>
#include <linux/sort.h>
#include <linux/vmalloc.h>

#define STP_MAP_MAXKEYS 9
#define STP_MAP_TOPN_MAX 30	/* 4.8's partial sort for limits 1..30 */

struct stp_map_entry {
	struct list_head lnode;		/* m->head (in order) or m->pool */
	struct hlist_node hnode;
	const struct stp_map *map;
	u32 seq;			/* list position when sorting */
	u64 data[];			/* keys at key_off[], value at val_off */
};

struct stp_map {
	int nkeys;
	char kinds[STP_MAP_MAXKEYS];
	enum stp_value_kind vk;
	bool wrap;
	struct stp_stat_spec spec;
	int nbuckets;
	int64_t maxentries, num;
	size_t entry_size;
	size_t key_off[STP_MAP_MAXKEYS], val_off;
	struct list_head head, pool;
	struct hlist_head *hashes;
	u32 hash_mask;
	void *block;			/* the rows */
	struct stp_map_entry **sorted;	/* foreach snapshot */
	raw_spinlock_t lock;		/* stat maps: <<< under a read lock */
	int sort_col, sort_dir;
	char sort_agg;
};

#define STP_ENTRY_FIELD(e, off) ((void *)((char *)(e) + (off)))

static int64_t *stp_entry_lkey(const struct stp_map_entry *e, int i)
{
	return STP_ENTRY_FIELD(e, e->map->key_off[i]);
}

static char *stp_entry_skey(const struct stp_map_entry *e, int i)
{
	return STP_ENTRY_FIELD(e, e->map->key_off[i]);
}

static void *stp_entry_val(const struct stp_map_entry *e)
{
	return STP_ENTRY_FIELD(e, e->map->val_off);
}

static const char *stp_keystr(const char *s)
{
	return s ? s : "";
}

struct stp_map *stp_map_new(const char *keykinds, enum stp_value_kind vk,
			    int64_t maxentries, bool wrap,
			    const struct stp_stat_spec *ss)
{
	static const struct stp_stat_spec none = { .hist = STP_HIST_NONE };
	struct stp_map *m;
	size_t off, vsize;
	int64_t i;
	u32 nhash;

	if (!maxentries)
		maxentries = MAXMAPENTRIES;
	if (maxentries < 0 || maxentries > (1 << 30))
		return NULL;
	m = kzalloc(sizeof(*m), GFP_KERNEL);
	if (!m)
		return NULL;
	m->nkeys = strlen(keykinds);
	if (m->nkeys < 1 || m->nkeys > STP_MAP_MAXKEYS)
		goto fail;
	memcpy(m->kinds, keykinds, m->nkeys);
	m->vk = vk;
	m->wrap = wrap;
	m->spec = ss ? *ss : none;
	m->maxentries = maxentries;
	INIT_LIST_HEAD(&m->head);
	INIT_LIST_HEAD(&m->pool);
	raw_spin_lock_init(&m->lock);

	off = sizeof(struct stp_map_entry);
	for (i = 0; i < m->nkeys; i++) {
		m->key_off[i] = off;
		off += m->kinds[i] == 's' ? ALIGN(MAXSTRINGLEN, 8) : 8;
	}
	m->val_off = off;
	switch (vk) {
	case STP_VAL_STAT:
		m->nbuckets = stp_stat_buckets(&m->spec);
		if (m->nbuckets < 0) {
			stp_warn_msg("histogram: Number of buckets must be between 1 and %d\n",
				     STP_HIST_MAX_BUCKETS - 2);
			goto fail;
		}
		vsize = stp_stat_size(m->nbuckets);
		break;
	case STP_VAL_STR:
		vsize = ALIGN(MAXSTRINGLEN, 8);
		break;
	default:
		vsize = 8;
		break;
	}
	m->entry_size = ALIGN(off + vsize, 8);

	nhash = roundup_pow_of_two(maxentries);
	m->hash_mask = nhash - 1;
	m->hashes = kvcalloc(nhash, sizeof(*m->hashes), GFP_KERNEL);
	m->sorted = kvcalloc(maxentries, sizeof(*m->sorted), GFP_KERNEL);
	m->block = kvzalloc(array_size(maxentries, m->entry_size), GFP_KERNEL);
	if (!m->hashes || !m->sorted || !m->block)
		goto fail;
	for (i = 0; i < nhash; i++)
		INIT_HLIST_HEAD(&m->hashes[i]);
	for (i = 0; i < maxentries; i++) {
		struct stp_map_entry *e = m->block + i * m->entry_size;

		e->map = m;
		INIT_HLIST_NODE(&e->hnode);
		list_add_tail(&e->lnode, &m->pool);
	}
	return m;
fail:
	stp_map_free(m);
	return NULL;
}

void stp_map_free(struct stp_map *m)
{
	if (!m)
		return;
	kvfree(m->block);
	kvfree(m->sorted);
	kvfree(m->hashes);
	kfree(m);
}

static struct hlist_head *stp_map_bucket(struct stp_map *m,
					 const struct stp_key *k)
{
	u32 h = 0;
	int i;

	for (i = 0; i < m->nkeys; i++) {
		if (m->kinds[i] == 's') {
			const char *s = stp_keystr(k[i].s);

			h = jhash(s, strnlen(s, MAXSTRINGLEN - 1), h);
		} else {
			h = jhash_2words((u32)k[i].n, (u32)((u64)k[i].n >> 32),
					 h);
		}
	}
	return &m->hashes[h & m->hash_mask];
}

static bool stp_entry_match(const struct stp_map_entry *e,
			    const struct stp_key *k, unsigned int wild)
{
	const struct stp_map *m = e->map;
	int i;

	for (i = 0; i < m->nkeys; i++) {
		if (wild & (1U << i))
			continue;
		if (m->kinds[i] == 's') {
			if (strncmp(stp_entry_skey(e, i), stp_keystr(k[i].s),
				    MAXSTRINGLEN - 1))
				return false;
		} else if (*stp_entry_lkey(e, i) != k[i].n) {
			return false;
		}
	}
	return true;
}

static struct stp_map_entry *stp_map_find(struct stp_map *m,
					  const struct stp_key *k,
					  struct hlist_head **bucket)
{
	struct hlist_head *b = stp_map_bucket(m, k);
	struct stp_map_entry *e;

	if (bucket)
		*bucket = b;
	hlist_for_each_entry(e, b, hnode)
		if (stp_entry_match(e, k, 0))
			return e;
	return NULL;
}

/* Find k or make a row for it (last in the list); NULL when full. */
static struct stp_map_entry *stp_map_lookup_add(struct stp_map *m,
						const struct stp_key *k)
{
	struct hlist_head *b;
	struct stp_map_entry *e = stp_map_find(m, k, &b);
	int i;

	if (e)
		return e;
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
	hlist_add_head(&e->hnode, b);
	for (i = 0; i < m->nkeys; i++) {
		if (m->kinds[i] == 's')
			strscpy(stp_entry_skey(e, i), stp_keystr(k[i].s),
				MAXSTRINGLEN);
		else
			*stp_entry_lkey(e, i) = k[i].n;
	}
	switch (m->vk) {
	case STP_VAL_STAT:
		stp_stat_shape(stp_entry_val(e), &m->spec, m->nbuckets);
		break;
	case STP_VAL_STR:
		*(char *)stp_entry_val(e) = '\0';
		break;
	default:
		*(int64_t *)stp_entry_val(e) = 0;
		break;
	}
	return e;
}

int64_t stp_map_get_long(struct stp_map *m, const struct stp_key *k)
{
	struct stp_map_entry *e = stp_map_find(m, k, NULL);

	return e ? *(int64_t *)stp_entry_val(e) : 0;
}

void stp_map_get_str(struct stp_map *m, const struct stp_key *k, char *dst)
{
	struct stp_map_entry *e = stp_map_find(m, k, NULL);

	strscpy(dst, e ? (char *)stp_entry_val(e) : "", MAXSTRINGLEN);
}

bool stp_map_exists(struct stp_map *m, const struct stp_key *k)
{
	unsigned long flags;
	bool found;

	if (m->vk != STP_VAL_STAT)
		return stp_map_find(m, k, NULL) != NULL;
	raw_spin_lock_irqsave(&m->lock, flags);
	found = stp_map_find(m, k, NULL) != NULL;
	raw_spin_unlock_irqrestore(&m->lock, flags);
	return found;
}

int stp_map_set_long(struct stp_map *m, const struct stp_key *k, int64_t v)
{
	struct stp_map_entry *e = stp_map_lookup_add(m, k);

	if (!e)
		return -1;
	*(int64_t *)stp_entry_val(e) = v;
	return 0;
}

int stp_map_set_str(struct stp_map *m, const struct stp_key *k, const char *v)
{
	struct stp_map_entry *e = stp_map_lookup_add(m, k);

	if (!e)
		return -1;
	strscpy(stp_entry_val(e), v ? v : "", MAXSTRINGLEN);
	return 0;
}

int stp_map_add_stat(struct stp_map *m, const struct stp_key *k, int64_t v)
{
	struct stp_map_entry *e;
	unsigned long flags;
	int rc = 0;

	raw_spin_lock_irqsave(&m->lock, flags);
	e = stp_map_lookup_add(m, k);
	if (e)
		stp_stat_accum(stp_entry_val(e), &m->spec, v);
	else
		rc = -1;
	raw_spin_unlock_irqrestore(&m->lock, flags);
	return rc;
}

const struct stp_stat *stp_map_get_stat(struct stp_map *m,
					const struct stp_key *k)
{
	struct stp_map_entry *e;
	unsigned long flags;

	raw_spin_lock_irqsave(&m->lock, flags);
	e = stp_map_find(m, k, NULL);
	raw_spin_unlock_irqrestore(&m->lock, flags);
	return e ? stp_entry_val(e) : NULL;
}

static void stp_map_del_entry(struct stp_map *m, struct stp_map_entry *e)
{
	hlist_del_init(&e->hnode);
	list_move(&e->lnode, &m->pool);
	m->num--;
}

void stp_map_delete(struct stp_map *m, const struct stp_key *k)
{
	struct stp_map_entry *e = stp_map_find(m, k, NULL);

	if (e)
		stp_map_del_entry(m, e);
}

void stp_map_delete_matching(struct stp_map *m, const struct stp_key *k,
			     unsigned int wildcard_mask)
{
	struct stp_map_entry *e, *tmp;

	list_for_each_entry_safe(e, tmp, &m->head, lnode)
		if (stp_entry_match(e, k, wildcard_mask))
			stp_map_del_entry(m, e);
}

void stp_map_clear(struct stp_map *m)
{
	struct stp_map_entry *e, *tmp;

	list_for_each_entry_safe(e, tmp, &m->head, lnode)
		stp_map_del_entry(m, e);
}

int64_t stp_map_size(struct stp_map *m)
{
	return m->num;
}

/* <0, 0, >0: a before, tied with, after b in the current sort order. */
static int stp_entry_order(const struct stp_map_entry *a,
			   const struct stp_map_entry *b)
{
	const struct stp_map *m = a->map;
	int64_t x, y;
	int r;

	if (m->sort_col > 0) {
		int i = m->sort_col - 1;

		if (m->kinds[i] == 's') {
			r = strcmp(stp_entry_skey(a, i), stp_entry_skey(b, i));
			x = r;
			y = 0;
		} else {
			x = *stp_entry_lkey(a, i);
			y = *stp_entry_lkey(b, i);
		}
	} else if (m->vk == STP_VAL_STR) {
		x = strcmp(stp_entry_val(a), stp_entry_val(b));
		y = 0;
	} else if (m->vk == STP_VAL_LONG) {
		x = *(int64_t *)stp_entry_val(a);
		y = *(int64_t *)stp_entry_val(b);
	} else {
		const struct stp_stat *sa = stp_entry_val(a);
		const struct stp_stat *sb = stp_entry_val(b);

		switch (m->sort_agg) {
		case 's':
			x = sa->sum;
			y = sb->sum;
			break;
		case 'm':
			x = sa->min;
			y = sb->min;
			break;
		case 'M':
			x = sa->max;
			y = sb->max;
			break;
		case 'a':
			x = stp_sdiv(sa->sum, sa->count);
			y = stp_sdiv(sb->sum, sb->count);
			break;
		default:
			x = sa->count;
			y = sb->count;
			break;
		}
	}
	r = x < y ? -1 : x > y ? 1 : 0;
	return m->sort_dir < 0 ? -r : r;
}

static int stp_entry_cmp_stable(const void *pa, const void *pb,
				const void *priv)
{
	const struct stp_map_entry *a = *(struct stp_map_entry * const *)pa;
	const struct stp_map_entry *b = *(struct stp_map_entry * const *)pb;
	int r = stp_entry_order(a, b);

	if (r)
		return r;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
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

	sort_r(m->sorted, k, sizeof(m->sorted[0]), stp_entry_cmp_stable,
	       NULL, NULL);
	for (i = k - 1; i >= 0; i--)
		list_move(&m->sorted[i]->lnode, head);
	last = &m->sorted[k - 1]->lnode;
	for (a = last->next; a != head; a = next) {
		next = a->next;
		c = last;
		while (c != head &&
		       stp_entry_order(list_entry(c, struct stp_map_entry, lnode),
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

	list_for_each_entry(e, &m->head, lnode) {
		e->seq = n;
		m->sorted[n++] = e;
	}
	if (col != 0 && n > 0) {
		m->sort_col = col;
		m->sort_dir = dir;
		m->sort_agg = agg;
		if (limit >= 1 && limit <= STP_MAP_TOPN_MAX) {
			stp_map_topn(m, limit, n);
			i = 0;
			list_for_each_entry(e, &m->head, lnode)
				m->sorted[i++] = e;
		} else {
			sort_r(m->sorted, n, sizeof(m->sorted[0]),
			       stp_entry_cmp_stable, NULL, NULL);
			for (i = 0; i < n; i++)
				list_move_tail(&m->sorted[i]->lnode, &m->head);
		}
	}
	*out = m->sorted;
	return limit >= 0 && limit < n ? limit : n;
}

int64_t stp_entry_key_long(const struct stp_map_entry *e, int i)
{
	return *stp_entry_lkey(e, i);
}

const char *stp_entry_key_str(const struct stp_map_entry *e, int i)
{
	return stp_entry_skey(e, i);
}

int64_t stp_entry_long(const struct stp_map_entry *e)
{
	return *(int64_t *)stp_entry_val(e);
}

const char *stp_entry_str(const struct stp_map_entry *e)
{
	return stp_entry_val(e);
}

const struct stp_stat *stp_entry_stat(const struct stp_map_entry *e)
{
	return stp_entry_val(e);
}
