/*
 * stapbpf_fmt.h - the BPF loader's output formatting (stapbpf_fmt.c):
 * the kernel runtime's formatting core (runtime/stp_fmt.c) compiled in
 * user space, writing to a stdio stream.
 */
#ifndef STAPBPF_FMT_H
#define STAPBPF_FMT_H

#include <stdint.h>
#include <stdio.h>

typedef uint8_t u8;
#include "../runtime/stp_fmt.h"

/* where formatted output goes */
struct stp_sink {
	FILE *f;
};

void stp_emit_long(struct stp_sink *s, int64_t v, const struct stp_spec *sp);
void stp_emit_str(struct stp_sink *s, const char *v, const struct stp_spec *sp);
void stp_emit_bin(struct stp_sink *s, int64_t v, const struct stp_spec *sp);
void stp_stat_print_hist(struct stp_sink *sk, const struct stp_stat *st,
			 const struct stp_stat_spec *ss);

#endif /* STAPBPF_FMT_H */
