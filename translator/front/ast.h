/*
 * ast.h - the front end (front/): tokens, the syntax tree and its
 * symbols, the preprocessor, the parser, the tapset library's files and
 * printf formats. Built on the base layer (stap.h) only.
 */
#ifndef AST_H
#define AST_H

#include "stap.h"

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
	N_MEMBER,	/* ->op; num: the column of its '->' (0: not on its line) */
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
struct autocast;

/* N_EXPR_STMT flags: what is left of a folded `for (init; 0; step)`,
 * whose elision 4.8 does not warn of */
#define STMT_QUIET 1

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
	int flags;		/* N_PRINT: enum print_flags; N_INCDEC: 1 = post;
				 * N_IF: 1 = a probe point's `if (cond)`;
				 * N_EXPR_STMT: STMT_QUIET */
	struct var *var;	/* N_VAR: resolved symbol */
	struct func *func;	/* N_CALL: resolved function */
	bool truth_only;	/* N_CALL: value only tested (&& || ! if while) */
	bool value_unused;	/* a statement's own expression (x++; for steps) */
	struct deref *deref;	/* N_DEREF of a $target or @cast (elab/deref.c) */
	const struct autocast *ac;	/* the C type of its value (elab/autocast.c) */
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
	bool assigned;		/* written by the script (resolve.c), not as a parameter */
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
	const struct autocast *ac;	/* the C type its assignments give it */
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
	bool call_stub;		/* translate.c: its call_ function written */
	const struct autocast *ac;	/* the C type its returns give it */
	/* overloads of one name and arity (resolve.c): the first, which
	 * calls bind to, the one `next` goes on to, and this one's index */
	struct func *overload_first, *overload_next;
	int overload;
	bool chained;		/* a `next` leads to or from it */
	struct func *next;	/* in its file */
	struct func *next_used;	/* in session->funcs */
	/* 4.8's copies for a probe (resolve.c): a copy's probe, whose $vars
	 * and module-less @casts it reads, and the function it copies; the
	 * body and parameters as parsed, kept for copies; the copies */
	struct probe *probe;
	struct func *copy_of;
	struct node *pristine;
	struct var *pristine_params;
	struct func *copies;	/* chained through next_copy */
	struct func *next_copy;
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
	int index;		/* translate: its handler probe_N (shared by probes
				 * whose handlers would be identical) */
	int ntmp;
	const char *entry_size;	/* translate: bytes of @entry values, or NULL */
	/* its $$parms$ and the like differ between its points: each row
	 * names its group of points alike (elab_pretty_group) */
	bool pretty_groups;
	int copy_number;	/* resolve.c: N of its function copies' names
				 * (__clone_probe_N_of_...), 0: none yet */
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
/* Parse every tapset file into s->tapset_asts; one that does not parse
 * poisons the names it declares, so their absence is not reported again
 * as "unresolved" (tapset_poisoned). */
void tapset_load(struct session *s);
bool tapset_poisoned(struct session *s, const char *name);
/* The library files the script may need (tapset_load's list, only the
 * files declaring a name the parsed sources use, to a fixed point), then
 * the rest on demand (tapset_load_rest: suggestions need every name). */
void tapset_load_needed(struct session *s);
void tapset_load_rest(struct session *s);
void tapset_want_tokens(struct session *s, const struct source *src,
			const struct token_list *tl);

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


#endif /* AST_H */
