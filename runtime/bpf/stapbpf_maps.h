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
		for (long _o = 0; _o < (long)sizeof(_v->val); _o += STP_MAXSTR) /* zeroed */ \
			bpf_probe_read_kernel((char *)&_v->val + _o, \
					      sizeof(_v->val) - _o < STP_MAXSTR ? \
					      sizeof(_v->val) - _o : STP_MAXSTR, stp_nul); \
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

/*
 * A statistic with buckets or @variance (runtime/stat.c's struct stp_stat):
 * longs count, sum, min, max, then nb buckets, then (var) the running
 * mean and squared deviations scaled by 2^shift (avg_s, m2) and
 * variance_s. x <<< it as stat.c's stp_stat_accum: kind 1 log buckets
 * (128), 2 linear (nb: underflow, [lo + (i-1)*step...), overflow).
 */
static __always_inline void stp_xstat_add(long *st, long x, long kind, long lo, long step,
					  long nb, long shift, long var)
{
	long xs = (long)((__u64)x << shift), b;

	if (!st[0]) {
		st[0] = 1;
		st[1] = st[2] = st[3] = x;
		if (var) {
			st[4 + nb] = xs;
			st[5 + nb] = 0;
		}
	} else {
		st[0]++;
		st[1] = (long)((__u64)st[1] + (__u64)x);
		if (x > st[3])
			st[3] = x;
		if (x < st[2])
			st[2] = x;
		if (var) {
			int delta = (int)(xs - st[4 + nb]);	/* an int, as 4.8's */

			st[4 + nb] += stp_div(delta, st[0]);
			st[5 + nb] += (long)((__u64)(long)delta * (__u64)(xs - st[4 + nb]));
			st[6 + nb] = stp_div(st[5 + nb], st[0] - 1);
		}
	}
	if (!nb)
		return;
	if (kind == 1) {
		long bits = stp_fls64(x < 0 ? 0 - (__u64)x : (__u64)x);

		b = !x ? 64 : x < 0 ? 64 - bits : (64 + bits > 127 ? 127 : 64 + bits);
	} else if (x < lo) {
		b = 0;
	} else {
		b = (long)(((__u64)x - (__u64)lo) / (__u64)step) + 1;
		if (b >= nb - 1 || b < 0)
			b = nb - 1;
	}
	asm volatile("" : "+r"(b));	/* the check below stays, for the verifier */
	if (b >= 0 && b < nb)
		st[4 + b]++;
}

/* delete s: a scalar statistic with buckets or @variance (size bytes)
 * emptied on every CPU */
static __always_inline void stp_xstat_clear(void *map, long size)
{
	__u32 k = 0;

	for (__u32 c = 0; c < STP_NCPU_MAX && c < stp_ncpus; c++) {
		char *st = bpf_map_lookup_percpu_elem(map, &k, c);

		if (!st)
			continue;
		for (long o = 0; o < size; o += STP_MAXSTR)
			bpf_probe_read_kernel(st + o, size - o < STP_MAXSTR ? size - o : STP_MAXSTR,
					      stp_nul);
	}
}

/* 4.8's division of aggregates: x / 0 is 0 */
static __always_inline long stp_sdiv(long x, long y)
{
	return y ? stp_div(x, y) : 0;
}

/*
 * @variance of the statistic at key kp of map (off: the statistic's offset
 * in the value; nb its buckets), every CPU's part together: a scalar's
 * by the total-variance formula over all parts at once, an array row's
 * merged part by part (stat.c's stp_stat_get and stp_stat_merge). The
 * count in *count (0: empty).
 */
static __always_inline long stp_xstat_variance(void *map, void *kp, long off, long nb,
					       long shift, long row, long *count)
{
	long n = 0, sum = 0, avg = 0, var = 0, s1 = 0, s2 = 0;

	for (__u32 c = 0; c < STP_NCPU_MAX && c < stp_ncpus; c++) {
		char *v = bpf_map_lookup_percpu_elem(map, kp, c);
		long *st, n1, avg1;

		if (!v)
			continue;
		st = (long *)(v + off);
		if (!st[0])
			continue;
		if (!row) {
			n += st[0];
			sum = (long)((__u64)sum + (__u64)st[1]);
			continue;
		}
		if (!n) {
			n = st[0];
			sum = st[1];
			avg = st[4 + nb];
			var = st[6 + nb];
			continue;
		}
		n1 = n;
		avg1 = avg;
		n += st[0];
		sum = (long)((__u64)sum + (__u64)st[1]);
		avg = stp_sdiv((long)((__u64)sum << shift), n);
		var = stp_sdiv((long)((__u64)n1 * (__u64)(avg1 - avg) * (__u64)(avg1 - avg)) +
			       (long)((__u64)(n1 - 1) * (__u64)var) +
			       (long)((__u64)st[0] * (__u64)(st[4 + nb] - avg) *
				      (__u64)(st[4 + nb] - avg)) +
			       (long)((__u64)(st[0] - 1) * (__u64)st[6 + nb]), n - 1);
	}
	*count = n;
	if (row || !n)
		return var >> (2 * shift);
	avg = stp_sdiv((long)((__u64)sum << shift), n);
	for (__u32 c = 0; c < STP_NCPU_MAX && c < stp_ncpus; c++) {
		char *v = bpf_map_lookup_percpu_elem(map, kp, c);
		long *st, d;

		if (!v)
			continue;
		st = (long *)(v + off);
		if (!st[0])
			continue;
		d = st[4 + nb] - avg;
		s1 += (long)((__u64)st[0] * (__u64)d * (__u64)d);
		s2 += (long)((__u64)(st[0] - 1) * (__u64)st[6 + nb]);
	}
	return stp_sdiv(s1 + s2, n - 1) >> (2 * shift);
}

/* @hist_*(s)[i]: bucket i of every CPU's part together; *count the
 * statistic's count (0: empty) */
static __always_inline long stp_xstat_bucket(void *map, void *kp, long off, long nb, long i,
					     long *count)
{
	long n = 0, sum = 0, j = i;	/* the caller checks i's range */

	asm volatile("" : "+r"(j));	/* the check below stays, for the verifier */
	if (j < 0 || j >= nb)
		j = 0;

	for (__u32 c = 0; c < STP_NCPU_MAX && c < stp_ncpus; c++) {
		char *v = bpf_map_lookup_percpu_elem(map, kp, c);
		long *st;

		if (!v)
			continue;
		st = (long *)(v + off);
		n += st[0];
		sum += st[4 + j];
	}
	*count = n;
	return sum;
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

/* print(@hist_*(a[k...])): the record carries the statistic's offset in
 * the row and the row's map key (of type K) */
#define STP_HIST_PRINT_ROW(id, K, kp, off) ({ \
	struct { __u32 t, i; __u64 o; K k; } *_r = bpf_ringbuf_reserve(&stp_rb, sizeof(*_r), 0); \
	if (_r) { \
		_r->t = STP_REC_HIST; \
		_r->i = (id); \
		_r->o = (off); \
		bpf_probe_read_kernel(&_r->k, sizeof(K), (kp)); \
		bpf_ringbuf_submit(_r, 0); \
	} })

#endif /* STAPBPF_MAPS_H */
