/*
 * upid.c - a program already running when the session starts
 * (test_upid.py): calls tick() every 10 ms until the file named by its
 * argument exists, then exits.
 */
#include <unistd.h>

struct box {
	int n;
	long v;
};

__attribute__((noinline)) int tick(struct box *b, int i)
{
	b->n = i;
	return i + 1;
}

int main(int argc, char **argv)
{
	struct box b = { 0, 7 };

	for (int i = 0; argc > 1 && access(argv[1], F_OK); i = tick(&b, i))
		usleep(10000);
	return 0;
}
