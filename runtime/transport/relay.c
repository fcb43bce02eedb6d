/* SPDX-License-Identifier: GPL-2.0 */
/*
 * relay.c - per-CPU relay channel carrying script output to stapio.
 *
 * Files /sys/kernel/debug/stap/<module>/trace<cpu>. Each record is a
 * struct stp_trace_hdr with a global sequence number, then the data.
 * While stapio reads, the channel never overwrites: when a CPU's buffer is
 * full the record is dropped and counted (stapio sees the gap in the
 * sequence). While no stapio is attached (staprun -L, a detach, a dead
 * stapio) it overwrites the oldest sub-buffer instead, so that the newest
 * output survives for the next staprun -A: a flight recorder.
 *
 * A reader on another CPU must never see a reserved but half-written
 * record, so the trace files wrap relay's read(): each CPU counts the
 * bytes it has completely written ("committed") and a read() returns at
 * most the committed bytes not yet delivered.
 */
#include <linux/mm.h>
#include <linux/relay.h>
#include <linux/debugfs.h>

static uint _stp_bufsize;
module_param(_stp_bufsize, uint, 0400);
MODULE_PARM_DESC(_stp_bufsize, "relay buffer bytes per CPU (0: default)");

struct stp_relay_cpu {
	u64 committed;		/* bytes fully written (writer CPU only) */
	u64 lost;		/* of those, overwritten unread (writer CPU only) */
	u64 delivered;		/* bytes handed to read() */
	struct mutex read_lock;
};

static struct rchan *stp_chan;
static struct stp_relay_cpu *stp_relay_cpus;	/* nr_cpu_ids entries */
static atomic_t stp_seq = ATOMIC_INIT(0);
static atomic_t stp_relay_dropped = ATOMIC_INIT(0);
static bool stp_relay_overwrite;	/* no reader: flight-recorder mode */
static struct file_operations stp_trace_fops;

/* Append one record (header MAGIC) from probe context (preemption is off). */
static void stp_relay_put(__u32 magic, const char *data, size_t len)
{
	struct stp_relay_cpu *rc = &stp_relay_cpus[smp_processor_id()];
	struct stp_trace_hdr h = { .magic = magic, .len = len };
	unsigned long flags;
	char *p;

	local_irq_save(flags);
	h.seq = atomic_inc_return(&stp_seq);
	p = stp_chan ? relay_reserve(stp_chan, sizeof(h) + len) : NULL;
	if (p) {
		memcpy(p, &h, sizeof(h));
		if (len)
			memcpy(p + sizeof(h), data, len);
		smp_store_release(&rc->committed, rc->committed + sizeof(h) + len);
	} else {
		atomic_inc(&stp_relay_dropped);
	}
	local_irq_restore(flags);
}

static void stp_relay_write(const char *data, size_t len)
{
	stp_relay_put(STP_TRACE_MAGIC, data, len);
}

static ssize_t stp_trace_read(struct file *f, char __user *ubuf, size_t count,
			      loff_t *ppos)
{
	struct rchan_buf *buf = f->private_data;
	struct stp_relay_cpu *rc = &stp_relay_cpus[buf->cpu];
	u64 avail;
	ssize_t n;

	mutex_lock(&rc->read_lock);
	avail = smp_load_acquire(&rc->committed) - rc->delivered;
	avail -= min(avail, READ_ONCE(rc->lost));	/* relay skips those */
	n = 0;
	if (avail)
		n = relay_file_operations.read(f, ubuf, min_t(u64, count, avail),
					       ppos);
	if (n > 0)
		rc->delivered += n;
	mutex_unlock(&rc->read_lock);
	return n;
}

/*
 * Switching into the next sub-buffer. With a reader: never into an unread
 * one. Without (overwrite mode): into the oldest unread one, whose unread
 * data bytes are counted as lost, since relay's read() skips them; the
 * writer's CPU, as for committed. Relay has not yet reset the padding of
 * that sub-buffer (subbufs_produced % n) for its new use.
 */
static int stp_subbuf_start(struct rchan_buf *buf, void *subbuf,
			    void *prev_subbuf, size_t prev_padding)
{
	struct stp_relay_cpu *rc = &stp_relay_cpus[buf->cpu];
	size_t n = buf->chan->n_subbufs;
	size_t idx = buf->subbufs_produced % n;
	u64 lost;

	if (!relay_buf_full(buf))
		return 1;
	if (!READ_ONCE(stp_relay_overwrite))
		return 0;
	lost = buf->chan->subbuf_size - buf->padding[idx];
	if (buf->subbufs_produced - buf->subbufs_consumed == n)
		lost -= min_t(u64, lost, buf->bytes_consumed);	/* read before */
	WRITE_ONCE(rc->lost, rc->lost + lost);
	return 1;
}

/* No reader (true) or a reader again (false); process context. */
static void stp_relay_set_overwrite(bool on)
{
	WRITE_ONCE(stp_relay_overwrite, on);
}

static struct dentry *stp_create_buf_file(const char *filename,
					  struct dentry *parent, umode_t mode,
					  struct rchan_buf *buf, int *is_global)
{
	struct dentry *d;

	d = debugfs_create_file(filename, 0400, parent, buf, &stp_trace_fops);
	return IS_ERR(d) ? NULL : d;
}

static int stp_remove_buf_file(struct dentry *dentry)
{
	debugfs_remove(dentry);
	return 0;
}

static STP_RELAY_CB_CONST struct rchan_callbacks stp_relay_cb = {
	.subbuf_start = stp_subbuf_start,
	.create_buf_file = stp_create_buf_file,
	.remove_buf_file = stp_remove_buf_file,
};

static size_t stp_relay_subbuf_size(void)
{
	size_t total = _stp_bufsize ? _stp_bufsize : STP_DEFAULT_BUFSIZE;
	size_t min = sizeof(struct stp_trace_hdr) + STP_BUFFER_SIZE;

	return PAGE_ALIGN(max(total / STP_RELAY_NSUBBUFS, min));
}

static int stp_relay_init(struct dentry *dir)
{
	unsigned int cpu;

	stp_relay_cpus = kcalloc(nr_cpu_ids, sizeof(*stp_relay_cpus),
				 GFP_KERNEL);
	if (!stp_relay_cpus)
		return -ENOMEM;
	for (cpu = 0; cpu < nr_cpu_ids; cpu++)
		mutex_init(&stp_relay_cpus[cpu].read_lock);
	stp_trace_fops = relay_file_operations;
	stp_trace_fops.owner = THIS_MODULE;
	stp_trace_fops.read = stp_trace_read;
	stp_chan = relay_open(STP_TRACE_PREFIX, dir, stp_relay_subbuf_size(),
			      STP_RELAY_NSUBBUFS, &stp_relay_cb, NULL);
	return stp_chan ? 0 : -ENOMEM;
}

static void stp_relay_exit(void)
{
	if (stp_chan)
		relay_close(stp_chan);
	stp_chan = NULL;
	kfree(stp_relay_cpus);
	stp_relay_cpus = NULL;
}
