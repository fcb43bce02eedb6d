/*
 * target.c - pass 2: target variables ($name, $$parms, $var$...) of the
 * points of a probe. Where a variable comes from is each family's answer
 * (family.targ, through rprobe.fam); here are the checks every family
 * shares: a variable must exist at every point of the probe, writes need
 * guru mode and a family that allows them, pretty prints need a family
 * with parameters.
 *
 * A target variable is a long everywhere: pointers are their address,
 * integers are narrowed to their type's width and sign.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elab.h"
#include "kcatalog.h"

struct targ targ_find(struct session *s, const struct rprobe *r, const char *name)
{
	struct targ t = { .src = -1 };

	if (r->fam->targ)
		return r->fam->targ(s, r, name);
	t.why = "it is not a kernel.function or kernel.trace probe";
	return t;
}

/* Is $name at r the address of an object (a struct in memory, or a copy
 * of one passed in registers) rather than a value? */
bool targ_lvalue(struct session *s, const struct rprobe *r, const char *name)
{
	return r->fam->targ_lvalue && r->fam->targ_lvalue(s, r, name);
}

const char *targ_mark_string(const struct rprobe *r, const char *op)
{
	return r->fam->mark_string ? r->fam->mark_string(r, op) : NULL;
}

int rp_nparams(const struct rprobe *r)
{
	return r->fam->nparams ? r->fam->nparams(r) : r->nargs;
}

int rp_nlisted(const struct rprobe *r)
{
	return r->fam->nlisted ? r->fam->nlisted(r) : r->nargs;
}

bool probe_has(struct session *s, const struct probe *p, unsigned int flags)
{
	for (const struct rprobe *r = p ? s->rprobes : NULL; r; r = r->next)
		if (r->probe == p && (r->flags & flags) == flags)
			return true;
	return false;
}

bool probe_all(struct session *s, const struct probe *p, unsigned int flags)
{
	bool any = false;

	for (const struct rprobe *r = p ? s->rprobes : NULL; r; r = r->next) {
		if (r->probe != p)
			continue;
		if ((r->flags & flags) != flags)
			return false;
		any = true;
	}
	return any;
}

const struct kcat_arg *elab_target_arg(struct session *s, const struct rprobe *r,
				       const char *name)
{
	if (!r || targ_find(s, r, name).src == -1)
		return NULL;
	if ((r->flags & RF_RETURN) && !strcmp(name, "return"))
		return r->ret_arg;
	for (int i = 0; i < r->nargs; i++)
		if (!strcmp(r->args[i].name, name))
			return &r->args[i];
	return NULL;
}

bool elab_target_defined_at(struct session *s, const struct rprobe *r, const char *op)
{
	size_t n = strlen(op);

	if (op[1] == '$')
		return targ_mark_string(r, op) || ((r->flags & RF_PARMS) &&
		       strcmp(op, "$$name") && strcmp(op, "$$provider"));
	if (n > 2 && op[n - 1] == '$')	/* $var$ or $var$$ */
		return elab_target_defined_at(s, r, arena_strndup(s->arena, op,
					   op[n - 2] == '$' ? n - 2 : n - 1));
	return targ_find(s, r, op + 1).src != -1;
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
		return targ_mark_string(r, op) != NULL;
	return r->flags & RF_PARMS;
}

enum type elab_target_type(const struct node *n)
{
	if (n->flags & TARGET_PROCFS)
		return T_STRING;
	return n->op && (n->op[1] == '$' || n->op[strlen(n->op) - 1] == '$') ?
	       T_STRING : T_LONG;
}

/* Why $name (op) cannot be written in p, before the per-point checks. */
static const char *write_refused(struct session *s, struct probe *p, const char *op)
{
	const char *msg = NULL;
	size_t len = strlen(op);
	bool writable = false;

	for (const struct rprobe *r = s->rprobes; r && !msg; r = r->next) {
		if (r->probe != p)
			continue;
		if (r->flags & RF_TP_VARS)
			msg = arena_printf(s->arena, "write to tracepoint variable '%s' not permitted; need stap -g",
					   op);
		writable |= !!(r->flags & RF_WRITABLE);
	}
	if (!msg && !writable)	/* procfs $value and the like */
		msg = arena_printf(s->arena, "writing target variable '%s' is not supported by this version yet",
				   op);
	if (!msg && !s->guru)
		msg = "write to target variable not permitted; need stap -g";
	if (!msg && (op[1] == '$' || op[len - 1] == '$'))
		msg = arena_printf(s->arena, "cannot write to '%s'", op);
	return msg;
}

/* A write to $name (guru mode, as 4.8): a parameter at a function's entry
 * (its register) or $return in a .return probe (rax); in a process probe
 * also a variable where DWARF says it is (register or memory). False
 * after an error. */
static bool elab_target_write(struct session *s, struct probe *p, struct node *n)
{
	const char *msg;

	if (elab_no_points(s, p))	/* its points' errors are out already */
		return true;
	msg = write_refused(s, p, n->op);
	for (const struct rprobe *r = s->rprobes; r && !msg; r = r->next) {
		const char *why;

		if (r->probe != p)
			continue;
		if (r->ret && strcmp(n->op, "$return"))
			msg = "write to target variable not permitted in .return probes";
		else if (r->fam->targ_write && (why = r->fam->targ_write(s, r, n->op + 1)))
			msg = arena_printf(s->arena, "cannot write target variable '%s' in %s: %s",
					   n->op, r->pp, why);
	}
	if (msg)
		diag_error(s, n->loc, "%s", msg);
	return !msg;
}

/* "... (and N more of its M points)" after the first point of bad. */
static const char *more_points(struct session *s, int bad, int total)
{
	return bad > 1 ? arena_printf(s->arena, " (and %d more of its %d points)",
				      bad - 1, total) : "";
}

/* $$parms, $$vars...: every point of p must have them. */
static void elab_pretty_all(struct session *s, struct probe *p, struct node *n)
{
	const struct rprobe *first_bad = NULL;
	int bad = 0, total = 0;

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
			   n->op, first_bad->pp, more_points(s, bad, total));
}

/* A family that checks n itself (procfs $value, netfilter's context). */
static bool claimed(struct session *s, struct probe *p, struct node *n, bool written)
{
	for (int i = 0; p->points && s->families[i]; i++)
		if (s->families[i]->claim_target &&
		    s->families[i]->claim_target(s, p, n, written))
			return true;
	return false;
}

/* "; did you mean '$NAME'?" for the parameter of r nearest to name (a
 * typo: at most a third of its letters wrong), or "". Not for $argN: the
 * message says how many arguments there are. */
static const char *param_hint(struct session *s, const struct rprobe *r, const char *name)
{
	struct nearest near;

	if (!strncmp(name, "arg", 3) && name[3] &&
	    strspn(name + 3, "0123456789") == strlen(name + 3))
		return "";
	nearest_init(&near, name, (int)strlen(name) / 3 + 1);
	for (int i = 0; i < r->nargs; i++) {
		if (!r->args[i].name)
			continue;
		if (!strcmp(name, r->args[i].name))
			return "";	/* there, not available for another reason */
		nearest_offer(&near, r->args[i].name);
	}
	return near.best ? arena_printf(s->arena, "; did you mean '$%s'?", near.best) : "";
}

/* --skip-badvars: n, an access of the target variable t that fails, is
 * 0, with 4.8's warning. */
void elab_skip_badvar(struct session *s, struct node *n, const struct node *t)
{
	diag_warn(s, t->loc, "bad $context variable '%s' being substituted with literal 0",
		  t->op);
	n->kind = N_NUM;
	n->num = 0;
	n->type = T_LONG;
	n->a = NULL;
	n->args = NULL;
	n->deref = NULL;
}

/* Why n is not available at point r (the first of bad of total): 4.8's
 * own words when the family gives them whole. */
static const char *not_available(struct session *s, const struct node *n,
				 const struct rprobe *r, const struct targ *t, int bad, int total)
{
	if (t->why_whole)
		return t->why;
	return arena_printf(s->arena, "target variable '%s' is not available in %s%s: %s%s",
			    n->op, r->pp, more_points(s, bad, total), t->why,
			    param_hint(s, r, n->op + 1));
}

/* name without its trailing '$' or "$$", then "->$" or "->$$" for them */
static void capture_name(struct strbuf *sb, const char *name)
{
	size_t len = strlen(name), k = len;

	while (k && name[k - 1] == '$')
		k--;
	if (!k || len - k > 2)
		k = len;
	sb_putn(sb, name, k);
	sb_puts(sb, len - k == 2 ? "->$$" : len - k == 1 ? "->$" : "");
}

/* expr as 4.8 prints it in its .return warning: a pretty print as a
 * "->$" or "->$$" component ($fd->$, $file->f_path->$$, $pos[0]). */
static void capture_text(struct strbuf *sb, const struct node *n)
{
	if (n->kind != N_DEREF) {
		capture_name(sb, n->op);
		return;
	}
	capture_text(sb, n->a);
	for (const struct node *c = n->args; c; c = c->next) {
		char *buf = NULL;
		size_t len = 0;
		FILE *f;

		if (c->kind == N_MEMBER) {
			sb_puts(sb, "->");
			capture_name(sb, c->op);
			continue;
		}
		f = open_memstream(&buf, &len);
		if (f) {
			ast_print_expr(f, c->a);
			fclose(f);
			sb_printf(sb, "[%s]", buf);
		}
		free(buf);
	}
	sb_puts(sb, n->flags == 2 ? "->$$" : n->flags == 1 ? "->$" : "");
}

/*
 * As 4.8: a parameter read through DWARF in a .return probe (kernel with
 * its debuginfo, module, process) is its value at entry, which 4.8 warns
 * of once per probe and expression (whole: the $x->m or $x$ whose base
 * is n). Not with BTF, where 4.8 has no such probes.
 */
static void warn_capture(struct session *s, struct probe *p, const struct node *n,
			 const struct node *whole)
{
	const char *name = n->op + 1;
	bool all = !strncmp(name, "$parms", 6) || !strncmp(name, "$vars", 5) ||
		   !strncmp(name, "$locals", 7);
	struct strbuf sb;
	const char *key;
	size_t k = strlen(name);
	bool any = false;

	while (k && name[k - 1] == '$')
		k--;
	name = arena_strndup(s->arena, name, k);

	if (s->in_entry || (name[0] == '$' && !all))
		return;
	for (const struct rprobe *r = s->rprobes; r; r = r->next) {
		if (r->probe != p)
			continue;
		if (!r->ret || !(r->flags & RF_DWARF))
			return;
		if (!all && targ_find(s, r, name).src < 0)
			return;
		any = true;
	}
	if (!any)
		return;
	sb_init(&sb);
	capture_text(&sb, whole);
	key = arena_printf(s->arena, "%p:%s", (void *)p, sb.buf);
	for (int i = 0; i < s->ncapture_warned; i++)
		if (!strcmp(s->capture_warned[i], key))
			goto out;
	if (!(s->ncapture_warned & (s->ncapture_warned + 1))) {
		const char **v = arena_alloc(s->arena, sizeof(*v) * (size_t)(s->ncapture_warned * 2 + 2));

		if (s->ncapture_warned)
			memcpy(v, s->capture_warned, sizeof(*v) * (size_t)s->ncapture_warned);
		s->capture_warned = v;
	}
	s->capture_warned[s->ncapture_warned++] = key;
	diag_warn(s, n->loc, "confusing usage, value is captured as @entry(%s) in .return probe "
		  "[man stapprobes] RETURN PROBES", sb.buf);
out:
	sb_free(&sb);
}

void elab_target(struct session *s, struct probe *p, struct node *n,
		 bool written)
{
	const char *name = n->op + 1;
	int bad = 0, total = 0;
	const struct rprobe *first_bad = NULL;
	struct targ first = { 0 };
	int before;

	n->type = elab_target_type(n);
	if (!p) {
		diag_error(s, n->loc, ELAB_TARGET_IN_FUNCTION, n->op);
		return;
	}
	if (claimed(s, p, n, written))
		return;
	if (written && !elab_target_write(s, p, n))
		return;
	if (n->op[strlen(n->op) - 1] == '$' && strcmp(n->op, "$$")) {
		before = s->errors;
		elab_pretty_target(s, p, n);
		if (s->errors == before)
			warn_capture(s, p, n, s->target_whole ? s->target_whole : n);
		return;
	}
	if (n->op[1] == '$') {
		before = s->errors;
		elab_pretty_all(s, p, n);
		if (s->errors == before)
			warn_capture(s, p, n, n);
		return;
	}
	for (const struct rprobe *r = s->rprobes; r; r = r->next) {
		struct targ t;

		if (r->probe != p)
			continue;
		total++;
		t = targ_find(s, r, name);
		if (t.src != -1)
			continue;
		if (!bad++) {
			first_bad = r;
			first = t;
		}
	}
	if (bad && bad == total && !written && s->skip_badvars) {
		/* every probe of p lacks it */
		elab_skip_badvar(s, n, n);
		return;
	}
	if (bad && s->defer_targets && !written) {
		/* a read: reported after elision, if its statement is left
		 * (4.8); a write is an effect, never elided */
		struct deferred_error *d = arena_alloc(s->arena, sizeof(*d)), **tail;

		d->loc = n->loc;
		d->node = n;
		d->msg = not_available(s, n, first_bad, &first, bad, total);
		for (tail = &s->deferred; *tail; tail = &(*tail)->next)
			;
		*tail = d;
	} else if (bad) {
		diag_error(s, n->loc, "%s", not_available(s, n, first_bad, &first, bad, total));
	} else if (!written) {
		warn_capture(s, p, n, s->target_whole ? s->target_whole : n);
	}
}

static void mark_live(struct session *s, const struct node *n)
{
	for (; n; n = n->next) {
		if (n->kind == N_TARGET)
			for (struct deferred_error *d = s->deferred; d; d = d->next)
				d->live |= d->node == n;
		mark_live(s, n->a);
		mark_live(s, n->b);
		mark_live(s, n->c);
		mark_live(s, n->d);
		mark_live(s, n->args);
	}
}

/* The deferred target errors: those whose statement elision left (all,
 * when it did not run). */
void elab_report_deferred(struct session *s, bool elided)
{
	if (!s->deferred)
		return;
	for (struct probe *p = s->probes; p && elided; p = p->next)
		mark_live(s, p->body);
	for (struct func *f = s->funcs; f && elided; f = f->next_used)
		mark_live(s, f->body);
	for (struct deferred_error *d = s->deferred; d; d = d->next)
		if (d->live || !elided)
			diag_error(s, d->loc, "%s", d->msg);
	s->deferred = NULL;
}

/* Every point of p is a user-space process probe (its @entry is
 * resolve.c's rewrite)? */
bool entry_in_uprobes(struct session *s, struct probe *p)
{
	return probe_all(s, p, RF_USER);
}

/* Is every point of p a .return (where @entry is valid)? */
bool elab_all_return(struct session *s, const struct probe *p)
{
	bool any = false;

	for (const struct rprobe *r = p ? s->rprobes : NULL; r; r = r->next) {
		if (r->probe != p)
			continue;
		if (!r->ret)
			return false;
		any = true;
	}
	return any;
}

/* @entry(expr): only in .return probes that keep it (kretprobes). */
void elab_entry(struct session *s, struct probe *p, struct node *n)
{
	const struct rprobe *bad = NULL;

	for (const struct rprobe *r = p ? s->rprobes : NULL; r && !bad; r = r->next)
		if (r->probe == p && (!(r->flags & RF_ENTRY) || !r->ret))
			bad = r;
	if (!p || bad)
		diag_error(s, n->loc, ELAB_ENTRY_NOT_RETURN);
	for (struct node *a = n->args; a; a = a->next)
		if (a->kind == N_TARGET && !strcmp(a->op, "$return"))
			diag_error(s, a->loc, "$return is not available at entry");
}
