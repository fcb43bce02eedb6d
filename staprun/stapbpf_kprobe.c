/*
 * stapbpf_kprobe.c - the BPF loader's kretprobes with a .maxactive(N):
 * the perf kprobe PMU libbpf attaches through has no way to set a
 * kretprobe's maxactive (its number of instances, the calls in flight it
 * can follow), and libbpf's own tracefs fallback writes none, so such a
 * point is a "r<N>:stapbpf/pPID_K SYM" line of tracefs's kprobe_events
 * (tracefs mounted at /sys/kernel/tracing when it is not there), opened as
 * the tracepoint event it makes, the program attached to that perf event;
 * the line is removed again at exit. The kernel takes a maxactive of at
 * most 4096 (KRETPROBE_MAXACTIVE_MAX).
 *
 * A kernel without kprobes may still have fentry/fexit (BTF and ftrace's
 * direct calls): the loader then loads the points' fentry twins, after
 * checking that such a program loads and attaches here and that each
 * point's function is in the kernel's BTF (libbpf fails the whole load
 * when one is not).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>

#include "stapbpf_kprobe.h"

/* line appended to kprobe_events: 0, or -1 with errno */
static int kprobe_events(struct stapbpf_kprobes *K, const char *line)
{
	char path[256];
	int fd, n, e;

	snprintf(path, sizeof(path), "%s/kprobe_events", K->tracefs);
	fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = (int)write(fd, line, strlen(line));
	e = errno;
	close(fd);
	errno = e;
	return n == (int)strlen(line) ? 0 : -1;
}

/* the entries a loader killed by SIGKILL left behind: those of a pid
 * that no longer runs */
static void remove_stale(struct stapbpf_kprobes *K)
{
	char path[256], buf[512], line[64];
	int pid, k;
	FILE *f;

	snprintf(path, sizeof(path), "%s/kprobe_events", K->tracefs);
	f = fopen(path, "re");
	while (f && fgets(buf, sizeof(buf), f)) {
		char *ev = strstr(buf, ":stapbpf/p");

		if (!ev || sscanf(ev, ":stapbpf/p%d_%d", &pid, &k) != 2 ||
		    pid <= 0 || kill(pid, 0) == 0 || errno != ESRCH)
			continue;
		snprintf(line, sizeof(line), "-:stapbpf/p%d_%d\n", pid, k);
		kprobe_events(K, line);
	}
	if (f)
		fclose(f);
}

static const char *find_tracefs(struct stapbpf_kprobes *K)
{
	if (K->tracefs)
		return K->tracefs;
	if (!access("/sys/kernel/tracing/kprobe_events", F_OK))
		K->tracefs = "/sys/kernel/tracing";
	else if (!access("/sys/kernel/debug/tracing/kprobe_events", F_OK))
		K->tracefs = "/sys/kernel/debug/tracing";
	else if (!mount("tracefs", "/sys/kernel/tracing", "tracefs", 0, NULL) &&
		 !access("/sys/kernel/tracing/kprobe_events", F_OK))
		K->tracefs = "/sys/kernel/tracing";
	if (K->tracefs)
		remove_stale(K);
	return K->tracefs;
}
/* event k's tracepoint id, or -1 */
static long event_id(struct stapbpf_kprobes *K, int k)
{
	char path[256], buf[32] = "";
	FILE *f;

	snprintf(path, sizeof(path), "%s/events/stapbpf/p%d_%d/id", K->tracefs, (int)getpid(), k);
	f = fopen(path, "re");
	if (!f)
		return -1;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = 0;
	fclose(f);
	return buf[0] ? atol(buf) : -1;
}

struct bpf_link *stapbpf_kretprobe_maxactive(struct stapbpf_kprobes *K,
					     struct bpf_program *prog, const char *sym,
					     long maxactive)
{
	struct perf_event_attr attr = { .type = PERF_TYPE_TRACEPOINT, .size = sizeof(attr),
					 .sample_period = 1, .wakeup_events = 1 };
	char line[512];
	struct bpf_link *l;
	long id;
	int fd, k = K->nevents, e;

	if (!find_tracefs(K)) {
		errno = ENOENT;
		return NULL;
	}
	snprintf(line, sizeof(line), "r%ld:stapbpf/p%d_%d %s\n", maxactive, (int)getpid(), k,
		 sym);
	if (kprobe_events(K, line))
		return NULL;
	K->nevents++;
	id = event_id(K, k);
	if (id < 0)
		return NULL;
	attr.config = (unsigned long long)id;
	fd = (int)syscall(SYS_perf_event_open, &attr, -1, 0, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return NULL;
	l = bpf_program__attach_perf_event(prog, fd);
	if (!l) {
		e = errno;
		close(fd);
		errno = e;
	}
	return l;
}

void stapbpf_kretprobe_cleanup(struct stapbpf_kprobes *K)
{
	char line[64];

	for (int k = 0; k < K->nevents; k++) {
		snprintf(line, sizeof(line), "-:stapbpf/p%d_%d\n", (int)getpid(), k);
		kprobe_events(K, line);
	}
	K->nevents = 0;
	for (int i = K->nbtfs - 1; i >= 0; i--)	/* modules' before their base */
		btf__free(K->btfs[i]);
	free(K->btfs);
	K->btfs = NULL;
	K->nbtfs = -1;
}

bool stapbpf_have_fentry(void)
{
	struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	struct btf *btf = btf__load_vmlinux_btf();
	int id = btf ? btf__find_by_name_kind(btf, "vfs_read", BTF_KIND_FUNC) : -1;
	LIBBPF_OPTS(bpf_prog_load_opts, o, .expected_attach_type = BPF_TRACE_FENTRY);
	int fd, link = -1;

	btf__free(btf);
	if (id <= 0)
		return false;
	o.attach_btf_id = (unsigned int)id;
	fd = bpf_prog_load(BPF_PROG_TYPE_TRACING, "stp_fentry_ok", "GPL", insns, 2, &o);
	if (fd >= 0)
		link = bpf_raw_tracepoint_open(NULL, fd);
	if (link >= 0)
		close(link);
	if (fd >= 0)
		close(fd);
	return link >= 0;
}

/* the kernel's BTF, vmlinux's then each module's (/sys/kernel/btf), read
 * once: a wildcard's points ask again */
static void load_btfs(struct stapbpf_kprobes *K)
{
	struct dirent *d;
	DIR *dir;

	K->nbtfs = 0;
	K->btfs = calloc(1, sizeof(*K->btfs));
	if (!K->btfs || !(K->btfs[0] = btf__load_vmlinux_btf()))
		return;
	K->nbtfs = 1;
	dir = opendir("/sys/kernel/btf");
	while (dir && (d = readdir(dir))) {
		struct btf **more;

		if (d->d_name[0] == '.' || !strcmp(d->d_name, "vmlinux") ||
		    !(more = realloc(K->btfs, (size_t)(K->nbtfs + 1) * sizeof(*K->btfs))))
			continue;
		K->btfs = more;
		K->btfs[K->nbtfs] = btf__load_module_btf(d->d_name, K->btfs[0]);
		if (K->btfs[K->nbtfs])
			K->nbtfs++;
	}
	if (dir)
		closedir(dir);
}

bool stapbpf_btf_has_func(struct stapbpf_kprobes *K, const char *sym)
{
	if (K->nbtfs < 0)
		load_btfs(K);
	for (int i = 0; i < K->nbtfs; i++)
		if (btf__find_by_name_kind(K->btfs[i], sym, BTF_KIND_FUNC) > 0)
			return true;
	return false;
}
