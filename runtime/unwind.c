/*
 * unwind.c - one step of a user stack unwind through DWARF call frame
 * information (.eh_frame, found through .eh_frame_hdr's sorted table), on
 * x86_64.  The tables live in the module (stp_usyms.h); they are parsed
 * with bounds checks on every byte, and the saved registers are read from
 * the user stack with copy_from_user_nofault(), so a bad table or a bad
 * stack ends the unwind, never faults.  DWARF expressions (the CFA and
 * register rules of PLT entries and signal trampolines) are evaluated
 * with a bounded number of operations and stack entries.  Included by
 * ustack.c.
 */
#include <linux/uaccess.h>

#define STP_UW_NREGS 17		/* DWARF x86_64: 0-15 GPRs, 16 return address */
#define STP_UW_SP 7
#define STP_UW_RA 16
#define STP_UW_STATES 8		/* DW_CFA_remember_state depth */
#define STP_UW_MAXOPS 4096	/* CFA instructions run for one frame */
#define STP_UW_MAXEXPR 512	/* bytes of one DWARF expression */
#define STP_UW_EXPR_OPS 256	/* operations one evaluation may run */
#define STP_UW_EXPR_STACK 8	/* as 4.8 */

struct stp_uw_regs {
	unsigned long r[STP_UW_NREGS];
	u32 known;		/* bit n: r[n] holds the value */
};

enum { UR_SAME, UR_UNDEF, UR_OFFSET, UR_VAL_OFFSET, UR_REG, UR_EXPR, UR_VAL_EXPR,
       UR_UNSUP };

struct stp_uw_rule {
	u8 kind, reg;
	s64 off;		/* UR_EXPR, UR_VAL_EXPR: the expression's length */
	const u8 *expr;
};

struct stp_uw_row {
	struct stp_uw_rule r[STP_UW_NREGS];
	u8 cfa_reg;
	bool cfa_ok;
	s64 cfa_off;
	const u8 *cfa_expr;	/* DW_CFA_def_cfa_expression, cfa_off bytes */
};

struct stp_uw_state {		/* per-CPU scratch: too big for the stack */
	struct stp_uw_row row, init, stack[STP_UW_STATES];
	bool signal;		/* the frame is a signal frame (CIE 'S') */
	int why;		/* enum stp_uw_err: an expression failed */
	long why_arg;
};

struct stp_uw_cur {
	const u8 *p, *end;
	const u8 *base;		/* start of the section */
	unsigned long vaddr;	/* its link-time address */
	bool bad;
};

static u64 stp_uw_fixed(struct stp_uw_cur *c, int n)
{
	u64 v = 0;

	if (c->bad || c->end - c->p < n) {
		c->bad = true;
		return 0;
	}
	for (int i = n - 1; i >= 0; i--)
		v = (v << 8) | c->p[i];
	c->p += n;
	return v;
}

static u64 stp_uw_uleb(struct stp_uw_cur *c)
{
	u64 v = 0;
	int shift = 0;

	while (!c->bad) {
		u8 b;

		if (c->p >= c->end || shift > 63) {
			c->bad = true;
			break;
		}
		b = *c->p++;
		v |= (u64)(b & 0x7f) << shift;
		shift += 7;
		if (!(b & 0x80))
			break;
	}
	return v;
}

static s64 stp_uw_sleb(struct stp_uw_cur *c)
{
	u64 v = 0;
	int shift = 0;
	u8 b = 0;

	while (!c->bad) {
		if (c->p >= c->end || shift > 63) {
			c->bad = true;
			return 0;
		}
		b = *c->p++;
		v |= (u64)(b & 0x7f) << shift;
		shift += 7;
		if (!(b & 0x80))
			break;
	}
	if (shift < 64 && (b & 0x40))
		v |= ~(u64)0 << shift;
	return (s64)v;
}

/* A pointer in DW_EH_PE encoding enc; datarel is relative to dbase. */
static unsigned long stp_uw_ptr(struct stp_uw_cur *c, u8 enc, unsigned long dbase)
{
	unsigned long here = c->vaddr + (c->p - c->base), v;

	if (enc == 0xff)	/* DW_EH_PE_omit */
		return 0;
	switch (enc & 0x0f) {
	case 0x00: v = stp_uw_fixed(c, 8); break;
	case 0x01: v = stp_uw_uleb(c); break;
	case 0x02: v = stp_uw_fixed(c, 2); break;
	case 0x03: v = stp_uw_fixed(c, 4); break;
	case 0x04: v = stp_uw_fixed(c, 8); break;
	case 0x09: v = stp_uw_sleb(c); break;
	case 0x0a: v = (unsigned long)(s16)stp_uw_fixed(c, 2); break;
	case 0x0b: v = (unsigned long)(s32)stp_uw_fixed(c, 4); break;
	case 0x0c: v = stp_uw_fixed(c, 8); break;
	default: c->bad = true; return 0;
	}
	switch (enc & 0x70) {
	case 0x00: return v;
	case 0x10: return v + here;
	case 0x30: return v + dbase;
	default: c->bad = true; return 0;
	}
}

struct stp_uw_cie {
	const u8 *insns, *end;
	u64 code_align;
	s64 data_align;
	unsigned int ra;
	u8 fde_enc;
	bool aug_z, signal;
};

static bool stp_uw_parse_cie(const struct stp_umod *m, unsigned long off,
			     struct stp_uw_cie *cie)
{
	struct stp_uw_cur c = { m->eh + off, m->eh + m->eh_len, m->eh, m->eh_addr, false };
	const u8 *aug;
	u64 len;
	int version;

	if (off >= m->eh_len)
		return false;
	len = stp_uw_fixed(&c, 4);
	if (c.bad || len == 0 || len == 0xffffffff || len > (u64)(c.end - c.p))
		return false;
	c.end = c.p + len;
	if (stp_uw_fixed(&c, 4) != 0)	/* CIE id */
		return false;
	version = (int)stp_uw_fixed(&c, 1);
	aug = c.p;
	while (c.p < c.end && *c.p)
		c.p++;
	if (c.p >= c.end || (version != 1 && version != 3))
		return false;
	c.p++;
	if (aug[0] && aug[0] != 'z')
		return false;
	cie->aug_z = aug[0] == 'z';
	cie->code_align = stp_uw_uleb(&c);
	cie->data_align = stp_uw_sleb(&c);
	cie->ra = version == 1 ? (unsigned int)stp_uw_fixed(&c, 1) : (unsigned int)stp_uw_uleb(&c);
	cie->fde_enc = 0;
	cie->signal = false;
	if (cie->aug_z) {
		u64 alen = stp_uw_uleb(&c);
		const u8 *next = c.p + alen;

		if (c.bad || alen > (u64)(c.end - c.p))
			return false;
		for (const u8 *a = aug + 1; *a && !c.bad; a++) {
			if (*a == 'R')
				cie->fde_enc = (u8)stp_uw_fixed(&c, 1);
			else if (*a == 'P')
				stp_uw_ptr(&c, (u8)stp_uw_fixed(&c, 1) & 0x7f, 0);
			else if (*a == 'L')
				stp_uw_fixed(&c, 1);
			else if (*a == 'S')
				cie->signal = true;
			else
				return false;
		}
		c.p = next;
	}
	cie->insns = c.p;
	cie->end = c.end;
	return !c.bad && cie->ra == STP_UW_RA;
}

/* The FDE covering link-time address pc, through .eh_frame_hdr. */
static bool stp_uw_find_fde(const struct stp_umod *m, unsigned long pc,
			    struct stp_uw_cie *cie, struct stp_uw_cur *insns,
			    unsigned long *start)
{
	struct stp_uw_cur h = { m->hdr, m->hdr + m->hdr_len, m->hdr, m->hdr_addr, false };
	struct stp_uw_cur f;
	unsigned long count, lo, hi, fde_off, cie_off, range;
	const u8 *table;
	u64 len;

	if (!m->hdr || !m->eh || m->hdr_len < 4 || m->hdr[0] != 1 || m->hdr[3] != 0x3b)
		return false;
	h.p += 4;
	stp_uw_ptr(&h, m->hdr[1], m->hdr_addr);
	count = stp_uw_ptr(&h, m->hdr[2], m->hdr_addr);
	if (h.bad || count == 0 || count > (unsigned long)(h.end - h.p) / 8)
		return false;
	table = h.p;
	lo = 0;
	hi = count;
	while (hi - lo > 1) {	/* last entry with initial location <= pc */
		unsigned long mid = lo + (hi - lo) / 2;
		s32 loc = (s32)get_unaligned_le32(table + mid * 8);

		if (m->hdr_addr + (long)loc <= pc)
			lo = mid;
		else
			hi = mid;
	}
	fde_off = m->hdr_addr + (long)(s32)get_unaligned_le32(table + lo * 8 + 4) - m->eh_addr;
	if (fde_off >= m->eh_len)
		return false;
	f = (struct stp_uw_cur){ m->eh + fde_off, m->eh + m->eh_len, m->eh, m->eh_addr, false };
	len = stp_uw_fixed(&f, 4);
	if (f.bad || len == 0 || len == 0xffffffff || len > (u64)(f.end - f.p))
		return false;
	f.end = f.p + len;
	cie_off = (unsigned long)(f.p - m->eh) - (unsigned long)stp_uw_fixed(&f, 4);
	if (f.bad || cie_off >= m->eh_len || !stp_uw_parse_cie(m, cie_off, cie))
		return false;
	*start = stp_uw_ptr(&f, cie->fde_enc, 0);
	range = stp_uw_ptr(&f, cie->fde_enc & 0x0f, 0);
	if (cie->aug_z) {
		u64 alen = stp_uw_uleb(&f);

		if (alen > (u64)(f.end - f.p))
			return false;
		f.p += alen;
	}
	if (f.bad || pc < *start || pc - *start >= range)
		return false;
	*insns = f;
	return true;
}

static void stp_uw_set(struct stp_uw_row *row, u64 reg, u8 kind, s64 off)
{
	if (reg < STP_UW_NREGS)
		row->r[reg] = (struct stp_uw_rule){ kind, 0, off, NULL };
}

/* A DWARF block (ULEB length, bytes) at c: its length, its bytes in *e
 * (NULL when it runs past the instructions). */
static u64 stp_uw_block(struct stp_uw_cur *c, const u8 **e)
{
	u64 n = stp_uw_uleb(c);

	*e = NULL;
	if (c->bad || n > (u64)(c->end - c->p) || n > STP_UW_MAXEXPR) {
		c->bad = true;
		return 0;
	}
	*e = c->p;
	c->p += n;
	return n;
}

/* Run CFA instructions while the location is <= pc; false: unusable. */
static bool stp_uw_run(struct stp_uw_cur *c, const struct stp_uw_cie *cie,
		       unsigned long loc, unsigned long pc, struct stp_uw_state *st,
		       int *depth)
{
	struct stp_uw_row *row = &st->row;
	int ops = 0;

	while (c->p < c->end && !c->bad && ops++ < STP_UW_MAXOPS) {
		u8 op = *c->p++, low = op & 0x3f;
		u64 reg, delta = 0;

		switch (op >> 6) {
		case 1:
			delta = low;
			goto advance;
		case 2:
			stp_uw_set(row, low, UR_OFFSET, (s64)stp_uw_uleb(c) * cie->data_align);
			continue;
		case 3:
			if (low < STP_UW_NREGS)
				row->r[low] = st->init.r[low];
			continue;
		}
		switch (op) {
		case 0x00:
			break;
		case 0x01:
			loc = stp_uw_ptr(c, cie->fde_enc, 0);
			if (loc > pc)
				return true;
			break;
		case 0x02: delta = stp_uw_fixed(c, 1); goto advance;
		case 0x03: delta = stp_uw_fixed(c, 2); goto advance;
		case 0x04: delta = stp_uw_fixed(c, 4); goto advance;
		case 0x05:
			reg = stp_uw_uleb(c);
			stp_uw_set(row, reg, UR_OFFSET, (s64)stp_uw_uleb(c) * cie->data_align);
			break;
		case 0x06:
			reg = stp_uw_uleb(c);
			if (reg < STP_UW_NREGS)
				row->r[reg] = st->init.r[reg];
			break;
		case 0x07: stp_uw_set(row, stp_uw_uleb(c), UR_UNDEF, 0); break;
		case 0x08: stp_uw_set(row, stp_uw_uleb(c), UR_SAME, 0); break;
		case 0x09: {
			u64 r2;

			reg = stp_uw_uleb(c);
			r2 = stp_uw_uleb(c);
			stp_uw_set(row, reg, r2 < STP_UW_NREGS ? UR_REG : UR_UNSUP, 0);
			if (reg < STP_UW_NREGS)
				row->r[reg].reg = (u8)r2;
			break;
		}
		case 0x0a:
			if (*depth >= STP_UW_STATES)
				return false;
			st->stack[(*depth)++] = *row;
			break;
		case 0x0b:
			if (*depth <= 0)
				return false;
			*row = st->stack[--(*depth)];
			break;
		case 0x0c:
			reg = stp_uw_uleb(c);
			row->cfa_off = (s64)stp_uw_uleb(c);
			row->cfa_reg = (u8)reg;
			row->cfa_ok = reg < STP_UW_NREGS;
			row->cfa_expr = NULL;
			break;
		case 0x0d:
			reg = stp_uw_uleb(c);
			row->cfa_reg = (u8)reg;
			row->cfa_ok = reg < STP_UW_NREGS;
			row->cfa_expr = NULL;
			break;
		case 0x0e: row->cfa_off = (s64)stp_uw_uleb(c); break;
		case 0x0f:	/* def_cfa_expression */
			row->cfa_off = (s64)stp_uw_block(c, &row->cfa_expr);
			row->cfa_ok = row->cfa_expr != NULL;
			break;
		case 0x10:	/* expression */
		case 0x16: {	/* val_expression */
			const u8 *e;
			u64 n;

			reg = stp_uw_uleb(c);
			n = stp_uw_block(c, &e);
			stp_uw_set(row, reg, !e ? UR_UNSUP : op == 0x10 ? UR_EXPR : UR_VAL_EXPR,
				   (s64)n);
			if (reg < STP_UW_NREGS)
				row->r[reg].expr = e;
			break;
		}
		case 0x11:
			reg = stp_uw_uleb(c);
			stp_uw_set(row, reg, UR_OFFSET, stp_uw_sleb(c) * cie->data_align);
			break;
		case 0x12:
			reg = stp_uw_uleb(c);
			row->cfa_off = stp_uw_sleb(c) * cie->data_align;
			row->cfa_reg = (u8)reg;
			row->cfa_ok = reg < STP_UW_NREGS;
			row->cfa_expr = NULL;
			break;
		case 0x13: row->cfa_off = stp_uw_sleb(c) * cie->data_align; break;
		case 0x14:
			reg = stp_uw_uleb(c);
			stp_uw_set(row, reg, UR_VAL_OFFSET, (s64)stp_uw_uleb(c) * cie->data_align);
			break;
		case 0x15:
			reg = stp_uw_uleb(c);
			stp_uw_set(row, reg, UR_VAL_OFFSET, stp_uw_sleb(c) * cie->data_align);
			break;
		case 0x2e: stp_uw_uleb(c); break;	/* GNU_args_size */
		case 0x2f:
			reg = stp_uw_uleb(c);
			stp_uw_set(row, reg, UR_OFFSET, -(s64)stp_uw_uleb(c) * cie->data_align);
			break;
		default:
			return false;
		}
		continue;
advance:
		loc += delta * cie->code_align;
		if (loc > pc)
			return true;
	}
	return !c->bad;
}

static bool stp_uw_read(unsigned long addr, unsigned long *v, bool *fault)
{
	if (!copy_from_user_nofault(v, (const void __user *)addr, sizeof(*v)))
		return true;
	*fault = true;
	return false;
}

/* Why an expression could not be evaluated (each is one of SystemTap
 * 4.8's warnings, ustack.c prints them once per session). */
enum stp_uw_err {
	STP_UW_OK, STP_UW_E_OVERFLOW, STP_UW_E_UNDERFLOW, STP_UW_E_DIVZERO,
	STP_UW_E_TRUNCATED, STP_UW_E_DEREF, STP_UW_E_BACKWARD, STP_UW_E_SKIP,
	STP_UW_E_REG, STP_UW_E_SIZE, STP_UW_E_OP
};

/* Evaluation state of one DWARF expression. */
struct stp_uw_expr {
	u64 st[STP_UW_EXPR_STACK];
	int sp;
	const struct stp_uw_regs *regs;
	struct stp_uw_state *state;	/* why, why_arg */
};

static bool stp_uw_fail(struct stp_uw_expr *x, int why, long arg)
{
	x->state->why = why;
	x->state->why_arg = arg;
	return false;
}

static bool stp_uw_push(struct stp_uw_expr *x, u64 v)
{
	if (x->sp >= STP_UW_EXPR_STACK)
		return stp_uw_fail(x, STP_UW_E_OVERFLOW, 0);
	x->st[x->sp++] = v;
	return true;
}

/* Are there n entries on the stack? */
static bool stp_uw_need(struct stp_uw_expr *x, int n)
{
	return x->sp >= n || stp_uw_fail(x, STP_UW_E_UNDERFLOW, 0);
}

/* A binary operation on the two top entries (a: second, b: top). */
static bool stp_uw_binop(struct stp_uw_expr *x, u8 op)
{
	u64 b, a, r;

	if (!stp_uw_need(x, 2))
		return false;
	b = x->st[--x->sp];
	a = x->st[x->sp - 1];
	switch (op) {
	case 0x1a: r = a & b; break;
	case 0x1b:	/* div, signed */
		if (!b)
			return stp_uw_fail(x, STP_UW_E_DIVZERO, 0);
		r = (s64)a == S64_MIN && (s64)b == -1 ? a : (u64)((s64)a / (s64)b);
		break;
	case 0x1c: r = a - b; break;
	case 0x1d:
		if (!b)
			return stp_uw_fail(x, STP_UW_E_DIVZERO, 0);
		r = a % b;
		break;
	case 0x1e: r = a * b; break;
	case 0x21: r = a | b; break;
	case 0x22: r = a + b; break;
	case 0x24: r = b < 64 ? a << b : 0; break;
	case 0x25: r = b < 64 ? a >> b : 0; break;
	case 0x26: r = (u64)((s64)a >> (b < 64 ? b : 63)); break;
	case 0x27: r = a ^ b; break;
	case 0x29: r = a == b; break;
	case 0x2a: r = (s64)a >= (s64)b; break;
	case 0x2b: r = (s64)a > (s64)b; break;
	case 0x2c: r = (s64)a <= (s64)b; break;
	case 0x2d: r = (s64)a < (s64)b; break;
	case 0x2e: r = a != b; break;
	default: return stp_uw_fail(x, STP_UW_E_OP, op);
	}
	x->st[x->sp - 1] = r;
	return true;
}

/* An operation on the top entry. */
static bool stp_uw_unop(struct stp_uw_expr *x, struct stp_uw_cur *c, u8 op)
{
	u64 *t;

	if (!stp_uw_need(x, 1))
		return false;
	t = &x->st[x->sp - 1];
	switch (op) {
	case 0x19:
		if ((s64)*t < 0)
			*t = -*t;
		break;
	case 0x1f: *t = -*t; break;
	case 0x20: *t = ~*t; break;
	default: *t += stp_uw_uleb(c); break;
	}
	return true;
}

/* The value of register reg plus off; false when it is not known. */
static bool stp_uw_breg(struct stp_uw_expr *x, u64 reg, s64 off)
{
	if (reg >= STP_UW_NREGS)
		return stp_uw_fail(x, STP_UW_E_REG, (long)reg);
	if (!(x->regs->known & (1u << reg)))
		return false;
	return stp_uw_push(x, x->regs->r[reg] + off);
}

/* DW_OP_deref_size n (8: DW_OP_deref) of the top entry. */
static bool stp_uw_deref(struct stp_uw_expr *x, u64 n)
{
	unsigned long v = 0;

	if (n != 1 && n != 2 && n != 4 && n != 8)
		return stp_uw_fail(x, STP_UW_E_SIZE, (long)n);
	if (!stp_uw_need(x, 1))
		return false;
	if (copy_from_user_nofault(&v, (const void __user *)(unsigned long)x->st[x->sp - 1], n))
		return stp_uw_fail(x, STP_UW_E_DEREF, 0);
	x->st[x->sp - 1] = v;	/* little-endian: the low n bytes */
	return true;
}

/* DW_OP_skip, DW_OP_bra: forward only, as 4.8 (no loops). */
static bool stp_uw_branch(struct stp_uw_expr *x, struct stp_uw_cur *c, u8 op,
			  const u8 *start)
{
	s16 d;

	if (op == 0x28) {
		if (!stp_uw_need(x, 1))
			return false;
		if (!x->st[--x->sp])
			return true;
	}
	d = (s16)stp_uw_fixed(c, 2);
	if (c->bad)
		return false;
	if (d < 0 ? (c->p - start) < -d : (c->end - c->p) < d)
		return stp_uw_fail(x, STP_UW_E_SKIP, d);
	if (d < 0)
		return stp_uw_fail(x, STP_UW_E_BACKWARD, 0);
	c->p += d;
	return true;
}

/* The stack manipulations: dup drop over pick swap rot. */
static bool stp_uw_stackop(struct stp_uw_expr *x, struct stp_uw_cur *c, u8 op)
{
	u64 t;

	switch (op) {
	case 0x12: return stp_uw_need(x, 1) && stp_uw_push(x, x->st[x->sp - 1]);
	case 0x13:
		if (!stp_uw_need(x, 1))
			return false;
		x->sp--;
		return true;
	case 0x14: return stp_uw_need(x, 2) && stp_uw_push(x, x->st[x->sp - 2]);
	case 0x15:
		t = stp_uw_fixed(c, 1);
		return stp_uw_need(x, (int)t + 1) && stp_uw_push(x, x->st[x->sp - 1 - t]);
	case 0x16:
		if (!stp_uw_need(x, 2))
			return false;
		swap(x->st[x->sp - 1], x->st[x->sp - 2]);
		return true;
	default:	/* rot */
		if (!stp_uw_need(x, 3))
			return false;
		t = x->st[x->sp - 1];
		x->st[x->sp - 1] = x->st[x->sp - 2];
		x->st[x->sp - 2] = x->st[x->sp - 3];
		x->st[x->sp - 3] = t;
		return true;
	}
}

/* One operation at c (the operation byte op already read); false: the
 * expression cannot be evaluated. */
static bool stp_uw_op(struct stp_uw_expr *x, struct stp_uw_cur *c, u8 op, const u8 *start)
{
	u64 t;

	if (op >= 0x30 && op <= 0x4f)		/* lit0..lit31 */
		return stp_uw_push(x, op - 0x30);
	if (op >= 0x70 && op <= 0x8f)		/* breg0..breg31 */
		return stp_uw_breg(x, op - 0x70, stp_uw_sleb(c));
	switch (op) {
	case 0x03: return stp_uw_push(x, stp_uw_fixed(c, 8));	/* addr */
	case 0x06: return stp_uw_deref(x, 8);
	case 0x08: return stp_uw_push(x, stp_uw_fixed(c, 1));
	case 0x09: return stp_uw_push(x, (u64)(s8)stp_uw_fixed(c, 1));
	case 0x0a: return stp_uw_push(x, stp_uw_fixed(c, 2));
	case 0x0b: return stp_uw_push(x, (u64)(s16)stp_uw_fixed(c, 2));
	case 0x0c: return stp_uw_push(x, stp_uw_fixed(c, 4));
	case 0x0d: return stp_uw_push(x, (u64)(s32)stp_uw_fixed(c, 4));
	case 0x0e: case 0x0f: return stp_uw_push(x, stp_uw_fixed(c, 8));
	case 0x10: return stp_uw_push(x, stp_uw_uleb(c));
	case 0x11: return stp_uw_push(x, (u64)stp_uw_sleb(c));
	case 0x12: case 0x13: case 0x14: case 0x15: case 0x16: case 0x17:
		return stp_uw_stackop(x, c, op);
	case 0x19: case 0x1f: case 0x20: case 0x23:	/* abs neg not plus_uconst */
		return stp_uw_unop(x, c, op);
	case 0x28: case 0x2f:				/* bra skip */
		return stp_uw_branch(x, c, op, start);
	case 0x92:					/* bregx */
		t = stp_uw_uleb(c);
		return stp_uw_breg(x, t, stp_uw_sleb(c));
	case 0x94: return stp_uw_deref(x, stp_uw_fixed(c, 1));
	case 0x96: return true;				/* nop */
	case 0x1a ... 0x1e: case 0x21: case 0x22: case 0x24 ... 0x27: case 0x29 ... 0x2e:
		return stp_uw_binop(x, op);
	default:
		return stp_uw_fail(x, STP_UW_E_OP, op);
	}
}

/*
 * Evaluate the DWARF expression e (len bytes) with the registers regs,
 * the CFA pushed first when push_cfa: its result in *out. No loops (only
 * forward branches), at most STP_UW_EXPR_OPS operations and
 * STP_UW_EXPR_STACK entries; memory is read with copy_from_user_nofault().
 * On failure st->why may say why.
 */
static bool stp_uw_eval(const u8 *e, u64 len, const struct stp_uw_regs *regs, bool push_cfa,
			unsigned long cfa, unsigned long *out, struct stp_uw_state *st)
{
	struct stp_uw_expr x = { .sp = 0, .regs = regs, .state = st };
	struct stp_uw_cur c = { e, e + len, e, 0, false };
	int ops = 0;

	if (push_cfa)
		stp_uw_push(&x, cfa);
	while (c.p < c.end) {
		u8 op = *c.p++;
		bool ok;

		if (ops++ >= STP_UW_EXPR_OPS)
			return false;
		ok = stp_uw_op(&x, &c, op, e);
		if (c.bad)
			return stp_uw_fail(&x, STP_UW_E_TRUNCATED, 0);
		if (!ok)
			return false;
	}
	if (!stp_uw_need(&x, 1))
		return false;
	*out = x.st[x.sp - 1];
	return true;
}

/*
 * One frame up from regs, whose return address / pc is at link-time
 * address pc of module m. false: no caller (end of the stack, no unwind
 * data or unreadable memory); *fault is set when a read failed.
 */
static bool stp_uw_step(const struct stp_umod *m, unsigned long pc,
			struct stp_uw_regs *regs, struct stp_uw_state *st, bool *fault)
{
	struct stp_uw_cie cie;
	struct stp_uw_cur ins;
	struct stp_uw_regs out = { .known = 0 };
	unsigned long start, cfa;
	int depth = 0;

	st->signal = false;
	st->why = STP_UW_OK;
	if (!stp_uw_find_fde(m, pc, &cie, &ins, &start))
		return false;
	memset(&st->row, 0, sizeof(st->row));
	{
		struct stp_uw_cur ci = { cie.insns, cie.end, m->eh, m->eh_addr, false };

		if (!stp_uw_run(&ci, &cie, 0, ~0UL, st, &depth))
			return false;
	}
	st->init = st->row;
	depth = 0;
	if (!stp_uw_run(&ins, &cie, start, pc, st, &depth) || !st->row.cfa_ok)
		return false;
	st->signal = cie.signal;
	if (st->row.cfa_expr) {
		if (!stp_uw_eval(st->row.cfa_expr, (u64)st->row.cfa_off, regs, false, 0, &cfa,
				 st))
			return false;
	} else if (regs->known & (1u << st->row.cfa_reg)) {
		cfa = regs->r[st->row.cfa_reg] + st->row.cfa_off;
	} else {
		return false;
	}
	for (int i = 0; i < STP_UW_NREGS; i++) {
		const struct stp_uw_rule *r = &st->row.r[i];
		unsigned long a;

		switch (r->kind) {
		case UR_EXPR:
			if (stp_uw_eval(r->expr, (u64)r->off, regs, true, cfa, &a, st) &&
			    stp_uw_read(a, &out.r[i], fault))
				out.known |= 1u << i;
			else if (i == STP_UW_RA)
				return false;
			break;
		case UR_VAL_EXPR:
			if (stp_uw_eval(r->expr, (u64)r->off, regs, true, cfa, &out.r[i], st))
				out.known |= 1u << i;
			break;
		case UR_SAME:
			out.r[i] = regs->r[i];
			out.known |= regs->known & (1u << i);
			break;
		case UR_OFFSET:
			if (stp_uw_read(cfa + r->off, &out.r[i], fault))
				out.known |= 1u << i;
			else if (i == STP_UW_RA)
				return false;
			break;
		case UR_VAL_OFFSET:
			out.r[i] = cfa + r->off;
			out.known |= 1u << i;
			break;
		case UR_REG:
			out.r[i] = regs->r[r->reg];
			out.known |= regs->known & (1u << r->reg) ? 1u << i : 0;
			break;
		default:
			break;
		}
	}
	/* the CFA is the caller's stack pointer, unless a rule (a signal
	 * frame's) restores it */
	if (st->row.r[STP_UW_SP].kind == UR_SAME || !(out.known & (1u << STP_UW_SP)))
		out.r[STP_UW_SP] = cfa;
	out.known |= 1u << STP_UW_SP;
	if (!(out.known & (1u << STP_UW_RA)) || !out.r[STP_UW_RA])
		return false;
	*regs = out;
	return true;
}
