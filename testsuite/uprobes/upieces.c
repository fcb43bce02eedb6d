/*
 * upieces.c - a program for test_uloc.py: at -O2, small structs passed
 * by value live in registers or in pieces (DW_OP_piece), parameters
 * without a location, struct locals, unions and char arrays in structs.
 */
#include <stdio.h>
#include <string.h>

struct pair { long a; long b; };
struct small { int x; int y; };
struct mix { int i; double d; };
struct named { const char *name; long n; };
union u8s { long l; char c[8]; };
struct st { char tag[4]; int n; };
union un2 { char c[8]; long l; };
struct wrap { int k; union u8s u; };

__attribute__((noinline)) long use_pair(struct pair p) { return p.a * 3 + p.b; }
__attribute__((noinline)) long use_small(struct small s, int k) { return s.x * k + s.y; }
__attribute__((noinline)) double use_mix(struct mix m) { return m.i + m.d; }
__attribute__((noinline)) long use_named(struct named nm)
{
	return (long)strlen(nm.name) + nm.n;
}

__attribute__((noinline)) long use_local(int k)
{
	volatile struct pair lp = { k, k * 2 };
	volatile char buf[8];
	volatile union u8s u;

	u.l = k;
	memset((char *)buf, 'a' + k, sizeof(buf));
	return lp.a + lp.b + buf[k] + u.c[0];
}

__attribute__((noinline)) long use_ptrs(struct st *s, union u8s *u, union un2 *u2,
					struct wrap *w)
{
	return s->n + s->tag[0] + u->l + u->c[1] + u2->l + u2->c[2] + w->k + w->u.l;
}

int main(int argc, char **argv)
{
	struct pair p = { argc + 40, argc * 7 };
	struct small s = { argc + 1, argc + 2 };
	struct mix m = { argc, 2.5 };
	struct named nm = { argv[0], argc };
	struct st t = { "abc", 5 };
	union u8s u;
	union un2 u2;
	struct wrap w;

	memset(&u, 0, sizeof(u));
	strcpy(u.c, "xy");
	memset(&u2, 0, sizeof(u2));
	strcpy(u2.c, "zw");
	memset(&w, 0, sizeof(w));
	w.k = 7;
	strcpy(w.u.c, "qq");
	printf("%ld\n", use_pair(p));
	printf("%ld\n", use_small(s, argc + 3));
	printf("%f\n", use_mix(m));
	printf("%ld\n", use_named(nm));
	printf("%ld\n", use_local(argc));
	printf("%ld\n", use_ptrs(&t, &u, &u2, &w));
	return 0;
}
