/*
 * stapbpf_kprobe.h - the BPF loader's kernel function probes beyond
 * libbpf's kprobes (stapbpf_kprobe.c): kretprobes with a .maxactive(N),
 * placed through tracefs's kprobe_events, and the fentry/fexit twins'
 * checks.
 */
#ifndef STAPBPF_KPROBE_H
#define STAPBPF_KPROBE_H

#include <stdbool.h>

#include <bpf/libbpf.h>

/* the loader's state for these: held in its struct loader */
struct stapbpf_kprobes {
	const char *tracefs;	/* where kprobe_events is, once found */
	int nevents;		/* pPID_0 .. pPID_{n-1} added */
	struct btf **btfs;	/* vmlinux's BTF, then each module's */
	int nbtfs;		/* -1: not read yet */
};

/* prog attached as a kretprobe of sym with maxactive instances: NULL,
 * errno set, if it cannot be */
struct bpf_link *stapbpf_kretprobe_maxactive(struct stapbpf_kprobes *K,
					     struct bpf_program *prog, const char *sym,
					     long maxactive);
/* removes the kprobe_events entries added (their links destroyed first),
 * and frees the BTF read */
void stapbpf_kretprobe_cleanup(struct stapbpf_kprobes *K);

/* Can this kernel load and attach an fentry program? */
bool stapbpf_have_fentry(void);
/* Is function sym in the kernel's BTF (vmlinux's or a module's)? */
bool stapbpf_btf_has_func(struct stapbpf_kprobes *K, const char *sym);

#endif /* STAPBPF_KPROBE_H */
