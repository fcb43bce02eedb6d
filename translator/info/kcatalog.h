/*
 * kcatalog.h - the catalog of a target kernel's probe points, read without
 * debuginfo: kernel function names and prototypes from the kernel's BTF
 * (for kernel.function() and stap -l/-L), and tracepoints with their
 * subsystem and typed arguments (for kernel.trace()) from the BTF
 * btf_trace_* typedefs and the TRACE_SYSTEM of the kernel's trace headers.
 *
 * Everything a lookup returns stays valid until kcat_close(); result
 * vectors are allocated in the session arena.
 */
#ifndef KCATALOG_H
#define KCATALOG_H

#include <stdbool.h>
#include <stddef.h>

#include "stap.h"

/* ---- the kernel's probe points as the session sees them ------------------ */
struct kcatalog;
struct kcat_func;
struct kmodules;
struct btf;
/* kcatalog.c: the kernel catalog, opened on first use; NULL (reported
 * once) when the kernel's BTF cannot be read */
struct kcatalog *kernel_catalog(struct session *s);
void kernel_catalog_close(struct session *s);
/* ksymmap.c: the text symbols of the kernel's System.map (-r DIR's, a real
 * /boot one) or /proc/kallsyms (the running kernel) matching glob, sorted */
size_t ksymmap_match(struct session *s, const char *glob, const char ***out);
/* kmodule.c: kernel modules' functions and BTF */
size_t kmod_match_modules(struct session *s, const char *glob,
			  const char ***out);
long kmod_match_functions(struct session *s, const char *module,
			  const char *glob, const char ***out);
const struct kcat_func *kmod_function(struct session *s, const char *module,
				      const char *fn);
const struct btf *kmod_btf(struct session *s, const char *module);
void kmod_close(struct session *s);
const char *kmod_path(struct session *s, const char *module);

/* A parameter; type as upstream prints it: "struct file*", "char const*". */
struct btf;
struct kcat_arg {
	const char *name;
	const char *type;
	const struct btf *btf;	/* where type_id is (vmlinux or a module's) */
	unsigned int type_id;	/* BTF type, for $var->member (elab/deref.c) */
};

struct kcat_func {
	const char *name;
	const char *ret;		/* return type ("void") */
	struct kcat_arg retv;		/* the return type's BTF id */
	int nargs;
	const struct kcat_arg *args;
	bool varargs;
};

struct kcat_tracepoint {
	const char *system;	/* TRACE_SYSTEM; "" when no shipped header has it */
	const char *name;
	int nargs;
	const struct kcat_arg *args;	/* the TP_PROTO parameters */
};

/* Uses s->kernel_release and s->kernel_build_dir; NULL after diag_plain(). */
struct kcatalog *kcat_open(struct session *s);
void kcat_close(struct kcatalog *kc);
const char *kcat_btf_origin(const struct kcatalog *kc);	/* where the BTF came from */
const void *kcat_btf_raw(struct kcatalog *kc, unsigned int *size);

/* Functions (every BTF FUNC: no inlined-only or clone-only functions):
 * names matching a wildcard (*, ?, [...]), sorted, unique. */
size_t kcat_match_functions(struct kcatalog *kc, const char *glob,
			    const char ***out);
bool kcat_has_function(struct kcatalog *kc, const char *name);
const struct kcat_func *kcat_function(struct kcatalog *kc, const char *name);
/* "vfs_read(struct file* file, char* buf, size_t count, loff_t* pos)" */
bool kcat_function_proto(struct kcatalog *kc, const char *name,
			 struct strbuf *sb);

/* Tracepoints: "SYS:NAME" or "NAME" (any system), wildcards in both parts
 * (a system-less tracepoint matches only a SYS part such as "*"); sorted
 * by system, then name. Loaded on first use (about 70 ms the first time
 * for a release, then from the cache). */
size_t kcat_match_tracepoints(struct kcatalog *kc, const char *pattern,
			      const struct kcat_tracepoint ***out);
/* One tracepoint with its arguments; system NULL: in any system. */
const struct kcat_tracepoint *kcat_tracepoint(struct kcatalog *kc,
					      const char *system,
					      const char *name);

/* Bytes (1, 2, 4, 8) and signedness of a value of a type named as in
 * kcat_arg.type, as passed in a register; 0 when unknown or too big. */
int kcat_type_width(struct kcatalog *kc, const char *type, bool *is_signed);
int kcat_type_regs(struct kcatalog *kc, const char *type);
int kcat_type_agg_size(struct kcatalog *kc, const char *type);

/* " $file:struct file* $buf:char*" as in stap -L (a space before each). */
void kcat_format_args(struct strbuf *sb, const struct kcat_arg *args, int n);

/* The target kernel's BTF (vmlinux), for @cast. */
const struct btf *kcat_btf(struct kcatalog *kc);

/* ---- between the kcat*.c files ------------------------------------------- */

/* kcat_btf.c: the target's BTF, from the first source that has it. */
struct btf *kbtf_load(struct session *s, const char **origin);
const char *kbtf_cache_dir(struct session *s);	/* NULL if none usable */
int kbtf_write_atomic(const char *path, const void *data, size_t len);

/* kcatalog.c: a BTF type as upstream names it. */
const char *kbtf_type_name(struct session *s, const struct btf *btf,
			   unsigned int id);

/* kcat_trace.c: the tracepoint table (sorted by system, then name). */
struct kcat_tracepoint **ktrace_load(struct session *s, const struct btf *btf,
				     size_t *n);

#endif /* KCATALOG_H */
