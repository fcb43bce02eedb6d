/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stp_fmt.h - the types of the formatting core (stp_fmt.c) shared by the
 * kernel runtime (stp_runtime.h includes this) and the BPF loader
 * (staprun/stapbpf_fmt.c): a printf conversion and a statistic with its
 * histogram. The includer defines u8 and int64_t first.
 */
#ifndef STP_FMT_H
#define STP_FMT_H

/* printf conversion spec; width and prec are -1 when absent */
struct stp_spec {
	char conv;
	u8 flags;
	int width;
	int prec;
};

#define STP_F_LEFT	0x01	/* '-' */
#define STP_F_PLUS	0x02	/* '+' */
#define STP_F_SPACE	0x04	/* ' ' */
#define STP_F_ALT	0x08	/* '#' */
#define STP_F_ZERO	0x10	/* '0' */

#define STP_HIST_NONE	0
#define STP_HIST_LOG	1
#define STP_HIST_LINEAR	2

struct stp_stat_spec {
	int hist;		/* STP_HIST_NONE, _LOG, _LINEAR */
	int64_t lo, hi, step;	/* linear */
	int shift;		/* @variance(s, shift): the largest used */
	int variance;		/* @variance used: keep the running variance */
};

/* A statistic's data (one CPU's, a merged snapshot, or an array value). */
struct stp_stat {
	int64_t count, sum, min, max;
	int64_t avg_s, m2, variance_s;	/* scaled by 2^shift */
	int shift;
	int nbuckets;			/* 0: no histogram */
	int64_t hist[];
};

#endif /* STP_FMT_H */
