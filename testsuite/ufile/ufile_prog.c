/* Test program for source lines, PLT probes, labels, callees and signal
 * frames (test_ufile.py): leaf() makes the getppid system call through
 * the PLT (syscall()) from a chain of functions, and again from a signal
 * handler. */
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

volatile long sink;

__attribute__((noinline)) long leaf(long n)
{
	long r = syscall(SYS_getppid, n);

	sink += n;
	return (r > 0) + sink;
}

__attribute__((noinline)) long twice(long n)
{
	long r = leaf(n + 1);

	if (n > 100)
		goto big;
	sink += r;
	r = leaf(r & 7);
big:
	sink ^= r;
	return r * 2;
}

__attribute__((noinline)) static void handler(int sig)
{
	sink += leaf(sig);
}

int main(void)
{
	long r = twice(3);

	signal(SIGUSR1, handler);
	raise(SIGUSR1);
	r += getpid() & 0;
	return (int)(r & 0);
}
