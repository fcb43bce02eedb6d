/*
 * stapbpf_ns.h - the BPF loader's namespaces for the ns_*() ids
 * (stapbpf_ns.c).
 */
#ifndef STAPBPF_NS_H
#define STAPBPF_NS_H

/* the program's stp_ns (translator/bpf/bpf_strfn.c), when it has one:
 * the loader's pid namespace's inode and user namespace's maps */
struct stapbpf_nsinfo {
	long ino, nuid, ngid;
	long uid_map[5][3], gid_map[5][3];
};

void stapbpf_ns_fill(struct stapbpf_nsinfo *ns);

#endif /* STAPBPF_NS_H */
