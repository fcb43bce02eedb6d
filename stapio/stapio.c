// SPDX-License-Identifier: GPL-2.0
/*
 * stapio.c - drive a loaded module's session and copy its output.
 *
 *   stapio [-v] [-w] [-i] [-L|-A] [-T MS] [-o FILE [-S SIZE[,N]]] [-t PID -F FD] MODULE_NAME
 *
 * Opens /sys/kernel/debug/stap/<module>/.cmd, waits for TRANSPORT, opens
 * the per-CPU relay files, sends START and then polls. Records from the
 * relay files are written in global sequence order; control messages
 * carry warnings and errors for stderr. On REQUEST_EXIT or a signal it
 * sends EXIT, waits for the reply, drains the relay files, unloads the
 * module and exits 1 if the module reported an error, else 0.
 * With -t PID -F FD (staprun -c), the command PID waits for a byte on FD:
 * it is sent once the probes have started, and the command's end is an
 * exit request.
 * system() in the script: a SYSTEM message; the output read so far is
 * written, then the command starts (/bin/sh -c) without being waited for;
 * stapio reaps it, and waits for all of them before it exits.
 * With -i (input.char, input.line), stdin is forwarded once the probes
 * have started, one byte per write(), to the module's procfs file
 * /proc/systemtap/<module>/__stdin.
 * Output files (-o, as 4.8 names them; FILE is a strftime(3) format of the
 * time each one is opened): FILE, then FILE.1, FILE.2 ... at
 * each switch_file() (a marker record in the output); with -S SIZE[,N]
 * FILE.0, FILE.1 ..., switching also before a record that would take the
 * file past SIZE MiB, and removing the oldest files beyond the last N.
 * SIGUSR2 switches too, once the output read so far is written.
 * Flight recorder: -L detaches once the begin probes have run, leaving
 * the module running (its output kept in its buffers, the newest
 * surviving); -A attaches to such a module (or one whose stapio died):
 * the buffered output, then the live one, and a session ended as a normal
 * one is. SIGQUIT detaches. -w drops warnings, -T sets the poll timeout.
 */
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "stp_msgs.h"

#define DEBUGFS_MOUNT "/sys/kernel/debug"
#define DEBUGFS_MAGIC_NR 0x64626720
#define POLL_MS 20		/* relay wakes readers only per sub-buffer */
#define GAP_TIMEOUT_MS 250	/* a sequence gap this old is a loss */
#define READ_CHUNK 65536	/* bytes per read() of a relay file */
#define READ_PER_PASS 4		/* read()s per relay file per loop pass */
#define PENDING_MAX (4u << 20)	/* bytes held for ordering: then gaps go */
#define RECORD_OVERHEAD 48	/* a record's malloc and heap slot */
#define DRAIN_MS 2000		/* longest wait for the relay files to empty */

struct record {
	__u32 seq;
	__u32 len;
	bool switch_file;	/* STP_TRACE_SWITCH marker, no data */
	char *data;
};

struct trace_file {
	int fd;
	char *buf;		/* bytes read, not yet a whole record */
	size_t len, cap;
	FILE *bulk;		/* stap -b: this CPU's records go here as read */
};

static struct {
	int verbose;
	const char *outfile;
	const char *module;
	FILE *out;
	unsigned long long fsize_max;	/* -S: bytes per file, 0 = no limit */
	unsigned long fnum_max;	/* -S: files kept, 0 = all */
	unsigned long fnum;	/* number of the current output file */
	unsigned long long wsize;	/* bytes written to it */
	char **kept;		/* -S SIZE,N: names of the last N files */
	size_t nkept;
	bool stop;		/* a failure: end the session */
	int ctl_fd;
	struct trace_file *trace;
	unsigned int ntrace;
	struct record *heap;	/* min-heap on seq */
	size_t nheap, capheap;
	size_t pending;		/* bytes in the heap, overhead included */
	size_t peak_pending, peak_nheap;	/* for -v */
	__u32 next_seq;
	double gap_since;	/* when the current gap was first seen */
	bool error_seen;
	bool quiesced;		/* QUIESCE sent, relay files emptied */
	bool exit_sent;
	bool exit_done;
	bool started;
	bool exit_requested;	/* REQUEST_EXIT before TRANSPORT (-A) */
	bool transport_seen;
	bool load_only;		/* -L */
	bool attach;		/* -A */
	bool detach;		/* -L started, or SIGQUIT: leave it running */
	bool seq_unknown;	/* -A: the first record's seq starts the order */
	bool bulk;		/* stap -b (STP_TRANSPORT_BULK) */
	bool no_warnings;	/* -w */
	bool daemon;		/* -D */
	int poll_ms;		/* -T */
	pid_t cmd_pid;		/* -t: staprun -c's command, until it ends */
	int release_fd;		/* -F: written once to let it run */
	bool forward_stdin;	/* -i */
	int stdin_fd;		/* the module's __stdin file, or -1 */
	pid_t *children;	/* system() commands not yet reaped */
	size_t nchildren, capchildren;
} io = { .next_seq = 1, .ctl_fd = -1, .release_fd = -1, .stdin_fd = -1,
	  .poll_ms = POLL_MS };

static volatile sig_atomic_t got_signal;
static volatile sig_atomic_t got_usr2;	/* SIGUSR2: next output file */
static volatile sig_atomic_t got_quit;	/* SIGQUIT: detach */

/*
 * Only main() exits: helpers print "ERROR: ..." with error_msg() and
 * return -1 (or NULL), and main() turns that into exit status 1.
 */
__attribute__((format(printf, 1, 2)))
static int error_msg(const char *fmt, ...)
{
	va_list ap;

	fputs("ERROR: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return -1;
}

/*
 * Run by a setuid-root staprun for a member of a stap group (staprun's
 * privilege.c): the user's identity (the effective uid) for all but the
 * module's files and its removal, so that -o's files, system() and the
 * commands are the user's; root (the saved uid) comes back only for
 * those. A no-op for root and when not setuid.
 */
static void as_root(bool on)
{
	if (getuid() == 0 || (geteuid() == 0) == on)
		return;
	if (seteuid(on ? 0 : getuid()) && !on)
		_exit(1);	/* never go on as root */
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* realloc() that reports failure; on NULL the old block is untouched. */
static void *xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n);

	if (!q)
		error_msg("out of memory");
	return q;
}

/* ---- ordered output ---- */

static bool seq_before(__u32 a, __u32 b)
{
	return (__s32)(a - b) < 0;
}

static void heap_swap(size_t a, size_t b)
{
	struct record t = io.heap[a];

	io.heap[a] = io.heap[b];
	io.heap[b] = t;
}

static int heap_grow(void)
{
	size_t cap = io.capheap ? io.capheap * 2 : 64;
	struct record *heap = xrealloc(io.heap, cap * sizeof(*heap));

	if (!heap)
		return -1;
	io.heap = heap;
	io.capheap = cap;
	return 0;
}

static int heap_push(struct record r)
{
	size_t i = io.nheap;

	if (io.nheap >= io.capheap && heap_grow())
		return -1;
	io.nheap++;
	io.pending += r.len + RECORD_OVERHEAD;
	if (io.pending > io.peak_pending)
		io.peak_pending = io.pending;
	if (io.nheap > io.peak_nheap)
		io.peak_nheap = io.nheap;
	io.heap[i] = r;
	while (i && seq_before(io.heap[i].seq, io.heap[(i - 1) / 2].seq)) {
		heap_swap(i, (i - 1) / 2);
		i = (i - 1) / 2;
	}
	return 0;
}

static struct record heap_pop(void)
{
	struct record top = io.heap[0];
	size_t i = 0, l, m;

	io.pending -= top.len + RECORD_OVERHEAD;
	io.heap[0] = io.heap[--io.nheap];
	for (;;) {
		l = 2 * i + 1;
		m = i;
		if (l < io.nheap && seq_before(io.heap[l].seq, io.heap[m].seq))
			m = l;
		if (l + 1 < io.nheap &&
		    seq_before(io.heap[l + 1].seq, io.heap[m].seq))
			m = l + 1;
		if (m == i)
			break;
		heap_swap(i, m);
		i = m;
	}
	return top;
}

/* ---- output files ---- */

/* The name of output file FNUM (4.8's: FILE, or FILE.N after a switch or
 * with -S), FILE being a strftime(3) format of the local time when the
 * file is opened; NULL if it does not fit. */
static const char *outfile_name(char *buf, size_t size, unsigned long fnum)
{
	time_t now = time(NULL);
	struct tm tm;
	size_t len;
	int n;

	localtime_r(&now, &tm);
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
	len = strftime(buf, size, io.outfile, &tm);
#pragma GCC diagnostic pop
	if (!len) {
		error_msg("Invalid FILE name format");
		return NULL;
	}
	n = 0;
	if (io.fsize_max || fnum)
		n = snprintf(buf + len, size - len, ".%lu", fnum);
	if (n < 0 || (size_t)n >= size - len) {
		error_msg("output file name too long: %s", io.outfile);
		return NULL;
	}
	return buf;
}

/* 4.8's message, with the absolute name. */
static int open_error(const char *name)
{
	int err = errno;
	char cwd[PATH_MAX];

	if (name[0] != '/' && getcwd(cwd, sizeof(cwd)))
		return error_msg("Couldn't open output file %s/%s: %s", cwd, name,
				 strerror(err));
	return error_msg("Couldn't open output file %s: %s", name,
			 strerror(err));
}

/* -S SIZE,N: remember the name of the file just opened, in the slot of
 * the one N files back (whose name switch_outfile() took out). */
static int keep_name(const char *name)
{
	size_t slot = io.fnum % io.fnum_max;
	char **v;

	if (slot >= io.nkept) {
		v = xrealloc(io.kept, (slot + 1) * sizeof(*v));
		if (!v)
			return -1;
		io.kept = v;
		io.kept[io.nkept++] = NULL;
	}
	io.kept[slot] = strdup(name);
	if (!io.kept[slot])
		return error_msg("out of memory");
	return 0;
}

static int open_outfile(void)
{
	char name[PATH_MAX];

	if (!outfile_name(name, sizeof(name), io.fnum))
		return -1;
	io.out = fopen(name, "w");
	io.wsize = 0;
	if (!io.out)
		return open_error(name);
	return io.fnum_max ? keep_name(name) : 0;
}

/* Close the current output file, open the next one; with -S SIZE,N the
 * file N switches back is removed (by the name it was given when opened,
 * as FILE may hold a time). A failure ends the session, the rest of the
 * output going nowhere. */
static void switch_outfile(void)
{
	size_t slot;

	fclose(io.out);
	io.fnum++;
	slot = io.fnum_max ? io.fnum % io.fnum_max : 0;
	if (io.fnum_max && slot < io.nkept && io.kept[slot]) {
		unlink(io.kept[slot]);
		free(io.kept[slot]);
		io.kept[slot] = NULL;
	}
	if (open_outfile() == 0)
		return;
	if (!io.out)
		io.out = fopen("/dev/null", "w");
	io.error_seen = true;
	io.stop = true;
}

static void emit(struct record r)
{
	if (!seq_before(r.seq, io.next_seq))
		io.next_seq = r.seq + 1;
	if (r.switch_file) {
		free(r.data);
		if (io.outfile)
			switch_outfile();
		return;
	}
	if (io.fsize_max && io.wsize && io.wsize + r.len > io.fsize_max)
		switch_outfile();
	if (io.out)
		fwrite(r.data, 1, r.len, io.out);
	io.wsize += r.len;
	free(r.data);
}

/*
 * Write every record that is next in sequence. A gap is a record the
 * module dropped (a full buffer: the module counts them and reports the
 * "transport failures" at the end, as 4.8 does) or one another CPU has
 * not handed over yet: it is skipped once it is GAP_TIMEOUT_MS old, when
 * more than PENDING_MAX bytes wait behind it, or when draining (final).
 * A record that comes after its gap was skipped is written late rather
 * than lost.
 */
static void flush_ordered(bool final)
{
	if (io.seq_unknown && io.nheap) {
		/* -A: what the overwritten buffers kept starts anywhere */
		io.next_seq = io.heap[0].seq;
		io.seq_unknown = false;
	}
	while (io.nheap) {
		__u32 top = io.heap[0].seq;

		if (top != io.next_seq && !seq_before(top, io.next_seq)) {
			if (!io.gap_since)
				io.gap_since = now_ms();
			if (!final && io.pending <= PENDING_MAX &&
			    now_ms() - io.gap_since < GAP_TIMEOUT_MS)
				break;
		}
		io.gap_since = 0;
		emit(heap_pop());
	}
	if (io.out)
		fflush(io.out);
}

/* ---- relay files ---- */

static int parse_records(struct trace_file *t)
{
	struct stp_trace_hdr h;
	size_t off = 0;
	struct record r;

	while (t->len - off >= sizeof(h)) {
		memcpy(&h, t->buf + off, sizeof(h));
		if (h.magic != STP_TRACE_MAGIC && h.magic != STP_TRACE_SWITCH) {
			fprintf(stderr, "WARNING: bad trace record, resyncing\n");
			off++;
			continue;
		}
		if (t->len - off < sizeof(h) + h.len)
			break;
		r.seq = h.seq;
		r.len = h.len;
		r.switch_file = h.magic == STP_TRACE_SWITCH;
		r.data = xrealloc(NULL, h.len ? h.len : 1);
		if (!r.data)
			return -1;
		memcpy(r.data, t->buf + off + sizeof(h), h.len);
		if (heap_push(r)) {
			free(r.data);
			return -1;
		}
		off += sizeof(h) + h.len;
	}
	memmove(t->buf, t->buf + off, t->len - off);
	t->len -= off;
	return 0;
}

/* Room for another READ_CHUNK bytes in T's buffer. */
static int trace_reserve(struct trace_file *t)
{
	size_t cap = t->len + 2 * READ_CHUNK;
	char *buf;

	if (t->cap - t->len >= READ_CHUNK)
		return 0;
	buf = xrealloc(t->buf, cap);
	if (!buf)
		return -1;
	t->buf = buf;
	t->cap = cap;
	return 0;
}

/*
 * Read at most READ_PER_PASS chunks (less when the file runs dry) and
 * hand the whole records to the heap; returns bytes read, or -1. Bounded,
 * so that a flood (the module may be tracing stapio's own read()s, each
 * one making new output) never keeps stapio from writing, from looking
 * at signals or from reading its control channel.
 */
static ssize_t read_trace(struct trace_file *t)
{
	ssize_t total = 0;
	ssize_t n;
	int i;

	for (i = 0; i < READ_PER_PASS; i++) {
		if (trace_reserve(t))
			return -1;
		n = read(t->fd, t->buf + t->len, READ_CHUNK);
		if (n <= 0)
			break;
		t->len += n;
		total += n;
		if (n < READ_CHUNK)
			break;
	}
	if (t->bulk) {		/* stap -b: as read, records and all */
		if (t->len && fwrite(t->buf, 1, t->len, t->bulk) != t->len)
			return error_msg("cannot write a bulk output file: %s", strerror(errno));
		t->len = 0;
		return total;
	}
	if (parse_records(t))
		return -1;
	return total;
}

/*
 * stap -b: CPU n's records, headers and all, go to FILE_n (-o FILE) or
 * stpd_cpun, as 4.8 names them; stap-merge puts them in order.
 */
static int open_bulk_files(void)
{
	char name[PATH_MAX];
	unsigned int i;

	for (i = 0; i < io.ntrace; i++) {
		if (io.trace[i].fd < 0)
			continue;
		if (io.outfile)
			snprintf(name, sizeof(name), "%s_%u", io.outfile, i);
		else
			snprintf(name, sizeof(name), "stpd_cpu%u", i);
		io.trace[i].bulk = fopen(name, "w");
		if (!io.trace[i].bulk)
			return open_error(name);
	}
	return 0;
}

static void close_bulk_files(void)
{
	for (unsigned int i = 0; io.trace && i < io.ntrace; i++)
		if (io.trace[i].bulk) {
			fclose(io.trace[i].bulk);
			io.trace[i].bulk = NULL;
		}
}

/* Bytes read from all relay files in one bounded pass, or -1. */
static ssize_t read_all_traces(void)
{
	ssize_t total = 0, n;
	unsigned int i;

	for (i = 0; i < io.ntrace; i++) {
		if (io.trace[i].fd < 0)
			continue;
		n = read_trace(&io.trace[i]);
		if (n < 0)
			return -1;
		total += n;
	}
	return total;
}

/* Read, order and write until the relay files are empty (nothing writes
 * to them any more), or for at most DRAIN_MS. */
static int drain_traces(bool final)
{
	double start = now_ms();
	ssize_t n;

	do {
		n = read_all_traces();
		if (n < 0)
			return -1;
		flush_ordered(false);
	} while (n > 0 && now_ms() - start < DRAIN_MS);
	flush_ordered(final);
	return 0;
}

static int open_traces(const char *dir, unsigned int ncpus)
{
	char path[PATH_MAX];
	unsigned int i;

	io.trace = calloc(ncpus, sizeof(*io.trace));
	if (!io.trace)
		return error_msg("out of memory");
	io.ntrace = ncpus;
	for (i = 0; i < ncpus; i++)	/* none open yet: unload() closes */
		io.trace[i].fd = -1;
	for (i = 0; i < ncpus; i++) {
		snprintf(path, sizeof(path), "%s/%s%u", dir, STP_TRACE_PREFIX, i);
		as_root(true);
		io.trace[i].fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		as_root(false);
		if (io.trace[i].fd < 0 && errno != ENOENT)
			return error_msg("cannot open %s: %s", path,
					 strerror(errno));
	}
	return 0;
}

/* ---- control channel ---- */

static int send_msg(__u32 type, const void *data, __u32 len)
{
	char buf[STP_MSG_MAX];
	struct stp_msg_hdr h = { .type = type, .len = len };

	memcpy(buf, &h, sizeof(h));
	if (len)
		memcpy(buf + sizeof(h), data, len);
	if (write(io.ctl_fd, buf, sizeof(h) + len) < 0)
		return error_msg("cannot write to the control channel: %s",
				 strerror(errno));
	return 0;
}

/*
 * End the session: QUIESCE stops the probes, then the relay files are
 * emptied, so that the end probes (run by EXIT) find room for their
 * output however fast the probes were printing.
 */
static int send_exit(void)
{
	if (io.exit_sent)
		return 0;
	io.exit_sent = true;
	if (!io.quiesced && io.started) {
		io.quiesced = true;
		if (send_msg(STP_MSG_QUIESCE, NULL, 0) || drain_traces(true))
			return -1;
	}
	return send_msg(STP_MSG_EXIT, NULL, 0);
}

/* Let -c's command run (or, with an error before the start, end). */
static void release_command(void)
{
	if (io.release_fd < 0)
		return;
	if (io.started && !io.error_seen && write(io.release_fd, "g", 1) != 1)
		io.error_seen = true;
	close(io.release_fd);
	io.release_fd = -1;
	/* the command waits for a SIGUSR1 to read the pipe's answer */
	if (io.cmd_pid > 0)
		kill(io.cmd_pid, SIGUSR1);
}

/* -c's command has ended: the session ends as on exit(). */
static bool command_ended(void)
{
	int status;

	if (io.cmd_pid <= 0 || waitpid(io.cmd_pid, &status, WNOHANG) != io.cmd_pid)
		return false;
	io.cmd_pid = 0;
	if (WIFEXITED(status) && WEXITSTATUS(status)) {
		fprintf(stderr, "WARNING: Child process exited with status %d\n",
			WEXITSTATUS(status));
		io.error_seen = true;
	} else if (WIFSIGNALED(status)) {
		fprintf(stderr, "WARNING: Child process exited with signal %d (%s)\n",
			WTERMSIG(status), strsignal(WTERMSIG(status)));
		io.error_seen = true;
	}
	return true;
}

/* ---- system() and stdin ---- */

/* Reap finished system() commands; all of them when wait_all. */
static void reap_children(bool wait_all)
{
	size_t i = 0;

	while (i < io.nchildren) {
		if (waitpid(io.children[i], NULL, wait_all ? 0 : WNOHANG) == 0) {
			i++;
			continue;
		}
		io.children[i] = io.children[--io.nchildren];
	}
}

/* system(cmd): write what the probes printed before it, then start it. */
static int run_system(const char *payload, __u32 len)
{
	char *cmd = strndup(payload, len);
	pid_t *c, pid;

	if (!cmd)
		return error_msg("out of memory");
	if (read_all_traces() < 0) {
		free(cmd);
		return -1;
	}
	flush_ordered(false);
	fflush(stdout);
	fflush(stderr);
	if (io.nchildren == io.capchildren) {
		io.capchildren = io.capchildren ? 2 * io.capchildren : 8;
		c = xrealloc(io.children, io.capchildren * sizeof(*c));
		if (!c) {
			free(cmd);
			return -1;
		}
		io.children = c;
	}
	pid = fork();
	if (pid == 0) {
		signal(SIGPIPE, SIG_DFL);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	free(cmd);
	if (pid < 0)
		return error_msg("cannot run system() command: %s", strerror(errno));
	io.children[io.nchildren++] = pid;
	return 0;
}

/* -i: the probes have started; open the module's __stdin file, if any. */
static void open_stdin_file(void)
{
	char path[PATH_MAX];

	if (!io.forward_stdin)
		return;
	snprintf(path, sizeof(path), "%s/%s/%s", STP_PROCFS_DIR, io.module,
		 STP_PROCFS_STDIN);
	as_root(true);
	io.stdin_fd = open(path, O_WRONLY | O_CLOEXEC);
	as_root(false);
}

static void close_stdin_file(void)
{
	if (io.stdin_fd >= 0)
		close(io.stdin_fd);
	io.stdin_fd = -1;
}

/* stdin is readable: hand it to the module a byte at a time, as input.char
 * expects; end of file (or a refused write) ends the forwarding. */
static void forward_stdin(void)
{
	char buf[4096];
	ssize_t n, i;

	n = read(STDIN_FILENO, buf, sizeof(buf));
	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	if (n <= 0) {
		close_stdin_file();
		return;
	}
	for (i = 0; i < n; i++) {
		if (write(io.stdin_fd, buf + i, 1) != 1) {
			close_stdin_file();
			return;
		}
	}
}

static int handle_start(const char *payload)
{
	__s32 res;

	memcpy(&res, payload, sizeof(res));
	if (res < 0) {
		fprintf(stderr, "ERROR: module failed to start: %s\n",
			strerror(-res));
		io.error_seen = true;
		if (send_exit())
			return -1;
	}
	io.started = true;
	if (res >= 0)
		open_stdin_file();
	release_command();
	return 0;
}

/*
 * The module is ready for us: open its relay files and start it, or
 * (-A, a module an earlier stapio started) go on where that one left,
 * ending the session at once if it was ending. Only the first one counts:
 * another is one an earlier stapio never read.
 */
static int handle_transport(const char *dir, const struct stp_msg_hdr *h,
			    const char *payload)
{
	__u32 t[2] = { 0, 0 };

	if (io.transport_seen)
		return 0;
	io.transport_seen = true;
	memcpy(t, payload, h->len < sizeof(t) ? h->len : sizeof(t));
	if (open_traces(dir, t[0]))
		return -1;
	io.bulk = t[1] & STP_TRANSPORT_BULK;
	if (io.bulk && io.outfile && io.out && !io.wsize) {
		char name[PATH_MAX];	/* only FILE_n are written */

		fclose(io.out);
		io.out = NULL;
		if (outfile_name(name, sizeof(name), io.fnum))
			unlink(name);
	}
	if (io.bulk && open_bulk_files())
		return -1;
	if (!(t[1] & STP_TRANSPORT_STARTED))
		return send_msg(STP_MSG_START, NULL, 0);
	io.started = true;
	io.seq_unknown = true;
	release_command();
	if ((t[1] & STP_TRANSPORT_EXITING) || io.exit_requested)
		return send_exit();
	return 0;
}

/*
 * -D, once the probes have started: the session goes on in a child in a
 * session of its own, with no terminal (its output goes to -o's file);
 * its pid is printed, and the parent exits 0.
 */
static int daemonize(void)
{
	pid_t pid;
	int fd;

	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return error_msg("cannot fork: %s", strerror(errno));
	if (pid > 0) {
		printf("%d\n", (int)pid);
		fflush(stdout);
		_exit(0);
	}
	setsid();
	fd = open("/dev/null", O_RDWR);
	if (fd >= 0) {
		dup2(fd, STDIN_FILENO);
		dup2(fd, STDOUT_FILENO);
		dup2(fd, STDERR_FILENO);
		if (fd > STDERR_FILENO)
			close(fd);
	}
	io.forward_stdin = false;
	close_stdin_file();
	return 0;
}

static int handle_msg(const char *dir, const struct stp_msg_hdr *h,
		      const char *payload)
{
	switch (h->type) {
	case STP_MSG_TRANSPORT:
		return handle_transport(dir, h, payload);
	case STP_MSG_START:
		if (!io.transport_seen)
			return 0;	/* an earlier stapio's reply */
		if (handle_start(payload))
			return -1;
		if (io.load_only && !io.exit_sent)
			io.detach = true;	/* -L: begin probes done */
		if (io.daemon && !io.exit_sent)
			return daemonize();
		return 0;
	case STP_MSG_OOB:
		if (h->len >= 6 && memcmp(payload, "ERROR:", 6) == 0)
			io.error_seen = true;
		if (io.no_warnings && h->len >= 8 &&
		    memcmp(payload, "WARNING:", 8) == 0)
			break;
		fwrite(payload, 1, h->len, stderr);
		fflush(stderr);
		break;
	case STP_MSG_REQUEST_EXIT:
		if (!io.transport_seen) {	/* queued before we came */
			io.exit_requested = true;
			return 0;
		}
		return send_exit();
	case STP_MSG_EXIT:
		io.exit_done = true;
		break;
	case STP_MSG_SYSTEM:
		return run_system(payload, h->len);
	}
	return 0;
}

/* Read and handle every queued control message. */
static int read_ctl(const char *dir)
{
	char buf[STP_MSG_MAX];
	struct stp_msg_hdr h;
	ssize_t n;

	for (;;) {
		n = read(io.ctl_fd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < (ssize_t)sizeof(h))
			return 0;
		memcpy(&h, buf, sizeof(h));
		if (sizeof(h) + h.len > (size_t)n)
			return 0;
		if (handle_msg(dir, &h, buf + sizeof(h)))
			return -1;
	}
}

/* ---- setup, main loop, teardown ---- */

static void on_signal(int sig)
{
	got_signal = sig;
}

static void on_usr2(int sig)
{
	(void)sig;
	got_usr2 = 1;
}

static void on_quit(int sig)
{
	(void)sig;
	got_quit = 1;
}

/*
 * SA_RESTART: a signal that comes while stapio is blocked writing to a
 * slow reader (a pipe) must not cut that write short: stdio would drop
 * the rest of its buffer (EINTR), tearing a line out of the output. The
 * main loop's poll() still returns at once (it is never restarted), and
 * the write goes on as the reader takes the data.
 */
static void setup_signals(void)
{
	struct sigaction sa = { .sa_handler = on_signal, .sa_flags = SA_RESTART };
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sa.sa_handler = on_usr2;
	sigaction(SIGUSR2, &sa, NULL);
	sa.sa_handler = on_quit;
	sigaction(SIGQUIT, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

static int ensure_debugfs(void)
{
	struct statfs st;

	if (statfs(DEBUGFS_MOUNT, &st) == 0 && st.f_type == DEBUGFS_MAGIC_NR)
		return 0;
	as_root(true);
	if (mount("debugfs", DEBUGFS_MOUNT, "debugfs", 0, NULL) != 0) {
		int err = errno;

		as_root(false);
		return error_msg("debugfs is not mounted at %s and mounting it "
				 "failed: %s", DEBUGFS_MOUNT, strerror(err));
	}
	as_root(false);
	return 0;
}

/* The module's control file; -1 if it cannot be opened, with *absent
 * set when there is none (the module staprun loaded is not one of ours,
 * or it has gone). */
static int open_ctl(const char *dir, bool *absent)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", dir, STP_CTL_FILE);
	as_root(true);
	io.ctl_fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	as_root(false);
	/* only EBUSY says that another stapio drives it; any other error
	 * (ENOENT, or ENOMEM and the like) leaves staprun's module to us */
	*absent = io.ctl_fd < 0 && errno != EBUSY;
	if (io.ctl_fd < 0)
		return error_msg("cannot open %s: %s (is module '%s' loaded?)",
				 path, strerror(errno), io.module);
	return 0;
}

/*
 * Each pass is bounded: a look at the signals, the control channel, at
 * most READ_PER_PASS chunks of each relay file, and the output written.
 * It waits in poll() only when the relay files had little to give.
 */
static int main_loop(const char *dir)
{
	struct pollfd p[2] = { { .fd = io.ctl_fd, .events = POLLIN },
			       { .fd = STDIN_FILENO, .events = POLLIN } };
	ssize_t got = 0;

	while (!io.exit_done) {
		if (got_quit && !io.exit_sent && io.started)
			io.detach = true;
		if (io.detach)
			break;
		/* signal, or output gone (EPIPE) */
		if ((got_signal || io.stop || (io.out && ferror(io.out)) || command_ended()) &&
		    send_exit())
			return -1;
		p[1].revents = 0;
		poll(p, io.stdin_fd >= 0 && !io.exit_sent ? 2 : 1,
		     got >= READ_CHUNK ? 0 : io.poll_ms);
		if (p[1].revents && io.stdin_fd >= 0)
			forward_stdin();
		if (read_ctl(dir))
			return -1;
		if (io.detach)
			break;	/* -L: before reading any output */
		got = read_all_traces();
		if (got < 0)
			return -1;
		flush_ordered(false);
		if (got_usr2) {		/* as 4.8: ignored without -o, and by -b */
			got_usr2 = 0;
			if (io.outfile && io.out)
				switch_outfile();
		}
		reap_children(false);
	}
	close_stdin_file();
	return 0;
}

/* After EXIT: every byte in the relay files is final. */
static int drain(void)
{
	if (drain_traces(true))
		return -1;
	if (io.verbose)
		fprintf(stderr, "stapio: at most %zu records (%zu bytes) held\n",
			io.peak_nheap, io.peak_pending);
	return 0;
}

static void unload(void)
{
	unsigned int i;
	int tries;

	for (i = 0; i < io.ntrace; i++)
		if (io.trace[i].fd >= 0)
			close(io.trace[i].fd);
	if (io.ctl_fd >= 0)
		close(io.ctl_fd);	/* the module stops, if it has not */
	as_root(true);
	for (tries = 0; tries < 100; tries++) {
		if (syscall(SYS_delete_module, io.module, O_NONBLOCK) == 0)
			return;
		if (errno != EAGAIN && errno != EBUSY)
			break;
		usleep(10000);
	}
	fprintf(stderr, "ERROR: cannot remove module '%s': %s\n", io.module,
		strerror(errno));
	io.error_seen = true;
}

static int usage(void)
{
	return error_msg("usage: stapio [-v] [-w] [-i] [-L|-A] [-T MS] [-o FILE [-S SIZE[,N]]] [-t PID -F FD] MODULE_NAME");
}

/* -S SIZE[,N], read as 4.8 reads it (strtoul: SIZE MiB, N files). */
static int parse_size_option(const char *arg)
{
	char *end;

	io.fsize_max = strtoul(arg, &end, 10);
	io.fsize_max <<= 20;
	if (*end == ',')
		io.fnum_max = strtoul(end + 1, &end, 10);
	if (*end)
		return error_msg("Invalid file size option '%s'.", arg);
	if (!io.fsize_max)
		io.fnum_max = 0;
	return 0;
}

static int parse_args(int argc, char **argv)
{
	int c;

	while ((c = getopt(argc, argv, "vio:S:t:F:LAwDT:")) != -1) {
		switch (c) {
		case 'L':
			io.load_only = true;
			break;
		case 'A':
			io.attach = true;
			break;
		case 'w':
			io.no_warnings = true;
			break;
		case 'D':
			io.daemon = true;
			break;
		case 'T':
			io.poll_ms = atoi(optarg);
			if (io.poll_ms <= 0)
				return error_msg("Invalid timeout '%s'", optarg);
			break;
		case 'i':
			io.forward_stdin = true;
			break;
		case 't':
			io.cmd_pid = (pid_t)atoi(optarg);
			break;
		case 'F':
			io.release_fd = atoi(optarg);
			break;
		case 'v':
			io.verbose++;
			break;
		case 'o':
			io.outfile = optarg;
			break;
		case 'S':
			if (parse_size_option(optarg))
				return -1;
			break;
		default:
			return usage();
		}
	}
	if (optind + 1 != argc)
		return usage();
	if (io.fsize_max && !io.outfile)
		return error_msg("You have to specify output FILE with '-S' option.");
	if (io.daemon && !io.outfile)
		return error_msg("You have to specify output FILE with '-D' option.");
	io.module = argv[optind];
	return 0;
}

static int open_output(void)
{
	io.out = stdout;
	if (!io.outfile)
		return 0;
	return open_outfile();
}

/* -A: why the module's control file cannot be opened (errno): 4.8's
 * message, and with a reader already there, that reason. */
static int attach_error(void)
{
	if (errno == EBUSY)
		return error_msg("Cannot attach to module %s control channel; "
				 "it already has a reader (another staprun -A?)",
				 io.module);
	if (errno == ENOENT)
		return error_msg("Cannot attach to module %s control channel; "
				 "not running?", io.module);
	return error_msg("Cannot attach to module %s control channel: %s",
			 io.module, strerror(errno));
}

/* -L, or SIGQUIT: leave the module running; what was read is written,
 * the rest stays in its buffers for the next staprun -A. */
static int detach(void)
{
	unsigned int i;

	flush_ordered(true);
	close_bulk_files();
	if (io.out && io.out != stdout)
		fclose(io.out);
	else if (io.out)
		fflush(stdout);
	for (i = 0; i < io.ntrace; i++)
		if (io.trace[i].fd >= 0)
			close(io.trace[i].fd);
	close(io.ctl_fd);
	close_stdin_file();
	fprintf(stderr, "\nDisconnecting from systemtap module.\n"
		"To reconnect, type \"staprun -A %s\"\n", io.module);
	reap_children(true);
	return 0;
}

int main(int argc, char **argv)
{
	char dir[512];
	bool absent = false;

	as_root(false);
	if (parse_args(argc, argv))
		return 1;
	if (open_output()) {
		if (!io.attach)
			unload();	/* staprun loaded it */
		return 1;
	}
	setup_signals();
	if (ensure_debugfs()) {
		if (!io.attach)
			unload();	/* staprun loaded it; it cannot be driven */
		return 1;
	}
	snprintf(dir, sizeof(dir), "%s/%s/%s", DEBUGFS_MOUNT, STP_DEBUGFS_DIR,
		 io.module);
	if (io.attach) {
		snprintf(dir + strlen(dir), sizeof(dir) - strlen(dir), "/%s",
			 STP_CTL_FILE);
		as_root(true);
		io.ctl_fd = open(dir, O_RDWR | O_NONBLOCK | O_CLOEXEC);
		as_root(false);
		if (io.ctl_fd < 0) {
			attach_error();
			return 1;
		}
		*strrchr(dir, '/') = '\0';
	} else if (open_ctl(dir, &absent)) {
		/* staprun loaded it: never leave behind a module that has
		 * no control file (another stapio's module stays) */
		if (absent)
			unload();
		release_command();
		return 1;
	}
	if (main_loop(dir) == 0 && io.detach)
		return detach();
	if (io.detach || drain()) {
		release_command();
		close_bulk_files();
		if (io.out)
			fflush(io.out);
		unload();
		reap_children(true);
		return 1;
	}
	release_command();	/* never started: the command ends unrun */
	close_bulk_files();
	if (io.out && io.out != stdout)
		fclose(io.out);
	unload();
	reap_children(true);
	free(io.children);
	return io.error_seen ? 1 : 0;
}
