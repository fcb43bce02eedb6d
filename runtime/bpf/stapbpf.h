/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stapbpf.h - the BPF runtime: included by the BPF C that stap
 * --runtime=bpf writes (translator/bpf/), compiled by clang -target bpf.
 * It needs no kernel or libbpf headers (a fast compile): the types, the
 * helpers by number, the ring buffer the loader (staprun/stapbpf.c)
 * reads, the per-CPU scratch strings, and the string and number
 * formatting of sprintf, which reproduce runtime/print.c byte for byte.
 *
 * The generated file defines STP_MAXSTR (a power of 2) and STP_NSTR (the
 * string slots of its handlers) before including this.
 */
#ifndef STAPBPF_H
#define STAPBPF_H

typedef unsigned long long __u64;
typedef long long __s64;
typedef unsigned int __u32;
typedef int __s32;
typedef unsigned short __u16;
typedef unsigned char __u8;

#define SEC(n) __attribute__((section(n), used))
#define __uint(name, val) int (*name)[val]
#define __type(name, val) typeof(val) *name
#define __always_inline inline __attribute__((always_inline))
#define STP_USED __attribute__((used))
/* the script's string literals and messages: in .rodata itself, where the
 * BTF places them (clang may put a const array in .rodata.str1.1, which
 * its BTF still lists in .rodata; libbpf 1.1 then gives the kernel a
 * .rodata DATASEC with overlapping variables, 6.1 rejects the BTF, and a
 * program with a callback, which needs it, does not load) */
#define STP_RODATA __attribute__((section(".rodata")))

static void *(*bpf_map_lookup_elem)(void *map, const void *key) = (void *)1;
static long (*bpf_map_update_elem)(void *map, const void *key, const void *value,
				   __u64 flags) = (void *)2;
static long (*bpf_map_delete_elem)(void *map, const void *key) = (void *)3;
static __u64 (*bpf_ktime_get_ns)(void) = (void *)5;
static __u32 (*bpf_get_smp_processor_id)(void) = (void *)8;
static __u64 (*bpf_get_current_pid_tgid)(void) = (void *)14;
static __u64 (*bpf_get_current_uid_gid)(void) = (void *)15;
static long (*bpf_get_current_comm)(void *buf, __u32 size) = (void *)16;
static long (*bpf_probe_read_kernel)(void *dst, __u32 size, const void *p) = (void *)113;
static long (*bpf_probe_read_user_str)(void *dst, __u32 size, const void *p) = (void *)114;
static long (*bpf_probe_read_kernel_str)(void *dst, __u32 size, const void *p) = (void *)115;
static void *(*bpf_ringbuf_reserve)(void *rb, __u64 size, __u64 flags) = (void *)131;
static void (*bpf_ringbuf_submit)(void *data, __u64 flags) = (void *)132;

#define STP_MASK (STP_MAXSTR - 1)
/* may n bytes at user address a be read: the kernel's access_ok() (x86-64,
 * TASK_SIZE_MAX of 4-level paging), which the module runtime's user
 * string reads check first (a string within n bytes of the top of the
 * user stack is a fault there) */
#define STP_UOK(a, n) ((unsigned long)(a) <= 0x7ffffffff000UL - (unsigned long)(n))

/* Record types of the ring buffer besides printf formats (0...). */
#define STP_REC_EXIT 0xffff0001u	/* exit() */
#define STP_REC_WARN 0xffff0005u	/* warn(): u32 0, the message */
#define STP_REC_ERROR 0xffff0004u	/* a run-time error: u32 the index of its
					 * place (" near ..."), or ~0; the message */

/* The loader reads and writes these through the mapped .bss. */
long stp_state;			/* 0 running, 1 stopping (exit()), 2 error */
long stp_errors;
long stp_real_offset;		/* CLOCK_REALTIME - CLOCK_MONOTONIC, in ns */
long stp_target;		/* -c CMD's pid, or -x PID: target() */

struct {
	__uint(type, 27);	/* BPF_MAP_TYPE_RINGBUF */
	__uint(max_entries, 1 << 20);
} stp_rb SEC(".maps");

/* the scratch's tmp[]: twice MAXSTRINGLEN, 1 KB at least */
#define STP_TMPLEN (2 * STP_MAXSTR > 1024 ? 2 * STP_MAXSTR : 1024)

struct stp_scratch {
	long err;		/* an error is raised: 1 one try can catch, 2 one that
				 * leaves the handler (MAXACTION), 3 abort() (not
				 * reported) */
	long act;		/* MAXACTION: actions of this handler */
	long errloc;		/* the raised error's place, or -1 */
	long ent[24];		/* a .return probe's parameters (16) and @entry()
				 * values (8), saved at the entry */
	long pp;		/* the running program's index in stp_pfn[] */
	struct stp_quote {	/* user_string_quoted()'s counters (STP_QUOTE);
				 * buf: user_buffer_quoted()'s, NULs escaped */
		long i, inlen, o, outlen, cut, cutlen, ch, buf;
	} quote;
	unsigned long uregs;	/* a syscall probe's user pt_regs (_sc_use_uregs()) */
	long scf[4];		/* a flag decoder's length, value, table and found
				 * (bpf_syscall.c) */
	char errmsg[STP_MAXSTR];	/* its message, as catch (msg) sees it */
	char s[STP_NSTR][STP_MAXSTR];
	char tmp[STP_TMPLEN];	/* stp_strlen's copy, room past a slot; from the
				 * end, the state of string and symbol scans */
};

/* One entry per CPU (an array, not per-CPU: values above 32 KB); the
 * loader sets max_entries to the number of possible CPUs. */
struct {
	__uint(type, 2);	/* BPF_MAP_TYPE_ARRAY */
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct stp_scratch);
} stp_scratch SEC(".maps");

static __always_inline struct stp_scratch *stp_enter(void)
{
	__u32 cpu = bpf_get_smp_processor_id();
	struct stp_scratch *S = bpf_map_lookup_elem(&stp_scratch, &cpu);

	if (S) {
		S->err = 0;
		S->act = 0;
		S->uregs = 0;
	}
	return S;
}

/*
 * A run-time error is raised (S->err, the message in S->errmsg, its place
 * loc in the table of messages), the code jumps to the enclosing catch
 * or leaves the handler; an error still raised when the handler returns
 * is reported (stp_report), as the module runtime's last_error.
 */
static __always_inline void stp_raise(struct stp_scratch *S, long kind, long loc,
				      const char *msg)
{
	S->err = kind;
	S->errloc = loc;
	if (msg != S->errmsg)
		bpf_probe_read_kernel_str(S->errmsg, STP_MAXSTR, msg);
}

static __always_inline void stp_report(struct stp_scratch *S)
{
	struct { __u32 id, loc; char msg[STP_MAXSTR]; } *r;

	stp_state = 2;
	__sync_fetch_and_add(&stp_errors, 1);
	r = bpf_ringbuf_reserve(&stp_rb, sizeof(*r), 0);
	if (r) {
		r->id = STP_REC_ERROR;
		r->loc = (__u32)S->errloc;
		bpf_probe_read_kernel_str(r->msg, STP_MAXSTR, S->errmsg);
		bpf_ringbuf_submit(r, 0);
	}
}

/* warn(msg): "WARNING: msg" on the loader's stderr */
static __always_inline void stp_warn(const char *msg)
{
	struct { __u32 id, loc; char msg[STP_MAXSTR]; } *r;

	r = bpf_ringbuf_reserve(&stp_rb, sizeof(*r), 0);
	if (r) {
		r->id = STP_REC_WARN;
		r->loc = ~0u;
		bpf_probe_read_kernel_str(r->msg, STP_MAXSTR, msg);
		bpf_ringbuf_submit(r, 0);
	}
}

static __always_inline void stp_exit(void)
{
	__u32 *r;

	if (!stp_state)
		stp_state = 1;
	r = bpf_ringbuf_reserve(&stp_rb, 8, 0);
	if (r) {
		r[0] = STP_REC_EXIT;
		r[1] = 0;
		bpf_ringbuf_submit(r, 0);
	}
}


/*
 * Strings. The verifier checks an access against the whole map value, so
 * a write of up to MAXSTRINGLEN bytes anywhere in a slot stays inside
 * the value (the scratch ends with tmp[], .bss and .data with a pad);
 * lengths come from bpf_probe_read_kernel_str, one helper call rather
 * than a loop the verifier would walk byte by byte.
 */
/* Signed division and remainder, truncated toward zero as in C (BPF
 * before cpu=v4 divides unsigned only); b is not 0. */
static __always_inline long stp_div(long a, long b)
{
	unsigned long ua = a < 0 ? 0UL - (unsigned long)a : (unsigned long)a;
	unsigned long ub = b < 0 ? 0UL - (unsigned long)b : (unsigned long)b;
	unsigned long q = ua / ub;

	return (a < 0) != (b < 0) ? (long)(0UL - q) : (long)q;
}

static __always_inline long stp_mod(long a, long b)
{
	unsigned long ua = a < 0 ? 0UL - (unsigned long)a : (unsigned long)a;
	unsigned long ub = b < 0 ? 0UL - (unsigned long)b : (unsigned long)b;
	unsigned long r = ua % ub;

	return a < 0 ? (long)(0UL - r) : (long)r;
}

static __always_inline long stp_strlen(struct stp_scratch *S, const char *s)
{
	long n = bpf_probe_read_kernel_str(S->tmp, STP_MAXSTR, s);

	return n > 0 ? n - 1 : 0;
}

/* dst = src (MAXSTRINGLEN - 1 bytes at most); dst is a slot or a global */
static __always_inline void stp_strcpy(char *dst, const char *src)
{
	if (dst != src)
		bpf_probe_read_kernel_str(dst, STP_MAXSTR, src);
}

/* dst .= src */
static __always_inline void stp_strcat(struct stp_scratch *S, char *dst, const char *src)
{
	long n = stp_strlen(S, dst);	/* S->tmp: a copy of dst */

	if (n >= STP_MAXSTR - 1)
		return;
	if (src == dst)		/* a .= a */
		src = S->tmp;
	n &= STP_MASK;
	bpf_probe_read_kernel_str(dst + n, STP_MAXSTR - n, src);
}

static __always_inline long stp_strcmp(const char *a, const char *b)
{
	for (long i = 0; i < STP_MAXSTR; i++) {
		if (a[i] != b[i])
			return (unsigned char)a[i] < (unsigned char)b[i] ? -1 : 1;
		if (!a[i])
			break;
	}
	return 0;
}

/* ---- sprintf: a string sink, as runtime/print.c's ---------------------- */
#define STP_F_LEFT 1
#define STP_F_PLUS 2
#define STP_F_SPACE 4
#define STP_F_ALT 8
#define STP_F_ZERO 16

static const char stp_spaces[STP_MAXSTR] = { [0 ... STP_MAXSTR - 1] = ' ' };
static const char stp_zeros[STP_MAXSTR] = { [0 ... STP_MAXSTR - 1] = '0' };

/* n bytes of src at dst[*len], truncated at MAXSTRINGLEN - 1 */
static __always_inline void stp_putn(char *dst, long *len, const char *src, long n)
{
	long l = *len;

	if (n <= 0 || l >= STP_MAXSTR - 1)
		return;
	if (n > STP_MAXSTR - 1 - l)
		n = STP_MAXSTR - 1 - l;
	if (n <= 0 || n > STP_MAXSTR - 1)
		return;
	/* n & STP_MASK is n: the mask for 6.1's verifier, which loses n's
	 * bounds on some paths */
	bpf_probe_read_kernel(dst + (l & STP_MASK), n & STP_MASK, src);
	*len = l + n;
}

static __always_inline void stp_put(char *dst, long *len, char c)
{
	long n = *len;

	if (n < STP_MAXSTR - 1) {
		dst[n & STP_MASK] = c;
		*len = n + 1;
	}
}

static __always_inline void stp_fill(char *dst, long *len, char c, long n)
{
	stp_putn(dst, len, c == '0' ? stp_zeros : stp_spaces, n);
}

/* a number's conversion: a global function, which the verifier checks
 * once rather than at each of a format's conversions (d a slot: room for
 * two strings past it); defined by stapbpf_sfmt.h, which the generated
 * C includes at its end only when it formats a number: clang compiles a
 * global function even when nothing calls it, and this one was half of
 * a one-line script's compile */
struct stp_sbuf { char s[2 * STP_MAXSTR]; };

long stp_sfmt_num(struct stp_sbuf *d, long l, long v, long cf, long wp);

static __always_inline void stp_sfmt_long(char *dst, long *len, long v, char conv,
					  long flags, long width, long prec)
{
	/* BPF has five arguments: conv and flags, width and prec packed */
	*len = stp_sfmt_num((struct stp_sbuf *)dst, *len, v, (unsigned char)conv | flags << 8,
			    (long)(__u32)width | prec << 32);
}

static __always_inline void stp_sfmt_str(struct stp_scratch *S, char *dst, long *len,
					 const char *s, long flags, long width, long prec)
{
	long n = stp_strlen(S, s);	/* a copy in S->tmp */

	if (prec >= 0 && n > prec)
		n = prec;
	if (!(flags & STP_F_LEFT))
		stp_fill(dst, len, ' ', width - n);
	stp_putn(dst, len, S->tmp, n);
	if (flags & STP_F_LEFT)
		stp_fill(dst, len, ' ', width - n);
}

static __always_inline void stp_sfmt_end(char *dst, long len)
{
	dst[len & STP_MASK] = 0;
}

/* room past the last string global of .bss and .data (stp_strcat) */
#define STP_PADS char stp_bss_pad[STP_MAXSTR]; char stp_data_pad[STP_MAXSTR] = { 1 };

/* ---- statistics: one per-CPU entry per scalar statistic ----------------- */
static void *(*bpf_map_lookup_percpu_elem)(void *map, const void *key, __u32 cpu) =
	(void *)195;
#define STP_NCPU_MAX 256
long stp_ncpus = 1;		/* the loader's libbpf_num_possible_cpus() */

struct stp_stat {
	long count, sum, min, max;
};
#define STP_STAT(name) \
	struct { \
		__uint(type, 6);	/* BPF_MAP_TYPE_PERCPU_ARRAY */ \
		__uint(max_entries, 1); \
		__type(key, __u32); \
		__type(value, struct stp_stat); \
	} name SEC(".maps")

static __always_inline void stp_stat_add(void *map, long v)
{
	__u32 k = 0;
	struct stp_stat *st = bpf_map_lookup_elem(map, &k);

	if (!st)
		return;
	if (!st->count || v < st->min)
		st->min = v;
	if (!st->count || v > st->max)
		st->max = v;
	st->count++;
	st->sum += v;
}

/* the statistic of every CPU together */
static __always_inline void stp_stat_get(void *map, struct stp_stat *out)
{
	__u32 k = 0;

	out->count = out->sum = out->min = out->max = 0;
	for (__u32 c = 0; c < STP_NCPU_MAX && c < stp_ncpus; c++) {
		struct stp_stat *st = bpf_map_lookup_percpu_elem(map, &k, c);

		if (!st || !st->count)
			continue;
		if (!out->count || st->min < out->min)
			out->min = st->min;
		if (!out->count || st->max > out->max)
			out->max = st->max;
		out->count += st->count;
		out->sum += st->sum;
	}
}

/* each step of a loop a call of fn, which the verifier checks once: its
 * state is best kept in the scratch (a verifier before 6.2 takes a context
 * on the stack as unchanged by the loop) */
static long (*bpf_loop)(__u32 nr, void *fn, void *ctx, __u64 flags) = (void *)181;

#ifdef STP_QUOTE
/*
 * user_string_quoted(): runtime/tapset_support.c's stp_text_buf() with
 * quoted = 1, inlen = outlen = MAXSTRINGLEN - 1, over a string read into
 * S->tmp: printable ASCII as is, C escapes, UTF-8 as \uXXXX/\UXXXXXXXX,
 * an escape that does not fit left out, "..." after the quote when cut.
 * One character a bpf_loop() step: the verifier checks the step once.
 */

/* the callback's context: on the stack, pointers only (the verifier
 * then sees the same state at every step); the counters in S->quote */
struct stp_qctx {
	struct stp_scratch *S;
	char *out;
};

static long stp_quote_step(__u32 k, struct stp_qctx *c)
{
	struct stp_quote *q = &c->S->quote;
	const unsigned char *p = (const unsigned char *)c->S->tmp;
	long i = q->i & (STP_MAXSTR - 1), len = 1, n = 0, ch;
	char esc[12];
	__u32 b = p[i], v = 0;

	(void)k;
	if (q->inlen <= 0)
		return 1;
	if ((b & 0xe0) == 0xc0 && q->inlen >= 2) {
		len = 2;
		v = b & 0x1f;
	} else if ((b & 0xf0) == 0xe0 && q->inlen >= 3) {
		len = 3;
		v = b & 0x0f;
	} else if ((b & 0xf8) == 0xf0 && q->inlen >= 4) {
		len = 4;
		v = b & 0x07;
	}
	for (long j = 1; j < 4; j++) {
		__u32 c = p[(i + j) & (2 * STP_MAXSTR - 1)];

		if (j >= len)
			break;
		if ((c & 0xc0) != 0x80) {
			len = 1;
			break;
		}
		v = (v << 6) | (c & 0x3f);
	}
	if (len > 1 && ((v >= 0xd800 && v <= 0xdfff) || v > 0x10ffff || v < 0x80 ||
			(len == 3 && v < 0x800) || (len == 4 && v < 0x10000)))
		len = 1;
	ch = len > 1 ? v : b;
	q->ch = ch;
	if ((ch == 0 && !q->buf) || q->outlen <= 0)
		return 1;
	q->i += len;
	q->inlen -= len;
	if (ch == 0) {	/* a buffer's NUL: "\0", budgeted as four bytes */
		if (!q->cut && q->outlen - 3 < 4) {
			q->cut = q->o;
			q->cutlen = 4;
		}
		if (q->outlen < 4)
			return 1;
		c->out[q->o & STP_MASK] = '\\';
		c->out[(q->o + 1) & STP_MASK] = '0';
		q->o += 2;
		q->outlen -= 4;
		return 0;
	}
	if (len == 1 && ch < 0x80 && ch >= 0x20 && ch < 0x7f && ch != '"' && ch != '\\') {
		c->out[q->o & STP_MASK] = ch;
		q->o++;
		q->outlen--;
		return 0;
	}
	esc[0] = '\\';
	if (len > 1) {
		long nd = ch <= 0xffff ? 4 : 8;

		esc[1] = nd == 4 ? 'u' : 'U';
		for (long j = 0; j < 8; j++) {
			long d = (ch >> (4 * (nd - 1 - j))) & 15;

			if (j < nd)
				esc[2 + j] = d < 10 ? '0' + d : 'A' + d - 10;
		}
		n = 2 + nd;
	} else {
		/* no table: a static one would be .rodata the BTF cannot place */
		long e = ch == '\a' ? 'a' : ch == '\b' ? 'b' : ch == '\f' ? 'f' : ch == '\n' ? 'n' :
			 ch == '\r' ? 'r' : ch == '\t' ? 't' : ch == '\v' ? 'v' : ch;

		esc[1] = e;
		n = e != ch || ch == '"' || ch == '\\' ? 2 : 0;
		if (!n) {
			esc[1] = '0' + ((ch >> 6) & 3);
			esc[2] = '0' + ((ch >> 3) & 7);
			esc[3] = '0' + (ch & 7);
			n = 4;
		}
	}
	if (!q->cut && q->outlen - 3 < n) {
		q->cut = q->o;
		q->cutlen = n;
	}
	if (q->outlen < n)
		return 1;
	for (long j = 0; j < 10; j++)
		if (j < n)
			c->out[(q->o + j) & STP_MASK] = esc[j];
	q->o += n;
	q->outlen -= n;
	return 0;
}

/* dst: S->tmp's q->inlen bytes quoted in q->outlen (and the quotes) */
static __always_inline void stp_quote_run(struct stp_scratch *S, char *dst)
{
	struct stp_qctx c = { S, dst };
	struct stp_quote *q = &S->quote;
	long cut;

	dst[0] = '"';
	bpf_loop(STP_MAXSTR, stp_quote_step, &c, 0);
	if (q->ch && q->inlen > 0) {
		cut = q->o - 3 + q->outlen;
		if (q->cut && q->cut < cut && cut < q->cut + q->cutlen)
			cut = q->cut;
		dst[cut & STP_MASK] = '"';
		dst[(cut + 1) & STP_MASK] = '.';
		dst[(cut + 2) & STP_MASK] = '.';
		dst[(cut + 3) & STP_MASK] = '.';
		q->o = cut + 4;
	} else {
		dst[q->o & STP_MASK] = '"';
		q->o++;
	}
	dst[q->o & STP_MASK] = 0;
}

/* dst: S->tmp, a string, quoted */
static __always_inline void stp_quote_tmp(struct stp_scratch *S, char *dst)
{
	S->quote = (struct stp_quote){ 0, STP_MAXSTR - 1, 1, STP_MAXSTR - 3, 0, 0, 0, 0 };
	stp_quote_run(S, dst);
}

/* dst: the string at user address addr quoted; -1 (dst untouched) on a
 * fault */
static __always_inline long stp_user_quoted(struct stp_scratch *S, char *dst, long addr)
{
	if (!STP_UOK(addr, STP_MAXSTR - 1) ||
	    bpf_probe_read_user_str(S->tmp, STP_MAXSTR - 1, (void *)addr) < 0)
		return -1;
	stp_quote_tmp(S, dst);
	return 0;
}

/* string_quoted(src) into dst */
static __always_inline void stp_string_quoted(struct stp_scratch *S, char *dst, const char *src)
{
	if (bpf_probe_read_kernel_str(S->tmp, STP_MAXSTR, src) < 0)
		S->tmp[0] = 0;
	stp_quote_tmp(S, dst);
}
#endif /* STP_QUOTE */

char LICENSE[] SEC("license") = "GPL";

#endif /* STAPBPF_H */
