// SPDX-License-Identifier: GPL-2.0
/*
 * stap-merge.c - merge the per-CPU files of a bulk-mode session (stap -b:
 * stpd_cpuN, or FILE_N with -o FILE) into the script's output, in the
 * order the module wrote it: each file is a stream of records (struct
 * stp_trace_hdr, then its bytes, runtime/transport/stp_msgs.h), and the
 * record with the lowest sequence number among the files' next ones goes
 * first.
 *
 *   stap-merge [-v] [-o OUTPUT] FILE...
 *
 * -v puts "[CPU,SEQUENCE,LENGTH]" before each record's data, as 4.8's
 * stap-merge does; CPU is the file's place on the command line.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "stp_msgs.h"

struct input {
	FILE *f;
	const char *name;
	struct stp_trace_hdr h;	/* its next record's header */
	bool more;
};

/* Sequence numbers wrap: a comes before b when b - a is small. */
static bool seq_before(__u32 a, __u32 b)
{
	return (__s32)(a - b) < 0;
}

/* The next record's header of in (in->more false at the end); -1 on a
 * damaged file. */
static int next_header(struct input *in)
{
	size_t n = fread(&in->h, 1, sizeof(in->h), in->f);

	in->more = n == sizeof(in->h);
	if (!in->more)
		return n ? -1 : 0;
	if (in->h.magic != STP_TRACE_MAGIC && in->h.magic != STP_TRACE_SWITCH)
		return -1;
	return 0;
}

/* Copy the record's bytes (none for a switch_file() marker). */
static int copy_record(struct input *in, FILE *out, int cpu, bool verbose)
{
	char buf[65536];
	__u32 left = in->h.len;

	if (in->h.magic == STP_TRACE_SWITCH)
		return 0;
	if (verbose)
		fprintf(out, "[%d,%u,%u]", cpu, in->h.seq, in->h.len);
	while (left) {
		size_t want = left < sizeof(buf) ? left : sizeof(buf);

		if (fread(buf, 1, want, in->f) != want)
			return -1;
		fwrite(buf, 1, want, out);
		left -= (__u32)want;
	}
	return 0;
}

static int merge(struct input *in, int n, FILE *out, bool verbose)
{
	for (;;) {
		int best = -1;

		for (int i = 0; i < n; i++)
			if (in[i].more && (best < 0 || seq_before(in[i].h.seq, in[best].h.seq)))
				best = i;
		if (best < 0)
			return 0;
		if (copy_record(&in[best], out, best, verbose) || next_header(&in[best])) {
			fprintf(stderr, "stap-merge: %s: not a bulk-mode file, or cut short\n",
				in[best].name);
			return 1;
		}
	}
}

static int usage(void)
{
	fputs("Usage: stap-merge [-v] [-o OUTPUT] FILE...\n", stderr);
	return 1;
}

int main(int argc, char **argv)
{
	FILE *out = stdout;
	bool verbose = false;
	struct input *in;
	int c, n, rc;

	while ((c = getopt(argc, argv, "vo:")) != -1) {
		if (c == 'v') {
			verbose = true;
		} else if (c == 'o') {
			out = fopen(optarg, "w");
			if (!out) {
				fprintf(stderr, "stap-merge: cannot write %s: %s\n", optarg,
					strerror(errno));
				return 1;
			}
		} else {
			return usage();
		}
	}
	n = argc - optind;
	if (n < 1)
		return usage();
	in = calloc((size_t)n, sizeof(*in));
	if (!in)
		return 1;
	for (int i = 0; i < n; i++) {
		in[i].name = argv[optind + i];
		in[i].f = fopen(in[i].name, "r");
		if (!in[i].f || next_header(&in[i])) {
			fprintf(stderr, "stap-merge: %s: %s\n", in[i].name,
				in[i].f ? "not a bulk-mode file" : strerror(errno));
			return 1;
		}
	}
	rc = merge(in, n, out, verbose);
	if (fclose(out) && !rc) {
		fprintf(stderr, "stap-merge: cannot write the output: %s\n", strerror(errno));
		rc = 1;
	}
	for (int i = 0; i < n; i++)
		fclose(in[i].f);
	free(in);
	return rc;
}
