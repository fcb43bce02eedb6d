/*
 * stapbpf_maps.c - the BPF loader's exit display of global arrays (see
 * runtime/bpf/stapbpf_maps.h for their layout): every row read from its
 * hash map, sorted as the module runtime's display sorts them (by value,
 * largest first, statistics by @count; ties in the order of insertion)
 * and printed as 4.8 prints them: name[k1,"k2"]=value.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "stapbpf_fmt.h"
#include "stapbpf_maps.h"
#include "stapbpf_usym.h"

#define HASH_KEY_MAX 512	/* as STP_HASH_KEY_MAX */

struct row {
	const char *key;	/* the key struct */
	int64_t seq;
	int64_t v, count, sum, min, max;
	const char *s;
};

/* rows by value, descending (vtype: 's' strings, 't' statistics'
 * counts, else numbers), then in the order read */
static int row_cmp(const void *pa, const void *pb, void *vt)
{
	const struct row *a = pa, *b = pb;
	char sort_vtype = *(const char *)vt;
	int c = 0;

	if (sort_vtype == 's')
		c = -strcmp(a->s, b->s);
	else if (sort_vtype == 't')
		c = a->count < b->count ? 1 : a->count > b->count ? -1 : 0;
	else
		c = a->v < b->v ? 1 : a->v > b->v ? -1 : 0;
	if (c)
		return c;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* a string of at most maxstr bytes, its user symbols' markers replaced */
static void print_str(FILE *f, struct stapbpf_usyms *U, const char *s, int maxstr)
{
	char *text = stapbpf_usym_text(U, s, (size_t)maxstr);

	fputs(text, f);
	free(text);
}

static void print_key(FILE *f, struct stapbpf_usyms *U, const char *kinds, const char *k,
		      int maxstr)
{
	for (int i = 0; kinds[i]; i++) {
		int64_t n;

		if (i)
			putc(',', f);
		if (kinds[i] == 's') {
			putc('"', f);
			print_str(f, U, k, maxstr);
			putc('"', f);
			k += maxstr;
		} else {
			memcpy(&n, k, 8);
			fprintf(f, "%lld", (long long)n);
			k += 8;
		}
	}
}

void stapbpf_display_array(struct bpf_object *obj, FILE *out, struct stapbpf_usyms *U,
			   const char *name, const char *sym, char vtype, const char *kinds,
			   int maxstr)
{
	struct bpf_map *m = bpf_object__find_map_by_name(obj, sym);
	size_t ksize = 0, vsize, stride, nrows = 0, cap = 0;
	int ncpu = vtype == 't' ? libbpf_num_possible_cpus() : 1, fd;
	char *key, *next, *vals, **keep = NULL;
	struct row *rows = NULL;
	size_t voff;
	bool hashed;

	if (!m || ncpu <= 0)
		return;
	for (int i = 0; kinds[i]; i++)
		ksize += kinds[i] == 's' ? (size_t)maxstr : 8;
	hashed = ksize > HASH_KEY_MAX;
	voff = 8 + (hashed ? ksize : 0);
	vsize = bpf_map__value_size(m);
	stride = (vsize + 7) & ~(size_t)7;
	fd = bpf_map__fd(m);
	key = calloc(1, bpf_map__key_size(m));
	next = calloc(1, bpf_map__key_size(m));
	vals = calloc((size_t)ncpu, stride);
	if (!key || !next || !vals)
		goto out;
	for (void *prev = NULL; !bpf_map_get_next_key(fd, prev, next); prev = key) {
		struct row r = { 0 };
		char *copy;

		memcpy(key, next, bpf_map__key_size(m));
		if (bpf_map_lookup_elem(fd, key, vals))
			continue;
		copy = malloc(ksize + stride + 1);
		if (!copy)
			break;
		memcpy(copy, hashed ? vals + 8 : key, ksize);
		memcpy(copy + ksize, vals, stride);	/* CPU 0's row (or the row) */
		copy[ksize + stride] = '\0';
		r.key = copy;
		r.s = copy + ksize + voff;
		r.seq = INT64_MAX;
		for (int c = 0; c < ncpu; c++) {
			const char *v = vals + (size_t)c * stride;
			int64_t seq, st[4];

			memcpy(&seq, v, 8);
			if (vtype != 't') {
				r.seq = seq;
				memcpy(&r.v, v + voff, 8);
				break;
			}
			memcpy(st, v + voff, sizeof(st));
			if (!st[0])
				continue;
			if (seq < r.seq)
				r.seq = seq;
			if (!r.count || st[2] < r.min)
				r.min = st[2];
			if (!r.count || st[3] > r.max)
				r.max = st[3];
			r.count += st[0];
			r.sum += st[1];
		}
		if (vtype == 't' && !r.count) {
			free(copy);
			continue;
		}
		if (nrows == cap) {
			cap = cap ? 2 * cap : 64;
			rows = realloc(rows, cap * sizeof(*rows));
			keep = realloc(keep, cap * sizeof(*keep));
			if (!rows || !keep)
				break;
		}
		keep[nrows] = copy;
		rows[nrows++] = r;
	}
	qsort_r(rows, nrows, sizeof(*rows), row_cmp, &vtype);
	for (size_t i = 0; i < nrows; i++) {
		fprintf(out, "%s[", name);
		print_key(out, U, kinds, rows[i].key, maxstr);
		if (vtype == 't')
			fprintf(out, "] @count=%lld @min=%lld @max=%lld @sum=%lld @avg=%lld\n",
				(long long)rows[i].count, (long long)rows[i].min,
				(long long)rows[i].max, (long long)rows[i].sum,
				(long long)(rows[i].sum / rows[i].count));
		else if (vtype == 's') {
			fputs("]=\"", out);
			print_str(out, U, rows[i].s, maxstr);
			fputs("\"\n", out);
		}
		else
			fprintf(out, "]=%lld\n", (long long)rows[i].v);
	}
out:
	for (size_t i = 0; i < nrows; i++)
		free(keep[i]);
	free(keep);
	free(rows);
	free(key);
	free(next);
	free(vals);
}

/* print(@hist_*(s)): the statistic's per-CPU rows (count, sum, min, max,
 * then nb buckets) together, laid out by runtime/stp_fmt.c */
void stapbpf_print_hist(struct bpf_object *obj, FILE *out, const char *sym, int kind,
			long long lo, long long hi, long long step, int nb,
			const void *key, size_t voff)
{
	struct bpf_map *m = bpf_object__find_map_by_name(obj, sym);
	int ncpu = libbpf_num_possible_cpus();
	struct stp_stat_spec spec = { .hist = kind, .lo = lo, .hi = hi, .step = step };
	struct stp_sink sink = { out };
	struct stp_stat *st;
	size_t stride;
	int64_t *vals;
	uint32_t k = 0;

	if (!m || ncpu <= 0 || nb <= 0)
		return;
	stride = ((size_t)bpf_map__value_size(m) + 7) / 8;
	vals = calloc((size_t)ncpu, stride * 8);
	st = calloc(1, sizeof(*st) + (size_t)nb * sizeof(int64_t));
	if (vals && st && !bpf_map_lookup_elem(bpf_map__fd(m), key ? key : (void *)&k, vals)) {
		st->nbuckets = nb;
		for (int c = 0; c < ncpu; c++) {
			const int64_t *v = vals + (size_t)c * stride + voff / 8;

			if (!v[0])
				continue;
			if (!st->count || v[2] < st->min)
				st->min = v[2];
			if (!st->count || v[3] > st->max)
				st->max = v[3];
			st->count += v[0];
			st->sum += v[1];
			for (int b = 0; b < nb && 4 + (size_t)b + voff / 8 < stride; b++)
				st->hist[b] += v[4 + b];
		}
		stp_stat_print_hist(&sink, st, &spec);
	}
	free(vals);
	free(st);
}
