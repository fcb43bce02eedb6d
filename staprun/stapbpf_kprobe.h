/*
 * stapbpf_kprobe.h - the BPF loader's kretprobes with a .maxactive(N)
 * (stapbpf_kprobe.c): placed through tracefs's kprobe_events.
 */
#ifndef STAPBPF_KPROBE_H
#define STAPBPF_KPROBE_H

#include <bpf/libbpf.h>

/* prog attached as a kretprobe of sym with maxactive instances: NULL,
 * errno set, if it cannot be */
struct bpf_link *stapbpf_kretprobe_maxactive(struct bpf_program *prog, const char *sym,
					     long maxactive);
/* removes the kprobe_events entries added (their links destroyed first) */
void stapbpf_kretprobe_cleanup(void);

#endif /* STAPBPF_KPROBE_H */
