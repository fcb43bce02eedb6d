/* SPDX-License-Identifier: GPL-2.0 */
/*
 * deref.c - reading kernel memory for typed target expressions
 * ($var->member, @cast(p, "T")->m, $ptr[i]) and for kernel_string() and
 * friends, and the pretty printing of $var$ / $var$$ from tables the
 * translator writes (struct stp_pp).
 *
 * Every read goes through copy_from_kernel_nofault() (compat.h), which
 * refuses user addresses and returns an error instead of faulting: a bad
 * pointer sets c->last_error to SystemTap's "read fault [man error::fault]
 * at 0x..." and the handler ends with a script error; the kernel never
 * sees a fault it cannot handle. Writes (guru mode) are as careful:
 * "write fault [man error::fault] at 0x...".
 */
#include <linux/uaccess.h>
#include <linux/percpu.h>

int stp_text_str(char *out, const char *in, int inlen, int outlen, int quoted);

static void stp_read_fault(struct stp_context *c, u64 addr)
{
	snprintf(c->error_buffer, sizeof(c->error_buffer),
		 "read fault [man error::fault] at 0x%lx", (unsigned long)addr);
	c->last_error = c->error_buffer;
}

/* The low bits of v, zero- or sign-extended. */
static int64_t stp_extend(u64 v, int bits, int is_signed)
{
	int sh = 64 - bits;

	if (bits >= 64)
		return (int64_t)v;
	v <<= sh;
	return is_signed ? (int64_t)v >> sh : (int64_t)(v >> sh);
}

void *stp_uobj(struct stp_context *c)
{
	u64 *o = c->uobj[c->uobj_next++ % STP_UOBJ_SLOTS];

	memset(o, 0, STP_UOBJ_SIZE);
	return o;
}

void stp_uobj_put(void *obj, int at, int n, u64 v)
{
	if (at >= 0 && n > 0 && n <= 8 && at + n <= STP_UOBJ_SIZE)
		memcpy((char *)obj + at, &v, n);
}

/* A user read inside the context's object copies (kernel addresses,
 * which no user address can equal). */
static bool stp_uobj_read(struct stp_context *c, uintptr_t p, int n, u64 *v)
{
	uintptr_t lo = (uintptr_t)c->uobj;

	if (p < lo || p + n > lo + sizeof(c->uobj))
		return false;
	memcpy(v, (const void *)p, n);
	return true;
}

/* n bytes at addr into *v, from the current task's user memory or the
 * kernel's, never faulting; a failure is the script's read fault. */
static bool stp_read_raw(struct stp_context *c, int64_t addr, int n, bool user,
			 u64 *v)
{
	const void *p = (const void *)(uintptr_t)addr;
	long rc;

	*v = 0;
	if (n < 1 || n > 8)
		rc = -EINVAL;
	else if (user && stp_uobj_read(c, (uintptr_t)p, n, v))
		rc = 0;
	else if (user)
		rc = stp_copy_from_user_nofault(v, (const void __user *)p, n);
	else
		rc = stp_copy_from_kernel_nofault(v, p, n);
	if (rc)
		stp_read_fault(c, (u64)addr);
	return !rc;
}

static int64_t stp_read_int(struct stp_context *c, int64_t addr, int size,
			    int is_signed, bool user)
{
	u64 v;

	if (!stp_read_raw(c, addr, size, user, &v))
		return 0;
	return stp_extend(v, size * 8, is_signed);
}

/* A bit field of bit_size bits, bit_off bits into the bytes at addr
 * (little endian), read through the smallest power-of-two size holding
 * it. */
static int64_t stp_read_bits(struct stp_context *c, int64_t addr, int is_signed,
			     int bit_off, int bit_size, bool user)
{
	int need = (bit_off + bit_size + 7) / 8, n = 1;
	u64 v;

	while (n < need)
		n *= 2;
	if (bit_size < 1 || bit_size > 64)
		n = 0;		/* refused: a read fault */
	if (!stp_read_raw(c, addr, n, user, &v))
		return 0;
	return stp_extend(v >> bit_off, bit_size, is_signed);
}

/* size bytes (1, 2, 4, 8) at addr, zero- or sign-extended. */
int64_t stp_kread(struct stp_context *c, int64_t addr, int size, int is_signed)
{
	return stp_read_int(c, addr, size, is_signed, false);
}

int64_t stp_kread_bits(struct stp_context *c, int64_t addr, int size,
		       int is_signed, int bit_off, int bit_size)
{
	(void)size;
	return stp_read_bits(c, addr, is_signed, bit_off, bit_size, false);
}

/* stp_kread() and stp_kread_bits() on the current task's user memory:
 * copy_from_user_nofault() (a page not mapped in yet is a fault too). */
int64_t stp_uread(struct stp_context *c, int64_t addr, int size, int is_signed)
{
	return stp_read_int(c, addr, size, is_signed, true);
}

int64_t stp_uread_bits(struct stp_context *c, int64_t addr, int size,
		       int is_signed, int bit_off, int bit_size)
{
	(void)size;
	return stp_read_bits(c, addr, is_signed, bit_off, bit_size, true);
}

/* ---- writes (guru mode: $p->member = v, @cast(p, "T")->m = v) ---- */

static void stp_write_fault(struct stp_context *c, u64 addr)
{
	snprintf(c->error_buffer, sizeof(c->error_buffer),
		 "write fault [man error::fault] at 0x%lx", (unsigned long)addr);
	c->last_error = c->error_buffer;
}

/* One store of n bytes (1, 2, 4, 8) with the page fault handler's fixup:
 * copy_to_kernel_nofault() is not exported to modules, the macro under
 * it (__put_kernel_nofault, 5.8+ on x86) is. -EFAULT when it faulted or
 * the kernel has no such macro. */
static long stp_store_nofault(void *dst, u64 v, int n)
{
#ifdef __put_kernel_nofault
	u8 b = (u8)v;
	u16 h = (u16)v;
	u32 w = (u32)v;

	pagefault_disable();
	switch (n) {
	case 1:
		__put_kernel_nofault(dst, &b, u8, fault);
		break;
	case 2:
		__put_kernel_nofault(dst, &h, u16, fault);
		break;
	case 4:
		__put_kernel_nofault(dst, &w, u32, fault);
		break;
	case 8:
		__put_kernel_nofault(dst, &v, u64, fault);
		break;
	default:
		goto fault;
	}
	pagefault_enable();
	return 0;
fault:
	pagefault_enable();
#endif
	return -EFAULT;
}

/* The n bytes at addr replaced by v's low bytes where mask has bits. The
 * old bytes are read first through copy_from_kernel_nofault(), which
 * refuses user and non-canonical addresses; the store then has the
 * fault handler's fixup, so a read-only or unmapped page is a write
 * fault, never an oops. */
static void stp_write_masked(struct stp_context *c, int64_t addr, int n, u64 v,
			     u64 mask)
{
	void *p = (void *)(uintptr_t)addr;
	u64 old = 0;

	if (n < 1 || n > 8 || stp_copy_from_kernel_nofault(&old, p, n)) {
		stp_write_fault(c, (u64)addr);
		return;
	}
	v = (old & ~mask) | (v & mask);
	if (stp_store_nofault(p, v, n))
		stp_write_fault(c, (u64)addr);
}

/* Guru writes: size bytes (1, 2, 4, 8) of v at addr in the current
 * task's user memory; a bad address is 4.8's "write fault". */
void stp_uwrite(struct stp_context *c, int64_t addr, int size, int64_t v)
{
	u64 x = (u64)v;

	if (size < 1 || size > 8 ||
	    stp_copy_to_user_nofault((void __user *)(uintptr_t)addr, &x, size))
		stp_write_fault(c, (u64)addr);
}

/* size bytes (1, 2, 4, 8) at addr = v, truncated. */
void stp_kwrite(struct stp_context *c, int64_t addr, int size, int64_t v)
{
	stp_write_masked(c, addr, size, (u64)v,
			 size >= 8 ? ~0ULL : (1ULL << (size * 8)) - 1);
}

/* The bit field of bit_size bits, bit_off bits into the bytes at addr =
 * v, truncated; the bits around it are kept. */
void stp_kwrite_bits(struct stp_context *c, int64_t addr, int bit_off,
		     int bit_size, int64_t v)
{
	int need = (bit_off + bit_size + 7) / 8, n = 1;
	u64 mask;

	while (n < need)
		n *= 2;
	if (bit_off < 0 || bit_size < 1 || bit_off + bit_size > 64) {
		stp_write_fault(c, (u64)addr);
		return;
	}
	mask = (bit_size >= 64 ? ~0ULL : (1ULL << bit_size) - 1) << bit_off;
	stp_write_masked(c, addr, n, (u64)v << bit_off, mask);
}

/* The NUL-terminated string at addr into dst (MAXSTRINGLEN), truncated;
 * -1 when the first byte cannot be read. */
static int stp_read_string(char *dst, int64_t addr, int max, bool user)
{
	uintptr_t p = (uintptr_t)addr;
	int n = 0;

	if (max <= 0 || max > MAXSTRINGLEN)
		max = MAXSTRINGLEN;
	dst[0] = '\0';
	while (n < max - 1) {
		/* up to the end of the page: the next one may be unmapped */
		int chunk = min_t(int, max - 1 - n, PAGE_SIZE - (p & (PAGE_SIZE - 1)));
		long rc = user ? stp_copy_from_user_nofault(dst + n, (const void __user *)p, chunk) :
				 stp_copy_from_kernel_nofault(dst + n, (const void *)p, chunk);

		if (rc) {
			dst[n] = '\0';
			return n ? 0 : -1;
		}
		if (memchr(dst + n, '\0', chunk))
			return 0;
		n += chunk;
		p += chunk;
	}
	dst[n] = '\0';
	return 0;
}

int stp_kread_string(char *dst, int64_t addr, int max)
{
	return stp_read_string(dst, addr, max, false);
}

int stp_uread_string(char *dst, int64_t addr, int max)
{
	return stp_read_string(dst, addr, max, true);
}

/* kernel_string(), kernel_string_n(): "kernel string copy fault";
 * user_string(): the same from the current task's memory. */
void stp_kernel_string(struct stp_context *c, char *dst, int64_t addr, int64_t max)
{
	if (stp_kread_string(dst, addr, max > 0 && max < MAXSTRINGLEN ?
			     (int)max + 1 : MAXSTRINGLEN)) {
		snprintf(c->error_buffer, sizeof(c->error_buffer),
			 "kernel string copy fault at 0x%lx [man error::fault]",
			 (unsigned long)addr);
		c->last_error = c->error_buffer;
	}
}

void stp_user_string(struct stp_context *c, char *dst, int64_t addr)
{
	if (stp_uread_string(dst, addr, MAXSTRINGLEN)) {
		snprintf(c->error_buffer, sizeof(c->error_buffer),
			 "user string copy fault -14 at 0x%lx [man error::fault]",
			 (unsigned long)addr);
		c->last_error = c->error_buffer;
	}
}

/* kernel_long() and friends: "kernel <what> copy fault". */
int64_t stp_kernel_number(struct stp_context *c, int64_t addr, int size,
			  const char *what)
{
	int64_t v = stp_kread(c, addr, size, 1);

	if (c->last_error) {
		snprintf(c->error_buffer, sizeof(c->error_buffer),
			 "kernel %s copy fault at 0x%lx [man error::fault]", what,
			 (unsigned long)addr);
		c->last_error = c->error_buffer;
	}
	return v;
}

/* ---- pretty printing ------------------------------------------------------- */

struct stp_pp_bufs {
	char raw[MAXSTRINGLEN];
	char out[MAXSTRINGLEN];
};
static DEFINE_PER_CPU(struct stp_pp_bufs, stp_pp_buf);

/* A char* as upstream's kernel_or_user_string_quoted(): "text" with
 * escapes (kernel memory, else the current task's), or the address in
 * hex when it cannot be read. */
/* The quoted string at addr; one not readable is its address, or false
 * (nothing written) when strict. */
static bool stp_pp_string(struct stp_sink *sk, int64_t addr, bool strict)
{
	static const struct stp_spec hex = { 'x', STP_F_ALT, -1, -1 };
	static const struct stp_spec str = { 's', 0, -1, -1 };
	struct stp_pp_bufs *b = this_cpu_ptr(&stp_pp_buf);
	char *raw = b->raw, *out = b->out;

	if (!addr || (stp_kread_string(raw, addr, MAXSTRINGLEN) &&
		       stp_uread_string(raw, addr, MAXSTRINGLEN))) {
		if (strict)
			return false;
		stp_emit_long(sk, addr, &hex);
		return true;
	}
	stp_text_str(out, raw, 0, MAXSTRINGLEN - 1, 1);
	stp_emit_str(sk, out, &str);
	return true;
}

static bool stp_pp_one(struct stp_context *c, struct stp_sink *sk, int64_t base,
		       const struct stp_pp *p, bool user)
{
	static const struct stp_spec dec = { 'd', 0, -1, -1 };
	static const struct stp_spec udec = { 'u', 0, -1, -1 };
	static const struct stp_spec chr = { 'c', STP_F_ALT, -1, -1 };
	static const struct stp_spec ptr = { 'p', 0, -1, -1 };
	int kind = p->kind & ~STP_PP_VALUE;
	int64_t addr = (int64_t)((u64)base + p->off), v = base;

	if (kind == STP_PP_STRA)
		return stp_pp_string(sk, addr, false);
	if (!(p->kind & STP_PP_VALUE)) {
		if (user)
			v = p->bit_size ? stp_uread_bits(c, addr, p->size, kind == STP_PP_INT,
							 p->bit_off, p->bit_size) :
					  stp_uread(c, addr, p->size, kind == STP_PP_INT);
		else
			v = p->bit_size ? stp_kread_bits(c, addr, p->size, kind == STP_PP_INT,
							 p->bit_off, p->bit_size) :
					  stp_kread(c, addr, p->size, kind == STP_PP_INT);
		if (c->last_error)
			return false;
	}
	switch (kind) {
	case STP_PP_INT:
		stp_emit_long(sk, v, &dec);
		break;
	case STP_PP_UINT:
		stp_emit_long(sk, v, &udec);
		break;
	case STP_PP_CHAR:
		stp_emit_long(sk, v, &chr);
		break;
	case STP_PP_PTR:
		stp_emit_long(sk, v, &ptr);
		break;
	case STP_PP_STRP:
	case STP_PP_STRQ:
		return stp_pp_string(sk, v, kind == STP_PP_STRQ);
	}
	return true;
}

/* The pretty print of the object at base (after loading the pointer
 * there when load & 1, and load >> 2 more times: a pointer to a pointer
 * to a struct) into dst, from user memory when load & 2; "ERROR" when
 * some of it cannot be read. */
void stp_pretty(struct stp_context *c, char *dst, int64_t base, int load,
		const struct stp_pp *pp)
{
	const char *err = c->last_error;
	struct stp_sink sk;

	stp_sink_string(&sk, dst);
	for (int i = (load & 1) + (load >> 2); i > 0; i--) {
		base = load & 2 ? stp_uread(c, base, 8, 0) : stp_kread(c, base, 8, 0);
		if (c->last_error)
			goto fault;
	}
	/* a full string ends the walk: $$ of a big struct reads no more */
	for (; pp->kind != STP_PP_END && sk.len < MAXSTRINGLEN - 1; pp++) {
		if (pp->lit)
			stp_emit_lit(&sk, pp->lit, strlen(pp->lit));
		if (pp->kind != STP_PP_LIT && !stp_pp_one(c, &sk, base, pp, load & 2))
			goto fault;
	}
	return;
fault:
	c->last_error = err;
	stp_sink_string(&sk, dst);
	stp_emit_lit(&sk, "ERROR", 5);
}
