/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stat.c - statistics: `s <<< v`, the extractors (@count @sum @min @max
 * @avg @variance) and the @hist_log / @hist_linear histograms, with the
 * integer semantics and the histogram layout of SystemTap 4.8.
 *
 * Scalar statistics keep one struct stp_stat per CPU, so `<<<` needs no
 * lock (the translator takes the global's lock for reading); a read merges
 * them into an aggregate (the translator holds the lock for writing).
 *
 * Variance: the running mean and the sum of squared deviations are kept
 * scaled by 2^shift (Welford's update, with the same integer truncations
 * as 4.8, including a 32-bit intermediate difference); per-CPU parts are
 * merged with the total-variance formula. @variance is
 * variance_s >> (2 * shift).
 */
#include <linux/percpu.h>

#define STP_HIST_LOG_BUCKETS	128
#define STP_HIST_LOG_ZERO	64	/* the bucket of value 0 */
#define STP_HIST_MAX_BUCKETS	128	/* linear: including under/overflow */
#define STP_HIST_WIDTH		50	/* '@' columns */

/* 4.8's division of aggregates: truncating, x / 0 = 0, x / -1 = -x */
static int64_t stp_sdiv(int64_t x, int64_t y)
{
	if (unlikely(y == 0))
		return 0;
	if (unlikely(y == -1))
		return (int64_t)(0 - (u64)x);
	return div64_s64(x, y);
}

/* Buckets of a histogram: 0 none, -1 invalid linear parameters. */
static int stp_stat_buckets(const struct stp_stat_spec *ss)
{
	int64_t n;

	if (!ss || ss->hist == STP_HIST_NONE)
		return 0;
	if (ss->hist == STP_HIST_LOG)
		return STP_HIST_LOG_BUCKETS;
	if (ss->step <= 0 || ss->hi < ss->lo)
		return -1;
	n = div64_s64(ss->hi - ss->lo, ss->step) + 3;
	if (n < 3 || n > STP_HIST_MAX_BUCKETS)
		return -1;
	return n;
}

int stp_stat_hist_nbuckets(const struct stp_stat_spec *ss)
{
	return max(stp_stat_buckets(ss), 0);
}

static size_t stp_stat_size(int nbuckets)
{
	return ALIGN(sizeof(struct stp_stat) + nbuckets * sizeof(int64_t), 8);
}

/* Empty st, keeping its shape. */
static void stp_stat_reset(struct stp_stat *st)
{
	st->count = st->sum = st->min = st->max = 0;
	st->avg_s = st->m2 = st->variance_s = 0;
	memset(st->hist, 0, st->nbuckets * sizeof(int64_t));
}

static void stp_stat_shape(struct stp_stat *st, const struct stp_stat_spec *ss,
			   int nbuckets)
{
	st->nbuckets = nbuckets;
	st->shift = ss ? ss->shift : 0;
	stp_stat_reset(st);
}

static int stp_hist_log_bucket(int64_t v)
{
	int bits;

	if (v == 0)
		return STP_HIST_LOG_ZERO;
	bits = fls64(v < 0 ? 0 - (u64)v : (u64)v);	/* 1..64 */
	if (v < 0)
		return STP_HIST_LOG_ZERO - bits;
	return min(STP_HIST_LOG_ZERO + bits, STP_HIST_LOG_BUCKETS - 1);
}

/* The value printed for log bucket n: 0, +-2^k. */
static int64_t stp_hist_log_value(int n)
{
	if (n == STP_HIST_LOG_ZERO)
		return 0;
	if (n == 0)
		return S64_MIN;
	if (n < STP_HIST_LOG_ZERO)
		return -((int64_t)1 << (63 - n));
	return (int64_t)1 << (n - STP_HIST_LOG_ZERO - 1);
}

static void stp_stat_accum(struct stp_stat *st, const struct stp_stat_spec *ss,
			   int64_t x)
{
	int64_t xs = (int64_t)((u64)x << st->shift);
	int delta;		/* 4.8 keeps this difference in an int */
	int64_t b;

	if (st->count == 0) {
		st->count = 1;
		st->sum = st->min = st->max = x;
		st->avg_s = xs;
		st->m2 = 0;
	} else {
		st->count++;
		st->sum = (int64_t)((u64)st->sum + (u64)x);
		if (x > st->max)
			st->max = x;
		if (x < st->min)
			st->min = x;
		if (!ss->variance)
			goto hist;
		delta = (int)(xs - st->avg_s);
		st->avg_s += stp_sdiv(delta, st->count);
		st->m2 += (int64_t)((u64)(int64_t)delta * (u64)(xs - st->avg_s));
		st->variance_s = stp_sdiv(st->m2, st->count - 1);
	}
hist:
	if (!st->nbuckets)
		return;
	if (ss->hist == STP_HIST_LOG) {
		st->hist[stp_hist_log_bucket(x)]++;
		return;
	}
	/* linear: 0 underflow, 1..n-2 [lo + (i-1)*step, ...), n-1 overflow */
	if (x < ss->lo) {
		b = 0;
	} else {
		b = div64_u64((u64)x - (u64)ss->lo, ss->step) + 1;
		if (b >= st->nbuckets - 1)
			b = st->nbuckets - 1;
	}
	st->hist[b]++;
}

/*
 * Merge src (one CPU's row of a statistics array) into dst, the aggregate
 * row: a copy when fresh, else counts, sums, extremes and buckets added
 * and, when @variance is used, the variance of the union from the two
 * parts' means and variances (total variance), as 4.8 merges map rows.
 */
static void stp_stat_merge(struct stp_stat *dst, const struct stp_stat *src,
			   const struct stp_stat_spec *ss, bool fresh)
{
	int64_t n1, avg1, s11, s12, s21, s22;
	int i;

	if (fresh || !dst->count) {
		dst->count = src->count;
		dst->sum = src->sum;
		dst->min = src->min;
		dst->max = src->max;
		dst->avg_s = src->avg_s;
		dst->m2 = src->m2;
		dst->variance_s = src->variance_s;
		memcpy(dst->hist, src->hist, dst->nbuckets * sizeof(int64_t));
		return;
	}
	if (!src->count)
		return;
	n1 = dst->count;
	avg1 = dst->avg_s;
	dst->count += src->count;
	dst->sum = (int64_t)((u64)dst->sum + (u64)src->sum);
	dst->min = min(dst->min, src->min);
	dst->max = max(dst->max, src->max);
	for (i = 0; i < dst->nbuckets; i++)
		dst->hist[i] += src->hist[i];
	if (!ss->variance)
		return;
	dst->avg_s = stp_sdiv((int64_t)((u64)dst->sum << dst->shift), dst->count);
	s11 = (int64_t)((u64)n1 * (u64)(avg1 - dst->avg_s) * (u64)(avg1 - dst->avg_s));
	s12 = (int64_t)((u64)(n1 - 1) * (u64)dst->variance_s);
	s21 = (int64_t)((u64)src->count * (u64)(src->avg_s - dst->avg_s) *
			(u64)(src->avg_s - dst->avg_s));
	s22 = (int64_t)((u64)(src->count - 1) * (u64)src->variance_s);
	dst->variance_s = stp_sdiv(s11 + s12 + s21 + s22, dst->count - 1);
}

struct stp_stat_var {
	struct stp_stat_spec spec;
	int nbuckets;
	struct stp_stat __percpu *pcpu;
	struct stp_stat *agg;
};

struct stp_stat_var *stp_stat_new(const struct stp_stat_spec *ss)
{
	static const struct stp_stat_spec none = { .hist = STP_HIST_NONE };
	struct stp_stat_var *v;
	unsigned int cpu;
	int nb;

	if (!ss)
		ss = &none;
	nb = stp_stat_buckets(ss);
	if (nb < 0) {
		stp_warn_msg("histogram: Number of buckets must be between 1 and %d\n",
			     STP_HIST_MAX_BUCKETS - 2);
		return NULL;
	}
	v = kzalloc(sizeof(*v), GFP_KERNEL);
	if (!v)
		return NULL;
	v->spec = *ss;
	v->nbuckets = nb;
	v->pcpu = __alloc_percpu(stp_stat_size(nb), 8);
	v->agg = kzalloc(stp_stat_size(nb), GFP_KERNEL);
	if (!v->pcpu || !v->agg) {
		stp_stat_free(v);
		return NULL;
	}
	for_each_possible_cpu(cpu)
		stp_stat_shape(per_cpu_ptr(v->pcpu, cpu), ss, nb);
	stp_stat_shape(v->agg, ss, nb);
	return v;
}

void stp_stat_free(struct stp_stat_var *v)
{
	if (!v)
		return;
	free_percpu(v->pcpu);
	kfree(v->agg);
	kfree(v);
}

void stp_stat_add(struct stp_stat_var *v, int64_t x)
{
	stp_stat_accum(this_cpu_ptr(v->pcpu), &v->spec, x);
}

const struct stp_stat *stp_stat_get(struct stp_stat_var *v)
{
	struct stp_stat *agg = v->agg, *sd;
	int64_t s1 = 0, s2 = 0, d;
	unsigned int cpu;
	int i;

	stp_stat_reset(agg);
	for_each_possible_cpu(cpu) {
		sd = per_cpu_ptr(v->pcpu, cpu);
		if (!sd->count)
			continue;
		if (!agg->count) {
			agg->min = sd->min;
			agg->max = sd->max;
		}
		agg->count += sd->count;
		agg->sum = (int64_t)((u64)agg->sum + (u64)sd->sum);
		agg->min = min(agg->min, sd->min);
		agg->max = max(agg->max, sd->max);
		for (i = 0; i < agg->nbuckets; i++)
			agg->hist[i] += sd->hist[i];
	}
	if (!v->spec.variance)
		return agg;
	agg->avg_s = stp_sdiv((int64_t)((u64)agg->sum << agg->shift),
			      agg->count);
	for_each_possible_cpu(cpu) {
		sd = per_cpu_ptr(v->pcpu, cpu);
		if (!sd->count)
			continue;
		d = sd->avg_s - agg->avg_s;
		s1 += (int64_t)((u64)sd->count * (u64)d * (u64)d);
		s2 += (int64_t)((u64)(sd->count - 1) * (u64)sd->variance_s);
	}
	agg->variance_s = stp_sdiv(s1 + s2, agg->count - 1);
	return agg;
}

void stp_stat_clear(struct stp_stat_var *v)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu)
		stp_stat_reset(per_cpu_ptr(v->pcpu, cpu));
}

int64_t stp_stat_op(struct stp_context *c, const struct stp_stat *st, char op)
{
	bool empty = !st || st->count == 0;

	switch (op) {
	case 'c':
		return empty ? 0 : st->count;
	case 's':
		return empty ? 0 : st->sum;
	}
	if (empty) {
		c->last_error = "empty aggregate";
		return 0;
	}
	switch (op) {
	case 'm':
		return st->min;
	case 'M':
		return st->max;
	default:		/* 'a' */
		return stp_sdiv(st->sum, st->count);
	}
}

int64_t stp_stat_variance(struct stp_context *c, const struct stp_stat *st,
			  int shift)
{
	(void)shift;		/* the stat's own shift (spec.shift) applies */
	if (!st || st->count == 0) {
		c->last_error = "empty aggregate";
		return 0;
	}
	return st->variance_s >> (2 * st->shift);
}

int64_t stp_stat_hist_bucket(struct stp_context *c, const struct stp_stat *st,
			     const struct stp_stat_spec *ss, int64_t i)
{
	(void)ss;
	if (!st || st->count == 0) {
		c->last_error = "empty aggregate";
		return 0;
	}
	if (i < 0 || i >= st->nbuckets) {
		c->last_error = "histogram index out of range";
		return 0;
	}
	return st->hist[i];
}

/* Characters of v in decimal, with its sign. */
static int stp_num_width(int64_t v)
{
	u64 a = v < 0 ? 0 - (u64)v : (u64)v;
	int n = v < 0 ? 1 : 0;

	do {
		n++;
		a = div_u64(a, 10);
	} while (a);
	return n;
}

static __printf(2, 3) void stp_hist_out(struct stp_sink *sk, const char *fmt, ...)
{
	char line[128];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vscnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	stp_emit_lit(sk, line, n);
}

static void stp_hist_fill(struct stp_sink *sk, char ch, int n)
{
	static const char dashes[] = "--------------------------------------------------";
	static const char ats[] = "@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@";

	if (n > 0)
		stp_emit_lit(sk, ch == '@' ? ats : dashes,
			     min_t(int, n, STP_HIST_WIDTH));
}

/*
 * print(@hist_log(s)) / print(@hist_linear(s, lo, hi, step)), laid out as
 * 4.8 does: rows from two empty buckets below the lowest non-empty one
 * (log histograms of non-negative data start at 0) to two above the
 * highest; linear under/overflow rows only when non-empty; a row is left
 * out when it and its two neighbours on each side are all empty, and a
 * run of such rows shows as one "~" line; bars scaled to at most 50 '@'.
 */
void stp_stat_print_hist(struct stp_sink *sk, const struct stp_stat *st,
			 const struct stp_stat_spec *ss)
{
	bool linear = ss->hist == STP_HIST_LINEAR;
	int nb = st->nbuckets, low = -1, high = 0, i, k, lo_k, hi_k;
	int under = 0, over = 0, val_space, cnt_space, bar;
	int64_t valmax = 0, scale, val;
	bool eliding = false, empty;
	const char *prefix;

	if (sk->pb)	/* many lines, each its own print in 4.8: no cap */
		sk->cap = SIZE_MAX;
	if (!nb || ss->hist == STP_HIST_NONE)
		return;
	for (i = 0; i < nb; i++) {
		if (st->hist[i] > 0 && low == -1)
			low = i;
		if (st->hist[i] > 0)
			high = i;
		if (st->hist[i] > valmax)
			valmax = st->hist[i];
	}
	if (low == -1)		/* 4.8 never prints an empty histogram */
		low = 0;
	for (i = 0; i < 2; i++) {
		if (low > 0 && (linear || low != STP_HIST_LOG_ZERO))
			low--;
		if (high < nb - 1)
			high++;
	}
	if (linear) {
		if (low == 0 && st->hist[0] == 0)
			low++;
		if (high == nb - 1 && st->hist[high] == 0)
			high--;
		under = low == 0;
		over = high == nb - 1;
	}
	scale = valmax <= STP_HIST_WIDTH ? 1 :
		div64_s64(valmax + STP_HIST_WIDTH - 1, STP_HIST_WIDTH);
	cnt_space = stp_num_width(valmax);
	if (linear)
		val_space = max(stp_num_width(ss->lo) + under,
				stp_num_width(ss->lo + ss->step * high) + over);
	else
		val_space = max(stp_num_width(stp_hist_log_value(high)),
				stp_num_width(stp_hist_log_value(low)));
	val_space = max(val_space, 5);

	stp_hist_out(sk, "%*s |", val_space, "value");
	stp_hist_fill(sk, '-', STP_HIST_WIDTH);
	stp_emit_lit(sk, " count\n", 7);
	for (i = low; i <= high; i++) {
		lo_k = max(low, i - 2);
		hi_k = min(high, i + 2);
		empty = true;
		for (k = lo_k; k <= hi_k; k++)
			if (st->hist[k])
				empty = false;
		if (empty) {
			eliding = true;
			continue;
		}
		if (eliding) {
			stp_hist_out(sk, "%*s ~\n", val_space, "");
			eliding = false;
		}
		prefix = "";
		if (!linear) {
			val = stp_hist_log_value(i);
		} else if (i == 0) {
			val = ss->lo;
			prefix = "<";
		} else if (i == nb - 1) {
			val = ss->lo + (int64_t)(i - 2) * ss->step;
			prefix = ">";
		} else {
			val = ss->lo + (int64_t)(i - 1) * ss->step;
		}
		stp_hist_out(sk, "%*s%lld |", val_space - stp_num_width(val),
			     prefix, (long long)val);
		bar = div64_s64(st->hist[i], scale);
		stp_hist_fill(sk, '@', bar);
		stp_hist_out(sk, "%*lld\n", STP_HIST_WIDTH - bar + 1 + cnt_space,
			     (long long)st->hist[i]);
	}
	stp_emit_lit(sk, "\n", 1);
}
