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
 *  - a used script function is checked through what it calls and holds
 *    (4.8 too permits a script function, @cast and all, when everything
 *    it calls is permitted), but for the tapset functions 4.8 refuses
 *    for unmarked embedded code that are script here (refused_in_4_8),
 *    refused by name;
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

/* Tapset functions that are script here but in 4.8's tapsets unmarked
 * embedded C, or script holding (or expanding a macro holding) an
 * unmarked embedded expression: a --privilege=stapusr script may not
 * call them in 4.8. */
static const char *const refused_in_4_8[] = {
	"symfile", "symfileline", "symline", "ipmib_get_proto",
	"Py2Object_GetAttr", "Py2Object_Repr", "Py3Object_GetAttr",
	"Py3Object_Repr", "python2_get_locals", "python2_get_var_obj",
	"python3_get_locals", "python3_get_var_obj",
	"task_cwd_path", "task_fd_lookup", "task_max_file_handles",
	"tcp_get_info_rto", "tcp_get_info_snd_cwnd", "tcp_ts_get_info_rcv_mss",
	"tcp_ts_get_info_snd_ssthresh", "tcp_ts_get_info_state",
};

static bool refused_by_name(const struct func *f)
{
	if (!f->tapset)
		return false;
	for (size_t i = 0; i < sizeof(refused_in_4_8) / sizeof(refused_in_4_8[0]); i++)
		if (!strcmp(f->name, refused_in_4_8[i]))
			return true;
	return false;
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
		bool refused;

		if (f->body->kind == N_EMBEDDED_STMT)
			refused = !marked_unprivileged(f->body->str, true);
		else
			refused = refused_by_name(f);
		if (refused)
			diag_error(s, f->loc, "function may not be used when "
				   "--privilege=stapusr is specified: '%s'", f->name);
		else if (f->body->kind != N_EMBEDDED_STMT)
			check_node(s, f->body);
	}
	for (struct probe *p = s->probes; p; p = p->next)
		check_node(s, p->body);
}

bool pp_unprivileged(const struct pp_comp *c)
{
	(void)c;
	return true;
}
