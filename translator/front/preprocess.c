/*
 * preprocess.c - pass 1b: the preprocessor, on the token array of a file,
 * between the lexer and the parser. One left-to-right pass does three
 * things:
 *   %( COND %? TOKENS [%: TOKENS] %)  keeps the branch COND selects (and
 *       only that branch's @define's take effect, so a library can define
 *       a macro differently per architecture);
 *   @define NAME[(params)] %( BODY %)  records a macro local to the file
 *       (.stpm library files define macros for every file);
 *   @NAME[(args)]  expands a macro: its body with each @param replaced by
 *       the argument's tokens, expanded again in turn.
 * COND is `LHS OP RHS` joined by && (binding tighter) and ||, with no
 * parentheses; LHS/RHS are kernel_v, kernel_vr, systemtap_v, arch,
 * runtime, systemtap_privilege, guru_mode, CONFIG_*, or literals.
 */
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "ast.h"

#define MAX_EXPANSION_DEPTH 64

struct macro {
	const char *name;	/* without the @ */
	const char **params;	/* interned "@param" names */
	int nparams;
	struct token *body;
	size_t nbody;
	struct loc loc;
	bool expanding;		/* inside its own expansion: recursion */
	struct macro *next;
};

struct pp {
	struct session *s;
	const struct source *src;
	struct token *v;	/* input */
	size_t n, pos;
	struct token_list out;
	size_t cap;
	struct macro *locals;	/* this file's macros */
	bool library;		/* an .stpm file: defines are global */
	int errors;
	int cond_depth;		/* nested %( %): bounded, like the parser */
};

#define MAX_COND_DEPTH 1000

struct pp_value {
	bool is_num;
	int64_t num;
	const char *str;
	struct loc loc;
};

/* ---- output --------------------------------------------------------------- */

static void emit(struct pp *p, const struct token *t)
{
	if (p->out.n == p->cap) {
		p->cap = p->cap ? p->cap * 2 : 256;
		p->out.v = realloc(p->out.v, p->cap * sizeof(*p->out.v));
		if (!p->out.v)
			abort();
	}
	p->out.v[p->out.n++] = *t;
}

static bool tok_is(const struct token *t, enum tok_kind k, const char *text)
{
	return t->kind == k && !strcmp(t->text, text);
}

static bool is_pp_op(const struct token *t, const char *op)
{
	return tok_is(t, TK_OP, op);
}

static struct token *cur(struct pp *p)
{
	return &p->v[p->pos < p->n ? p->pos : p->n - 1];
}

static void pp_error(struct pp *p, struct loc loc, const char *msg)
{
	diag_error(p->s, loc, "%s", msg);
	p->errors++;
}

/* ---- macro table ------------------------------------------------------------ */

static struct macro *find_macro(struct pp *p, const char *name)
{
	struct macro *m;

	for (m = p->locals; m; m = m->next) {
		if (!strcmp(m->name, name))
			return m;
	}
	for (m = p->s->macros; m; m = m->next) {
		if (!strcmp(m->name, name))
			return m;
	}
	return NULL;
}

static const char *const builtin_at_words[] = {
	"cast", "defined", "probewrite", "entry", "perf", "var", "avg", "count",
	"sum", "min", "max", "hist_linear", "hist_log", "const", "variance",
	"kregister", "uregister", "kderef", "uderef", "enum", "enumname", NULL
};

static bool is_builtin_at(const char *name)
{
	for (const char *const *w = builtin_at_words; *w; w++) {
		if (!strcmp(*w, name))
			return true;
	}
	return false;
}

/* Collect tokens from '%(' (already consumed) to its matching '%)'. */
static bool take_body(struct pp *p, struct macro *m)
{
	size_t start = p->pos;
	int depth = 1;

	for (; p->pos < p->n && cur(p)->kind != TK_EOF; p->pos++) {
		if (is_pp_op(cur(p), "%("))
			depth++;
		else if (is_pp_op(cur(p), "%)") && --depth == 0)
			break;
	}
	if (depth) {
		pp_error(p, m->loc, arena_printf(p->s->arena,
			 "macro '@%s' has no closing '%%)'", m->name));
		return false;
	}
	/* the file's token array is freed after preprocessing: copy */
	m->nbody = p->pos - start;
	m->body = arena_alloc(p->s->arena, m->nbody * sizeof(*m->body) + 1);
	memcpy(m->body, p->v + start, m->nbody * sizeof(*m->body));
	p->pos++;
	return true;
}

static bool take_params(struct pp *p, struct macro *m)
{
	const char **params = NULL;

	p->pos++;	/* ( */
	while (!is_pp_op(cur(p), ")")) {
		struct token *t = cur(p);

		if (m->nparams && !is_pp_op(t, ",")) {
			pp_error(p, t->loc, "expected ',' or ')' in the macro's parameter list");
			free(params);
			return false;
		}
		if (m->nparams)
			t = &p->v[++p->pos];
		if (t->kind != TK_IDENT || t->text[0] == '@' || t->text[0] == '$') {
			pp_error(p, t->loc, "expected a macro parameter name");
			free(params);
			return false;
		}
		params = realloc(params, (size_t)(m->nparams + 1) * sizeof(*params));
		params[m->nparams++] = intern(p->s, arena_printf(p->s->arena, "@%s", t->text),
					      strlen(t->text) + 1);
		p->pos++;
	}
	p->pos++;	/* ) */
	m->params = arena_alloc(p->s->arena, (size_t)m->nparams * sizeof(*params) + 1);
	if (m->nparams)
		memcpy(m->params, params, (size_t)m->nparams * sizeof(*params));
	free(params);
	return true;
}

static void skip_to_close(struct pp *p);

/* After a bad @define: skip its body, if one follows, to avoid a cascade. */
static void skip_define(struct pp *p)
{
	for (; p->pos < p->n && cur(p)->kind != TK_EOF; p->pos++) {
		if (is_pp_op(cur(p), "%(")) {
			p->pos++;
			skip_to_close(p);
			return;
		}
		if (tok_is(cur(p), TK_IDENT, "probe") || tok_is(cur(p), TK_IDENT, "@define") ||
		    tok_is(cur(p), TK_IDENT, "function") || tok_is(cur(p), TK_IDENT, "global"))
			return;
	}
}

/* @define NAME [ '(' params ')' ] '%(' body '%)' */
static void define_macro(struct pp *p, bool active)
{
	struct token *kw = cur(p), *name;
	struct macro *m = arena_alloc(p->s->arena, sizeof(*m));

	p->pos++;
	name = cur(p);
	if (name->kind != TK_IDENT || name->text[0] == '@' || name->text[0] == '$') {
		pp_error(p, name->loc, "expected a macro name after '@define'");
		skip_define(p);
		return;
	}
	if (!strcmp(name->text, "define")) {
		pp_error(p, name->loc, "attempt to redefine '@define'");
		skip_define(p);
		return;
	}
	m->name = name->text;
	m->loc = kw->loc;
	p->pos++;
	if (is_pp_op(cur(p), "(") && !take_params(p, m)) {
		skip_define(p);
		return;
	}
	if (!is_pp_op(cur(p), "%(")) {
		pp_error(p, cur(p)->loc, arena_printf(p->s->arena,
			 "expected '%%(' to open the body of macro '@%s'", m->name));
		skip_define(p);
		return;
	}
	p->pos++;
	if (!take_body(p, m) || !active)
		return;
	if (is_builtin_at(m->name))
		diag_warn(p->s, name->loc, "macro '@%s' hides the built-in operator", m->name);
	for (struct macro *o = p->locals; o; o = o->next) {
		if (!strcmp(o->name, m->name)) {
			pp_error(p, name->loc, arena_printf(p->s->arena,
				 "macro '@%s' is already defined at %s", m->name,
				 loc_str(p->s, o->loc)));
			return;
		}
	}
	if (p->library) {
		m->next = p->s->macros;
		p->s->macros = m;
	} else {
		m->next = p->locals;
		p->locals = m;
	}
}

/* ---- expansion --------------------------------------------------------------- */

struct tokvec {
	struct token *v;
	size_t n, cap;
};

static void tv_push(struct tokvec *tv, const struct token *t)
{
	if (tv->n == tv->cap) {
		tv->cap = tv->cap ? tv->cap * 2 : 32;
		tv->v = realloc(tv->v, tv->cap * sizeof(*tv->v));
		if (!tv->v)
			abort();
	}
	tv->v[tv->n++] = *t;
}

static void expand_tokens(struct pp *p, struct token *v, size_t n, int depth,
			  bool active);

/* Split '(' a, b ')' at depth-0 commas; NULL on a malformed list. */
static struct tokvec *take_args(struct pp *p, struct macro *m, struct loc at)
{
	struct tokvec *args = calloc((size_t)m->nparams + 1, sizeof(*args));
	int depth = 0, k = 0;

	if (!is_pp_op(cur(p), "(")) {
		pp_error(p, at, arena_printf(p->s->arena,
			 "macro '@%s' takes %d argument%s", m->name, m->nparams,
			 m->nparams == 1 ? "" : "s"));
		free(args);
		return NULL;
	}
	for (p->pos++; p->pos < p->n && cur(p)->kind != TK_EOF; p->pos++) {
		struct token *t = cur(p);

		if (depth == 0 && is_pp_op(t, ")"))
			break;
		if (depth == 0 && is_pp_op(t, ",")) {
			k++;
			if (k >= m->nparams)
				break;
			continue;
		}
		if (is_pp_op(t, "(") || is_pp_op(t, "[") || is_pp_op(t, "{") || is_pp_op(t, "%("))
			depth++;
		else if (is_pp_op(t, ")") || is_pp_op(t, "]") || is_pp_op(t, "}") || is_pp_op(t, "%)"))
			if (--depth < 0)
				break;	/* an unmatched closer: reported below */
		tv_push(&args[k], t);
	}
	if (!is_pp_op(cur(p), ")") && depth <= 0 && k + 1 >= m->nparams &&
	    !is_pp_op(cur(p), ",")) {
		pp_error(p, cur(p)->loc, arena_printf(p->s->arena,
			 "expected ')' to close the arguments of macro '@%s', got %s",
			 m->name, tok_describe(p->s, cur(p))));
		for (int i = 0; i <= m->nparams; i++)
			free(args[i].v);
		free(args);
		return NULL;
	}
	if (!is_pp_op(cur(p), ")") || k + 1 != m->nparams) {
		pp_error(p, at, arena_printf(p->s->arena,
			 "macro '@%s' takes %d argument%s", m->name, m->nparams,
			 m->nparams == 1 ? "" : "s"));
		for (int i = 0; i <= m->nparams; i++)
			free(args[i].v);
		free(args);
		return NULL;
	}
	p->pos++;
	return args;
}

/* Expand the macros in an argument before it is substituted, so that
 * @m(@m(x)) is not taken for recursion. */
static void pre_expand(struct pp *p, struct tokvec *arg, int depth)
{
	struct token_list saved_out = p->out;
	size_t saved_cap = p->cap;

	p->out.v = NULL;
	p->out.n = p->cap = 0;
	expand_tokens(p, arg->v, arg->n, depth + 1, true);
	free(arg->v);
	arg->v = p->out.v;
	arg->n = arg->cap = p->out.n;
	p->out = saved_out;
	p->cap = saved_cap;
}

static void expand_macro(struct pp *p, struct macro *m, struct token *use,
			 int depth)
{
	struct tokvec body = { 0 }, *args = NULL;
	struct expansion *exp;

	p->pos++;
	if (m->expanding) {
		pp_error(p, use->loc, arena_printf(p->s->arena,
			 "macro '@%s' is used inside its own expansion", m->name));
		return;
	}
	if (depth > MAX_EXPANSION_DEPTH) {
		pp_error(p, use->loc, arena_printf(p->s->arena,
			 "macro '@%s' expands recursively (over %d levels)", m->name,
			 MAX_EXPANSION_DEPTH));
		return;
	}
	if (m->nparams && !(args = take_args(p, m, use->loc)))
		return;
	for (int k = 0; k < m->nparams; k++)
		pre_expand(p, &args[k], depth);
	exp = arena_alloc(p->s->arena, sizeof(*exp));
	exp->macro = m->name;
	exp->at = use->loc;
	for (size_t i = 0; i < m->nbody; i++) {
		struct token *t = &m->body[i];
		int k;

		for (k = 0; k < m->nparams; k++) {
			if (t->kind == TK_IDENT && t->text == m->params[k])
				break;
		}
		if (k < m->nparams) {
			for (size_t j = 0; j < args[k].n; j++)
				tv_push(&body, &args[k].v[j]);
		} else {
			tv_push(&body, t);
			body.v[body.n - 1].loc.exp = exp;
		}
	}
	if (body.n)
		body.v[0].space_before = use->space_before;
	m->expanding = true;
	expand_tokens(p, body.v, body.n, depth + 1, true);
	m->expanding = false;
	free(body.v);
	if (args) {
		for (int i = 0; i <= m->nparams; i++)
			free(args[i].v);
		free(args);
	}
}

/* ---- conditions ---------------------------------------------------------------- */

static const char *kernel_config(struct pp *p, const char *name, struct loc loc)
{
	struct session *s = p->s;
	const char *paths[2];
	size_t len, nlen = strlen(name);

	if (!s->kconfig) {
		paths[0] = arena_printf(s->arena, "%s/.config", s->kernel_build_dir);
		paths[1] = arena_printf(s->arena, "/boot/config-%s", s->kernel_release);
		for (int i = 0; i < 2 && !s->kconfig; i++) {
			char *text = read_file(paths[i], &len);

			if (text) {
				s->kconfig = arena_strndup(s->arena, text, len);
				free(text);
			}
		}
		if (!s->kconfig) {
			pp_error(p, loc, arena_printf(s->arena,
				 "cannot read the configuration of kernel %s for %s (tried %s and %s)",
				 s->kernel_release, name, paths[0], paths[1]));
			s->kconfig = "";
		}
	}
	for (const char *l = s->kconfig; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		if (!strncmp(l, name, nlen) && l[nlen] == '=') {
			const char *v = l + nlen + 1, *e = strchr(v, '\n');
			size_t vl = e ? (size_t)(e - v) : strlen(v);

			if (vl >= 2 && v[0] == '"' && v[vl - 1] == '"') {
				v++;
				vl -= 2;
			}
			return arena_strndup(s->arena, v, vl);
		}
	}
	return "";
}

static bool operand(struct pp *p, struct pp_value *v)
{
	struct token *t = cur(p);
	struct session *s = p->s;

	v->loc = t->loc;
	v->is_num = false;
	p->pos++;
	if (t->kind == TK_STR) {
		v->str = t->text;
	} else if (t->kind == TK_NUM) {
		v->is_num = true;
		v->num = t->num;
	} else if (tok_is(t, TK_IDENT, "kernel_v")) {
		v->str = arena_strndup(s->arena, s->kernel_release,
				       strcspn(s->kernel_release, "-"));
	} else if (tok_is(t, TK_IDENT, "kernel_vr")) {
		v->str = s->kernel_release;
	} else if (tok_is(t, TK_IDENT, "systemtap_v")) {
		v->str = s->compat_version ? s->compat_version : STAP_COMPAT_VERSION;
	} else if (tok_is(t, TK_IDENT, "arch")) {
		v->str = s->arch;
	} else if (tok_is(t, TK_IDENT, "runtime")) {
		v->str = "kernel";
	} else if (tok_is(t, TK_IDENT, "systemtap_privilege")) {
		v->str = privilege_name(s->privilege);
	} else if (tok_is(t, TK_IDENT, "guru_mode")) {
		v->is_num = true;
		v->num = s->guru;
	} else if (t->kind == TK_IDENT && !strncmp(t->text, "CONFIG_", 7)) {
		v->str = kernel_config(p, t->text, t->loc);
	} else {
		pp_error(p, t->loc, arena_printf(s->arena,
			 "expected a preprocessor condition operand (kernel_v, kernel_vr, "
			 "systemtap_v, arch, runtime, systemtap_privilege, guru_mode, "
			 "CONFIG_..., or a literal), got %s", tok_describe(s, t)));
		return false;
	}
	return true;
}

/* A CONFIG_ value compared with a number: convert it (unset is 0). */
static bool numeric(struct pp_value *v)
{
	char *end;

	if (v->is_num)
		return true;
	v->num = strtoll(v->str, &end, 0);
	return *end == '\0';
}

static bool has_glob(const char *s)
{
	return strpbrk(s, "*?[") != NULL;
}

static int compare(const char *op, int c)
{
	if (!strcmp(op, "<"))
		return c < 0;
	if (!strcmp(op, "<="))
		return c <= 0;
	if (!strcmp(op, ">"))
		return c > 0;
	if (!strcmp(op, ">="))
		return c >= 0;
	if (!strcmp(op, "=="))
		return c == 0;
	return c != 0;
}

/* atom: operand OP operand */
static bool cond_atom(struct pp *p, bool *ok)
{
	struct pp_value a, b;
	struct token *op;
	bool version, config, equality, eq;

	version = tok_is(cur(p), TK_IDENT, "kernel_v") ||
		  tok_is(cur(p), TK_IDENT, "kernel_vr") ||
		  tok_is(cur(p), TK_IDENT, "systemtap_v");
	config = cur(p)->kind == TK_IDENT && !strncmp(cur(p)->text, "CONFIG_", 7);
	/* upstream: these only test for (in)equality, with one kind of literal */
	equality = tok_is(cur(p), TK_IDENT, "arch") ||
		   tok_is(cur(p), TK_IDENT, "runtime") ||
		   tok_is(cur(p), TK_IDENT, "systemtap_privilege") ||
		   tok_is(cur(p), TK_IDENT, "guru_mode");
	if (!operand(p, &a))
		return *ok = false;
	op = cur(p);
	if (op->kind != TK_OP || !strchr("<>=!", op->text[0]) ||
	    is_pp_op(op, "=") || is_pp_op(op, "!") || op->text[1] == '~') {
		pp_error(p, op->loc, arena_printf(p->s->arena,
			 "expected a comparison operator in the preprocessor condition, got %s",
			 tok_describe(p->s, op)));
		return *ok = false;
	}
	eq = is_pp_op(op, "==") || is_pp_op(op, "!=");
	p->pos++;
	if (!eq && (equality || (config && cur(p)->kind == TK_STR))) {
		pp_error(p, op->loc, arena_printf(p->s->arena,
			 "expected '==' or '!=', got %s", tok_describe(p->s, op)));
		return *ok = false;
	}
	if ((equality || version) &&
	    cur(p)->kind != (a.is_num ? TK_NUM : TK_STR)) {
		pp_error(p, cur(p)->loc, arena_printf(p->s->arena,
			 "expected a %s, got %s", a.is_num ? "number" : "string literal",
			 tok_describe(p->s, cur(p))));
		return *ok = false;
	}
	if (!operand(p, &b))
		return *ok = false;
	if (a.is_num != b.is_num && !(config && numeric(a.is_num ? &b : &a))) {
		pp_error(p, b.loc, "the two sides of a preprocessor comparison must both be numbers or both strings");
		return *ok = false;
	}
	if (a.is_num != b.is_num)
		a.is_num = b.is_num = true;	/* CONFIG_HZ == 250 */
	if (a.is_num)
		return compare(op->text, a.num < b.num ? -1 : a.num > b.num);
	if ((op->text[0] == '=' || op->text[0] == '!') && has_glob(b.str))
		return compare(op->text, fnmatch(b.str, a.str, 0) ? 1 : 0);
	if (version)
		return compare(op->text, strverscmp(a.str, b.str));
	return compare(op->text, strcmp(a.str, b.str));
}

/* cond: and_cond { '||' and_cond };  and_cond: atom { '&&' atom } */
static bool condition(struct pp *p, bool *ok)
{
	bool any = false;

	do {
		bool all = true;

		do {
			if (!cond_atom(p, ok))
				all = false;
			if (!*ok)
				return false;
		} while (is_pp_op(cur(p), "&&") && ++p->pos);
		any = any || all;
	} while (is_pp_op(cur(p), "||") && ++p->pos);
	return any;
}

/* ---- the pass ------------------------------------------------------------------- */

/* Evaluate the condition up to '%?', macros in it expanded first (a
 * library macro may stand for a whole condition). */
static bool eval_condition(struct pp *p, int depth, bool *ok)
{
	struct token_list saved_out = p->out, cond;
	size_t saved_cap = p->cap, start = p->pos, end;
	struct token *saved_v = p->v;
	size_t saved_n = p->n;
	struct token eof = { .kind = TK_EOF, .text = "end of condition" };
	bool taken;

	while (p->pos < p->n && cur(p)->kind != TK_EOF && !is_pp_op(cur(p), "%?") &&
	       !is_pp_op(cur(p), "%)") && !is_pp_op(cur(p), "%:") &&
	       !is_pp_op(cur(p), "%("))
		p->pos++;
	end = p->pos;
	eof.loc = cur(p)->loc;
	p->out.v = NULL;
	p->out.n = p->cap = 0;
	expand_tokens(p, p->v + start, end - start, depth + 1, true);
	emit(p, &eof);
	cond = p->out;
	p->out = saved_out;
	p->cap = saved_cap;
	p->v = cond.v;
	p->n = cond.n;
	p->pos = 0;
	taken = condition(p, ok);
	if (*ok && cur(p)->kind != TK_EOF) {
		pp_error(p, cur(p)->loc, arena_printf(p->s->arena,
			 "expected '%%?' after the preprocessor condition, got %s",
			 tok_describe(p->s, cur(p))));
		*ok = false;
	}
	free(cond.v);
	p->v = saved_v;
	p->n = saved_n;
	p->pos = end;
	return taken;
}

/* '%(' cond '%?' tokens [ '%:' tokens ] '%)' ; '%(' consumed */
static void conditional(struct pp *p, struct token *open, int depth, bool active)
{
	bool ok = true, taken = false;

	if (active) {
		taken = eval_condition(p, depth, &ok);
	} else {
		/* in a branch not taken, as upstream: not evaluated (it may
		 * name a missing argument), only skipped to its '%?' */
		while (p->pos < p->n && cur(p)->kind != TK_EOF && !is_pp_op(cur(p), "%?") &&
		       !is_pp_op(cur(p), "%)") && !is_pp_op(cur(p), "%:") &&
		       !is_pp_op(cur(p), "%("))
			p->pos++;
	}

	if (!ok) {
		skip_to_close(p);
		return;
	}
	if (!is_pp_op(cur(p), "%?")) {
		pp_error(p, cur(p)->loc, arena_printf(p->s->arena,
			 "expected '%%?' after the preprocessor condition, got %s",
			 tok_describe(p->s, cur(p))));
		skip_to_close(p);
		return;
	}
	p->pos++;
	if (++p->cond_depth > MAX_COND_DEPTH) {
		pp_error(p, open->loc, "preprocessor conditionals nested too deeply (over 1000)");
		p->pos = p->n - 1;
		return;
	}
	expand_tokens(p, NULL, 0, depth, active && taken);
	if (is_pp_op(cur(p), "%:")) {
		p->pos++;
		expand_tokens(p, NULL, 0, depth, active && !taken);
	}
	p->cond_depth--;
	if (is_pp_op(cur(p), "%:")) {
		pp_error(p, cur(p)->loc, "a second '%:' in one preprocessor conditional");
		skip_to_close(p);
		return;
	}
	if (!is_pp_op(cur(p), "%)")) {
		pp_error(p, open->loc, "'%(' without a matching '%)'");
		return;
	}
	p->pos++;
}

static void skip_to_close(struct pp *p)
{
	int depth = 1;

	for (; p->pos < p->n && cur(p)->kind != TK_EOF; p->pos++) {
		if (is_pp_op(cur(p), "%("))
			depth++;
		else if (is_pp_op(cur(p), "%)") && --depth == 0) {
			p->pos++;
			return;
		}
	}
}

/* Process tokens up to EOF, or up to an unmatched '%:'/'%)' (left in
 * place for the enclosing conditional). v/n non-NULL: process that token
 * array (a macro body) instead of the file's stream. */
static void expand_tokens(struct pp *p, struct token *v, size_t n, int depth,
			  bool active)
{
	struct token *saved_v = p->v;
	size_t saved_n = p->n, saved_pos = p->pos;

	if (v) {
		struct token eof = { .kind = TK_EOF, .text = "end of macro" };
		struct tokvec tv = { 0 };

		for (size_t i = 0; i < n; i++)
			tv_push(&tv, &v[i]);
		if (n)
			eof.loc = v[n - 1].loc;
		tv_push(&tv, &eof);
		p->v = tv.v;
		p->n = tv.n;
		p->pos = 0;
	}
	while (p->pos < p->n && cur(p)->kind != TK_EOF) {
		struct token *t = cur(p);
		struct macro *m;

		if (is_pp_op(t, "%:") || is_pp_op(t, "%)"))
			break;	/* back to conditional(), or an error */
		if (is_pp_op(t, "%?")) {
			pp_error(p, t->loc, "'%?' outside a preprocessor conditional");
			p->pos++;
		} else if (is_pp_op(t, "%(")) {
			p->pos++;
			conditional(p, t, depth, active);
		} else if (tok_is(t, TK_IDENT, "@define")) {
			define_macro(p, active);
		} else if (active && t->kind == TK_IDENT && t->text[0] == '@' &&
			   (m = find_macro(p, t->text + 1))) {
			expand_macro(p, m, t, depth);
		} else {
			if (active)
				emit(p, t);
			p->pos++;
		}
	}
	if (v) {
		if (p->pos < p->n && cur(p)->kind != TK_EOF)
			pp_error(p, cur(p)->loc, arena_printf(p->s->arena,
				 "'%s' without a matching '%%('", cur(p)->text));
		free(p->v);
		p->v = saved_v;
		p->n = saved_n;
		p->pos = saved_pos;
	}
}

int preprocess(struct session *s, const struct source *src,
	       struct token_list *toks)
{
	struct pp p = { .s = s, .src = src, .v = toks->v, .n = toks->n };
	struct token *eof = &toks->v[toks->n - 1];

	p.library = src->name && strlen(src->name) > 5 &&
		    !strcmp(src->name + strlen(src->name) - 5, ".stpm");
	while (p.pos < p.n && cur(&p)->kind != TK_EOF) {
		expand_tokens(&p, NULL, 0, 0, true);
		if (cur(&p)->kind != TK_EOF) {
			pp_error(&p, cur(&p)->loc, arena_printf(s->arena,
				 "'%s' without a matching '%%('", cur(&p)->text));
			p.pos++;
		}
	}
	emit(&p, eof);
	free(toks->v);
	*toks = p.out;
	return p.errors ? -1 : 0;
}
