/*
 * uprog.c - the test program of test_uprobes.py: functions with integer,
 * pointer and struct parameters, locals, a global, and SDT markers. The
 * test builds it with gcc -g at -O0 and -O2 and probes it. It prints
 * only when given a second argument, so that its output does not mix
 * with the probes'.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/sdt.h>

struct point {
	int x;
	long y;
	const char *name;
	struct point *next;
};

int counter = 7;
const char *banner = "uprog";

__attribute__((noinline)) int add(int a, int b)
{
	int sum = a + b;

	counter += sum;
	return sum;
}

__attribute__((noinline)) long scale(struct point *p, long k)
{
	long r = p->x * k + p->y;

	STAP_PROBE2(uprog, scaled, p->x, r);
	return r;
}

__attribute__((noinline)) const char *name_of(struct point *p)
{
	return p->name;
}

__attribute__((noinline)) short neg(short v, unsigned char c)
{
	return (short)(-v + c);
}

/* Touch the bytes of s: a probe can only read pages already mapped in. */
static void touch(const char *s)
{
	static volatile char sink;

	while (*s)
		sink = *s++;
}

int main(int argc, char **argv)
{
	struct point second = { 5, 6, "second", NULL };
	struct point pt = { 3, 4, "origin", &second };
	int n = argc > 1 ? atoi(argv[1]) : 3;
	long t = 0;

	touch(pt.name);
	touch(second.name);
	touch(banner);
	STAP_PROBE1(uprog, start, n);
	for (int i = 0; i < n; i++) {
		t += add(i, 10);
		t += scale(&pt, i);
	}
	t += neg(-3, 200);
	if (argc > 2)
		printf("%s %ld %s %d\n", name_of(&pt), t, banner, counter);
	else
		touch(name_of(&pt));
	STAP_PROBE(uprog, done);
	return 0;
}
