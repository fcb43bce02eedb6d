/* SPDX-License-Identifier: GPL-2.0 */
/*
 * print.c - output sinks and the printf formatter.
 *
 * A sink is either this CPU's print buffer (flushed to the relay channel
 * at the end of each probe, or when it fills up, keeping whole print
 * statements in a record) or a MAXSTRINGLEN
 * string (sprintf; truncated silently). The conversions reproduce the
 * output of SystemTap 4.8 byte for byte: for example '#' adds "0x" or a
 * leading 0 even to zero and after a precision, ".0" still prints a 0
 * digit, and %s with the '0' flag appends a NUL byte.
 *
 * As in 4.8, one print statement writes at most STP_BUFFER_SIZE bytes (the
 * rest is dropped), and a width or precision counts up to STP_BUFFER_SIZE:
 * "%2147483647d|\n" prints 8,191 spaces and the digit, not the "|\n".
 */
#include <linux/ctype.h>

struct stp_print_buf {
	size_t len;
	size_t mark;		/* where the current print statement began */
	char buf[STP_BUFFER_SIZE];
};

static struct stp_print_buf **stp_print_bufs;	/* nr_cpu_ids entries */

static void stp_print_flush(struct stp_print_buf *pb)
{
	if (pb->len)
		stp_relay_write(pb->buf, pb->len);
	pb->len = 0;
	pb->mark = 0;
}

/*
 * The buffer is full: as in 4.8, a record holds whole print statements,
 * so what the current statement wrote so far moves on to the next record
 * (unless it alone filled the buffer). -S splits output files between
 * records, at the same places as 4.8.
 */
static void stp_print_flush_full(struct stp_print_buf *pb)
{
	size_t keep = pb->len - pb->mark;

	if (!pb->mark || !keep) {
		stp_print_flush(pb);
		return;
	}
	stp_relay_write(pb->buf, pb->mark);
	memmove(pb->buf, pb->buf + pb->mark, keep);
	pb->len = keep;
	pb->mark = 0;
}

/* Flush this CPU's print buffer; probe context. */
static void stp_print_flush_this_cpu(void)
{
	stp_print_flush(stp_print_bufs[smp_processor_id()]);
}

/* The sink of one print statement: at most STP_BUFFER_SIZE bytes. */
void stp_sink_print(struct stp_sink *s)
{
	s->pb = stp_print_bufs[smp_processor_id()];
	s->pb->mark = s->pb->len;
	s->dst = NULL;
	s->len = 0;
	s->cap = STP_BUFFER_SIZE;
}

/* A sink for many lines (histograms, reports, the globals' display): the
 * 4.8 runtime prints those a line at a time, so no cap. */
void stp_sink_print_all(struct stp_sink *s)
{
	stp_sink_print(s);
	s->cap = SIZE_MAX;
}

void stp_sink_string(struct stp_sink *s, char *dst)
{
	s->pb = NULL;
	s->dst = dst;
	s->len = 0;
	dst[0] = '\0';
}

static void stp_put_print(struct stp_print_buf *pb, const char *p, size_t n)
{
	size_t room;

	while (n) {
		if (pb->len == STP_BUFFER_SIZE)
			stp_print_flush_full(pb);
		room = min(n, STP_BUFFER_SIZE - pb->len);
		memcpy(pb->buf + pb->len, p, room);
		pb->len += room;
		p += room;
		n -= room;
	}
}

static void stp_put(struct stp_sink *s, const char *p, size_t n)
{
	size_t room;

	if (s->pb) {	/* s->len: what this print statement wrote */
		n = min(n, s->cap - s->len);
		s->len += n;
		stp_put_print(s->pb, p, n);
		return;
	}
	room = MAXSTRINGLEN - 1 - s->len;
	n = min(n, room);
	memcpy(s->dst + s->len, p, n);
	s->len += n;
	s->dst[s->len] = '\0';
}

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

void stp_emit_lit(struct stp_sink *s, const char *p, size_t n)
{
	stp_put(s, p, n);
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

/* How many bytes %m and %M read: the precision, at least 1. */
static size_t stp_mem_len(const struct stp_spec *sp)
{
	return sp->prec > 0 ? min_t(size_t, sp->prec, STP_BUFFER_SIZE) : 1;
}

void stp_mem_check(struct stp_context *c, int64_t addr, const struct stp_spec *sp)
{
	size_t len = stp_mem_len(sp), i, n;
	char chunk[64];

	for (i = 0; i < len; i += n) {
		n = min(len - i, sizeof(chunk));
		if (copy_from_kernel_nofault(chunk, (const void *)(unsigned long)(addr + i), n)) {
			snprintf(c->error_buffer, MAXSTRINGLEN,
				 "read fault [man error::fault] at 0x%llx",
				 (unsigned long long)(addr + i));
			c->last_error = c->error_buffer;
			return;
		}
	}
}

/* %m: kernel memory as raw bytes; %M: as lower-case hex digit pairs. The
 * range was checked by stp_mem_check; a byte that faults now reads 0. */
void stp_emit_mem(struct stp_sink *s, int64_t addr, const struct stp_spec *sp)
{
	static const char hex[] = "0123456789abcdef";
	size_t len = stp_mem_len(sp), i;
	int out = sp->conv == 'M' ? 2 * len : len, width = stp_count(sp->width);
	unsigned char b;
	char pair[2];

	if (!(sp->flags & STP_F_LEFT))
		stp_put_fill(s, ' ', width - out);
	for (i = 0; i < len; i++) {
		if (copy_from_kernel_nofault(&b, (const void *)(unsigned long)(addr + i), 1))
			b = 0;
		if (sp->conv == 'M') {
			pair[0] = hex[b >> 4];
			pair[1] = hex[b & 15];
			stp_put(s, pair, 2);
		} else {
			stp_put(s, (const char *)&b, 1);
		}
	}
	if (sp->flags & STP_F_LEFT)
		stp_put_fill(s, ' ', width - out);
	if (sp->flags & STP_F_ZERO)
		stp_put(s, "", 1);
}

void stp_print_str(const char *str)
{
	struct stp_sink s;

	stp_sink_print(&s);
	stp_put(&s, str, strlen(str));
}

void stp_print_long(int64_t v)
{
	static const struct stp_spec d = { .conv = 'd', .width = -1, .prec = -1 };
	struct stp_sink s;

	stp_sink_print(&s);
	stp_emit_long(&s, v, &d);
}

static int stp_print_init(void)
{
	unsigned int cpu;

	stp_print_bufs = kcalloc(nr_cpu_ids, sizeof(*stp_print_bufs),
				 GFP_KERNEL);
	if (!stp_print_bufs)
		return -ENOMEM;
	for_each_possible_cpu(cpu) {
		stp_print_bufs[cpu] = kvzalloc(sizeof(struct stp_print_buf),
					       GFP_KERNEL);
		if (!stp_print_bufs[cpu])
			return -ENOMEM;
	}
	return 0;
}

static void stp_print_exit(void)
{
	unsigned int cpu;

	if (!stp_print_bufs)
		return;
	for_each_possible_cpu(cpu)
		kvfree(stp_print_bufs[cpu]);
	kfree(stp_print_bufs);
	stp_print_bufs = NULL;
}
