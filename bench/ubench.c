/*
 * ubench.c - the program bench/uprobes.py probes: calls hit() N times
 * and prints the nanoseconds per iteration (with whatever probe is on).
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

__attribute__((noinline)) long hit(int a, long b)
{
	return a + b;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 10000, s = 0;
	struct timespec t0, t1;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (long i = 0; i < n; i++)
		s = hit((int)i, s) & 0xffff;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("%.1f %ld\n", ((t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec)) / n, s);
	return 0;
}
