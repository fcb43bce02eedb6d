/*
 * stapbpf_sym.h - the BPF loader's kernel symbols (stapbpf_sym.c):
 * print_backtrace()'s frames as the module runtime prints them.
 */
#ifndef STAPBPF_SYM_H
#define STAPBPF_SYM_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* " 0xADDR : name+0xoff/0xsize [module]" a line, for each of n addresses;
 * after "Returning from: " from's line and "Returning to  : " in a .return
 * probe (from: the probed function, else 0) */
/* /proc/kallsyms, read at the first backtrace: held in the loader */
struct stapbpf_ksyms {
	struct stapbpf_ksym *syms;	/* by address */
	size_t nsyms;
	int loaded;
};

void stapbpf_print_backtrace(struct stapbpf_ksyms *K, FILE *out, const uint64_t *pcs,
			     size_t n, uint64_t from);

#endif /* STAPBPF_SYM_H */
