/* ualias.c - calls C library functions by their public names, which the
 * library's DWARF knows by others (malloc is __libc_malloc): the program
 * test_ualias.py probes. */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1;
	char path[16], mode[4];

	/* on the stack, so that the probes read resident memory */
	strcpy(path, "/dev/null");
	strcpy(mode, "r");

	for (int i = 0; i < n; i++) {
		char *p = malloc(40 + i);
		int fd = open(path, O_RDONLY);
		FILE *f = fopen(path, mode);

		pthread_mutex_lock(&lock);
		strcpy(p, "x");
		__asm__ volatile("" : : "r"(p) : "memory");	/* p is used */
		pthread_mutex_unlock(&lock);
		if (f)
			fclose(f);
		if (fd >= 0)
			close(fd);
		free(p);
	}
	return 0;
}
