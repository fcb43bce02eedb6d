/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stapbpf_maps.h - global arrays of stap --runtime=bpf: one BPF hash map
 * per array (per-CPU for statistics), written by translator/bpf/bpf_maps.c
 * and read at exit by the loader (staprun/stapbpf_maps.c). Included after
 * stapbpf.h by a program that has arrays.
 *
 * A row's key is a struct of the script's keys (a long, or MAXSTRINGLEN
 * bytes zero-padded after the string); a key larger than the kernel's
 * limit for hash keys (512 bytes) is replaced by a 128-bit hash of it and
 * the row keeps the full key. Every row starts with its sequence number
 * (stp_seq at its insertion): the loader's sorts break ties by it, the
 * order of insertion, as the module runtime's stable sort does.
 */
#ifndef STAPBPF_MAPS_H
#define STAPBPF_MAPS_H

#define STP_HASH_KEY_MAX 512	/* the kernel's MAX_BPF_STACK for hash keys */
#define STP_E2BIG 7

static long (*bpf_for_each_map_elem)(void *map, void *cb, void *ctx, __u64 flags) =
	(void *)164;

long stp_seq;			/* rows inserted so far */
static const char stp_nul[STP_MAXSTR];

#define STP_ARRAY(name, K, V, n, mtype) \
	struct { \
		__uint(type, mtype); \
		__uint(max_entries, n); \
		__type(key, K); \
		__type(value, V); \
	} name SEC(".maps")

/* the hash of a key too large for the map: two 64-bit FNV-style sums over
 * its words (the key is zero-padded, so equal keys hash alike) */
static __always_inline void *stp_key_hash(void *k, long size, __u64 *out)
{
	__u64 *w = k, h1 = 0xcbf29ce484222325ULL, h2 = 0x9e3779b97f4a7c15ULL;

	for (long i = 0; i < size / 8; i++) {
		h1 = (h1 ^ w[i]) * 0x100000001b3ULL;
		h2 = ((h2 + w[i]) * 0xff51afd7ed558ccdULL);
		h2 ^= h2 >> 29;
	}
	out[0] = h1;
	out[1] = h2;
	return out;
}

/* the map key of key struct k: itself, or its hash at kh */
#define STP_KEY(k, kh) \
	(sizeof(*(k)) > STP_HASH_KEY_MAX ? stp_key_hash((k), sizeof(*(k)), (kh)) : (void *)(k))

/* a key struct's string field: zeroed, then the string */
static __always_inline void stp_key_str(char *f, const char *s)
{
	bpf_probe_read_kernel(f, STP_MAXSTR, stp_nul);
	bpf_probe_read_kernel_str(f, STP_MAXSTR, s);
}

/*
 * The row of map key kp (key struct k), inserted if absent with value
 * buffer vb (type V: seq, key copy, then a zeroed value); NULL when the
 * array is full (*full set) or the insertion failed.
 */
#define STP_ROW(map, kp, k, V, vb, full) ({ \
	V *_r = bpf_map_lookup_elem(map, kp); \
	if (!_r) { \
		V *_v = (V *)(vb); \
		long _e; \
		bpf_probe_read_kernel(&_v->val, sizeof(_v->val), stp_nul); \
		_v->seq = ++stp_seq; \
		if (sizeof(_v->key)) \
			bpf_probe_read_kernel(_v->key, sizeof(_v->key), k); \
		_e = bpf_map_update_elem(map, kp, _v, 1 /* BPF_NOEXIST */); \
		if (_e == -STP_E2BIG) \
			*(full) = 1; \
		_r = bpf_map_lookup_elem(map, kp); \
	} \
	_r; })

/* a statistics row's values of every CPU together (out->count 0: none);
 * returns the row's insertion sequence (its first CPU's) */
static __always_inline long stp_astat_get_seq(void *map, void *kp, struct stp_stat *out,
					      long off)
{
	long seq = 0;

	out->count = out->sum = out->min = out->max = 0;
	for (__u32 c = 0; c < STP_NCPU_MAX && c < stp_ncpus; c++) {
		char *row = bpf_map_lookup_percpu_elem(map, kp, c);
		struct stp_stat *st;

		if (!row)
			continue;
		st = (struct stp_stat *)(row + off);
		if (!st->count)
			continue;
		if (!seq || *(long *)row < seq)
			seq = *(long *)row;
		if (!out->count || st->min < out->min)
			out->min = st->min;
		if (!out->count || st->max > out->max)
			out->max = st->max;
		out->count += st->count;
		out->sum += st->sum;
	}
	return seq;
}

static __always_inline void stp_astat_get(void *map, void *kp, struct stp_stat *out, long off)
{
	stp_astat_get_seq(map, kp, out, off);
}

static __always_inline void stp_astat_add(struct stp_stat *st, long v)
{
	if (!st->count || v < st->min)
		st->min = v;
	if (!st->count || v > st->max)
		st->max = v;
	st->count++;
	st->sum += v;
}

/* delete s: a scalar statistic (without a histogram) emptied on every CPU */
static __always_inline void stp_stat_clear(void *map)
{
	__u32 k = 0;

	for (__u32 c = 0; c < STP_NCPU_MAX && c < stp_ncpus; c++) {
		struct stp_stat *st = bpf_map_lookup_percpu_elem(map, &k, c);

		if (st)
			st->count = st->sum = st->min = st->max = 0;
	}
}

/* ---- histograms: a scalar statistic with buckets (per CPU) ---------------- */
#define STP_REC_HIST 0xffff0003u	/* print the histogram: u32 its index */

/* T: struct { long count, sum, min, max; long hist[nb]; } */
#define STP_STATH(name, T) \
	struct { \
		__uint(type, 6);	/* BPF_MAP_TYPE_PERCPU_ARRAY */ \
		__uint(max_entries, 1); \
		__type(key, __u32); \
		__type(value, T); \
	} name SEC(".maps")

static __always_inline long stp_fls64(__u64 x)
{
	long n = 0;

	if (x >> 32) { n += 32; x >>= 32; }
	if (x >> 16) { n += 16; x >>= 16; }
	if (x >> 8) { n += 8; x >>= 8; }
	if (x >> 4) { n += 4; x >>= 4; }
	if (x >> 2) { n += 2; x >>= 2; }
	if (x >> 1) { n += 1; x >>= 1; }
	return n + (x ? 1 : 0);
}

/* s <<< v with the bucket of runtime/stat.c: kind 1 log (128 buckets),
 * 2 linear (nb buckets: underflow, [lo + (i-1)*step...), overflow) */
static __always_inline void stp_stath_add(void *map, long v, long kind, long lo, long step,
					  long nb)
{
	__u32 k = 0;
	long *st = bpf_map_lookup_elem(map, &k), b;

	if (!st)
		return;
	if (!st[0] || v < st[2])
		st[2] = v;
	if (!st[0] || v > st[3])
		st[3] = v;
	st[0]++;
	st[1] += v;
	if (kind == 1) {
		long bits = stp_fls64(v < 0 ? 0 - (__u64)v : (__u64)v);

		b = !v ? 64 : v < 0 ? 64 - bits : (64 + bits > 127 ? 127 : 64 + bits);
	} else if (v < lo) {
		b = 0;
	} else {
		b = (long)(((__u64)v - (__u64)lo) / (__u64)step) + 1;
		if (b >= nb - 1 || b < 0)
			b = nb - 1;
	}
	asm volatile("" : "+r"(b));	/* the check below stays, for the verifier */
	if (b >= 0 && b < nb)
		st[4 + b]++;
}

/* print(@hist_*(s)): the loader prints histogram id from the map */
static __always_inline void stp_hist_print(__u32 id)
{
	__u32 *r = bpf_ringbuf_reserve(&stp_rb, 8, 0);

	if (r) {
		r[0] = STP_REC_HIST;
		r[1] = id;
		bpf_ringbuf_submit(r, 0);
	}
}

#endif /* STAPBPF_MAPS_H */
