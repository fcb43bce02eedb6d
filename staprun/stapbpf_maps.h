/*
 * stapbpf_maps.h - the BPF loader's global arrays (stapbpf_maps.c).
 */
#ifndef STAPBPF_MAPS_H
#define STAPBPF_MAPS_H

#include <stdbool.h>
#include <stdio.h>

struct bpf_object;
struct stapbpf_usyms;

/* print array `name` (map sym: values of vtype l, s or t, keys of kinds
 * "ls...") as the module runtime's exit display does, the user symbols
 * of its strings named (U) */
void stapbpf_display_array(struct bpf_object *obj, FILE *out, struct stapbpf_usyms *U,
			   const char *name, const char *sym, char vtype, const char *kinds,
			   int maxstr);

/* print(@hist_log(s)) / @hist_linear of scalar statistic map sym, or of
 * the row of map key key of an array's (the statistic at voff in it) */
void stapbpf_print_hist(struct bpf_object *obj, FILE *out, const char *sym, int kind,
			long long lo, long long hi, long long step, int nb,
			const void *key, size_t voff);

#endif /* STAPBPF_MAPS_H */
