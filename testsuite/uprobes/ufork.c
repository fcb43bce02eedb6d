/*
 * ufork.c - the test program of process.begin/.end and thread.begin/.end
 * (test_uprobes.py): runs two threads one after the other, then forks a
 * child that runs /bin/true, and waits for it.
 */
#include <pthread.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

static void *worker(void *arg)
{
	return arg;
}

int main(void)
{
	pthread_t t[2];
	pid_t child;

	for (int i = 0; i < 2; i++) {
		pthread_create(&t[i], NULL, worker, NULL);
		pthread_join(t[i], NULL);
	}
	child = fork();
	if (child == 0) {
		execl("/bin/true", "true", (char *)NULL);
		_exit(127);
	}
	waitpid(child, NULL, 0);
	return 0;
}
