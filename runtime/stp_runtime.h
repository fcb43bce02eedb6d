/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stp_runtime.h - types and API that generated modules and embedded C use.
 * README.md in this directory is the contract; keep the two in sync.
 */
#ifndef STP_RUNTIME_H
#define STP_RUNTIME_H

#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/types.h>
#include <linux/string.h>

#include "stp_defines.h"
#include "compat.h"
#include "stp_msgs.h"

enum stp_probe_kind {
	STP_PROBE_BEGIN,
	STP_PROBE_END,
	STP_PROBE_TIMER,
};

struct stp_context {
	/* public: generated code and embedded C */
	void *locals;			/* STP_LOCALS_SIZE bytes, zeroed per run */
	const char *probe_point;	/* the running probe's pp */
	const char *last_error;		/* set to abort the handler */
	const char *last_stmt;		/* where the error happened */
	char error_buffer[MAXSTRINGLEN];
	int64_t actionremaining;	/* statement budget */
	int nesting;			/* call depth */
	/* private: the runtime */
	atomic_t busy;
};

struct stp_probe {
	enum stp_probe_kind kind;
	void (*handler)(struct stp_context *c);
	const char *pp;
	int64_t order;			/* begin/end: run order */
	u64 period_ns;			/* timer: period */
};

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

struct stp_print_buf;

/* where formatted output goes: this CPU's print buffer or a string */
struct stp_sink {
	struct stp_print_buf *pb;	/* print sink, else NULL */
	char *dst;			/* string sink: MAXSTRINGLEN bytes */
	size_t len;			/* string sink: bytes used */
};

void stp_sink_print(struct stp_sink *s);
void stp_sink_string(struct stp_sink *s, char *dst);
void stp_emit_lit(struct stp_sink *s, const char *p, size_t n);
void stp_emit_long(struct stp_sink *s, int64_t v, const struct stp_spec *sp);
void stp_emit_str(struct stp_sink *s, const char *v, const struct stp_spec *sp);
void stp_print_str(const char *s);
void stp_print_long(int64_t v);

int64_t stp_div(struct stp_context *c, int64_t a, int64_t b);
int64_t stp_mod(struct stp_context *c, int64_t a, int64_t b);
void stp_str_copy(char *dst, const char *src);
void stp_str_cat(char *dst, const char *src);

void stp_exit(void);
__printf(1, 2) void stp_error_msg(const char *fmt, ...);
__printf(1, 2) void stp_warn_msg(const char *fmt, ...);

#endif /* STP_RUNTIME_H */
