/* Hostile stacks for the user-stack unwinder (test_ustack.py): the
 * getppid system call made with the stack pointer at an unmapped address,
 * then with a stack whose return addresses all lead back to the same
 * place, an endless chain of frames. */
#include <unistd.h>

unsigned long loopstack[64];
extern char loop_ret[] __asm__(".Lloop_ret");

__attribute__((noinline)) void bad_sp(void)
{
	__asm__ volatile("mov %%rsp, %%r12\n\t"
			 "mov $0x10, %%rsp\n\t"
			 "mov $110, %%eax\n\t"
			 "syscall\n\t"
			 "mov %%r12, %%rsp"
			 ::: "rax", "rcx", "r11", "r12", "memory");
}

__attribute__((noinline)) void loop_sp(void)
{
	__asm__ volatile("mov %%rsp, %%r12\n\t"
			 "lea loopstack(%%rip), %%rsp\n\t"
			 "mov $110, %%eax\n\t"
			 "syscall\n"
			 ".Lloop_ret:\n\t"
			 "mov %%r12, %%rsp"
			 ::: "rax", "rcx", "r11", "r12", "memory");
}

int main(void)
{
	bad_sp();
	for (int i = 0; i < 64; i++)
		loopstack[i] = (unsigned long)loop_ret;
	loop_sp();
	return 0;
}
