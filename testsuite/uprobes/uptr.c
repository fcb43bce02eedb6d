/* Pointer parameters of every kind 4.8 pretty prints differently in a
 * program (test_uprobes.py test_pointer_pretty_as_upstream, uptr.stp). */
static int g = 5;
static int cb(int x) { return x + 1; }
__attribute__((noinline)) int f(int *ip, long *lp, void *vp, char *s, char **sv,
				int (*fn)(int), unsigned char *ucp)
{
	return *ip + (int)*lp + (vp != 0) + s[0] + sv[0][0] + fn(1) + *ucp;
}
__attribute__((noinline)) int h(signed char *scp, const char *ccp, char *s)
{
	return *scp + ccp[0] + s[0];
}
int main(void)
{
	long l = -7;
	char *v[] = { "hello", 0 };
	unsigned char uc = 200;
	signed char sc = 'A';
	return f(&g, &l, &g, "str", v, cb, &uc) + h(&sc, "cstr", "str") < 0;
}
