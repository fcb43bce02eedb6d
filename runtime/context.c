/* SPDX-License-Identifier: GPL-2.0 */
/*
 * context.c - probe entry and exit: the per-CPU context, re-entrancy,
 * error reporting and the error/skip limits; arithmetic and string
 * helpers used by handlers.
 */
#include <linux/slab.h>
#include <linux/vmalloc.h>

static struct stp_context **stp_contexts;	/* nr_cpu_ids entries */
static atomic_t stp_error_count = ATOMIC_INIT(0);
static atomic_t stp_skipped_count = ATOMIC_INIT(0);
static atomic_t stp_reentrant_count = ATOMIC_INIT(0);

static void stp_request_exit(void);

/* Queue "PREFIX: text\n" (newline added if missing); any context. */
static __printf(2, 0) void stp_vmsg(const char *prefix, const char *fmt,
				    va_list ap)
{
	char buf[MAXSTRINGLEN + 64];
	int n;

	n = scnprintf(buf, sizeof(buf), "%s", prefix);
	n += vscnprintf(buf + n, sizeof(buf) - n, fmt, ap);
	if (n && buf[n - 1] != '\n' && n < sizeof(buf) - 1)
		buf[n++] = '\n';
	stp_ctl_queue(STP_MSG_OOB, buf, n);
}

void stp_error_msg(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	stp_vmsg("ERROR: ", fmt, ap);
	va_end(ap);
}

void stp_warn_msg(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	stp_vmsg("WARNING: ", fmt, ap);
	va_end(ap);
}

/* A handler set c->last_error: report it; too many errors end the run. */
static void stp_report_error(struct stp_context *c)
{
	if (c->last_stmt && c->last_stmt[0])
		stp_error_msg("%s near %s", c->last_error, c->last_stmt);
	else
		stp_error_msg("%s", c->last_error);
	if (atomic_inc_return(&stp_error_count) > MAXERRORS)
		stp_request_exit();
}

static void stp_check_skipped(void)
{
	static atomic_t reported = ATOMIC_INIT(0);

	if (atomic_read(&stp_skipped_count) <= MAXSKIPPED)
		return;
	if (atomic_cmpxchg(&reported, 0, 1))
		return;
	stp_error_msg("Skipped too many probes, check MAXSKIPPED or try again with stap -t for more details.");
	stp_request_exit();
}

/* Run one handler on this CPU's context. Any context; never sleeps. */
static void stp_run_probe(const struct stp_probe *p)
{
	struct stp_context *c;

	preempt_disable();
	c = stp_contexts[smp_processor_id()];
	if (atomic_cmpxchg(&c->busy, 0, 1)) {
		atomic_inc(&stp_reentrant_count);
		goto out;
	}
	memset(c->locals, 0, STP_LOCALS_SIZE);
	c->probe_point = p->pp;
	c->last_error = NULL;
	c->last_stmt = NULL;
	c->actionremaining = MAXACTION_INTERRUPTIBLE;
	c->nesting = 0;
	p->handler(c);
	if (unlikely(c->last_error))
		stp_report_error(c);
	stp_check_skipped();
	stp_print_flush_this_cpu();
	atomic_set(&c->busy, 0);
out:
	preempt_enable();
}

int64_t stp_div(struct stp_context *c, int64_t a, int64_t b)
{
	if (unlikely(b == 0)) {
		c->last_error = "division by 0";
		return 0;
	}
	if (unlikely(b == -1))
		return (int64_t)(0 - (u64)a);	/* INT64_MIN / -1 wraps */
	return div64_s64(a, b);
}

int64_t stp_mod(struct stp_context *c, int64_t a, int64_t b)
{
	s64 q;

	if (unlikely(b == 0)) {
		c->last_error = "division by 0";
		return 0;
	}
	if (unlikely(b == -1))
		return 0;
	q = div64_s64(a, b);
	return a - q * b;
}

void stp_str_copy(char *dst, const char *src)
{
	strscpy(dst, src, MAXSTRINGLEN);
}

void stp_str_cat(char *dst, const char *src)
{
	size_t n = strnlen(dst, MAXSTRINGLEN - 1);

	strscpy(dst + n, src, MAXSTRINGLEN - n);
}

static int stp_context_init(void)
{
	unsigned int cpu;
	struct stp_context *c;

	stp_contexts = kcalloc(nr_cpu_ids, sizeof(*stp_contexts), GFP_KERNEL);
	if (!stp_contexts)
		return -ENOMEM;
	for_each_possible_cpu(cpu) {
		c = kzalloc(sizeof(*c), GFP_KERNEL);
		if (!c)
			return -ENOMEM;
		stp_contexts[cpu] = c;
		c->locals = kvzalloc(STP_LOCALS_SIZE, GFP_KERNEL);
		if (!c->locals)
			return -ENOMEM;
	}
	return 0;
}

static void stp_context_exit(void)
{
	unsigned int cpu;

	if (!stp_contexts)
		return;
	for_each_possible_cpu(cpu) {
		if (stp_contexts[cpu])
			kvfree(stp_contexts[cpu]->locals);
		kfree(stp_contexts[cpu]);
	}
	kfree(stp_contexts);
	stp_contexts = NULL;
}
