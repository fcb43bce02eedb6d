/*
 * tr_kernel.c - kernel probes in passes 2 and 3: target variables of
 * kernel.function() (parameters and $return, from the BTF prototype) and
 * kernel.trace() (the tracepoint's arguments), and the probe table entries
 * the runtime's kprobes.c and tracepoints.c register.
 *
 * A target variable is a long everywhere: pointers are their address,
 * integers are narrowed to their type's width and sign. Where it comes
 * from differs between the points of one probe (kernel.function("vfs_*")),
 * so the handler asks stp_target(c, K) for the module-wide variable K and
 * each table entry carries its own stp_targ array, indexed by K.
 * x86_64 only: parameters are the argument registers (six at most).
 */
#include <stdlib.h>
#include <string.h>

#include "translate.h"
#include "kcatalog.h"
#include "family.h"

#define MAX_REG_ARGS 6

/* target variable names used by the module's handlers (without '$') */
static const char **tnames;
static int ntnames, captnames;
static int npoints;		/* table entries written, for array names */

static bool is_kernel_kind(int kind)
{
	return kind == RP_KFUNC || kind == RP_KPROBE || kind == RP_TRACEPOINT ||
	       kind == RP_UPROBE;
}

int tr_target_names(const char ***names)
{
	*names = tnames;
	return ntnames;
}

static int width_of(struct session *s, const char *type, bool *is_signed)
{
	struct kcatalog *kc = kernel_catalog(s);

	*is_signed = false;
	if (!kc)
		return strchr(type, '*') ? 8 : 0;
	return kcat_type_width(kc, type, is_signed);
}

/* The size of a struct or union parameter passed in registers, else 0. */
static int agg_size(struct session *s, const char *type)
{
	struct kcatalog *kc = kernel_catalog(s);

	return kc ? kcat_type_agg_size(kc, type) : 0;
}

static struct targ find_targ(struct session *s, const struct rprobe *r,
			     const char *name);

/* Is $name at r the address of an object (a struct in memory, or a copy
 * of one passed in registers) rather than a value? */
bool targ_lvalue(struct session *s, const struct rprobe *r, const char *name)
{
	if (r->kind == RP_UPROBE)
		return utarg_lvalue(s, r, name);
	return r->kind == RP_KFUNC && (find_targ(s, r, name).width & STP_TARG_OBJ);
}

/* The argument register after a parameter of `type` in `slot`: a 16-byte
 * aggregate takes two, or none when only one is left (it goes on the stack
 * and later parameters still use the registers); after one of unknown
 * size, the registers of later parameters are unknown. */
static int next_slot(struct session *s, const char *type, int slot)
{
	struct kcatalog *kc = kernel_catalog(s);
	int regs = kc ? kcat_type_regs(kc, type) : (strchr(type, '*') ? 1 : 0);

	if (!regs)
		return MAX_REG_ARGS + 1;
	if (slot + regs > MAX_REG_ARGS)
		return regs == 2 ? slot : slot + 1;
	return slot + regs;
}

/* Where $name comes from in r. */
static struct targ find_targ(struct session *s, const struct rprobe *r,
			     const char *name)
{
	struct targ t = { .src = -1 };
	int slot = 0;
	const char *body;

	if (r->kind == RP_UPROBE)
		return utarg_find(s, r, name, &body);
	if (r->kind == RP_UPROC)
		return uproc_targ(s, r, name);
	if (r->kind == RP_NETFILTER)
		return nf_targ(name);
	if (!is_kernel_kind(r->kind)) {
		t.why = "it is not a kernel.function or kernel.trace probe";
		return t;
	}
	if (r->kind == RP_KPROBE) {
		t.why = "kprobe.function probes have no target variables (no debuginfo)";
		return t;
	}
	if (r->kind == RP_KFUNC && !strcmp(name, "return")) {
		if (!r->ret) {
			t.why = "only .return probes have $return";
			return t;
		}
		if (!r->ret_type || !strcmp(r->ret_type, "void")) {
			t.why = "the function returns void";
			return t;
		}
		t.width = width_of(s, r->ret_type, &t.is_signed);
		if (!t.width) {
			t.why = arena_printf(s->arena, "its return type '%s' is not a register value",
					     r->ret_type);
			return t;
		}
		t.src = -2;
		return t;
	}
	if (r->kind == RP_KFUNC && !r->args && !r->nargs) {
		t.why = "its prototype is not in the kernel's BTF";
		return t;
	}
	for (int i = 0; i < r->nargs; i++) {
		bool sg;
		int w = width_of(s, r->args[i].type, &sg);
		int agg = r->kind == RP_KFUNC ? agg_size(s, r->args[i].type) : 0;

		if (strcmp(r->args[i].name, name)) {
			slot = next_slot(s, r->args[i].type, slot);
			continue;
		}
		if (agg && slot + (agg + 7) / 8 <= MAX_REG_ARGS) {
			t.src = slot;	/* a copy of its registers, by address */
			t.width = STP_TARG_OBJ | agg;
			return t;
		}
		if (!w) {
			t.why = arena_printf(s->arena, "its type '%s' is not a register value",
					     r->args[i].type);
			return t;
		}
		if (r->kind == RP_KFUNC && slot >= MAX_REG_ARGS) {
			t.why = "only the first six parameters (in registers) can be read";
			return t;
		}
		t.src = r->kind == RP_KFUNC ? slot : i;
		t.width = w;
		t.is_signed = sg;
		return t;
	}
	t.why = "no such parameter";
	return t;
}

const struct kcat_arg *elab_target_arg(struct session *s, const struct rprobe *r,
				       const char *name)
{
	if (!r || find_targ(s, r, name).src == -1)
		return NULL;
	if ((r->kind == RP_KFUNC || r->kind == RP_UPROBE) && !strcmp(name, "return"))
		return r->ret_arg;
	for (int i = 0; i < r->nargs; i++)
		if (!strcmp(r->args[i].name, name))
			return &r->args[i];
	return NULL;
}

bool elab_target_defined_at(struct session *s, const struct rprobe *r, const char *op)
{
	size_t n = strlen(op);

	if (r->kind == RP_PROCFS)	/* readable: .write probes, as 4.8 */
		return r->procfs_write && !strcmp(op, "$value");
	if (op[1] == '$')
		return uprobe_mark_string(r, op) ||
		       r->kind == RP_KFUNC || r->kind == RP_TRACEPOINT ||
		       (r->kind == RP_UPROBE && strcmp(op, "$$name") && strcmp(op, "$$provider"));
	if (n > 2 && op[n - 1] == '$')	/* $var$ or $var$$ */
		return elab_target_defined_at(s, r, arena_strndup(s->arena, op,
					   op[n - 2] == '$' ? n - 2 : n - 1));
	return find_targ(s, r, op + 1).src != -1;
}

static bool is_pretty(const char *name)
{
	return !strcmp(name, "$$parms") || !strcmp(name, "$$vars") ||
	       !strcmp(name, "$$locals") || !strcmp(name, "$$return") ||
	       !strcmp(name, "$$name") || !strcmp(name, "$$provider");
}

static bool pretty_ok(const struct rprobe *r, const char *op)
{
	if (!strcmp(op, "$$name") || !strcmp(op, "$$provider"))
		return uprobe_mark_string(r, op) != NULL;
	return r->kind == RP_KFUNC || r->kind == RP_TRACEPOINT || r->kind == RP_UPROBE;
}

enum type elab_target_type(const struct node *n)
{
	if (n->flags & TARGET_PROCFS)
		return T_STRING;
	return n->op && (n->op[1] == '$' || n->op[strlen(n->op) - 1] == '$') ?
	       T_STRING : T_LONG;
}

/* A write to $name (guru mode, as 4.8): a parameter at a function's entry
 * (its register) or $return in a .return probe (rax); in a process probe
 * also a variable where DWARF says it is (register or memory). False
 * after an error. */
static bool elab_target_write(struct session *s, struct probe *p, struct node *n)
{
	const char *msg = NULL;
	size_t len = strlen(n->op);
	bool kernel = false;

	if (elab_no_points(s, p))	/* its points' errors are out already */
		return true;
	for (const struct rprobe *r = s->rprobes; r && !msg; r = r->next) {
		if (r->probe != p)
			continue;
		if (r->kind == RP_TRACEPOINT)
			msg = arena_printf(s->arena, "write to tracepoint variable '%s' not permitted; need stap -g",
					   n->op);
		kernel |= r->kind == RP_KFUNC || r->kind == RP_KPROBE || r->kind == RP_UPROBE;
	}
	if (!msg && !kernel)	/* procfs $value and the like */
		msg = arena_printf(s->arena, "writing target variable '%s' is not supported by this version yet",
				   n->op);
	if (!msg && !s->guru)
		msg = "write to target variable not permitted; need stap -g";
	if (!msg && (n->op[1] == '$' || n->op[len - 1] == '$'))
		msg = arena_printf(s->arena, "cannot write to '%s'", n->op);
	for (const struct rprobe *r = s->rprobes; r && !msg; r = r->next) {
		const char *why, *body;

		if (r->probe != p)
			continue;
		if (r->ret && strcmp(n->op, "$return"))
			msg = "write to target variable not permitted in .return probes";
		else if (r->kind == RP_UPROBE && (why = utarg_write(s, r, n->op + 1, &body)))
			msg = arena_printf(s->arena, "cannot write target variable '%s' in %s: %s",
					   n->op, r->pp, why);
	}
	if (msg)
		diag_error(s, n->loc, "%s", msg);
	return !msg;
}

void elab_target(struct session *s, struct probe *p, struct node *n,
		 bool written)
{
	const char *name = n->op + 1;
	int bad = 0, total = 0;
	const struct rprobe *first_bad = NULL;
	struct targ first = { 0 };

	n->type = elab_target_type(n);
	if (!p) {
		diag_error(s, n->loc, "target variable '%s' used in a function: target variables belong to probe handlers",
			   n->op);
		return;
	}
	if (p->points && elab_procfs_value(s, p, n, written))
		return;
	if (p->points && elab_nf_target(s, p, n, written))
		return;
	if (written && !elab_target_write(s, p, n))
		return;
	if (n->op[strlen(n->op) - 1] == '$' && strcmp(n->op, "$$")) {
		elab_pretty_target(s, p, n);
		return;
	}
	if (n->op[1] == '$') {
		if (!is_pretty(n->op)) {
			diag_error(s, n->loc, "target variable '%s' is not supported by this version yet",
				   n->op);
			return;
		}
		for (const struct rprobe *r = s->rprobes; r; r = r->next) {
			if (r->probe != p)
				continue;
			total++;
			if (pretty_ok(r, n->op))
				continue;
			if (!bad++)
				first_bad = r;
		}
		if (bad)
			diag_error(s, n->loc, "target variable '%s' is not available in %s%s: "
				   "it is not a kernel.function or kernel.trace probe",
				   n->op, first_bad->pp, bad > 1 ?
				   arena_printf(s->arena, " (and %d more of its %d points)", bad - 1, total) : "");
		return;
	}
	for (const struct rprobe *r = s->rprobes; r; r = r->next) {
		struct targ t;

		if (r->probe != p)
			continue;
		total++;
		t = find_targ(s, r, name);
		if (t.src != -1)
			continue;
		if (!bad++) {
			first_bad = r;
			first = t;
		}
	}
	if (bad)
		diag_error(s, n->loc, "target variable '%s' is not available in %s%s: %s",
			   n->op, first_bad->pp, bad > 1 ?
			   arena_printf(s->arena, " (and %d more of its %d points)", bad - 1, total) : "",
			   first.why);
}

static int tname_index(const char *name)
{
	for (int i = 0; i < ntnames; i++)
		if (!strcmp(tnames[i], name))
			return i;
	if (ntnames == captnames) {
		captnames = captnames ? captnames * 2 : 8;
		tnames = realloc(tnames, sizeof(*tnames) * (size_t)captnames);
		if (!tnames)
			abort();
	}
	tnames[ntnames] = name;
	return ntnames++;
}

const char *tr_target(struct gen *g, struct node *n)
{
	const char *t;

	if (n->flags & TARGET_PROCFS)
		return tr_procfs_value(g, n);
	if (n->op[strlen(n->op) - 1] == '$')
		return tr_pretty_target(g, n);
	t = tr_new_tmp(g, n->type == T_STRING ? T_STRING : T_LONG);
	if (n->type == T_STRING) {
		tr_line(g, "stp_target_pretty(c, %s, %d);", t,
			!strcmp(n->op, "$$return") ? 1 :
			!strcmp(n->op, "$$locals") ? 2 :
			!strcmp(n->op, "$$vars") ? 3 :
			!strcmp(n->op, "$$name") ? 4 :
			!strcmp(n->op, "$$provider") ? 5 : 0);
		return t;
	}
	tr_line(g, "%s = stp_target(c, %d);", t, tname_index(n->op + 1));
	tr_error_check(g, n);
	return t;
}

/* $var = val (guru): writes the register; returns the value. */
const char *tr_target_set(struct gen *g, struct node *n, const char *val)
{
	const char *t = tr_new_tmp(g, T_LONG);

	tr_line(g, "%s = %s;", t, val);
	tr_line(g, "stp_target_set(c, %d, %s);", tname_index(n->op + 1), t);
	tr_error_check(g, n);
	return t;
}

/* "static const struct stp_targ stp_targs_N[] = { ... };" and the
 * parameter list for $$parms; returns the table fields. */
static const char *targ_arrays(struct gen *g, struct strbuf *code,
			       const struct rprobe *r, int id)
{
	struct session *s = g->s;
	const char *fields = "";

	if (ntnames) {
		sb_printf(code, "static const struct stp_targ stp_targs_%d[] = {", id);
		for (int i = 0; i < ntnames; i++) {
			struct targ t = find_targ(s, r, tnames[i]);

			sb_printf(code, "%s { %d, %d, %d }", i ? "," : "", t.src,
				  t.width, t.is_signed);
		}
		sb_puts(code, " };\n");
		fields = arena_printf(s->arena, ", .targs = stp_targs_%d", id);
	}
	if (r->nargs && (r->kind == RP_KFUNC || r->kind == RP_TRACEPOINT)) {
		sb_printf(code, "static const struct stp_parm stp_parms_%d[] = {", id);
		for (int i = 0; i < r->nargs; i++) {
			struct targ t = find_targ(s, r, r->args[i].name);

			if (t.width & STP_TARG_OBJ)
				t.src = -4;	/* STP_TARG_AGG: "{...}", as 4.8 */
			sb_printf(code, " { %s, { %d, %d, %d } },",
				  tr_cstr(g, r->args[i].name), t.src, t.width, t.is_signed);
		}
		sb_puts(code, " { NULL } };\n");
		fields = arena_printf(s->arena, "%s, .parms = stp_parms_%d", fields, id);
	}
	return fields;
}

bool tr_kernel_probe(struct gen *g, struct strbuf *code, struct strbuf *table,
		     const struct rprobe *r)
{
	struct session *s = g->s;
	int id = npoints++;
	const char *fields, *optional;

	if (r->kind == RP_UPROBE)
		return tr_uprobe(g, code, table, r, id);
	if (r->kind == RP_UPROC)
		return tr_uproc(g, code, table, r);
	if (r->kind == RP_PROCFS) {
		tr_procfs_probe(g, table, r);
		return true;
	}
	if (r->kind == RP_NETFILTER) {
		tr_nf_probe(g, table, r, targ_arrays(g, code, r, id));
		return true;
	}
	if (!is_kernel_kind(r->kind))
		return false;
	if (r->kind != RP_TRACEPOINT && (!r->symbol || r->offset)) {
		diag_error(s, r->point->loc, "%s probes are not supported by this version yet",
			   r->family);
		return true;
	}
	fields = targ_arrays(g, code, r, id);
	optional = r->marks && strchr(r->marks, '?') ? "true" : "false";
	if (r->kind == RP_TRACEPOINT) {
		sb_printf(code, "static void stp_tp_cb_%d(void *data", id);
		for (int i = 0; i < r->nargs; i++)
			sb_printf(code, ", unsigned long a%d", i);
		sb_puts(code, ")\n{\n\tconst unsigned long args[] = {");
		for (int i = 0; i < r->nargs; i++)
			sb_printf(code, " a%d,", i);
		sb_puts(code, " 0 };\n\n\tstp_tracepoint_fire(data, args);\n}\n\n");
		sb_printf(table, "\t{ .kind = STP_PROBE_TRACEPOINT, .handler = probe_%d, .pp = %s, "
			  ".tp_name = %s, .tp_func = (void *)stp_tp_cb_%d, .maxactive = -1, .optional = %s%s },\n",
			  r->probe->index, tr_cstr(g, r->pp), tr_cstr(g, r->tp_name), id,
			  optional, fields);
		return true;
	}
	if (r->ret && r->probe->entry_size)
		fields = arena_printf(s->arena, "%s, .entry_handler = probe_%d_entry, "
				      ".entry_size = %s", fields, r->probe->index,
				      r->probe->entry_size);
	/* module("M").function(): the probe follows M (kprobes.c) */
	if (r->module && r->kind == RP_KFUNC)
		fields = arena_printf(s->arena, "%s, .kmodule = %s", fields, tr_cstr(g, r->module));
	sb_printf(table, "\t{ .kind = %s, .handler = probe_%d, .pp = %s, .symbol = %s, "
		  ".func = %s, .maxactive = %lld, .optional = %s%s },\n",
		  r->ret ? "STP_PROBE_KRETPROBE" : "STP_PROBE_KPROBE",
		  r->probe->index, tr_cstr(g, r->pp),
		  tr_cstr(g, r->module ? arena_printf(s->arena, "%s:%s", r->module, r->symbol) :
			  r->symbol),
		  tr_cstr(g, r->symbol), (long long)(r->maxactive >= 0 ? r->maxactive : -1),
		  optional, fields);
	return true;
}
