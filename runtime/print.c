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

void stp_emit_lit(struct stp_sink *s, const char *p, size_t n)
{
	stp_put(s, p, n);
}

/* a histogram is many lines, each its own print statement in 4.8 */
#define STP_SINK_UNCAPPED(sk) do { if ((sk)->pb) (sk)->cap = SIZE_MAX; } while (0)

#include "stp_fmt.c"

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
