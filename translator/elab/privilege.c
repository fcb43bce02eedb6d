/*
 * privilege.c - what a script built with --privilege=stapusr may use, as
 * SystemTap 4.8 decides it (stapsys and stapdev may use everything but
 * what needs guru mode, which main.c refuses with them):
 *  - probe points: those of the families that say so (struct family's
 *    unprivileged hook: begin, end, error, never, the timers but
 *    timer.profile, the process family), checked as each point is
 *    resolved (probepoint.c);
 *  - functions: a used function whose body is embedded C only when that
 *    C carries the comment "unprivileged" or "myproc-unprivileged" (the
 *    latter checked at run time: translate.c has it test that the probe
 *    runs in a process of the user's);
 *  - embedded expressions (`%{ %}` in a tapset's function or alias body)
 *    only when they carry the comment "unprivileged".
 * Upstream's error texts; each at the function's or the expression's own
 * place.
 */
#include <string.h>

#include "elab.h"

static bool marked_unprivileged(const char *c, bool myproc_too)
{
	return c && (strstr(c, "/* unprivileged */") ||
		     (myproc_too && strstr(c, "/* myproc-unprivileged */")));
}

/* The unmarked embedded expressions under n (its operands, arguments
 * and the statements after it). */
static void check_node(struct session *s, const struct node *n)
{
	for (; n; n = n->next) {
		if (n->kind == N_EMBEDDED_EXPR && !marked_unprivileged(n->str, false))
			diag_error(s, n->loc, "embedded expression may not be used when "
				   "--privilege=stapusr is specified");
		check_node(s, n->a);
		check_node(s, n->b);
		check_node(s, n->c);
		check_node(s, n->d);
		check_node(s, n->args);
	}
}

void check_privilege(struct session *s)
{
	if (s->privilege != PR_STAPUSR)
		return;
	for (struct func *f = s->funcs; f; f = f->next_used) {
		if (f->body->kind != N_EMBEDDED_STMT)
			check_node(s, f->body);
		else if (!marked_unprivileged(f->body->str, true))
			diag_error(s, f->loc, "function may not be used when "
				   "--privilege=stapusr is specified: '%s'", f->name);
	}
	for (struct probe *p = s->probes; p; p = p->next)
		check_node(s, p->body);
}

bool pp_unprivileged(const struct pp_comp *c)
{
	(void)c;
	return true;
}
