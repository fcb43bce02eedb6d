/*
 * tr_sites.c - pass 3: where run-time errors happen and how script
 * functions are called. The location table stp_locs[] holds each place
 * an error can name once (the code refers to it by index), and each
 * function called gets one call_f__N function, so that a call site is one
 * line (runtime/README.md, "Locations and calls").
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "translate.h"

/*
 * The location table: every place a run-time error can name is written
 * once, as an entry of `static const char *const stp_locs[]`, and the code
 * refers to it by index (runtime/README.md, "Locations"). Indices follow
 * first use, so the output is deterministic.
 */
static unsigned long loc_hash(const char *p)
{
	return ((unsigned long)(uintptr_t)p >> 3) * 2654435761UL;
}

static void loc_grow(struct gen *g)
{
	int cap = g->loc_cap ? 2 * g->loc_cap : 256;
	struct loc_slot *t = calloc((size_t)cap, sizeof(*t));

	if (!t)
		abort();
	for (int i = 0; i < g->loc_cap; i++) {
		unsigned long j;

		if (!g->loc_hash[i].text)
			continue;
		j = loc_hash(g->loc_hash[i].text) & (unsigned long)(cap - 1);
		while (t[j].text)
			j = (j + 1) & (unsigned long)(cap - 1);
		t[j] = g->loc_hash[i];
	}
	free(g->loc_hash);
	g->loc_hash = t;
	g->loc_cap = cap;
}

/* The C of an entry: "TEXT at " STP_LF<k> ":L:C", the file a macro
 * defined at its first use (an interned key), or the whole literal. */
static const char *loc_literal(struct gen *g, const char *key)
{
	const char *at = NULL, *end = NULL, *file;
	int k, colons = 0;

	for (const char *p = strstr(key, " at "); p; p = strstr(p + 1, " at "))
		at = p;
	for (const char *p = key + strlen(key); at && p > at && colons < 2; p--)
		if (p[-1] == ':' && ++colons == 2)
			end = p - 1;
	if (!end || end <= at + 4)
		return tr_cstr(g, key);
	file = intern(g->s, at + 4, (size_t)(end - at - 4));
	for (k = 0; k < g->nloc_files && g->loc_files[k] != file; k++)
		;
	if (k == g->nloc_files) {
		if (!(k & (k - 1))) {
			g->loc_files = realloc(g->loc_files, (size_t)(k ? 2 * k : 1) *
					       sizeof(*g->loc_files));
			if (!g->loc_files)
				abort();
		}
		g->loc_files[g->nloc_files++] = file;
		sb_printf(&g->locs, "#define STP_LF%d %s\n", k, tr_cstr(g, file));
	}
	return arena_printf(g->s->arena, "%s STP_LF%d %s",
			    tr_cstr(g, arena_strndup(g->s->arena, key, (size_t)(at + 4 - key))),
			    k, tr_cstr(g, end));
}

int tr_loc_index(struct gen *g, const char *text)
{
	const char *key = intern(g->s, text, strlen(text));
	unsigned long j;

	if ((g->nlocs + 1) * 2 > g->loc_cap)
		loc_grow(g);
	j = loc_hash(key) & (unsigned long)(g->loc_cap - 1);
	for (; g->loc_hash[j].text; j = (j + 1) & (unsigned long)(g->loc_cap - 1))
		if (g->loc_hash[j].text == key)
			return g->loc_hash[j].index;
	g->loc_hash[j].text = key;
	g->loc_hash[j].index = g->nlocs;
	/* the index in a comment every tenth entry */
	if (g->nlocs % 10)
		sb_printf(&g->locs, "\t%s,\n", loc_literal(g, key));
	else
		sb_printf(&g->locs, "\t/* %d */ %s,\n", g->nlocs, loc_literal(g, key));
	return g->nlocs++;
}

const char *tr_loc(struct gen *g, const char *text)
{
	return arena_printf(g->s->arena, "stp_locs[%d]", tr_loc_index(g, text));
}

/*
 * A call: `if (call_f__N(c, at, [&]result, args...)) goto lbl;`.
 * call_f__N, written once per function, puts the arguments into the
 * callee's frame (the next one up) and calls it: STP_CALL_FRAME checks
 * MAXNESTING and zeroes the frame, STP_CALL calls and, on an error, has
 * the runtime name its place out of line (stp_call_failed): the call site
 * `at` for MAXACTION and "all functions exhausted", else (embedded C that
 * set no place) the function's definition, as upstream does. Both are
 * stp_locs[] indices. True when the call failed.
 */
static void stub_frame(struct gen *g, struct func *f, int def, const char *in)
{
	struct strbuf *o = &g->stubs;
	struct var *p;
	int i;

	sb_printf(o, "%sSTP_STUB_FRAME(%s, %d);\n", in, tr_fn_cname(g, "", f), def);
	for (p = f->params, i = 0; p && p->param; p = p->next, i++) {
		const char *m = tr_mangle(g, "f->l_", p->name);

		if (tr_param_by_ref(p))
			sb_printf(o, "%s%s = a%d;\n", in, m, i);
		else if (p->type == T_STRING)
			sb_printf(o, "%sstp_str_copy(%s, a%d);\n", in, m, i);
		else
			sb_printf(o, "%s%s = a%d;\n", in, m, i);
	}
}

static void stub_result(struct gen *g, struct func *f, const char *in)
{
	if (f->type == T_LONG)
		sb_printf(&g->stubs, "%s*r = f->__retvalue;\n", in);
	else if (f->type == T_STRING)
		sb_printf(&g->stubs, "%sstp_str_copy(r, f->__retvalue);\n", in);
}

/* Is the overload f still in the program (not elided)? */
static bool overload_kept(struct gen *g, const struct func *f)
{
	for (const struct func *u = g->s->funcs; u; u = u->next_used)
		if (u == f)
			return true;
	return false;
}

/* Overloads: each kept one before the last is tried in its turn; its own
 * `next` (an "all functions exhausted" it raised itself, with no place
 * yet) goes on to the following one, with the same arguments. */
static void stub_overloads(struct gen *g, struct func **f, int *def)
{
	struct strbuf *o = &g->stubs;

	while ((*f)->overload_next && overload_kept(g, (*f)->overload_next)) {
		sb_puts(o, "\t{\n");
		stub_frame(g, *f, *def, "\t\t");
		sb_printf(o, "\t\tc->nesting++;\n\t\t%s(c, f);\n\t\tc->nesting--;\n",
			  tr_fn_cname(g, "function_", *f));
		sb_puts(o, "\t\tif (likely(!c->last_error)) {\n");
		stub_result(g, *f, "\t\t\t");
		sb_puts(o, "\t\t\treturn false;\n\t\t}\n");
		sb_puts(o, "\t\tif (c->last_error != stp_msg_no_overload || c->last_stmt) {\n");
		sb_printf(o, "\t\t\tstp_call_failed(c, at, %d);\n\t\t\tgoto fail;\n\t\t}\n", *def);
		sb_puts(o, "\t\tc->last_error = NULL;\n\t}\n");
		*f = (*f)->overload_next;
		*def = tr_loc_index(g, arena_printf(g->s->arena, "identifier '%s' at %s",
						    (*f)->name, loc_str(g->s, (*f)->loc)));
	}
}

/* Can the call of f fail at its call site (MAXACTION, "all functions
 * exhausted")? Not in embedded C without overloads: its stub then takes
 * no `at` (the definition serves) */
static bool stub_takes_at(struct gen *g, const struct func *f)
{
	return f->body->kind != N_EMBEDDED_STMT ||
	       (f->overload_next && overload_kept(g, f->overload_next));
}

static const char *call_stub(struct gen *g, struct func *f, int def)
{
	bool at = stub_takes_at(g, f);

	const char *name = tr_fn_cname(g, "call_", f);
	struct strbuf *o = &g->stubs;
	struct var *p;
	int i;

	if (f->call_stub)
		return name;
	f->call_stub = true;
	g->nstubs++;
	sb_printf(o, "STP_CALLER%s(%s", at ? "" : "_C", tr_fn_cname(g, "", f));
	if (f->type == T_LONG)
		sb_puts(o, ", int64_t *r");
	else if (f->type == T_STRING)
		sb_puts(o, ", char *r");
	for (p = f->params, i = 0; p && p->param; p = p->next, i++)
		sb_printf(o, ", %s a%d", p->type == T_STRING ? "const char *" : "int64_t", i);
	sb_puts(o, ")\n{\n");
	stub_overloads(g, &f, &def);
	stub_frame(g, f, def, "\t");
	sb_printf(o, "\tSTP_STUB_CALL%s(%s, %d);\n", at ? "" : "_C", tr_fn_cname(g, "", f), def);
	stub_result(g, f, "\t");
	sb_puts(o, "\tSTP_STUB_END;\n}\n\n");
	return name;
}

/* A number argument "((int64_t)N)" as N when N fits an int: the call's
 * prototype converts it. */
static const char *small_const(struct gen *g, const char *v)
{
	static const char pre[] = "((int64_t)";
	const char *p = v + sizeof(pre) - 1;
	char *end;
	long long n;

	if (strncmp(v, pre, sizeof(pre) - 1) || !(*p == '-' || (*p >= '0' && *p <= '9')))
		return v;
	n = strtoll(p, &end, 10);
	if (strcmp(end, ")") || n < -2147483647LL || n > 2147483647LL)
		return v;
	return arena_printf(g->s->arena, "%lld", n);
}

const char *tr_call(struct gen *g, struct node *n, const char *dst)
{
	struct func *f = n->func;
	const char *args[64], *t = NULL;
	struct node *a;
	struct var *p;
	struct strbuf call;
	int i = 0, at, def;

	/* in order: a number is not changed by a later argument's effects;
	 * a string variable is read when the call is made, as in 4.8 */
	for (a = n->args; a && i < 64; a = a->next) {
		args[i] = tr_gen_expr(g, a);
		if (a->type != T_STRING)
			args[i] = small_const(g, tr_stable(g, args[i], a->type, a->next));
		i++;
	}
	def = tr_loc_index(g, arena_printf(g->s->arena, "identifier '%s' at %s",
					   f->name, loc_str(g->s, f->loc)));
	/* neither error placed at the call site (MAXACTION, "all functions
	 * exhausted") can arise in embedded C: no entry for it */
	at = f->body->kind == N_EMBEDDED_STMT ? def : tr_loc_index(g, tr_where_text(g, n));
	if (f->type == T_LONG || f->type == T_STRING)
		t = dst ? dst : tr_new_tmp(g, f->type);
	sb_init(&call);
	sb_printf(&call, "%s(c", call_stub(g, f, def));
	if (stub_takes_at(g, f))
		sb_printf(&call, ", %d", at);
	if (t)
		sb_printf(&call, ", %s%s", f->type == T_LONG ? "&" : "", t);
	for (p = f->params, i = 0; p && p->param; p = p->next, i++)
		sb_printf(&call, ", %s", args[i]);
	if (!strcmp(g->err_label, "out"))
		tr_line(g, "STP_TRY(%s));", call.buf);
	else
		tr_line(g, "if (%s)) goto %s;", call.buf, g->err_label);
	sb_free(&call);
	/* a loop-free function's actions are charged by its caller */
	if (tr_func_count(g, f) >= 0)
		tr_act_record(g, (int)tr_func_count(g, f), tr_where_text(g, n), true);
	return t ? t : "((int64_t)0)";
}

/* The shorthands the generated code uses, written after the runtime's
 * header: one line for what every handler, function and print repeats. */
static const char shorthands[] =
	"/* a conversion without flags, width or precision */\n"
	"#define STP_SPEC(conv) (&(struct stp_spec){ conv, 0, -1, -1 })\n"
	"/* MAXACTION: n actions left at the entry of a loop-free body, else\n"
	" * n charged, the error at stp_locs[at] */\n"
	"#define STP_ACT_ENTRY(n) do { if (unlikely(c->actionremaining < (n))) { "
	"c->last_error = stp_msg_maxaction; goto out; } } while (0)\n"
	"#define STP_ACT_CHARGE(n, at) do { c->actionremaining -= (n); "
	"if (unlikely(c->actionremaining <= 0)) { c->last_error = stp_msg_maxaction; "
	"c->last_stmt = stp_locs[at]; goto out; } } while (0)\n"
	"/* a call that failed ends this body too (at its STP_OUT) */\n"
	"#define STP_TRY(call) do { if (call) goto out; } while (0)\n"
	"#define STP_OUT out: __maybe_unused\n"
	"/* a script function, its locals (l) in a frame of its own */\n"
	"#define STP_FUNCTION(f) static void function_##f(struct stp_context *__restrict__ c, "
	"struct stp_locals_fn_##f *__restrict__ l)\n"
	"/* probe_N, the handler of table rows: STP_PROBE_BODY(N) { STP_PROBE_FRAME(N);\n"
	" * body }, its locals (l) in frame 0, zeroed */\n";

/* a small script's (at -Og): probe_N runs probe_N_body, which gets l as a
 * restrict parameter, so that GCC keeps locals and globals in registers
 * across loops; a big one's (at -O0, STP_SCRIPT_O0): one function */
static const char probe_og[] =
	"#define STP_PROBE_BODY(n) static noinline void probe_##n##_body(struct stp_context "
	"*__restrict__ c, struct stp_locals_probe_##n *__restrict__ l); "
	"static void __attribute__((unused)) probe_##n(struct stp_context *c) { "
	"struct stp_locals_probe_##n *l = STP_FRAME(c, 0); __builtin_memset(l, 0, sizeof(*l)); "
	"probe_##n##_body(c, l); } "
	"static noinline void probe_##n##_body(struct stp_context "
	"*__restrict__ c, struct stp_locals_probe_##n *__restrict__ l)\n"
	"#define STP_PROBE_FRAME(n) do { } while (0)\n";
static const char probe_o0[] =
	"#define STP_PROBE_BODY(n) static void __attribute__((unused)) "
	"probe_##n(struct stp_context *__restrict__ c)\n"
	"#define STP_PROBE_FRAME(n) struct stp_locals_probe_##n *__restrict__ l = STP_FRAME(c, 0); "
	"__builtin_memset(l, 0, sizeof(*l))\n";

static const char print_shorthands[] =
	"/* the print family: the sink sk of a sprintf (into dst) or a print,\n"
	" * then one call per piece: a literal, %s, a number with conv */\n"
	"#define STP_SINK(dst) struct stp_sink sk; stp_sink_string(&sk, dst)\n"
	"#define STP_SINK_OUT() struct stp_sink sk; stp_sink_print(&sk)\n"
	"#define STP_LIT(s) stp_emit_lit(&sk, s, sizeof(s) - 1)\n"
	"#define STP_STR(v) stp_emit_str(&sk, v, STP_SPEC('s'))\n"
	"#define STP_LONG(v, conv) stp_emit_long(&sk, v, STP_SPEC(conv))\n";

static const char kp_shorthands[] =
	"/* a kprobe's row: any number of kretprobe instances, no warning if\n"
	" * it cannot be registered */\n"
	"#define STP_KP_OPTIONAL .maxactive = -1, .optional = true\n"
	"/* the row of such a kprobe (kretprobe) on function f, running probe_n,\n"
	" * with (T) its target variables stp_targs_t */\n"
	"#define STP_KP(n, f) { .kind = STP_PROBE_KPROBE, .handler = probe_##n, "
	"STP_KFUNC(f), STP_KP_OPTIONAL }\n"
	"#define STP_KRP(n, f) { .kind = STP_PROBE_KRETPROBE, .handler = probe_##n, "
	"STP_KFUNC(f), STP_KP_OPTIONAL }\n"
	"#define STP_KPT(n, f, t) { .kind = STP_PROBE_KPROBE, .handler = probe_##n, "
	"STP_KFUNC(f), STP_KP_OPTIONAL, .targs = stp_targs_##t }\n"
	"#define STP_KRPT(n, f, t) { .kind = STP_PROBE_KRETPROBE, .handler = probe_##n, "
	"STP_KFUNC(f), STP_KP_OPTIONAL, .targs = stp_targs_##t }\n";

static const char stub_shorthands[] =
	"/* call_F: handlers and functions call F through it; true if F failed */\n"
	"#define STP_CALLER(fn, ...) static bool call_##fn(struct stp_context *c, "
	"unsigned int at, ##__VA_ARGS__)\n"
	"#define STP_CALLER_C(fn, ...) static bool call_##fn(struct stp_context *c, ##__VA_ARGS__)\n"
	"#define STP_STUB_FRAME(fn, def) STP_CALL_FRAME(struct stp_locals_fn_##fn, f, def, fail)\n"
	"#define STP_STUB_CALL(fn, def) STP_CALL(function_##fn, f, at, def, fail)\n"
	"/* ... of embedded C, where a failure is placed at its definition */\n"
	"#define STP_STUB_CALL_C(fn, def) STP_CALL(function_##fn, f, def, def, fail)\n"
	"#define STP_STUB_END return false; fail: return true\n";

/* the shorthands; each group only when the code uses it */
void tr_shorthands(struct gen *g, struct strbuf *c)
{
	sb_puts(c, shorthands);
	sb_puts(c, g->script_o0 ? probe_o0 : probe_og);
	if (g->used_print)
		sb_puts(c, print_shorthands);
	if (g->used_kp)
		sb_puts(c, kp_shorthands);
	if (g->nstubs)
		sb_puts(c, stub_shorthands);
	sb_puts(c, "\n");
}
