/*
 * stapbpf_usym.h - the BPF loader's user symbols (stapbpf_usym.c): the
 * symbol tables of the object's metadata, each process's mappings, and
 * print_ubacktrace(), print_usyms() and the string markers of
 * translator/bpf/bpf_usym.c written as the module runtime writes them.
 */
#ifndef STAPBPF_USYM_H
#define STAPBPF_USYM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct stapbpf_umod;
struct stapbpf_upid;

struct stapbpf_usyms {
	struct stapbpf_umod *mods;	/* the metadata's objects */
	int nmods;
	struct stapbpf_upid *pids;	/* the mappings read, by pid */
	int target;			/* -c or -x's pid, 0: none */
	bool target_fresh;		/* -c's: mapped in the session */
	unsigned long long t0;		/* the loader's start (clock ticks) */
	char **warned;			/* paths warned about */
	int nwarned;
	int maxstr;			/* MAXSTRINGLEN */
};

/* a "umod" or "usym" line of the metadata: taken (true) or not */
bool stapbpf_usyms_meta(struct stapbpf_usyms *U, const char *line);
/* the session starts: its target (0: none), which -c started */
void stapbpf_usyms_start(struct stapbpf_usyms *U, int target, bool fresh);
/* a string naming pid's addresses was made: its maps read, if not yet */
void stapbpf_usyms_seen(struct stapbpf_usyms *U, int pid);
/* print_ubacktrace() (fmt 0) or print_ubacktrace_brief() (1) of pid's n
 * frames; fmt | 2: taken without user registers (a kernel probe) */
void stapbpf_print_ubt(struct stapbpf_usyms *U, FILE *out, int pid, int fmt,
		       const uint64_t *a, size_t n);
/* print_usyms(callers) in pid */
void stapbpf_print_usyms(struct stapbpf_usyms *U, FILE *out, int pid, const char *callers);
/* s with its markers replaced by their text, truncated to MAXSTRINGLEN - 1
 * (malloc'd), or NULL when s has none */
char *stapbpf_usym_expand(struct stapbpf_usyms *U, const char *s);
/* the string of at most max bytes at s, its markers replaced (malloc'd) */
char *stapbpf_usym_text(struct stapbpf_usyms *U, const char *s, size_t max);

#endif /* STAPBPF_USYM_H */
