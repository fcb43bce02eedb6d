/* SPDX-License-Identifier: GPL-2.0 */
/*
 * control.c - the debugfs control file .cmd between the module and stapio.
 *
 * Module -> stapio messages go through a fixed byte ring (no allocation),
 * so they can be queued from any context, probes included. Queuing never
 * wakes the reader; process-context callers and the 20 ms control timer
 * (session.c) do that. Each read() returns one message. Each write() from
 * stapio is one message, handled in the writer's process context.
 */
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/poll.h>
#include <linux/spinlock.h>
#include <linux/uaccess.h>
#include <linux/wait.h>

static void stp_session_start_cmd(void);
static void stp_session_quiesce_cmd(void);
static void stp_session_stop_cmd(bool reply);
static void stp_session_attach(void);
static void stp_session_detach(void);

static struct {
	spinlock_t lock;
	size_t head;		/* next byte to read */
	size_t used;		/* bytes queued */
	unsigned int dropped;	/* messages that did not fit */
	char ring[STP_CTL_QUEUE_SIZE];
} stp_ctl_q = { .lock = __SPIN_LOCK_UNLOCKED(stp_ctl_q.lock) };

static DECLARE_WAIT_QUEUE_HEAD(stp_ctl_wq);
static atomic_t stp_ctl_opened = ATOMIC_INIT(0);
static DEFINE_MUTEX(stp_ctl_mutex);	/* serialises stapio's commands */

static void stp_ring_copy_in(size_t pos, const void *p, size_t n)
{
	size_t first = min(n, (size_t)STP_CTL_QUEUE_SIZE - pos);

	memcpy(stp_ctl_q.ring + pos, p, first);
	memcpy(stp_ctl_q.ring, (const char *)p + first, n - first);
}

static void stp_ring_copy_out(void *p, size_t pos, size_t n)
{
	size_t first = min(n, (size_t)STP_CTL_QUEUE_SIZE - pos);

	memcpy(p, stp_ctl_q.ring + pos, first);
	memcpy((char *)p + first, stp_ctl_q.ring, n - first);
}

/* Room kept for the session's own messages (START and EXIT replies, the
 * exit request): a script flooding the queue with warnings or system()
 * commands, while stapio waits in write() for the begin or end probes,
 * must not crowd out the reply it waits for. */
#define STP_CTL_RESERVE 128

/* Queue one message; any context. Returns 0, -ENOSPC or (NMI) -EBUSY.
 * No wakeup. */
static int stp_ctl_queue(u32 type, const void *data, size_t len)
{
	struct stp_msg_hdr h = { .type = type };
	size_t room = STP_CTL_QUEUE_SIZE;
	unsigned long flags;
	size_t tail;
	int rc = 0;

	if (type != STP_MSG_START && type != STP_MSG_EXIT &&
	    type != STP_MSG_REQUEST_EXIT && type != STP_MSG_TRANSPORT)
		room -= STP_CTL_RESERVE;

	len = min(len, (size_t)STP_MSG_MAX - sizeof(h));
	h.len = len;
	if (in_nmi()) {
		/* a perf probe in NMI may have interrupted the lock's holder on
		 * this CPU: never wait there; the message is lost instead */
		if (!spin_trylock_irqsave(&stp_ctl_q.lock, flags))
			return -EBUSY;
	} else {
		spin_lock_irqsave(&stp_ctl_q.lock, flags);
	}
	if (stp_ctl_q.used + sizeof(h) + len > room) {
		stp_ctl_q.dropped++;
		rc = -ENOSPC;
	} else {
		tail = (stp_ctl_q.head + stp_ctl_q.used) % STP_CTL_QUEUE_SIZE;
		stp_ring_copy_in(tail, &h, sizeof(h));
		tail = (tail + sizeof(h)) % STP_CTL_QUEUE_SIZE;
		stp_ring_copy_in(tail, data, len);
		stp_ctl_q.used += sizeof(h) + len;
	}
	spin_unlock_irqrestore(&stp_ctl_q.lock, flags);
	return rc;
}

/* How many messages did not fit since the last call (they were dropped). */
static unsigned int stp_ctl_take_dropped(void)
{
	unsigned long flags;
	unsigned int n;

	spin_lock_irqsave(&stp_ctl_q.lock, flags);
	n = stp_ctl_q.dropped;
	stp_ctl_q.dropped = 0;
	spin_unlock_irqrestore(&stp_ctl_q.lock, flags);
	return n;
}

static bool stp_ctl_pending(void)
{
	return READ_ONCE(stp_ctl_q.used) != 0;
}

/* Wake stapio if messages wait; process or timer context only. */
static void stp_ctl_wakeup(void)
{
	if (stp_ctl_pending())
		wake_up_interruptible(&stp_ctl_wq);
}

/* Queue from process context and wake the reader at once. */
static int stp_ctl_send(u32 type, const void *data, size_t len)
{
	int rc = stp_ctl_queue(type, data, len);

	wake_up_interruptible(&stp_ctl_wq);
	return rc;
}

/* Take the oldest message into buf (STP_MSG_MAX bytes); returns its size. */
static size_t stp_ctl_dequeue(char *buf)
{
	struct stp_msg_hdr h;
	unsigned long flags;
	size_t n = 0;

	spin_lock_irqsave(&stp_ctl_q.lock, flags);
	if (stp_ctl_q.used) {
		stp_ring_copy_out(&h, stp_ctl_q.head, sizeof(h));
		n = sizeof(h) + h.len;
		stp_ring_copy_out(buf, stp_ctl_q.head, n);
		stp_ctl_q.head = (stp_ctl_q.head + n) % STP_CTL_QUEUE_SIZE;
		stp_ctl_q.used -= n;
	}
	spin_unlock_irqrestore(&stp_ctl_q.lock, flags);
	return n;
}

static ssize_t stp_ctl_read(struct file *f, char __user *ubuf, size_t count,
			    loff_t *ppos)
{
	char *buf;
	size_t n;
	int rc;

	if (count < STP_MSG_MAX)
		return -EINVAL;	/* a message must fit whole */
	buf = kmalloc(STP_MSG_MAX, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	for (;;) {
		n = stp_ctl_dequeue(buf);
		if (n)
			break;
		rc = -EAGAIN;
		if (f->f_flags & O_NONBLOCK)
			goto out;
		rc = wait_event_interruptible(stp_ctl_wq, stp_ctl_pending());
		if (rc)
			goto out;
	}
	rc = copy_to_user(ubuf, buf, n) ? -EFAULT : n;
out:
	kfree(buf);
	return rc;
}

static ssize_t stp_ctl_write(struct file *f, const char __user *ubuf,
			     size_t count, loff_t *ppos)
{
	struct stp_msg_hdr h;

	if (count < sizeof(h) || count > STP_MSG_MAX)
		return -EINVAL;
	if (copy_from_user(&h, ubuf, sizeof(h)))
		return -EFAULT;
	mutex_lock(&stp_ctl_mutex);
	switch (h.type) {
	case STP_MSG_START:
		stp_session_start_cmd();
		break;
	case STP_MSG_QUIESCE:
		stp_session_quiesce_cmd();
		break;
	case STP_MSG_EXIT:
		stp_session_stop_cmd(true);
		break;
	default:
		break;		/* unknown messages are ignored */
	}
	mutex_unlock(&stp_ctl_mutex);
	return count;
}

static __poll_t stp_ctl_poll(struct file *f, poll_table *wait)
{
	poll_wait(f, &stp_ctl_wq, wait);
	return EPOLLOUT | EPOLLWRNORM |
	       (stp_ctl_pending() ? EPOLLIN | EPOLLRDNORM : 0);
}

/* One stapio at a time (another one gets EBUSY); each one is sent
 * STP_MSG_TRANSPORT, saying what the session's state is. */
static int stp_ctl_open(struct inode *inode, struct file *f)
{
	int rc;

	if (atomic_cmpxchg(&stp_ctl_opened, 0, 1))
		return -EBUSY;
	rc = nonseekable_open(inode, f);
	if (rc) {
		atomic_set(&stp_ctl_opened, 0);
		return rc;
	}
	stp_stapio_pid = current->tgid;
	mutex_lock(&stp_ctl_mutex);
	stp_session_attach();
	mutex_unlock(&stp_ctl_mutex);
	return 0;
}

/*
 * stapio went away without ending the session (staprun -L, SIGQUIT, a
 * kill -9): the module keeps running, its output in the relay buffers in
 * overwrite mode, until the next stapio (staprun -A) or staprun -d.
 */
static int stp_ctl_release(struct inode *inode, struct file *f)
{
	mutex_lock(&stp_ctl_mutex);
	stp_session_detach();
	mutex_unlock(&stp_ctl_mutex);
	atomic_set(&stp_ctl_opened, 0);
	return 0;
}

static const struct file_operations stp_ctl_fops = {
	.owner = THIS_MODULE,
	.open = stp_ctl_open,
	.release = stp_ctl_release,
	.read = stp_ctl_read,
	.write = stp_ctl_write,
	.poll = stp_ctl_poll,
	.llseek = no_llseek,
};

static int stp_ctl_init(struct dentry *dir)
{
	struct dentry *d;

	d = debugfs_create_file(STP_CTL_FILE, 0600, dir, NULL, &stp_ctl_fops);
	return IS_ERR(d) ? PTR_ERR(d) : 0;
}
