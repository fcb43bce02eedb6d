/* Test program for the CFI expression evaluator (test_ufile.py): each of
 * these functions calls leaf() while its canonical frame address is a
 * DWARF expression (.cfi_escape DW_CFA_def_cfa_expression): a good one
 * (with a forward skip), then hostile ones: an endless loop, a read of
 * address 0, a stack overflow and underflow, a division by zero, a
 * truncated operand, a skip out of the expression, an operation CFI has
 * no use for, a bad deref size. An unwind from leaf() must go on through
 * the first and stop at the others, never hang or fault. */
#include <sys/syscall.h>
#include <unistd.h>

volatile long sink;

__attribute__((noinline)) long leaf(long n)
{
	sink += n;
	return sink;
}

#define HOSTILE(name, expr)						\
__attribute__((noinline)) long name(long n)				\
{									\
	long r;								\
									\
	asm volatile(".cfi_remember_state\n\t.cfi_escape " expr	\
		     ::: "memory");					\
	r = leaf(n);							\
	asm volatile(".cfi_restore_state" ::: "memory");		\
	return r + 1;							\
}

/* DW_CFA_def_cfa_expression (0x0f), length, operations */
HOSTILE(good, "0x0f, 6, 0x77, 0x08, 0x2f, 0x01, 0x00, 0x96")	/* rsp + 8 */
HOSTILE(loops, "0x0f, 3, 0x2f, 0xfd, 0xff")		/* skip -3 */
HOSTILE(reads_null, "0x0f, 2, 0x30, 0x06")		/* lit0 deref */
HOSTILE(overflows, "0x0f, 17, 0x31, 0x31, 0x31, 0x31, 0x31, 0x31, 0x31, 0x31, 0x31, 0x31, 0x31, 0x31, 0x31, 0x31, 0x31, 0x31, 0x31")
HOSTILE(divides, "0x0f, 3, 0x31, 0x30, 0x1b")		/* 1 / 0 */
HOSTILE(underflows, "0x0f, 2, 0x31, 0x22")		/* 1 + ? */
HOSTILE(truncated, "0x0f, 2, 0x0c, 0x01")		/* const4u */
HOSTILE(skips_out, "0x0f, 4, 0x31, 0x2f, 0x10, 0x00")	/* skip 16 */
HOSTILE(uses_regx, "0x0f, 2, 0x90, 0x07")		/* regx rsp */
HOSTILE(bad_size, "0x0f, 3, 0x31, 0x94, 0x03")		/* deref_size 3 */

int main(void)
{
	long r = good(0) + loops(1) + reads_null(2) + overflows(3) + divides(4);

	r += underflows(5) + truncated(6) + skips_out(7) + uses_regx(8) + bad_size(9);
	return (int)(r & 0);
}
