/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stp_fmt.c - the formatting core shared by the kernel runtime
 * (runtime/print.c includes it) and the BPF loader (staprun/stapbpf_fmt.c
 * includes it): printf's integer, character, string and %b conversions
 * and the layout of @hist_log/@hist_linear, with the output of SystemTap
 * 4.8 byte for byte.
 *
 * It uses no kernel API: the includer provides the types (u8, u64, s64,
 * bool), min/max/min_t, isascii/isprint, strchr/strnlen, fallthrough,
 * memset, div64_s64, div_u64, S64_MIN,
 * STP_BUFFER_SIZE, struct stp_spec, struct stp_stat(_spec), STP_HIST_* with the STP_F_* flags, struct
 * stp_sink and stp_put(sink, bytes, n), which writes n bytes to the sink,
 * and STP_SINK_UNCAPPED(sink), which lifts the kernel print sink's cap.
 *
 * As in 4.8, a width or precision counts up to STP_BUFFER_SIZE:
 * "%2147483647d|\n" pads to 8,191 spaces (the kernel runtime's sink then
 * drops what one print statement writes past STP_BUFFER_SIZE).
 */

static void stp_put_fill(struct stp_sink *s, char c, int n)
{
	char pad[32];

	if (n <= 0)
		return;
	n = min(n, STP_BUFFER_SIZE);	/* either sink takes no more */
	memset(pad, c, min_t(int, n, sizeof(pad)));
	while (n > 0) {
		stp_put(s, pad, min_t(int, n, sizeof(pad)));
		n -= sizeof(pad);
	}
}

/* Digits of num in base, least significant first; returns the count. */
static int stp_digits(char *out, u64 num, unsigned int base, bool upper)
{
	const char *set = upper ? "0123456789ABCDEF" : "0123456789abcdef";
	int n = 0;

	do {
		out[n++] = set[num % base];
		num /= base;
	} while (num);
	return n;
}

static void stp_emit_number(struct stp_sink *s, u64 num, unsigned int base,
			    bool is_signed, u8 flags, int width, int prec,
			    bool upper)
{
	char digits[24], head[3];
	int ndig, nhead = 0, i;

	if (flags & STP_F_LEFT)
		flags &= ~STP_F_ZERO;
	if (is_signed && (s64)num < 0) {
		head[nhead++] = '-';
		num = 0 - num;
	} else if (is_signed && (flags & STP_F_PLUS)) {
		head[nhead++] = '+';
	} else if (is_signed && (flags & STP_F_SPACE)) {
		head[nhead++] = ' ';
	}
	if ((flags & STP_F_ALT) && (base == 16 || base == 8))
		head[nhead++] = '0';
	if ((flags & STP_F_ALT) && base == 16)
		head[nhead++] = upper ? 'X' : 'x';
	ndig = stp_digits(digits, num, base, upper);
	prec = max(prec, ndig);
	width -= nhead + prec;
	if (!(flags & (STP_F_LEFT | STP_F_ZERO)))
		stp_put_fill(s, ' ', width);
	stp_put(s, head, nhead);
	if (flags & STP_F_ZERO)
		stp_put_fill(s, '0', width);
	stp_put_fill(s, '0', prec - ndig);
	for (i = ndig - 1; i >= 0; i--)
		stp_put(s, &digits[i], 1);
	if (flags & STP_F_LEFT)
		stp_put_fill(s, ' ', width);
}

/* %c; with '#', non-printables become C escapes or \ooo. */
static void stp_emit_char(struct stp_sink *s, u8 c, u8 flags, int width)
{
	static const char esc_from[] = "\a\b\f\n\r\t\v'\\";
	static const char esc_to[] = "abfnrtv'\\";
	char out[4];
	const char *e;
	int n = 0;

	if (!(flags & STP_F_ALT) ||
	    (isascii(c) && isprint(c) && c != '\'' && c != '\\')) {
		out[n++] = c;
	} else {
		out[n++] = '\\';
		e = c ? strchr(esc_from, c) : NULL;
		if (e) {
			out[n++] = esc_to[e - esc_from];
		} else {
			out[n++] = '0' + ((c >> 6) & 3);
			out[n++] = '0' + ((c >> 3) & 7);
			out[n++] = '0' + (c & 7);
		}
	}
	if (!(flags & STP_F_LEFT))
		stp_put_fill(s, ' ', width - n);
	stp_put(s, out, n);
	if (flags & STP_F_LEFT)
		stp_put_fill(s, ' ', width - n);
}

/* A width or precision ('*' ones too) counts up to STP_BUFFER_SIZE. */
static int stp_count(int v)
{
	return min(v, STP_BUFFER_SIZE);
}

void stp_emit_long(struct stp_sink *s, int64_t v, const struct stp_spec *sp)
{
	u8 flags = sp->flags;
	unsigned int base = 10;
	bool is_signed = false;

	switch (sp->conv) {
	case 'c':
		stp_emit_char(s, (u8)v, flags, stp_count(sp->width));
		return;
	case 'd':
	case 'i':
		is_signed = true;
		break;
	case 'o':
		base = 8;
		break;
	case 'p':
		flags |= STP_F_ALT;
		fallthrough;
	case 'x':
	case 'X':
		base = 16;
		break;
	default:		/* 'u' */
		break;
	}
	stp_emit_number(s, (u64)v, base, is_signed, flags, stp_count(sp->width),
			stp_count(sp->prec), sp->conv == 'X');
}

void stp_emit_str(struct stp_sink *s, const char *v, const struct stp_spec *sp)
{
	size_t max = sp->prec < 0 ? STP_BUFFER_SIZE : stp_count(sp->prec);
	int len, width = stp_count(sp->width);

	if (!v)
		v = "<NULL>";
	len = strnlen(v, max);
	if (!(sp->flags & STP_F_LEFT))
		stp_put_fill(s, ' ', width - len);
	stp_put(s, v, len);
	if (sp->flags & STP_F_LEFT)
		stp_put_fill(s, ' ', width - len);
	if (sp->flags & STP_F_ZERO)
		stp_put(s, "", 1);	/* 4.8 appends a NUL byte */
}

/* A %b size: 1, 2, 4 or 8 bytes, else -1. */
static int stp_bin_size(int n)
{
	return n == 1 || n == 2 || n == 4 || n == 8 ? n : -1;
}

/* %b: the value's low bytes in host (little-endian) order, NUL-padded to
 * the width. The size is the precision, else the width, else 8. */
void stp_emit_bin(struct stp_sink *s, int64_t v, const struct stp_spec *sp)
{
	int size = stp_bin_size(sp->prec), width = stp_count(sp->width);

	if (width < 0) {
		if (size < 0)
			size = 8;
		width = size;
	} else if (size < 0) {
		size = stp_bin_size(width);
		if (size < 0)
			size = 8;
	}
	if (!(sp->flags & STP_F_LEFT))
		stp_put_fill(s, '\0', width - size);
	stp_put(s, (const char *)&v, size);
	if (sp->flags & STP_F_LEFT)
		stp_put_fill(s, '\0', width - size);
}

/* ---- histograms ---- */
#define STP_HIST_LOG_BUCKETS	128
#define STP_HIST_LOG_ZERO	64	/* the bucket of value 0 */
#define STP_HIST_MAX_BUCKETS	128	/* linear: including under/overflow */
#define STP_HIST_WIDTH		50	/* '@' columns */

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

static void stp_hist_fill(struct stp_sink *sk, char ch, int n)
{
	static const char dashes[] = "--------------------------------------------------";
	static const char ats[] = "@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@";

	if (n > 0)
		stp_put(sk, ch == '@' ? ats : dashes,
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

	STP_SINK_UNCAPPED(sk);	/* many lines, each its own print in 4.8 */
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

	stp_put_fill(sk, ' ', val_space - 5);
	stp_put(sk, "value |", 7);
	stp_hist_fill(sk, '-', STP_HIST_WIDTH);
	stp_put(sk, " count\n", 7);
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
			stp_put_fill(sk, ' ', val_space);
			stp_put(sk, " ~\n", 3);
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
		stp_put_fill(sk, ' ', val_space - stp_num_width(val) -
			     (int)strlen(prefix));
		stp_put(sk, prefix, strlen(prefix));
		stp_emit_number(sk, (u64)val, 10, true, 0, -1, -1, false);
		stp_put(sk, " |", 2);
		bar = div64_s64(st->hist[i], scale);
		stp_hist_fill(sk, '@', bar);
		stp_emit_number(sk, (u64)st->hist[i], 10, true, 0,
				STP_HIST_WIDTH - bar + 1 + cnt_space, -1, false);
		stp_put(sk, "\n", 1);
	}
	stp_put(sk, "\n", 1);
}
