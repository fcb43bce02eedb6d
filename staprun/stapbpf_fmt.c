/*
 * stapbpf_fmt.c - the BPF loader's printf conversions and histograms:
 * runtime/stp_fmt.c, the kernel runtime's formatting core, compiled in
 * user space over a stdio sink, so both runtimes print the same bytes.
 */
#include <ctype.h>
#include <stdbool.h>
#include <string.h>

#include "stapbpf_fmt.h"

typedef uint64_t u64;
typedef int64_t s64;

#define min(a, b) ((a) < (b) ? (a) : (b))
#define max(a, b) ((a) > (b) ? (a) : (b))
#define min_t(t, a, b) ((t)(a) < (t)(b) ? (t)(a) : (t)(b))
#define div64_s64(a, b) ((int64_t)(a) / (int64_t)(b))
#define div_u64(a, b) ((uint64_t)(a) / (b))
#define S64_MIN INT64_MIN
#define fallthrough __attribute__((__fallthrough__))
#define STP_BUFFER_SIZE 8192	/* as runtime/stp_defines.h */

static void stp_put(struct stp_sink *s, const char *p, size_t n)
{
	fwrite(p, 1, n, s->f);
}

#define STP_SINK_UNCAPPED(sk) ((void)(sk))	/* stdio: never capped */

#include "../runtime/stp_fmt.c"
