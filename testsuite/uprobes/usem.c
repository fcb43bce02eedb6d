/*
 * usem.c - an SDT marker guarded by its semaphore (test_uprocess.py): the
 * marker runs only while a probe on it has raised the semaphore.
 */
#define _SDT_HAS_SEMAPHORES 1
#include <sys/sdt.h>

unsigned short usem_tick_semaphore __attribute__((unused, section(".probes")));

int main(void)
{
	for (int i = 0; i < 3; i++)
		if (usem_tick_semaphore)
			STAP_PROBE1(usem, tick, i);
	return 0;
}
