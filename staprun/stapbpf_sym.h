/*
 * stapbpf_sym.h - the BPF loader's kernel symbols (stapbpf_sym.c):
 * print_backtrace()'s frames as the module runtime prints them.
 */
#ifndef STAPBPF_SYM_H
#define STAPBPF_SYM_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* " 0xADDR : name+0xoff/0xsize [module]" a line, for each of n addresses */
void stapbpf_print_backtrace(FILE *out, const uint64_t *pcs, size_t n);

#endif /* STAPBPF_SYM_H */
