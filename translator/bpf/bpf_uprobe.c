/*
 * bpf_uprobe.c - $name of a function probe under --runtime=bpf: a
 * process("PATH").function("F") uprobe (the parameters pass 2 found in the
 * program's DWARF) or a kernel.function("F") / module("M").function("F")
 * kprobe (the parameters of F's BTF prototype); r->args, the first
 * rp_nparams() of them, are read where the x86-64 SysV ABI puts them at
 * the function's entry, where the loader attaches the probe: integer-class
 * parameters in rdi, rsi, rdx, rcx, r8, r9, the rest on the stack above
 * the return address; $return from rax in a .return probe. A .return
 * probe's parameters and @entry() values are saved by an entry probe.
 * A kernel function's point also gets an fentry/fexit twin (g->fentry),
 * for kernels without kprobes: its parameters are the trampoline's ctx
 * slots, $return the slot after them; the loader loads one of the two.
 */
#include <string.h>

#include <bpf/btf.h>

#include "bpf.h"
#include "kcatalog.h"

/* the parameters a .return probe can read, then its @entry() values
 * (struct stp_scratch's ent[]) */
#define BU_NSAVED 16
#define BU_NENTRY 8

/* struct pt_regs (x86-64) as u64 slots */
enum { REG_AX = 10, REG_SP = 19 };
static const int arg_regs[] = { 14, 13, 12, 11, 9, 8 };	/* di si dx cx r8 r9 */

/* 1 an integer-class value (its width, sign), 2 a float, 0 neither */
static int classify(const struct btf *btf, unsigned int id, int *width, bool *is_signed)
{
	const struct btf_type *t = btf && id ? deref_skip(btf, &id) : NULL;

	if (!t)
		return 0;
	if (btf_is_ptr(t)) {
		*width = 8;
		*is_signed = false;
		return 1;
	}
	if (btf_is_any_enum(t) && t->size <= 8) {
		*width = (int)t->size;
		*is_signed = btf_kflag(t);
		return 1;
	}
	if (btf_is_int(t) && t->size <= 8 && t->size) {
		*width = (int)t->size;
		*is_signed = (btf_int_encoding(t) & BTF_INT_SIGNED) != 0;
		return 1;
	}
	if (btf_kind(t) == BTF_KIND_FLOAT)
		return 2;
	return 0;
}

static const char *widen(struct bgen *g, const char *v, int width, bool is_signed)
{
	static const char *const s[] = { "char", "short", "int", "long" };
	int i = width == 1 ? 0 : width == 2 ? 1 : width == 4 ? 2 : 3;

	return arena_printf(g->s->arena, "(long)(%s%s)(%s)", is_signed ? "signed " : "unsigned ",
			    s[i], v);
}

bool bu_is_uprobe(const struct rprobe *r)
{
	return r && !strcmp(r->family, "process.function") && r->binary;
}

bool bu_is_kprobe(const struct rprobe *r)
{
	static const char *const fams[] = { "kernel.function", "module.function",
					    "kprobe.function", "kprobe.module", NULL };
	int i = 0;

	while (r && fams[i] && strcmp(r->family, fams[i]))
		i++;
	return r && fams[i] && r->symbol && !r->offset && !r->address &&
	       !strpbrk(r->symbol, " \n*?[") && (!r->module || !strpbrk(r->module, " \n*?["));
}

bool bu_is_func(const struct rprobe *r)
{
	return bu_is_uprobe(r) || bu_is_kprobe(r);
}

/* Parameter i's ABI slot (integer slots first six in registers), or -1
 * with *bad the parameter passed by value before it. */
static int slot_of(const struct rprobe *r, int i, const char **bad)
{
	int slot = 0, sse = 0, width;
	bool sg;

	for (int j = 0; j < i; j++) {
		int k = classify(r->args[j].btf, r->args[j].type_id, &width, &sg);

		if (k == 1) {
			slot++;
		} else if (k == 2 && sse < 8) {
			sse++;
		} else {
			*bad = r->args[j].name;
			return -1;
		}
	}
	return slot;
}

/* fentry/fexit: the parameters' u64 slots in the trampoline's ctx, all
 * integer-class and six at most (as 6.1's x86-64 trampoline takes them),
 * or -1 */
static int fentry_slots(const struct rprobe *r)
{
	int np = rp_nparams(r), width;
	bool sg;

	if (np > 6 || np > r->nargs)
		return -1;
	for (int i = 0; i < np; i++)
		if (classify(r->args[i].btf, r->args[i].type_id, &width, &sg) != 1)
			return -1;
	return np;
}

bool bu_has_fentry(const struct rprobe *r)
{
	return bu_is_kprobe(r) && (!strcmp(r->family, "kernel.function") ||
				   !strcmp(r->family, "module.function")) &&
	       fentry_slots(r) >= 0;
}

/* slot i of an fentry/fexit program's ctx into a new long temporary:
 * read as a number (a pointer parameter read directly would be a BTF
 * pointer, whose arithmetic the verifier restricts) */
static const char *fentry_slot(struct bgen *g, int i, int width, bool sg)
{
	struct arena *ar = g->s->arena;
	const char *t = arena_printf(ar, "t%d", g->ntmp++);

	bg_line(g, "__u64 %s_v = 0;", t);
	bg_line(g, "bpf_probe_read_kernel(&%s_v, 8, (__u64 *)ctx + %d);", t, i);
	bg_line(g, "long %s = %s;", t, widen(g, arena_printf(ar, "%s_v", t), width, sg));
	return t;
}

/* parameter i (an integer or a pointer in slot `slot`) into a new long
 * temporary; a stack read that faults jumps to `fault` (or fails) */
static const char *param(struct bgen *g, const struct node *n, int slot, int width,
			 bool sg, const char *fault)
{
	struct arena *ar = g->s->arena;
	const char *t = arena_printf(ar, "t%d", g->ntmp++);

	if (g->fentry)	/* bu_has_fentry(): slot < 6 */
		return fentry_slot(g, slot, width, sg);
	if (slot < 6) {
		bg_line(g, "long %s = %s;", t, widen(g, arena_printf(ar, "((__u64 *)ctx)[%d]",
								 arg_regs[slot]), width, sg));
		return t;
	}
	bg_line(g, "__u64 %s_v = 0;", t);
	bg_line(g, "if (%s(&%s_v, 8, (void *)(((__u64 *)ctx)[%d] + %d)))",
		bu_is_uprobe(g->rp) ? "stp_probe_read_user" : "bpf_probe_read_kernel",
		t, REG_SP, 8 * (slot - 6 + 1));
	g->indent++;
	if (fault)
		bg_line(g, "goto %s;", fault);
	else
		bg_fault(g, n, arena_printf(ar, "((__u64 *)ctx)[%d] + %d", REG_SP,
					    8 * (slot - 6 + 1)));
	g->indent--;
	bg_line(g, "long %s = %s;", t, widen(g, arena_printf(ar, "%s_v", t), width, sg));
	return t;
}

static void put_lit(struct bgen *g, const char *buf, const char *len, const char *lit)
{
	for (; *lit; lit++)
		bg_line(g, "stp_put(%s, &%s, %d);", buf, len, (int)(signed char)*lit);
}

/* $$parms: " a=0x1 b=0xffffff9c" as the module runtime's (context.c):
 * each parameter in hex masked to its width, "{...}" for a struct; in a
 * .return probe the values its entry probe saved (bu_entry), as 4.8's
 * $$parms there is its parameters' @entry() values. */
static const char *parms(struct bgen *g, struct node *n)
{
	const struct rprobe *r = g->rp;
	struct arena *ar = g->s->arena;
	int np = rp_nparams(r), width, l = g->label++;
	const char *buf = arena_printf(ar, "t%d", g->ntmp++), *len = arena_printf(ar, "t%d", g->ntmp++);
	bool sg;

	if (strcmp(n->op, "$$parms") || (r->ret && g->at_entry)) {
		bg_unsupported(g, n, arena_printf(ar, "%s here", n->op));
		return "0";
	}
	bg_line(g, "char *%s = %s; long %s = 0;", buf, bg_slot(g), len);
	for (int i = 0; i < np && i < r->nargs; i++) {
		int k = classify(r->args[i].btf, r->args[i].type_id, &width, &sg), slot;
		const char *bad = NULL, *v;
		const char *fault = arena_printf(ar, "pf%d_%d", l, i);

		put_lit(g, buf, len, arena_printf(ar, "%s%s=", i ? " " : "", r->args[i].name));
		if (k != 1) {
			put_lit(g, buf, len, k == 2 ? "?" : "{...}");
			continue;
		}
		slot = slot_of(r, i, &bad);
		if (slot < 0) {
			bg_unsupported(g, n, arena_printf(ar, "$$parms after the parameter $%s "
							  "(passed by value)", bad));
			return "0";
		}
		if (r->ret && i >= BU_NSAVED) {
			bg_unsupported(g, n, "$$parms in a .return probe of a function of more "
				       "than 16 parameters");
			return "0";
		}
		g->need_hex = true;
		if (r->ret) {
			v = widen(g, arena_printf(ar, "S->ent[%d]", i), width, false);
			bg_line(g, "%s = stp_hex((struct stp_hexbuf *)%s, %s, %s);", len, buf, len,
				v);
			continue;
		}
		bg_line(g, "{");
		g->indent++;
		v = param(g, n, slot, width, false, fault);
		bg_line(g, "%s = stp_hex((struct stp_hexbuf *)%s, %s, %s);", len, buf, len, v);
		bg_line(g, "goto %s_ok;", fault);
		bg_line(g, "%s:", fault);
		put_lit(g, buf, len, "?");
		bg_line(g, "%s_ok: ;", fault);
		g->indent--;
		bg_line(g, "}");
	}
	bg_line(g, "stp_sfmt_end(%s, %s);", buf, len);
	return buf;
}

const char *bu_target(struct bgen *g, struct node *n)
{
	const struct rprobe *r = g->rp;
	struct arena *ar = g->s->arena;
	const char *name = n->op + 1, *t, *bad = NULL;
	int np = rp_nparams(r), width = 8, i, slot;
	bool sg = false;

	if (n->op[1] == '$')
		return parms(g, n);
	if (!strcmp(name, "return")) {
		if (!r->ret || g->at_entry || !r->ret_arg ||
		    classify(r->ret_arg->btf, r->ret_arg->type_id, &width, &sg) != 1) {
			bg_unsupported(g, n, "this $return");
			return "0";
		}
		if (g->fentry)
			return fentry_slot(g, fentry_slots(r), width, sg);
		t = arena_printf(ar, "t%d", g->ntmp++);
		bg_line(g, "long %s = %s;", t, widen(g, arena_printf(ar, "((__u64 *)ctx)[%d]",
								 REG_AX), width, sg));
		return t;
	}
	for (i = 0; i < np && i < r->nargs; i++)
		if (!strcmp(r->args[i].name, name))
			break;
	if (i == np || i == r->nargs || (r->ret && i >= BU_NSAVED)) {
		bg_unsupported(g, n, arena_printf(ar, i < np && i < r->nargs ?
				"the parameter %s in a .return probe (after the 16th)" :
				"%s (only the function's parameters, read at its entry)", n->op));
		return "0";
	}
	if (classify(r->args[i].btf, r->args[i].type_id, &width, &sg) != 1) {
		bg_unsupported(g, n, arena_printf(ar, "the parameter %s (not an integer or a "
						  "pointer)", n->op));
		return "0";
	}
	slot = slot_of(r, i, &bad);
	if (slot < 0) {
		bg_unsupported(g, n, arena_printf(ar, "%s after the parameter $%s (passed "
						  "by value)", n->op, bad));
		return "0";
	}
	if (r->ret && !g->at_entry) {	/* its value at the entry (bu_entry) */
		t = arena_printf(ar, "t%d", g->ntmp++);
		bg_line(g, "long %s = S->ent[%d];", t, i);
		return t;
	}
	return param(g, n, slot, width, sg, NULL);
}

/* Does the tree n read a parameter ($name other than $return, or $$parms)? */
static bool reads_params(const struct node *n)
{
	for (; n; n = n->next)
		if ((n->kind == N_TARGET && strcmp(n->op, "$return") &&
		     (n->op[1] != '$' || !strcmp(n->op, "$$parms"))) ||
		    reads_params(n->a) || reads_params(n->b) || reads_params(n->c) ||
		    reads_params(n->d) || reads_params(n->args))
			return true;
	return false;
}

/* Does n read a local variable (not there at the entry)? */
static bool reads_locals(const struct node *n)
{
	for (; n; n = n->next)
		if ((n->kind == N_VAR && n->var && !n->var->global) ||
		    reads_locals(n->a) || reads_locals(n->b) || reads_locals(n->c) ||
		    reads_locals(n->d) || reads_locals(n->args))
			return true;
	return false;
}

/* @entry(expr) in a kernel .return probe's handler: the value its entry
 * probe saved (bu_entry), in S->ent after the parameters */
const char *bu_entry_value(struct bgen *g, struct node *n)
{
	const struct rprobe *r = g->rp;
	const struct node **v;
	int k = r && !g->func && !g->at_entry && r->ret && bu_is_kprobe(r) ?
		entry_nodes(r->probe->body, NULL, 0) : 0, i;
	const char *t;

	v = k ? arena_alloc(g->s->arena, sizeof(*v) * (size_t)k) : NULL;
	if (v)
		entry_nodes(r->probe->body, v, 0);
	for (i = 0; i < k && v[i] != n; i++)
		;
	if (i == k || i >= BU_NENTRY || n->type != T_LONG || reads_locals(n->args)) {
		bg_unsupported(g, n, i < k && i >= BU_NENTRY ? "more than 8 @entry() values" :
			       i < k ? "this @entry() (only numbers, of parameters, literals "
				       "and functions)" : "@entry() here");
		return "0";
	}
	t = arena_printf(g->s->arena, "t%d", g->ntmp++);
	bg_line(g, "long %s = S->ent[%d];", t, BU_NSAVED + i);
	return t;
}

/* The metadata line of function probe r's program prog (the loader
 * attaches it): "probe uprobe PROG RET PATH SYMBOL" or "probe kprobe PROG
 * RET SYMBOL MODULE|- OPTIONAL PP [MAXACTIVE]" (PP in hex, for messages;
 * MAXACTIVE a kretprobe's .maxactive(N)). */
void bu_meta(struct bgen *g, const struct rprobe *r, const char *prog, bool ret)
{
	if (bu_is_uprobe(r)) {
		sb_printf(&g->meta, "probe uprobe %s %d %s %s\n", prog, ret ? 1 : 0, r->binary,
			  r->symbol);
		return;
	}
	sb_printf(&g->meta, "probe kprobe %s %d %s %s %d %s", prog, ret ? 1 : 0, r->symbol,
		  r->module ? r->module : "-", r->marks && strchr(r->marks, '?') ? 1 : 0,
		  bg_hex(g, r->pp, strlen(r->pp)));
	if (ret && r->maxactive >= 0)
		sb_printf(&g->meta, " %lld", (long long)r->maxactive);
	sb_putc(&g->meta, '\n');
}

/* The entry probe's evaluation of the @entry() values v[0..k) into ev[] */
static void entry_values(struct bgen *g, struct strbuf *c, int id, const struct node **v,
			 int k, const char *suffix)
{
	struct strbuf body;

	sb_init(&body);
	g->body = &body;
	g->indent = 1;
	g->ntmp = 0;
	g->at_entry = true;
	g->errlabel = NULL;
	for (int i = 0; i < k && i < BU_NENTRY; i++) {
		const char *x;

		if (v[i]->type != T_LONG || reads_locals(v[i]->args))
			continue;	/* the handler's bu_entry_value() reports it */
		x = bg_expr(g, v[i]->args);
		bg_line(g, "ev[%d] = %s;", BU_NSAVED + i, x);
	}
	g->at_entry = false;
	sb_printf(c, "static __always_inline void entry_%d%s(struct stp_scratch *S, void *ctx, "
		  "long *ev)\n{\n%s\tgoto out;\nout:\n\treturn;\n}\n\n", id, suffix,
		  body.buf ? body.buf : "");
	sb_free(&body);
}

/* The entry program of .return point r (id), or its fentry twin when
 * g->fentry, into c; v[0..nent) the @entry() values */
static void entry_prog(struct bgen *g, struct strbuf *c, const struct rprobe *r, int id,
		       const struct node **v, int nent)
{
	struct arena *ar = g->s->arena;
	struct strbuf body, *saved = g->body;
	int np = rp_nparams(r), width, saved_indent = g->indent;
	const char *f = g->fentry ? "_f" : "";
	bool sg;

	if (nent)
		entry_values(g, c, id, v, nent, f);
	sb_init(&body);
	g->body = &body;
	g->indent = 1;
	for (int i = 0; i < np && i < r->nargs && i < BU_NSAVED; i++) {
		const char *bad = NULL, *x, *fault = arena_printf(ar, "ef%d_%d", id, i);
		int slot;

		if (classify(r->args[i].btf, r->args[i].type_id, &width, &sg) != 1 ||
		    (slot = slot_of(r, i, &bad)) < 0)
			continue;
		bg_line(g, "{");
		x = param(g, NULL, slot, width, sg, fault);
		bg_line(g, "e->v[d][%d] = %s;", i, x);
		bg_line(g, "}");
		bg_line(g, "%s: ;", fault);
	}
	if (nent) {	/* the @entry() values, as a handler would */
		bg_line(g, "S = stp_enter();");
		bg_line(g, "if (S) {");
		bg_line(g, "\tentry_%d%s(S, ctx, e->v[d]);", id, f);
		bg_line(g, "\tif (S->err == 1 || S->err == 2)");
		bg_line(g, "\t\tstp_report(S);");
		bg_line(g, "}");
	}
	g->body = saved;
	g->indent = saved_indent;
	if (!g->fentry)
		bu_meta(g, r, arena_printf(ar, "stp_e%d", id), false);
	sb_printf(c, "SEC(\"%s\") int stp_%se%d(void *ctx)\n{\n"
		  "\tstruct stp_ekey k = { bpf_get_current_pid_tgid(), %d };\n"
		  "\tstruct stp_scratch *S;\n"
		  "\tstruct stp_ent *e;\n\tlong d;\n\n\tif (stp_state)\n\t\treturn 0;\n"
		  "\te = bpf_map_lookup_elem(&stp_entries, &k);\n\tif (!e) {\n"
		  "\t\tbpf_map_update_elem(&stp_entries, &k, &stp_ent0, 0);\n"
		  "\t\te = bpf_map_lookup_elem(&stp_entries, &k);\n\t}\n"
		  "\tif (!e)\n\t\treturn 0;\n\td = e->depth++;\n"
		  "\tif (d < 0 || d >= STP_RDEPTH)\n\t\treturn 0;\n\t(void)S;\n%s\treturn 0;\n}\n\n",
		  g->fentry ? arena_printf(ar, "fentry/%s", r->symbol) :
		  bu_is_uprobe(r) ? "uprobe" : "kprobe", g->fentry ? "f" : "", id, id,
		  body.buf ? body.buf : "");
	sb_free(&body);
}

/*
 * A .return function probe whose handler reads parameters or @entry()
 * values: a probe at the function's entry (program stp_eID, attached
 * before the return's) saves them per thread and probe point, nested
 * calls on a stack of STP_RDEPTH; the return pops them into S->ent before
 * its handler runs, and runs no handler for a return whose entry it did
 * not see. Returns the return program's pop (C), or NULL when r needs none;
 * g->entry_twin says whether the fentry twin of the entry program, which
 * the return's fexit twin needs, was written (or none was needed).
 */
const char *bu_entry(struct bgen *g, struct strbuf *c, const struct rprobe *r, int id)
{
	struct arena *ar = g->s->arena;
	int nent;
	const struct rprobe *saved_rp = g->rp;
	const struct node **v = NULL;

	g->entry_twin = true;
	if (!bu_is_func(r) || !r->ret)
		return NULL;
	nent = bu_is_kprobe(r) ? entry_nodes(r->probe->body, NULL, 0) : 0;
	if (!nent && !reads_params(r->probe->body))
		return NULL;
	if (!g->entry_map) {
		g->entry_map = true;
		sb_printf(c, "#define STP_RDEPTH 8\n"
			  "struct stp_ekey { __u64 tid, id; };\n"
			  "struct stp_ent { long depth; long v[STP_RDEPTH][%d]; };\n"
			  "struct {\n\t__uint(type, 1);\t/* BPF_MAP_TYPE_HASH */\n"
			  "\t__uint(max_entries, 4096);\n\t__uint(map_flags, 1);\t/* no prealloc */\n"
			  "\t__type(key, struct stp_ekey);\n\t__type(value, struct stp_ent);\n"
			  "} stp_entries SEC(\".maps\");\n"
			  "struct stp_ent stp_ent0;\n\n"
			  "/* the entry's values of probe point id into S->ent: false if none */\n"
			  "static __always_inline int stp_entry_pop(struct stp_scratch *S, long id)\n{\n"
			  "\tstruct stp_ekey k = { bpf_get_current_pid_tgid(), id };\n"
			  "\tstruct stp_ent *e = bpf_map_lookup_elem(&stp_entries, &k);\n"
			  "\tlong d;\n\n\tif (!e || e->depth <= 0)\n\t\treturn 0;\n"
			  "\td = --e->depth;\n\tif (d >= STP_RDEPTH)\n\t\treturn 0;\n"
			  "\tbpf_probe_read_kernel(S->ent, sizeof(e->v[0]), e->v[d & (STP_RDEPTH - 1)]);\n"
			  "\tif (!d)\n\t\tbpf_map_delete_elem(&stp_entries, &k);\n\treturn 1;\n}\n\n",
			  BU_NSAVED + BU_NENTRY);
	}
	g->rp = r;
	if (nent) {
		v = arena_alloc(ar, sizeof(*v) * (size_t)nent);
		entry_nodes(r->probe->body, v, 0);
	}
	entry_prog(g, c, r, id, v, nent);
	g->entry_twin = !bu_has_fentry(r);
	if (!g->entry_twin) {	/* its fentry twin, unless it cannot be had */
		struct strbuf twin;

		sb_init(&twin);
		g->fentry = true;
		g->fentry_bad = false;
		entry_prog(g, &twin, r, id, v, nent);
		g->fentry = false;
		g->entry_twin = !g->fentry_bad;
		if (g->entry_twin) {
			sb_puts(c, twin.buf ? twin.buf : "");
			sb_printf(&g->meta, "twin stp_e%d stp_fe%d\n", id, id);
		}
		sb_free(&twin);
	}
	g->rp = saved_rp;
	return arena_printf(ar, "\tif (!stp_entry_pop(S, %d))\n\t\treturn 0;\n", id);
}
