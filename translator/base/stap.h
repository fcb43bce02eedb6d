/*
 * stap.h - the translator's shared model, sectioned by the file that owns
 * each part: the session and its arena, diagnostics, tokens, the AST,
 * symbols, and the entry points of the five passes.
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
char *self_dir(struct arena *a);	/* directory of /proc/self/exe */
double now_ms(void);

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
void diag_plain(struct session *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void diag_note(struct session *s, struct loc loc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
const char *loc_str(struct session *s, struct loc loc);	/* "file:L:C" */

/* ---- lex.c: tokens ------------------------------------------------------ */
enum tok_kind {
	TK_EOF,
	TK_IDENT,	/* identifiers, keywords, $target, @operator */
	TK_NUM,
	TK_STR,		/* text holds the unescaped bytes */
	TK_OP,
	TK_EMBEDDED,	/* %{ ... %}: text holds the C */
	TK_BADARG,	/* $N or @N past the arguments given (num = N) */
};

struct token {
	enum tok_kind kind;
	const char *text;	/* interned for TK_IDENT and TK_OP */
	size_t len;		/* bytes in text (strings may hold NULs) */
	int64_t num;
	struct loc loc;
	bool space_before;	/* whitespace precedes (probe-point joins) */
};

struct token_list {
	struct token *v;
	size_t n;
};

int lex_source(struct session *s, const struct source *src,
	       struct token_list *out);
void lex_join_strings(struct session *s, struct token_list *tl);
int lex_check_args(struct session *s, struct token_list *tl);
const char *tok_describe(struct session *s, const struct token *t);
bool lex_is_keyword(const char *name);

/* ---- ast.c: syntax tree ------------------------------------------------- */
enum type { T_UNKNOWN, T_LONG, T_STRING, T_STATS };
const char *type_name(enum type t);

enum node_kind {
	/* expressions */
	N_NUM, N_STR, N_VAR, N_TARGET, N_CALL, N_PRINT, N_BINARY, N_LOGICAL,
	N_COMPARE, N_CONCAT, N_UNARY, N_INCDEC, N_ASSIGN, N_TERNARY, N_INDEX,
	N_EMBEDDED_EXPR,
	N_DEREF,	/* a: base; args: N_MEMBER / N_SUBSCRIPT chain; flags: 1 '$', 2 '$$' */
	N_MEMBER,	/* ->op */
	N_SUBSCRIPT,	/* [a] */
	N_WILDCARD,	/* '*' as an index in delete / foreach slices */
	/* statements */
	N_BLOCK, N_EXPR_STMT, N_IF, N_WHILE, N_FOR, N_RETURN, N_NEXT,
	N_BREAK, N_CONTINUE, N_DELETE, N_NULL_STMT, N_EMBEDDED_STMT,
	N_FOREACH,	/* see struct foreach_info */
	N_TRY,		/* a: try block; b: catch block; op: catch variable */
};

/* foreach ([k1, k2] in arr[slice] @agg sort limit n) body:
 * node->args: key variables (N_VAR); ->a: array (N_VAR, N_INDEX slice or a
 * histogram call); ->b: value variable or NULL; ->c: limit or NULL;
 * ->d: body. Sorting: ->num is the sorted column (0 none, -1 the value or
 * array, k for key k), ->flags is '+' or '-', ->str the aggregate (@sum...). */

/* The print family: flags of N_PRINT. */
enum print_flags {
	PR_STRING = 1,	/* sprint*: returns a string */
	PR_LN = 2,	/* *ln: newline at the end */
	PR_FORMAT = 4,	/* *printf: first arg is a literal format */
	PR_DELIM = 8,	/* *printd*: first arg is a literal delimiter */
};

struct var;
struct func;
struct deref;

struct node {
	enum node_kind kind;
	struct loc loc;
	enum type type;
	const char *op;		/* operator text, identifier, builtin name */
	struct node *a, *b, *c, *d;	/* operands / if-then-else / for parts */
	struct node *args;	/* call arguments, block statements (next) */
	struct node *next;
	int64_t num;
	const char *str;	/* string literal bytes, embedded C text */
	size_t len;
	int flags;		/* N_PRINT: enum print_flags; N_INCDEC: 1 = post */
	struct var *var;	/* N_VAR: resolved symbol */
	struct func *func;	/* N_CALL: resolved function */
	bool truth_only;	/* N_CALL: value only tested (&& || ! if while) */
	bool value_unused;	/* a statement's own expression (x++; for steps) */
	struct deref *deref;	/* N_DEREF of a $target or @cast (tr_deref.c) */
	int tmp;		/* translate.c: temporary slot, -1 if none */
};

/* A probe-point component: name or name(arg). */
struct pp_comp {
	const char *name;
	struct node *arg;	/* N_NUM or N_STR literal, or NULL */
	struct pp_comp *next;
};

struct probe_point {
	struct pp_comp *comps;
	struct loc loc;
	bool optional, sufficient;	/* ? and ! */
	bool quiet_mark;	/* optional only through an alias: no '?' shown */
	struct node *cond;	/* if (expr), or NULL */
	struct probe_point *next;
};

struct var {
	const char *name;
	struct loc loc;
	enum type type;
	bool global, param, written, read;
	bool private;		/* `private`: visible in its file only */
	bool array;		/* declared with [size] or %, or used with keys */
	bool scalar_used;	/* used without keys (an error for arrays) */
	int arity;		/* number of keys (1-9), 0 while unknown */
	enum type keys[9];	/* key types; ->type is the value type */
	int hist;		/* statistics: 1 @hist_log, 2 @hist_linear used */
	int64_t hist_lo, hist_hi, hist_step;	/* @hist_linear's parameters */
	int variance_shift;	/* the largest @variance(s, shift) used */
	bool variance;		/* @variance used: keep the running variance */
	struct loc type_loc;	/* where its type was first inferred */
	bool wrap;		/* `%`: the oldest entry is overwritten when full */
	int64_t maxsize;	/* [N], or 0 for MAXMAPENTRIES */
	int index;		/* position among its scope's variables */
	struct node *init;	/* global initialiser (literal) */
	bool referenced;	/* optimize.c: still named after elision */
	struct var *next;
};

struct func {
	const char *name;
	struct loc loc;
	enum type type;		/* return type */
	struct var *params;
	int nparams;
	struct var *locals;	/* params first, then locals */
	struct node *body;	/* N_BLOCK, or N_EMBEDDED_STMT for %{ %} */
	bool used, tapset, private;
	int64_t priority;	/* function f():N */
	int ntmp;		/* translate.c */
	int depth;		/* longest call chain below, for MAXNESTING */
	int purity;		/* optimize.c: 2 side-effect-free, 3 not */
	bool reached;		/* optimize.c: still called after elision */
	int act_state;		/* translate.c: 0, 1 counting, 2 act_count known */
	int64_t act_count;	/* MAXACTION: loop-free count, -1 unbounded */
	struct func *next;	/* in its file */
	struct func *next_used;	/* in session->funcs */
};

struct probe {
	struct probe_point *points;
	struct loc loc;
	struct node *body;
	struct var *locals;
	struct probe_point *alias_names;	/* `probe NAME = ...`: the names */
	const char *via;	/* derived through this alias (for -p2) */
	const char *listed;	/* -l: the first alias the user's point matched */
	bool epilogue;		/* `+=`: the body runs after the probe's */
	struct node *body2;	/* `probe a = b { prologue }, { epilogue }` */
	bool tapset;
	int index;
	int ntmp;
	const char *entry_size;	/* translate: bytes of @entry values, or NULL */
	struct probe *next;
};

struct embed {
	const char *code;
	struct loc loc;
	struct embed *next;
};

/* One parsed file: its top-level declarations, in order. */
struct file_ast {
	const struct source *src;
	struct probe *probes;
	struct func *funcs;
	struct var *globals;
	struct embed *embeds;
	bool used;		/* a tapset file something was taken from */
	bool included;		/* elaborate.c: its embeds and probes taken in */
	struct file_ast *next;
};

struct node *node_new(struct session *s, enum node_kind k, struct loc loc);
struct node *ast_clone(struct session *s, const struct node *n,
		       const struct expansion *exp);
char *pp_to_string(struct session *s, const struct probe_point *pp);

/* ---- alias.c ------------------------------------------------------------ */
struct probe **alias_expand(struct session *s, struct probe *p,
			    struct probe **out);
void ast_print_file(struct session *s, FILE *out, struct file_ast *f);
void ast_print_expr(FILE *out, const struct node *n);

/* ---- preprocess.c: %( %) conditionals and @define macros ----------------- */
struct macro;
int preprocess(struct session *s, const struct source *src,
	       struct token_list *toks);

/* ---- tapset.c: the library search path ---------------------------------- */
char **tapset_files(struct session *s, const char *ext, size_t *n);
int tapset_load_macros(struct session *s);
struct source *source_from_file(struct session *s, const char *path, bool tapset);

/* ---- parse.c ------------------------------------------------------------ */
struct file_ast *parse_source(struct session *s, const struct source *src);

/* ---- format.c: printf formats ------------------------------------------- */
struct fmt_piece {
	char conv;		/* 0 for a literal run, '%' never appears */
	int flags;		/* bits: '-' 1, '+' 2, ' ' 4, '#' 8, '0' 16 */
	int width, prec;	/* -1 none, -2 '*' */
	const char *lit;	/* literal bytes (conv == 0) */
	size_t litlen;
	struct fmt_piece *next;
};
enum { FMT_LEFT = 1, FMT_PLUS = 2, FMT_SPACE = 4, FMT_ALT = 8, FMT_ZERO = 16 };
struct fmt_piece *fmt_parse(struct session *s, const char *f, size_t len,
			    const char **err);
int fmt_nargs(const struct fmt_piece *p);

/* ---- optimize.c: pass 2 optimisations ----------------------------------- */
void opt_fold(struct session *s, struct probe *p, struct node **body);
void opt_elide(struct session *s);

/* ---- elaborate.c: pass 2 ------------------------------------------------ */
struct timer_spec {
	int64_t period_ns;
};

/* A resolved probe: one per concrete probe point (probepoint.c). */
struct kcat_arg;
struct rprobe {
	struct probe *probe;	/* body and locals */
	struct probe_point *point;
	const char *pp;		/* canonical probe point text */
	const char *marks;	/* "?" or "!" of the point as written, or "" */
	const char *note;	/* -p2 comment after pp, or NULL */
	const char *from;	/* the probe's points as written (-p2 "<-") */
	const char *label;	/* as stap -l prints it */
	const char *family;	/* "kernel.function", "timer.jiffies": messages */
	int kind;		/* RP_* */
	int64_t order;		/* begin(N)/end(N)/error(N) */
	int64_t period_ns;	/* RP_TIMER; RP_PROFILE with freq.hz(N) */
	int64_t jiffies;	/* RP_JIFFIES */
	int64_t randomize;	/* +-M: ns for RP_TIMER, jiffies for RP_JIFFIES */
	/* RP_KFUNC, RP_KPROBE, RP_KSTATEMENT */
	const char *module;	/* NULL: the kernel itself */
	const char *symbol;	/* the function */
	int64_t offset;		/* statement("func+OFFSET") */
	int64_t address;	/* statement(ADDRESS).absolute (symbol NULL) */
	bool ret;		/* .return: a kretprobe */
	int64_t maxactive;	/* .maxactive(N), or -1 */
	const char *ret_type;	/* RP_KFUNC: "void" when there is no $return */
	const struct kcat_arg *ret_arg;	/* RP_KFUNC: its BTF type */
	/* RP_TRACEPOINT */
	const char *tp_system;	/* "" when no trace header names it */
	const char *tp_name;
	/* RP_HWBKPT: symbol or address, and */
	int64_t hw_len;		/* bytes watched */
	bool hw_rw;		/* .rw (else .write) */
	/* RP_PERF: the perf_event_attr; period, or frequency when perf_freq */
	int64_t perf_type, perf_config, perf_period;
	bool perf_freq;
	/* RP_PROCFS: the file under /proc/systemtap/MODULE ("command" when
	 * the point names none), .write or .read, umask (-1: none) and the
	 * read buffer's size (-1: MAXSTRINGLEN) */
	const char *procfs_path;
	bool procfs_write;
	int64_t procfs_umask, procfs_maxsize;
	/* RP_NETFILTER: C expressions of the hook, protocol family and
	 * priority (numbers, or what guru mode wrote) */
	const char *nf_hook, *nf_pf, *nf_priority;
	/* $variables: RP_KFUNC parameters, RP_TRACEPOINT arguments */
	int nargs;
	const struct kcat_arg *args;
	struct uprobe_info *u;	/* RP_UPROBE (uprobes.c) */
	const char *proc_path;	/* RP_UPROC: process("PATH"), NULL: any */
	int proc_event;		/* RP_UPROC: UP_BEGIN ... */
	int64_t proc_pid;	/* RP_UPROC, RP_UPROBE: process(PID), 0: none */
	struct rprobe *next;
};
enum {
	RP_BEGIN, RP_END, RP_TIMER, RP_NEVER,	/* pass 3 translates these */
	RP_ERROR,	/* error, error(N) */
	RP_JIFFIES,	/* timer.jiffies(N)[.randomize(M)] */
	RP_PROFILE,	/* timer.profile[.tick], timer.profile.freq.hz(N) */
	RP_KFUNC,	/* kernel.function, module().function: $vars from BTF */
	RP_KPROBE,	/* kprobe.function, kprobe.module().function: no $vars */
	RP_KSTATEMENT,	/* kernel/module().statement("f+off"), *.statement(A).absolute */
	RP_TRACEPOINT,	/* kernel.trace("sys:name") */
	RP_PERF,	/* perf.type(T).config(C)[.sample(N)|.hz(F)], timer.profile */
	RP_UPROBE,	/* process("PATH").function/.statement/.mark (uprobes.c) */
	RP_UPROC,	/* process[("PATH")].begin/.end/.thread.begin/.thread.end */
	RP_PROCFS,	/* procfs[("path")][.umask(N)].read[.maxsize(N)] | .write */
	RP_HWBKPT,	/* kernel.data("SYM"|ADDR)[.length(N)].write|.rw */
	RP_NETFILTER,	/* netfilter.hook("H").pf("PF")[.priority("P")] */
};
enum { UP_BEGIN, UP_END, UP_THREAD_BEGIN, UP_THREAD_END, UP_SYSCALL, UP_SYSCALL_RETURN };

/* ---- probepoint.c, kmodule.c, listing.c: probe points (pass 2, -l/-L) ---- */
struct kcatalog;
struct kcat_func;
struct kmodules;
struct rprobe *resolve_probe_point(struct session *s, struct probe *p,
				   struct probe_point *pp);
bool probe_family_known(const char *name);
bool probe_point_matches(struct session *s, struct probe_point *pp);
bool probe_point_has_wildcard(const struct probe_point *pp);
void check_procfs_points(struct session *s);
struct kcatalog *kernel_catalog(struct session *s);
/* ksymmap.c: the text symbols of the kernel's System.map (-r DIR's, a real
 * /boot one) or /proc/kallsyms (the running kernel) matching glob, sorted */
size_t ksymmap_match(struct session *s, const char *glob, const char ***out);
void kernel_catalog_close(struct session *s);
size_t kmod_match_modules(struct session *s, const char *glob,
			  const char ***out);
long kmod_match_functions(struct session *s, const char *module,
			  const char *glob, const char ***out);
const struct kcat_func *kmod_function(struct session *s, const char *module,
				      const char *fn);
struct btf;
const struct btf *kmod_btf(struct session *s, const char *module);
void kmod_close(struct session *s);
const char *kmod_path(struct session *s, const char *module);
int list_probes(struct session *s, FILE *out);

int elaborate(struct session *s);
/* main.c: make the session's temporary directory (s->tmpdir) once */
int session_tmpdir(struct session *s);
void load_tapsets(struct session *s);
bool elaborate_poisoned(struct session *s, const char *name);

/* ---- dump.c: --dump-functions, --dump-probe-aliases ---------------------- */
int dump_functions(struct session *s);
int dump_probe_aliases(struct session *s);
void elaborate_print(struct session *s, FILE *out);
int rprobe_entry_count(const struct rprobe *r);

/* ---- translate.c, kbuild.c, run.c: passes 3, 4, 5 ------------------------ */
int translate(struct session *s);
int kbuild(struct session *s);
int run_module(struct session *s);

/* ---- main.c: the session ------------------------------------------------ */
struct define {
	const char *text;	/* NAME or NAME=VALUE */
	struct define *next;
};

/* ---- regex.c: regexes of =~ and !~ --------------------------------------- */
#define RX_MAX_INSNS 2000	/* program size limit */
#define RX_MAX_SLOTS 16384	/* instructions * capture slots limit */
#define RX_MAX_SETS 256		/* distinct character sets */
enum rx_op { RX_CHAR, RX_SPLIT, RX_JMP, RX_SAVE, RX_BOL_OP, RX_EOL_OP, RX_MATCH };
struct rx_insn {
	enum rx_op op;
	int x, y;		/* CHAR: set; SPLIT: preferred, other; JMP: to; SAVE: slot */
};
struct rx_prog {
	struct rx_insn *insns;
	int ninsns, ngroups;	/* groups: 1 + the capturing groups */
	uint8_t sets[RX_MAX_SETS][32];
	int nsets;
	const char *text;	/* the literal's bytes */
};
void regex_compile_all(struct session *s);	/* pass 2 */
void regex_defines(struct session *s, struct strbuf *c);	/* pass 3 */
void regex_tables(struct session *s, struct strbuf *c);

struct session {
	struct arena *arena;
	/* options */
	int last_pass;
	int verbose;
	bool keep_tmp, guru, suppress_warnings, unoptimized;
	int dump;		/* 1 --dump-functions, 2 --dump-probe-aliases */
	const char *module_name;	/* -m, or stap_<pid> */
	bool module_named;
	const char *kernel_release;	/* -r */
	const char *kernel_build_dir;
	const char *output_file;	/* -o */
	const char *size_option;	/* -S SIZE[,N], for staprun */
	const char *target_cmd;		/* -c */
	int target_pid;			/* -x */
	int timeout_s;			/* -T */
	const char **global_settings;	/* -G NAME=VALUE */
	int nglobal_settings;
	int bufsize_mb;			/* -s */
	const char **usym_objs;		/* -d: user objects (and other names) */
	int nusym_objs;
	bool ldd;			/* --ldd */
	struct define *defines;		/* -D */
	const char **script_args;	/* $1.. / @1.. */
	int nscript_args;
	const char *runtime_dir, *tapset_dir, *staprun_path;
	const char **include_dirs;
	int ninclude_dirs;
	/* inputs */
	struct source *user;
	struct file_ast *user_ast, *tapset_asts;
	/* pass 2 results */
	struct var *globals;
	struct func *funcs;	/* used functions */
	struct probe *probes;
	struct rprobe *rprobes;
	struct embed *embeds;
	int nrprobes;
	int maxnesting;
	struct rx_prog **regexes;	/* compiled =~ literals (regex.c) */
	int nregexes;
	bool regex_tags;		/* submatches are read: record them */
	/* pass 3/4 */
	const char *tmpdir;
	const char *c_file, *ko_file;
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
	FILE *err;
};

const char *intern(struct session *s, const char *p, size_t n);
void intern_free(struct session *s);

#endif /* STAP_H */
