/* Test program for user stacks (test_ustack.py): a chain of functions
 * that are not inlined, whose innermost one makes the getppid system call
 * (through syscall(), passing the address of a data object) twice, so
 * that a kernel probe on it sees this stack and that address. */
#include <sys/syscall.h>
#include <unistd.h>

volatile long sink;
long table[4] = { 1, 2, 3, 4 };

__attribute__((noinline)) long inner(long n)
{
	long r = syscall(SYS_getppid, table, n);

	sink += n;
	return r + sink;
}

__attribute__((noinline)) long middle(long n)
{
	long r = inner(n + 1);

	sink += r;
	return r * 2;
}

__attribute__((noinline)) long outer(long n)
{
	long r = middle(n * 3);

	sink ^= r;
	return r + 1;
}

int main(void)
{
	long r = outer(table[1]);

	r += outer(table[2]);
	return (int)(r & 0);
}
