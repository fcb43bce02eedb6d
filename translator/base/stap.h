/*
 * stap.h - the translator's base layer (base/): the session and its
 * arena, growable buffers and host helpers, source locations and
 * diagnostics. Every other layer builds on it (HACKING.md); the AST is
 * front/ast.h's, probe points and pass 2 elab/elab.h's.
 *
 * Every object reachable from struct session lives in the session arena
 * and is freed in one call at the end (never piecemeal). Passes return an
 * error count; only main() decides to stop or exit.
 */
#ifndef STAP_H
#define STAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define STAP_VERSION_STRING "0.1.0"
#define STAP_COMPAT_VERSION "4.8"	/* the SystemTap language we follow */

struct session;

/* ---- arena.c: the session arena ---------------------------------------- */
struct arena;
struct arena *arena_new(void);
void arena_free(struct arena *a);
void *arena_alloc(struct arena *a, size_t n);	/* zeroed */
char *arena_strndup(struct arena *a, const char *p, size_t n);
char *arena_strdup(struct arena *a, const char *p);
char *arena_printf(struct arena *a, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* ---- util.c: growable buffers and host helpers -------------------------- */
struct strbuf {
	char *buf;
	size_t len, cap;
};
void sb_init(struct strbuf *sb);
void sb_free(struct strbuf *sb);
void sb_putc(struct strbuf *sb, char c);
void sb_puts(struct strbuf *sb, const char *s);
void sb_putn(struct strbuf *sb, const char *s, size_t n);
void sb_printf(struct strbuf *sb, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void sb_c_string(struct strbuf *sb, const char *s);	/* as a C literal */
char *read_file(const char *path, size_t *len);	/* malloc'd, NUL-terminated */
void session_set_kernel(struct session *s, const char *r);
char *read_stream(FILE *f, size_t *len);
int write_file(const char *path, const char *data, size_t len);
bool path_exists(const char *path);
/* kill and reap s->child, if any, closing its pipe ends */
void session_child_stop(struct session *s);
/* s->child ended by itself: reaped; false and a message (status 1 in
 * *rc) if it failed; true while it runs or when there is none */
bool session_child_poll(struct session *s, int *rc);
char *self_dir(struct arena *a);	/* directory of /proc/self/exe */
double now_ms(void);
/* edits between two names, for "did you mean" hints (99: too long) */
int edit_distance(const char *a, const char *b);
/* the candidate nearest to a misspelt name (the one "did you mean" search) */
struct nearest {
	const char *want;
	const char *best;	/* NULL: none near enough */
	int best_d;		/* a candidate must be nearer than this */
};
void nearest_init(struct nearest *n, const char *want, int limit);
void nearest_offer(struct nearest *n, const char *cand);

/* ---- diag.c: source files and diagnostics ------------------------------ */
struct source {
	const char *name;	/* "<input>" for -e, "-" stdin becomes "<input>" */
	const char *text;
	size_t len;
	bool tapset;		/* library file: privileged (embedded C allowed) */
};

struct expansion;

struct loc {
	const struct source *src;
	int line, col;		/* 1-based */
	const struct expansion *exp;	/* set when a macro produced this */
};

/* Where a macro or probe alias was expanded: diagnostics print it as a
 * note. */
struct expansion {
	const char *macro;	/* the macro's name, or NULL */
	const char *alias;	/* the probe alias's name, or NULL */
	struct loc at;
};

void diag_error(struct session *s, struct loc loc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void diag_warn(struct session *s, struct loc loc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* the count of repeated warnings left out, if any (4.8's words) */
void diag_summary(struct session *s);
void diag_plain(struct session *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void diag_note(struct session *s, struct loc loc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
const char *loc_str(struct session *s, struct loc loc);	/* "file:L:C" */
/* ---- main.c: the session ------------------------------------------------ */
struct define {
	const char *text;	/* NAME or NAME=VALUE */
	struct define *next;
};


struct var;
struct func;
struct probe;
struct rprobe;
struct embed;
struct source;
struct file_ast;
struct rx_prog;
struct intern_table;
struct macro;
struct kcatalog;
struct ksymmap;
struct kmodules;
struct family;
struct ubin;
struct header_prog;

/* The privilege levels of --privilege, as 4.8 numbers them (the module's
 * STP_PRIVILEGE): what a script may use, and who may run its module. */
enum { PR_STAPUSR = 2, PR_STAPSYS = 4, PR_STAPDEV = 8 };
/* "stapusr", "stapsys" or "stapdev" (0: not given, stapdev) */
const char *privilege_name(int privilege);
/* Is the user (real gid or a supplementary group) in group `name`? */
bool in_group(const char *name);

/* An error reported only if its node (an N_TARGET) is still used. */
struct deferred_error {
	struct loc loc;
	const char *msg;
	const void *node;
	bool live;
	struct deferred_error *next;
};

struct session {
	struct arena *arena;
	/* options */
	int last_pass;
	int verbose;
	bool keep_tmp, guru, suppress_warnings, unoptimized;
	bool warnings_fail;	/* -W: a pass with a warning fails */
	int dump;		/* 1 --dump-functions, 2 --dump-probe-aliases */
	const char *module_name;	/* -m, or stap_<pid> */
	bool module_named;
	bool no_global_display;	/* --no-global-var-display */
	bool runtime_bpf;		/* --runtime=bpf (bpf/) */
	/* a child process to end once pass 5 has started, or at exit
	 * (bpf_clang.c's early clang): its pid (0: none), while it runs
	 * its pipe ends (-1: closed), and its name for messages (a status
	 * other than 0 when it exits by itself after pass 5 has started is
	 * an error, session_child_poll()); session_child_stop() */
	struct session_child {
		int pid, in, out;
		const char *name;
		const char *made[2];	/* files made from its output,
					 * removed if it fails after all */
	} child;
	const char *bpf_hint;		/* --runtime=bpf: this command line's
					 * cache hint file, or NULL */
	bool timing;			/* -t: the probe hit report */
	bool suppress_time_limits;	/* --suppress-time-limits (-g) */
	bool skip_badvars;		/* --skip-badvars */
	bool sign_module;		/* --sign-module[=KEYDIR] */
	const char **extra_scripts;	/* -E SCRIPT, run with the main one */
	int nextra_scripts;
	bool example;			/* --example: FILE is an example's name */
	int privilege;			/* --privilege: PR_STAPUSR or PR_STAPSYS,
					 * PR_STAPDEV given, 0 not given (stapdev) */
	const char *sign_keydir;
	const char **modinfos;		/* --modinfo NAME=VALUE */
	int nmodinfos;
	const char *tmpdir_base;	/* --tmpdir, else $TMPDIR, else /tmp */
	const char *compat_version;	/* --compatible, else STAP_COMPAT_VERSION */
	const char **make_args;		/* -B NAME=VALUE */
	int nmake_args;
	const char *kernel_release;	/* -r */
	const char *kernel_build_dir;
	const char *output_file;	/* -o */
	const char *size_option;	/* -S SIZE[,N], for staprun */
	const char *target_cmd;		/* -c */
	int target_pid;			/* -x */
	int target_ns_pid;		/* --target-namespaces: staprun -N */
	int timeout_s;			/* -T */
	const char **global_settings;	/* -G NAME=VALUE */
	int nglobal_settings;
	int bufsize_mb;			/* -s */
	bool flight_recorder;		/* -F: staprun -L, or -D with -o */
	const char **usym_objs;		/* -d: user objects (and other names) */
	int nusym_objs;
	bool ldd;			/* --ldd */
	struct define *defines;		/* -D */
	const char **script_args;	/* $1.. / @1.. */
	int nscript_args;
	const char *runtime_dir, *tapset_dir, *staprun_path;
	const char *bpfcc_path;		/* the build's stapbpfcc, or NULL: clang */
	const char *stapbpf_path;	/* staprun's BPF loader, or NULL: staprun */
	const char *debuginfo_path;	/* SYSTEMTAP_DEBUGINFO_PATH, or NULL */
	const char **include_dirs;
	int ninclude_dirs;
	/* inputs */
	struct source *user;
	struct file_ast *user_ast, *tapset_asts;
	struct tapset_index *tapset_index;	/* tapset.c: the lazy library load */
	/* pass 2 results */
	struct var *globals;
	struct func *funcs;	/* used functions */
	struct probe *probes;
	const struct family *const *families;	/* the probe families (family/) */
	struct rprobe *rprobes;
	struct embed *embeds;
	int nrprobes;
	int nfunc_copies;	/* resolve.c: probes whose functions were copied */
	int maxnesting;
	struct rx_prog **regexes;	/* compiled =~ literals (regex.c) */
	int nregexes;
	bool regex_tags;		/* submatches are read: record them */
	/* pass 3/4 */
	const char *tmpdir;
	const char *c_file, *ko_file;
	/* the defines of the C the runtime depends on (privilege, regex
	 * sizes, families): what the runtime's object of a split module is
	 * compiled with (build/kbuild.c) */
	const char *rt_defines;
	struct intern_table *interns;
	struct macro *macros;		/* library macros from .stpm files */
	const char **poisoned;		/* names a broken tapset file declares */
	size_t npoisoned;
	struct kcatalog *kcat;		/* kernel probe points: opened on first use */
	struct ksymmap *ksymmap;	/* the kernel's symbol map: read on first use */
	bool kcat_tried;
	struct kmodules *kmods;		/* modules' functions (kmodule.c) */
	int listing;			/* -l 1, -L 2 */
	const char *listing_pp;		/* their PROBE */
	const char *kconfig;		/* the target kernel's .config text */
	const char *arch;		/* for %( arch == ... %) */
	/* diagnostics */
	int errors, warnings;
	const char **warned;	/* diag.c: the warnings printed (place: text) */
	int nwarned, capwarned, warnings_repeated;
	FILE *err;
	/* elab/: errors of target variables in expression statements, kept
	 * until elision shows whether their statement stays (as 4.8) */
	struct deferred_error *deferred;
	int defer_targets;		/* inside an expression statement */
	/* elab/target.c: the $x->m or $x$ whose base is being checked (its
	 * whole text for 4.8's .return warning), inside @entry() if > 0, and
	 * the "probe: expression" pairs warned of */
	const struct node *target_whole;
	int in_entry;
	const char **capture_warned;
	int ncapture_warned;
	/* elab/: errors of typed accesses ($x->m), said in 4.8's order with
	 * the autocasts' (elab/autocast.c) */
	struct deferred_error *typed_errs;
	int ntyped_errs;
	/* info/kdwarf.c: the "module:symbol" names stp_ksym() resolves, by index */
	const char **ksyms;
	int nksyms, capksyms;
	/* info/kdwarf.c: the kernel's vmlinux with DWARF, looked for once */
	struct ubin *kvmlinux;
	bool kvmlinux_tried, kbl_ranges_read;
	const char *kvmlinux_why;	/* found, but for another build */
	const char *kvmlinux_id;	/* its build ID (hex) */
	uint64_t kbl_ranges[5][2];	/* its blacklisted ranges of .text */
	/* info/ubin.c: the binaries this session opened (ubin_close_all()) */
	struct ubin *ubins;
	/* gen/tr_deref.c: programs built to read @cast's header types */
	struct header_prog *header_progs;
	/* build/cache.c: the module cache ($SYSTEMTAP_DIR/cache) */
	bool no_cache, poison_cache;	/* --disable-cache (-m, -k), --poison-cache */
	const char *cache_dir;		/* NULL when the cache is off */
	/* pass 4's own caches there (build/kdirect.c's recipes, build/rtobj.c's
	 * runtime objects): also with -m, not with --disable-cache or -k */
	bool no_build_cache;
	const char *build_cache_dir;	/* NULL when those are off */
	const char *cache_entry;	/* DIR/xx/stap_HASH_N: .c, .ko, .meta */
	const char *cache_key;		/* its key's hex, a newline, what went in */
	bool cache_hit;
};

/* util.c: make the session's temporary directory (s->tmpdir) once */
int session_tmpdir(struct session *s);

const char *intern(struct session *s, const char *p, size_t n);
void intern_free(struct session *s);

#endif /* STAP_H */

