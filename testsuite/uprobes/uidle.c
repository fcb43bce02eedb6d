/*
 * uidle.c - a program with two threads, both sleeping, running before the
 * session starts (test_upid.py): process.begin and process.thread.begin
 * of the processes already there.
 */
#include <pthread.h>
#include <unistd.h>

static void *idle(void *arg)
{
	for (;;)
		pause();
	return arg;
}

int main(void)
{
	pthread_t t;

	pthread_create(&t, NULL, idle, NULL);
	for (;;)
		pause();
}
