/*
 * uloop.c - a program already running when the session starts (stap -x
 * in test_uprocess.py): calls tick() every 10 ms until killed.
 */
#include <unistd.h>

__attribute__((noinline)) int tick(int i)
{
	return i + 1;
}

int main(void)
{
	for (int i = 0;; i = tick(i))
		usleep(10000);
}
