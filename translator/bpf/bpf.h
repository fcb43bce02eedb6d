/*
 * bpf.h - the BPF backend (bpf/, stap --runtime=bpf): pass 3 writes the
 * elaborated program as BPF C for clang (bpf_gen.c: handlers, functions,
 * expressions; bpf_out.c: probes, globals, the metadata the loader reads;
 * bpf_clang.c: pass 4, clang -target bpf). staprun/stapbpf.c loads the object.
 * Built on pass 2 (elab.h); beside gen/, which it does not use.
 */
#ifndef BPF_H
#define BPF_H

#include "elab.h"

/* Pass 3: the script as BPF C in s->c_file (NAME.bpf.c); errors. */
int bpf_translate(struct session *s);
/* Pass 4: clang compiles it into s->ko_file (NAME.bpf.o); errors. */
int bpf_compile(struct session *s);
/* clang's optimisation level (bpf_clang.c; in the cache's key) */
#define BPF_CLANG_OPT "-O1"
/* bpf_clang.c: start clang for pass 4 now, before pass 1 (when s will
 * reach pass 4 and the cache is not expected to answer); kill it, unused */
void bpf_clang_start(struct session *s, int argc, char **argv);
void bpf_clang_stop(struct session *s);

/* ---- internal to bpf/ ---------------------------------------------------- */
struct bgen {
	struct session *s;
	struct strbuf *body;	/* the handler or function being written */
	int indent;
	int ntmp;		/* C temporaries of this handler */
	int nstr;		/* string slots, across the program */
	int label;
	int loops[64];		/* break/continue labels of enclosing loops */
	int nloops;
	struct func *func;	/* NULL in a probe */
	const struct rprobe *rp;	/* the probe's point, when it has one */
	const struct probe *probe;	/* the probe being written, or NULL */
	struct strbuf meta;	/* the .stapmeta text */
	int nfmt, nmsg;
	int errors;
	struct bcore *core;	/* bpf_core.c: the kernel types read (CO-RE) */
	struct var *lv;		/* a handler's or function's locals kept in scratch
				 * (LV[]), or NULL */
	struct strbuf ldecl;	/* their declarations, again in foreach bodies */
	const char *errlabel;	/* where a raised error goes: a catch, or NULL (out) */
	struct strbuf protos;	/* the script functions' declarations */
	bool entry_map;		/* bpf_uprobe.c's map of entry values written */
	bool need_hex;		/* $$parms or a fault's message calls stp_hex() (bpf_core.c) */
	bool at_entry;		/* writing a .return probe's entry half (bpf_uprobe.c) */
	struct strbuf pfn;	/* probefunc()'s table: each program's function */
	bool need_pfn;		/* probefunc() or pp() is called */
	struct strbuf ppt;	/* pp()'s table: each program's probe point */
	bool need_pp;		/* pp() is called */
	bool need_task;		/* ppid(), pexecname(): bpf_tapfn.c's task reads */
	bool need_strpos;	/* strpos(), isinstr(): bpf_tapfn.c's search */
	bool need_quote;	/* user_string_quoted(): stapbpf.h's STP_QUOTE part */
	bool need_kstack;	/* backtrace() and the like (bpf_stack.c) */
	bool need_ksym;		/* symname(), symdata(), sprint_backtrace() (bpf_stack.c) */
	bool need_usym;		/* usymname(), print_ubacktrace()... (bpf_usym.c) */
	bool no_ctx;		/* in a foreach body's own function: no ctx there */
	const char **unsup;	/* "LOC: WHAT" of the unsupported constructs said, */
	int nunsup;		/* ... each once (a handler per point repeats them) */
	bool fentry;		/* writing a kprobe point's fentry/fexit twin */
	bool fentry_bad;	/* ... which cannot be had (not an error) */
	bool entry_twin;	/* bu_entry(): the entry program's twin written */
	struct strbuf ftwins;	/* "\nNAME\n"... the fentry handlers written */
	struct strbuf fe_code;	/* bpf_maps.c: foreach and loop callbacks,
				 * written before the handlers */
	int fe_count;		/* ... their number */
	int hist_count;		/* bpf_maps.c: @hist scratch structs */
	bool delete_cb;		/* bpf_maps.c: stp_delete_cb() is called */
	int strfn_need;		/* bpf_strfn.c: the helpers bx_types() writes */
	bool need_sc;		/* the syscall tapset's helpers (bpf_syscall.c) */
	unsigned long long scd_used[2];	/* ... the flag decoders called, by index */
	unsigned int sc2_used;	/* ... bpf_syscall2.c's helpers written */
};

void bg_line(struct bgen *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* pp(): the running program's probe point, in a new slot */
const char *bg_pp(struct bgen *g);
/* a new string slot: the C expression of its buffer */
const char *bg_slot(struct bgen *g);
/* the error message text's index in the table; a run-time error there */
int bg_msg(struct bgen *g, const char *text);
void bg_fail(struct bgen *g, const char *text);
/* the label a raised error jumps to here */
const char *bg_errlabel(struct bgen *g);
/* a fault at addr: "PRE0x...POST" and, uncaught, near; a read fault at n */
void bg_fault_msg(struct bgen *g, const char *pre, const char *post, const char *near,
		  const char *addr);
void bg_fault(struct bgen *g, const struct node *n, const char *addr);
void bg_deref_fault(struct bgen *g, const struct node *d, const char *addr);
/* the next statement: a fault at addr of tapset function call n, near
 * the function ("PRE0x... [man error::fault]") */
void bg_call_fault(struct bgen *g, const struct node *n, const char *pre, const char *addr);
/* can the for or while loop n be a function per iteration (no $vars,
 * return, nor calls that read the probe's context) */
bool bg_loop_infn(const struct node *n);
/* a loop iteration's MAXACTION check at n */
void bg_act(struct bgen *g, const struct node *n);
/* "not supported by --runtime=bpf" at n (a pass-3 error) */
void bg_unsupported(struct bgen *g, const struct node *n, const char *what);
const char *bg_expr(struct bgen *g, struct node *n);
void bg_stmt(struct bgen *g, struct node *n);
const char *bg_fn_name(struct bgen *g, const struct func *f);
/* does this runtime have the embedded-C function f (its name and arity) */
bool bg_has_builtin(const struct func *f);
void bg_function(struct bgen *g, struct strbuf *out, struct func *f);
const char *bg_hex(struct bgen *g, const char *p, size_t n);

/* bpf_core.c: the walk of d (of the N_DEREF at) from acc with CO-RE
 * relocated offsets (false:
 * not relocatable, nothing written); the types it uses, as C, into c */
bool bc_deref(struct bgen *g, const struct deref *d, const char *acc,
	      const struct node *at);
void bc_types(struct bgen *g, struct strbuf *c);
/* bpf_cache.c: the object of s->c_file into out from the cache (true), or
 * out (clang's) into the cache */
bool bpf_cache_get(struct session *s, const char *clang, const char *out);
void bpf_cache_put(struct session *s, const char *clang, const char *out);
/* did the last run of this command line find or put its object there */
bool bpf_cache_hinted(struct session *s, int argc, char **argv);
/* bpf_uprobe.c: is r a process().function() uprobe, a kernel or module
 * function's kprobe, either; $name there (n) */
bool bu_is_uprobe(const struct rprobe *r);
bool bu_is_kprobe(const struct rprobe *r);
bool bu_is_func(const struct rprobe *r);
const char *bu_target(struct bgen *g, struct node *n);
/* a .return function probe's entry program into c, if its handler reads
 * parameters or @entry(): then the return program's C that takes them */
const char *bu_entry(struct bgen *g, struct strbuf *c, const struct rprobe *r, int id);
/* Has kprobe point r an fentry/fexit twin (a kernel or module function
 * of BTF-typed integer-class parameters, six at most)? */
bool bu_has_fentry(const struct rprobe *r);
/* @entry(expr) in a kernel .return probe: the value saved at the entry */
const char *bu_entry_value(struct bgen *g, struct node *n);
/* the loader's metadata line for function probe r's program prog */
void bu_meta(struct bgen *g, const struct rprobe *r, const char *prog, bool ret);
/* the C name of a script variable (LV[i] for a local kept in scratch) */
const char *bg_var_ref(struct bgen *g, const struct var *v);

/* bpf_tapfn.c: the tapset's embedded-C functions written for BPF there
 * (user_string..., ppid()...): has it f; the value of the call n (NULL:
 * not one of them); the C they need */
bool bt_has(const struct func *f);
const char *bt_call(struct bgen *g, struct node *n);
void bt_types(struct bgen *g, struct strbuf *c);
/* bpf_stack.c: kernel backtraces (backtrace(), print_backtrace(),
 * callers(), stack()), as bt_* above */
bool bs_has(const struct func *f);
const char *bs_call(struct bgen *g, struct node *n);
void bs_types(struct bgen *g, struct strbuf *c);
/* bpf_strfn.c: the same for text_str(), tokenize(), str_replace(),
 * strtol(), euid(), egid(), pgrp(), sid(), get_cycles(), ctime() */
bool bx_has(const struct func *f);
const char *bx_call(struct bgen *g, struct node *n);
void bx_types(struct bgen *g, struct strbuf *c);
/* user_mode() at point r: 1, 0, or -1 where the interrupted context's
 * registers tell (perf events, timer.profile) */
int bs_user_mode_of(const struct rprobe *r);
/* has the handler being written a stack (else an error at n, false) */
bool bs_stack_here(struct bgen *g, const struct node *n);
/* bpf_ustack.c: user stacks (ubacktrace(), ucallers(), ustack(), uaddr()),
 * asked by bs_call() */
bool bus_has(const struct func *f);
const char *bus_call(struct bgen *g, struct node *n);
void bus_types(struct bgen *g, struct strbuf *c);
/* ucallers(n), ustack(n) (script functions) in a handler, or NULL */
const char *bus_script(struct bgen *g, struct node *n);
/* bpf_usym.c: user symbols, named by the loader: usymname(), usymdata(),
 * umodname(), print_usyms(), sprint_usyms() (bsy_call(), asked by
 * bs_call()), and print_ubacktrace(), print_ubacktrace_brief(),
 * sprint_ubacktrace() in a handler (bsy_stack(), asked by bus_call()
 * with entry as stp_ustack()'s); bsy_meta(): the objects' symbol tables
 * in the metadata */
bool bsy_has(const struct func *f);
const char *bsy_call(struct bgen *g, struct node *n);
const char *bsy_stack(struct bgen *g, struct node *n, int entry);
void bsy_types(struct bgen *g, struct strbuf *c);
void bsy_meta(struct bgen *g);
/* bpf_syscall.c: the same for the syscall tapsets' helpers (_sc_i()...) */
bool bsc_has(const struct func *f);
const char *bsc_call(struct bgen *g, struct node *n);
void bsc_types(struct bgen *g, struct strbuf *c);
size_t bsc_decoder(struct bgen *g, const char *fn);
/* bpf_syscall2.c: more of them (the user sockaddr...); bsc2_script(): the
 * value of a call of a tapset script function written there (__get_argv()),
 * else NULL */
bool bsc2_has(const struct func *f);
const char *bsc2_call(struct bgen *g, struct node *n);
const char *bsc2_script(struct bgen *g, struct node *n);
void bsc2_types(struct bgen *g, struct strbuf *c);

/* bpf_maps.c: global arrays as BPF hash maps */
/* a handler's locals, declared (in scratch when it has a foreach) */
void bm_locals(struct bgen *g, struct probe *p);
bool bm_fn_locals(struct bgen *g, struct func *f, struct strbuf *out);
void bm_decl(struct bgen *g, struct strbuf *c, struct var *v);
void bm_prelude(struct bgen *g, struct strbuf *c);
const char *bm_read(struct bgen *g, struct node *n);
const char *bm_in(struct bgen *g, struct node *n);
const char *bm_assign(struct bgen *g, struct node *n,
		      const char *(*arith)(struct bgen *, struct node *, const char *,
					   const char *, const char *));
const char *bm_lvalue(struct bgen *g, struct node *ix);
void bm_delete(struct bgen *g, struct node *n);
/* the code written before the handlers (loops' functions); the next id */
struct strbuf *bm_code(struct bgen *g, int *id);
/* foreach over a global array: false (an error given) if not possible */
bool bm_foreach(struct bgen *g, struct node *n, int label,
		void (*body)(struct bgen *g, struct node *n, int label));
/* scalar statistics with a histogram: the map, <<<, print(@hist_*(s)) */
bool bm_stat_decl(struct bgen *g, struct strbuf *c, struct var *v);
const char *bm_stat_add(struct bgen *g, struct var *v, const char *x);
bool bm_print_hist(struct bgen *g, struct node *hist, const char *at);
/* @variance(s | a[k...]) and @hist_*(s | a[k...])[i]: NULL if not possible
 * here; the buckets of a histogram (0: not one) */
const char *bm_variance(struct bgen *g, struct node *n, const char *at);
const char *bm_hist_bucket(struct bgen *g, struct node *hist, const char *i, const char *at);
long bm_hist_nbuckets(const struct node *hist);
const char *bm_stat_get(struct bgen *g, struct node *ix);

#endif /* BPF_H */
