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

/* prog attached as a kretprobe of sym with maxactive instances: NULL,
 * errno set, if it cannot be */
struct bpf_link *stapbpf_kretprobe_maxactive(struct bpf_program *prog, const char *sym,
					     long maxactive);
/* removes the kprobe_events entries added (their links destroyed first) */
void stapbpf_kretprobe_cleanup(void);

/* Can this kernel load and attach an fentry program? */
bool stapbpf_have_fentry(void);
/* Is function sym in the kernel's BTF (vmlinux's or a module's)? */
bool stapbpf_btf_has_func(const char *sym);

#endif /* STAPBPF_KPROBE_H */
