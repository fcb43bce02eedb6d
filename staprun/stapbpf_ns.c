/*
 * stapbpf_ns.c - the BPF loader's namespaces, which the ns_*() ids of a
 * BPF program are in (as the module runtime's are in stapio's): the pid
 * namespace's inode (/proc/self/ns/pid; the program finds its level in a
 * pid's numbers), and the user namespace's uid and gid
 * maps (/proc/self/uid_map, gid_map: at most five extents, as the kernel
 * keeps them inline), written in the program's stp_ns before it runs.
 */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "stapbpf_ns.h"

static long read_map(const char *path, long map[5][3])
{
	FILE *f = fopen(path, "r");
	long n = 0;

	if (!f)
		return 0;
	while (n < 5 && fscanf(f, "%ld %ld %ld", &map[n][0], &map[n][1], &map[n][2]) == 3)
		n++;
	fclose(f);
	return n;
}

void stapbpf_ns_fill(struct stapbpf_nsinfo *ns)
{
	struct stat st;

	memset(ns, 0, sizeof(*ns));
	if (!stat("/proc/self/ns/pid", &st))
		ns->ino = (long)st.st_ino;
	ns->nuid = read_map("/proc/self/uid_map", ns->uid_map);
	ns->ngid = read_map("/proc/self/gid_map", ns->gid_map);
}
