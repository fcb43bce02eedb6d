/*
 * uloc.c - where a user variable's value is, as C: DWARF location
 * expressions (and SDT marker operands) evaluated at pass 3 into the body
 * of a getter, `static int64_t f(struct stp_context *c)`, that reads the
 * probe's registers (c->regs) and the task's memory (stp_uread(), which
 * never faults: a bad address is a script error).
 *
 * Supported: DW_OP_reg*, breg*, regx, bregx, fbreg (through the function's
 * frame base; DW_OP_call_frame_cfa through the binary's CFI), addr (moved
 * by the load bias of a PIE or library: stp_ubias()), lit*, const*,
 * plus_uconst, the arithmetic ops, deref, stack_value, implicit_value and
 * piece (up to 8 bytes). A variable with no location at the probe's pc is
 * "optimized out": an error at pass 2, as upstream.
 * x86_64 register numbers only.
 */
#include <stdlib.h>
#include <string.h>

#include <elfutils/libdw.h>
#include <dwarf.h>

#include "ubin.h"

Dwarf_CFI *ubin_cfi(struct ubin *b);

static const char *const dwarf_regs[] = {
	"ax", "dx", "cx", "bx", "si", "di", "bp", "sp",
	"r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15", "ip"
};

#define NREGS (int)(sizeof(dwarf_regs) / sizeof(dwarf_regs[0]))
#define MAXSTACK 16

struct eval {
	struct session *s;
	struct ubin *b;
	const struct ufunc *f;
	uint64_t pc;
	const char *st[MAXSTACK];
	int sp;
	const char *reg;	/* the value is this register (DW_OP_reg*) */
	bool value;		/* the value is the top of the stack */
	const char *why;
	int depth;
};

static const char *reg_expr(struct eval *e, uint64_t n)
{
	if (n >= (uint64_t)NREGS) {
		e->why = arena_printf(e->s->arena, "DWARF register %llu is not supported",
				      (unsigned long long)n);
		return NULL;
	}
	return arena_printf(e->s->arena, "(uint64_t)c->regs->%s", dwarf_regs[n]);
}

/* The fault-tolerant read of the probe's memory (runtime/deref.c). */
static const char *reader(const struct eval *e)
{
	return ubin_is_kernel(e->b) ? "stp_kread" : "stp_uread";
}

/* A kernel module's static address: its symbol's, resolved when the
 * session starts (stp_ksym()), plus the offset in it. */
static const char *kernel_addr(struct eval *e, uint64_t addr)
{
	const char *sym;
	uint64_t off;

	if (!ubin_ksym(e->b, addr, false, &sym, &off) &&
	    !ubin_ksym(e->b, addr, true, &sym, &off)) {
		e->why = arena_printf(e->s->arena, "no symbol of module %s holds its address",
				      ubin_kmod(e->b));
		return NULL;
	}
	return arena_printf(e->s->arena, "(stp_ksym(c, %d) + 0x%llxULL)",
			    kdwarf_ksym_index(e->s, ubin_is_vmlinux(e->b) ? sym :
					      arena_printf(e->s->arena, "%s:%s", ubin_kmod(e->b), sym)),
			    (unsigned long long)off);
}

static bool push(struct eval *e, const char *x)
{
	if (!x)
		return false;
	if (e->sp == MAXSTACK) {
		e->why = "location expression too deep";
		return false;
	}
	e->st[e->sp++] = x;
	return true;
}

static const char *pop(struct eval *e)
{
	if (!e->sp) {
		e->why = "bad location expression (empty stack)";
		return NULL;
	}
	return e->st[--e->sp];
}

static bool eval_ops(struct eval *e, const Dwarf_Op *ops, size_t n);

/* The frame base (DW_AT_frame_base) of e->f at e->pc onto the stack. */
static bool frame_base(struct eval *e)
{
	Dwarf_Die d;
	Dwarf_Attribute at;
	Dwarf_Op *ops;
	size_t n;

	if (!e->f || !e->f->outer || !dwarf_offdie(ubin_dwarf(e->b), e->f->outer, &d) ||
	    !dwarf_attr_integrate(&d, DW_AT_frame_base, &at) ||
	    dwarf_getlocation_addr(&at, e->pc, &ops, &n, 1) < 1) {
		e->why = "the function has no frame base here";
		return false;
	}
	if (n == 1 && ops[0].atom >= DW_OP_reg0 && ops[0].atom <= DW_OP_reg31)
		return push(e, reg_expr(e, ops[0].atom - DW_OP_reg0));
	return eval_ops(e, ops, n);
}

/* The CFA at e->pc, from .eh_frame (or .debug_frame). */
static bool frame_cfa(struct eval *e)
{
	Dwarf_CFI *cfi = ubin_cfi(e->b);
	Dwarf_Frame *fr = NULL;
	Dwarf_Op *ops;
	size_t n;
	bool ok;

	if (!cfi || dwarf_cfi_addrframe(cfi, e->pc, &fr))
		cfi = dwarf_getcfi(ubin_dwarf(e->b));
	if (!fr && (!cfi || dwarf_cfi_addrframe(cfi, e->pc, &fr))) {
		e->why = "no call frame information at this address";
		return false;
	}
	if (dwarf_frame_cfa(fr, &ops, &n) || !n) {
		free(fr);
		e->why = "no call frame information at this address";
		return false;
	}
	ok = e->depth++ < 4 && eval_ops(e, ops, n);
	free(fr);
	return ok;
}

static bool binop(struct eval *e, const char *op)
{
	const char *b = pop(e), *a = b ? pop(e) : NULL;

	return a && push(e, arena_printf(e->s->arena, "(%s %s %s)", a, op, b));
}

static bool one_op(struct eval *e, const Dwarf_Op *o)
{
	struct arena *A = e->s->arena;
	const char *a;

	if (o->atom >= DW_OP_lit0 && o->atom <= DW_OP_lit31)
		return push(e, arena_printf(A, "%uULL", o->atom - DW_OP_lit0));
	if (o->atom >= DW_OP_breg0 && o->atom <= DW_OP_breg31) {
		a = reg_expr(e, o->atom - DW_OP_breg0);
		return a && push(e, arena_printf(A, "(%s + (uint64_t)%lldLL)", a,
						 (long long)(Dwarf_Sword)o->number));
	}
	switch (o->atom) {
	case DW_OP_addr:
		if (ubin_is_kernel(e->b))
			return push(e, kernel_addr(e, o->number));
		return push(e, arena_printf(A, "(stp_ubias(c) + 0x%llxULL)",
					    (unsigned long long)o->number));
	case DW_OP_const1u: case DW_OP_const2u: case DW_OP_const4u: case DW_OP_const8u:
	case DW_OP_constu:
		return push(e, arena_printf(A, "0x%llxULL", (unsigned long long)o->number));
	case DW_OP_const1s: case DW_OP_const2s: case DW_OP_const4s: case DW_OP_const8s:
	case DW_OP_consts:
		return push(e, arena_printf(A, "(uint64_t)%lldLL",
					    (long long)(Dwarf_Sword)o->number));
	case DW_OP_bregx:
		a = reg_expr(e, o->number);
		return a && push(e, arena_printf(A, "(%s + (uint64_t)%lldLL)", a,
						 (long long)(Dwarf_Sword)o->number2));
	case DW_OP_fbreg:
		if (!frame_base(e) || !(a = pop(e)))
			return false;
		return push(e, arena_printf(A, "(%s + (uint64_t)%lldLL)", a,
					    (long long)(Dwarf_Sword)o->number));
	case DW_OP_call_frame_cfa:
		return frame_cfa(e);
	case DW_OP_plus_uconst:
		return (a = pop(e)) && push(e, arena_printf(A, "(%s + 0x%llxULL)", a,
						(unsigned long long)o->number));
	case DW_OP_deref:
		return (a = pop(e)) && push(e, arena_printf(A, "(uint64_t)%s(c, (int64_t)%s, 8, 0)",
							    reader(e), a));
	case DW_OP_dup:
		return (a = pop(e)) && push(e, a) && push(e, a);
	case DW_OP_drop:
		return pop(e) != NULL;
	case DW_OP_plus: return binop(e, "+");
	case DW_OP_minus: return binop(e, "-");
	case DW_OP_mul: return binop(e, "*");
	case DW_OP_and: return binop(e, "&");
	case DW_OP_or: return binop(e, "|");
	case DW_OP_xor: return binop(e, "^");
	case DW_OP_shl: return binop(e, "<<");
	case DW_OP_shr: return binop(e, ">>");
	case DW_OP_neg:
		return (a = pop(e)) && push(e, arena_printf(A, "(0 - %s)", a));
	case DW_OP_not:
		return (a = pop(e)) && push(e, arena_printf(A, "(~%s)", a));
	case DW_OP_stack_value:
		e->value = true;
		return true;
	case DW_OP_nop:
		return true;
	case DW_OP_entry_value:
	case DW_OP_GNU_entry_value:
		e->why = "its value at the function's entry is not known here (optimized out)";
		return false;
	default:
		e->why = arena_printf(A, "DWARF operation 0x%x is not supported", o->atom);
		return false;
	}
}

static bool eval_ops(struct eval *e, const Dwarf_Op *ops, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (ops[i].atom >= DW_OP_reg0 && ops[i].atom <= DW_OP_reg31) {
			e->reg = reg_expr(e, ops[i].atom - DW_OP_reg0);
			if (!e->reg)
				return false;
			continue;
		}
		if (ops[i].atom == DW_OP_regx) {
			e->reg = reg_expr(e, ops[i].number);
			if (!e->reg)
				return false;
			continue;
		}
		if (!one_op(e, &ops[i]))
			return false;
	}
	return true;
}

/* One location (no pieces) as an expression of the value; width 0: the
 * address of an object in memory. */
static const char *simple(struct eval *e, const Dwarf_Op *ops, size_t n, int width,
			  bool *lvalue)
{
	const char *a;

	e->sp = 0;
	e->reg = NULL;
	e->value = false;
	if (n == 1 && ops[0].atom == DW_OP_implicit_value) {
		uint64_t v = 0;

		memcpy(&v, (const void *)(uintptr_t)ops[0].number2,
		       ops[0].number < 8 ? ops[0].number : 8);
		return arena_printf(e->s->arena, "0x%llxULL", (unsigned long long)v);
	}
	if (!eval_ops(e, ops, n))
		return NULL;
	if (e->reg) {
		if (!width) {
			e->why = "the object is in a register, not in memory";
			return NULL;
		}
		return e->reg;
	}
	if (!(a = pop(e)))
		return NULL;
	if (e->value) {
		if (!width) {
			e->why = "the object has no address (optimized out)";
			return NULL;
		}
		return a;
	}
	if (!width) {
		*lvalue = true;
		return a;
	}
	return arena_printf(e->s->arena, "(uint64_t)%s(c, (int64_t)%s, %d, 0)", reader(e), a,
			    width);
}

/* Does the location give an address (not a register or a value)? */
static bool in_memory(const Dwarf_Op *ops, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned int a = ops[i].atom;

		if ((a >= DW_OP_reg0 && a <= DW_OP_reg31) || a == DW_OP_regx ||
		    a == DW_OP_stack_value || a == DW_OP_implicit_value)
			return false;
	}
	return true;
}

/* DW_OP_piece: each piece's bytes shifted into place. */
static const char *pieces(struct eval *e, const Dwarf_Op *ops, size_t n, int width)
{
	struct strbuf sb;
	const char *r;
	size_t start = 0;
	unsigned int at = 0;
	bool lv = false;

	if (!width) {
		e->why = "an object in pieces (DW_OP_piece) has no address";
		return NULL;
	}
	sb_init(&sb);
	sb_puts(&sb, "(0");
	for (size_t i = 0; i < n; i++) {
		unsigned int size;
		const char *p;

		if (ops[i].atom != DW_OP_piece)
			continue;
		size = (unsigned int)ops[i].number;
		if (at + size > 8) {
			sb_free(&sb);
			e->why = "a value in pieces of more than 8 bytes is not supported";
			return NULL;
		}
		if (i > start) {
			p = simple(e, ops + start, i - start, (int)(size >= 8 ? 8 : size), &lv);
			if (!p) {
				sb_free(&sb);
				return NULL;
			}
			sb_printf(&sb, " | ((%s & 0x%llxULL) << %u)", p,
				  size >= 8 ? ~0ULL : (1ULL << (size * 8)) - 1, at * 8);
		}
		at += size;
		start = i + 1;
	}
	sb_putc(&sb, ')');
	r = arena_strdup(e->s->arena, sb.buf);
	sb_free(&sb);
	return r;
}

/* v's DIE into *d and its location expression at pc into *ops; NULL, or
 * why there is none (*konst: a DW_AT_const_value, its value). */
static const char *var_location(struct session *s, struct ubin *b, const struct uvar *v,
				uint64_t pc, Dwarf_Die *d, Dwarf_Op **ops, size_t *n,
				const char **konst)
{
	Dwarf_Attribute at;
	int k;

	*konst = NULL;
	if (!ubin_dwarf(b) || !dwarf_offdie(ubin_dwarf(b), v->die, d))
		return "no DWARF for it";
	if (dwarf_attr_integrate(d, DW_AT_const_value, &at)) {
		Dwarf_Sword sv;

		if (!dwarf_formsdata(&at, &sv)) {
			*konst = arena_printf(s->arena, "%lldLL", (long long)sv);
			return NULL;
		}
	}
	if (!dwarf_attr_integrate(d, DW_AT_location, &at) && v->addr) {
		*ops = arena_alloc(s->arena, sizeof(**ops));
		**ops = (Dwarf_Op){ .atom = DW_OP_addr, .number = v->addr };
		*n = 1;
		return NULL;
	}
	if (!dwarf_attr_integrate(d, DW_AT_location, &at))
		return "it was optimized out";
	k = dwarf_getlocation_addr(&at, pc, ops, n, 1);
	if (k < 1 || *n == 0)
		return arena_printf(s->arena, "it was optimized out at this address (0x%llx)",
				    (unsigned long long)pc);
	return NULL;
}

/* 4.8's lines after "not accessible at this address": the variable's
 * DIE, the function and source position of pc (its line table's row),
 * and the address ranges where the variable has a location. */
const char *uloc_unavailable_detail(struct session *s, struct ubin *b, const struct ufunc *f,
				    const struct uvar *v, uint64_t pc)
{
	Dwarf_Die d, fd, cu;
	Dwarf_Attribute at;
	Dwarf_Line *l;
	Dwarf_Addr base, lo, hi;
	Dwarf_Op *ops;
	size_t n;
	ptrdiff_t off = 0;
	struct strbuf sb;
	const char *r, *src, *name;
	int line = 0, col = 0;

	if (!ubin_dwarf(b) || !dwarf_offdie(ubin_dwarf(b), v->die, &d))
		return "";
	sb_init(&sb);
	sb_printf(&sb, "\n        dieoffset: %#llx from %s", (unsigned long long)v->die,
		  ubin_path(b));
	name = f && f->die && dwarf_offdie(ubin_dwarf(b), f->die, &fd) ? dwarf_diename(&fd) : NULL;
	if (name && dwarf_diecu(&fd, &cu, NULL, NULL) && (l = dwarf_getsrc_die(&cu, pc)) &&
	    (src = dwarf_linesrc(l, NULL, NULL)) && !dwarf_lineno(l, &line)) {
		dwarf_linecol(l, &col);
		sb_printf(&sb, "\n        function: %s at %s:%d:%d", name, src, line, col);
	}
	if (dwarf_attr_integrate(&d, DW_AT_location, &at)) {
		sb_printf(&sb, "\n        alternative locations: ");
		for (int k = 0; (off = dwarf_getlocations(&at, off, &base, &lo, &hi, &ops, &n)) > 0;
		     k++)
			sb_printf(&sb, "%s[%#llx,%#llx]", k ? ", " : "", (unsigned long long)lo,
				  (unsigned long long)hi);
	}
	r = arena_strdup(s->arena, sb.buf);
	sb_free(&sb);
	return r;
}

/* The innermost lexical block of scope d holding pc (d itself if none). */
static void innermost_scope(Dwarf_Die *d, uint64_t pc)
{
	Dwarf_Die c;
	bool deeper = true;

	while (deeper && dwarf_child(d, &c) == 0) {
		deeper = false;
		do {
			if (dwarf_tag(&c) == DW_TAG_lexical_block && dwarf_haspc(&c, pc) > 0) {
				*d = c;
				deeper = true;
				break;
			}
		} while (dwarf_siblingof(&c, &c) == 0);
	}
}

struct near_name {
	const char *name;
	int d;
};

/* 4.8's distance of two names: insertions and deletions only (a change
 * counts two), the lengths' sum less twice their longest common
 * subsequence; 99 when one is over 60 long. */
static int indel_distance(const char *a, const char *b)
{
	int la = (int)strlen(a), lb = (int)strlen(b), row[64];

	if (la > 60 || lb > 60)
		return 99;
	for (int j = 0; j <= lb; j++)
		row[j] = 0;
	for (int i = 1; i <= la; i++) {
		int prev = 0;	/* the row above, one column left */

		for (int j = 1; j <= lb; j++) {
			int up = row[j];

			row[j] = a[i - 1] == b[j - 1] ? prev + 1 :
				 up > row[j - 1] ? up : row[j - 1];
			prev = up;
		}
	}
	return la + lb - 2 * row[lb];
}

/* by that distance, then the shorter, then by name */
static int near_cmp(const void *a, const void *b)
{
	const struct near_name *x = a, *y = b;
	size_t lx = strlen(x->name), ly = strlen(y->name);

	if (x->d != y->d)
		return (x->d > y->d) - (x->d < y->d);
	return lx != ly ? (lx > ly) - (lx < ly) : strcmp(x->name, y->name);
}

/*
 * As 4.8 words it: "unable to find local 'NAME', [man error::dwarf]
 * dieoffset OFF in MODULE, near pc PC in FUNCTION FILE (alternatives:
 * $a, $b))", the scope being the innermost at pc, FILE its unit's, the
 * alternatives the five names of that scope nearest to NAME (by
 * indel_distance(), then the shorter, then by name: 4.8's order in 21 of
 * 30 cases measured, 17 by edit distance; its rule for the others is not
 * known), the last parenthesis doubled as 4.8's is.
 */
const char *uloc_unfound_local(struct session *s, struct ubin *b, const struct ufunc *f,
			       const char *name, uint64_t pc)
{
	Dwarf_Die d, c, cu;
	struct near_name *v = NULL;
	int n = 0, cap = 0;
	struct strbuf sb;
	const char *r, *fn, *file;

	if (!ubin_dwarf(b) || !f || !f->die || !dwarf_offdie(ubin_dwarf(b), f->die, &d))
		return NULL;
	innermost_scope(&d, pc);
	if (dwarf_child(&d, &c) == 0) {
		do {
			const char *vn = dwarf_diename(&c);
			int tag = dwarf_tag(&c);

			if (!vn || (tag != DW_TAG_variable && tag != DW_TAG_formal_parameter))
				continue;
			if (n == cap) {
				cap = cap * 2 + 16;
				v = realloc(v, sizeof(*v) * (size_t)cap);
				if (!v)
					return NULL;
			}
			v[n++] = (struct near_name){ vn, indel_distance(name, vn) };
		} while (dwarf_siblingof(&c, &c) == 0);
	}
	qsort(v, (size_t)n, sizeof(*v), near_cmp);
	fn = dwarf_diename(&d);
	file = dwarf_diecu(&d, &cu, NULL, NULL) ? dwarf_diename(&cu) : NULL;
	sb_init(&sb);
	sb_printf(&sb, "unable to find local '%s', [man error::dwarf] dieoffset %#llx in %s, "
		  "near pc %#llx in %s %s (", name, (unsigned long long)dwarf_dieoffset(&d),
		  ubin_kmod(b) ? ubin_kmod(b) : "kernel", (unsigned long long)pc,
		  fn ? fn : "<unknown>", file ? file : "<unknown>");
	for (int i = 0; i < n && i < 5; i++)
		sb_printf(&sb, "%s$%s", i ? ", " : "alternatives: ", v[i].name);
	sb_puts(&sb, n ? "))" : "<no alternatives>)");
	free(v);
	r = arena_strdup(s->arena, sb.buf);
	sb_free(&sb);
	return r;
}

/* The byte size of the type of the variable at DIE d, 0 if unknown. */
static unsigned int var_size(Dwarf_Die *d)
{
	Dwarf_Attribute at;
	Dwarf_Die t;
	Dwarf_Word size;

	if (!dwarf_attr_integrate(d, DW_AT_type, &at) || !dwarf_formref_die(&at, &t) ||
	    dwarf_aggregate_size(&t, &size))
		return 0;
	return (unsigned int)size;
}

/*
 * An object held in a register or in pieces (a small struct passed by
 * value) has no address: the getter copies its bytes into one of the
 * context's slots (stp_uobj()) and returns the slot's address, which
 * stp_uread() reads like the task's memory, so members, indexes and
 * pretty printing work on it as on an object in memory. A piece without
 * a location (optimized out) stays zero.
 */
static const char *materialize(struct eval *e, const Dwarf_Op *ops, size_t n,
			       unsigned int size)
{
	struct strbuf sb;
	const char *r;
	size_t start = 0;
	unsigned int at = 0;
	bool lv = false, whole = true;

	if (!size || size > STP_UOBJ_BYTES) {
		e->why = arena_printf(e->s->arena, "an object of %u bytes in registers is not supported",
				      size);
		return NULL;
	}
	sb_init(&sb);
	sb_puts(&sb, "\tvoid *o = stp_uobj(c);\n\n");
	for (size_t i = 0; i <= n; i++) {
		unsigned int psize;
		const char *p;

		if (i < n && ops[i].atom != DW_OP_piece)
			continue;
		if (i == n && !whole)
			break;
		psize = i < n ? (unsigned int)ops[i].number : size;
		whole = whole && i == n;
		if (psize > 8 || at + psize > size) {
			sb_free(&sb);
			e->why = "a piece of more than 8 bytes is not supported";
			return NULL;
		}
		if (i > start) {
			p = simple(e, ops + start, i - start, (int)psize, &lv);
			if (!p) {
				sb_free(&sb);
				return NULL;
			}
			sb_printf(&sb, "\tstp_uobj_put(o, %u, %u, (u64)%s);\n", at, psize, p);
			if (strstr(p, "stp_uread"))
				sb_puts(&sb, "\tif (c->last_error)\n\t\treturn 0;\n");
		}
		at += psize;
		start = i + 1;
		whole = false;
	}
	sb_puts(&sb, "\treturn (int64_t)(uintptr_t)o;\n");
	r = arena_strdup(e->s->arena, sb.buf);
	sb_free(&sb);
	return r;
}

const char *uloc_getter(struct session *s, struct ubin *b, const struct ufunc *f,
			const struct uvar *v, uint64_t pc, int width,
			bool *lvalue, const char **why)
{
	struct eval e = { .s = s, .b = b, .f = f, .pc = pc };
	Dwarf_Die d;
	Dwarf_Op *ops;
	size_t n;
	const char *x, *konst;
	bool has_piece = false;

	*lvalue = false;
	*why = var_location(s, b, v, pc, &d, &ops, &n, &konst);
	if (*why)
		return NULL;
	if (konst)
		return arena_printf(s->arena, "\treturn %s;\n", konst);
	for (size_t i = 0; i < n; i++)
		has_piece |= ops[i].atom == DW_OP_piece;
	if (!width && (has_piece || !in_memory(ops, n))) {
		x = materialize(&e, ops, n, var_size(&d));
		*lvalue = x != NULL;
		if (!x)
			*why = e.why;
		return x;
	}
	x = has_piece ? pieces(&e, ops, n, width) : simple(&e, ops, n, width, lvalue);
	if (!x) {
		*why = e.why;
		return NULL;
	}
	return arena_printf(s->arena, "\treturn (int64_t)%s;\n", x);
}

/* The body of `static void f(struct stp_context *c, int64_t v)` storing
 * v (width bytes) where v's value is at pc: its register, or its memory
 * (stp_uwrite(), never faulting); NULL and why when it has no such place. */
const char *uloc_setter(struct session *s, struct ubin *b, const struct ufunc *f,
			const struct uvar *v, uint64_t pc, int width, const char **why)
{
	struct eval e = { .s = s, .b = b, .f = f, .pc = pc };
	Dwarf_Die d;
	Dwarf_Op *ops;
	size_t n;
	const char *konst, *x;
	bool lv = false;

	*why = var_location(s, b, v, pc, &d, &ops, &n, &konst);
	if (*why)
		return NULL;
	if (konst) {
		*why = "it is a constant";
		return NULL;
	}
	for (size_t i = 0; i < n; i++)
		if (ops[i].atom == DW_OP_piece || ops[i].atom == DW_OP_implicit_value) {
			*why = "it is not stored in one place";
			return NULL;
		}
	if (width < 1 || width > 8) {
		*why = "it is not a scalar";
		return NULL;
	}
	x = simple(&e, ops, n, 8, &lv);
	if (x && e.reg)		/* "(uint64_t)c->regs->REG" */
		return arena_printf(s->arena, "\t%s = (unsigned long)v;\n",
				    e.reg + strlen("(uint64_t)"));
	if (x && e.value) {
		*why = "its value is computed, not stored";
		return NULL;
	}
	x = x ? simple(&e, ops, n, 0, &lv) : NULL;
	if (!x) {
		*why = e.why;
		return NULL;
	}
	return arena_printf(s->arena, "\tstp_uwrite(c, (int64_t)%s, %d, v);\n", x, width);
}

/* ---- SDT operands ------------------------------------------------------------ */

static const char *const sdt_regs[][5] = {
	{ "ax", "rax", "eax", "al", "ah" }, { "dx", "rdx", "edx", "dl", "dh" },
	{ "cx", "rcx", "ecx", "cl", "ch" }, { "bx", "rbx", "ebx", "bl", "bh" },
	{ "si", "rsi", "esi", "sil", NULL }, { "di", "rdi", "edi", "dil", NULL },
	{ "bp", "rbp", "ebp", "bpl", NULL }, { "sp", "rsp", "esp", "spl", NULL },
	{ "ip", "rip", "eip", NULL, NULL },
};

static const char *sdt_reg(const char *name, size_t len)
{
	static const char *const rn[] = { "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15" };

	for (size_t i = 0; i < sizeof(sdt_regs) / sizeof(sdt_regs[0]); i++)
		for (int k = 0; k < 5; k++)
			if (sdt_regs[i][k] && strlen(sdt_regs[i][k]) == len &&
			    !strncmp(sdt_regs[i][k], name, len))
				return sdt_regs[i][0];
	for (size_t i = 0; i < 8; i++) {
		size_t l = strlen(rn[i]);

		if (len >= l && !strncmp(name, rn[i], l) &&
		    (len == l || (len == l + 1 && strchr("dwb", name[l]))))
			return rn[i];
	}
	return NULL;
}

const char *uloc_sdt_getter(struct session *s, const char *arg, const char **why)
{
	const char *at = strchr(arg, '@'), *op, *open, *close, *reg;
	char *end;
	long long disp = 0;
	int size = at ? abs(atoi(arg)) : 8;

	*why = NULL;
	if (size != 1 && size != 2 && size != 4 && size != 8)
		size = 8;
	op = at ? at + 1 : arg;
	if (*op == '$') {
		long long v = strtoll(op + 1, &end, 0);

		if (*end)
			goto bad;
		return arena_printf(s->arena, "\treturn %lldLL;\n", v);
	}
	if (*op == '%') {
		reg = sdt_reg(op + 1, strlen(op + 1));
		if (!reg)
			goto bad;
		return arena_printf(s->arena, "\treturn (int64_t)c->regs->%s;\n", reg);
	}
	open = strchr(op, '(');
	close = open ? strchr(open, ')') : NULL;
	if (!open || !close || close[1] || open[1] != '%' || strchr(open, ','))
		goto bad;
	if (open > op) {
		disp = strtoll(op, &end, 0);
		if (end != open)
			goto bad;
	}
	reg = sdt_reg(open + 2, (size_t)(close - open - 2));
	if (!reg)
		goto bad;
	return arena_printf(s->arena, "\treturn stp_uread(c, (int64_t)(c->regs->%s + (%lldLL)), %d, 0);\n",
			    reg, disp, size);
bad:
	*why = arena_printf(s->arena, "its operand '%s' is not supported", arg);
	return NULL;
}
