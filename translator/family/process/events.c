/*
 * events.c - the process events of the process family:
 * process[("PATH") | (PID)][.thread].begin/.end and .syscall[.return],
 * resolved by points.c, run by the runtime's uprocess.c. Only the
 * syscall events have target variables: $syscall, and $arg1..$arg6
 * (.syscall) or $return (.return).
 */
#include <stdlib.h>
#include <string.h>

#include "process.h"

/* $syscall, $arg1..$arg6 (entry) or $return (.return) of process.syscall. */
static struct targ events_targ(struct session *s, const struct rprobe *r, const char *name)
{
	struct targ t = { .src = -1, .width = 8, .is_signed = true };
	int k;

	if (r->proc_event != UP_SYSCALL && r->proc_event != UP_SYSCALL_RETURN) {
		t.why = "process lifecycle probes have no target variables";
		return t;
	}
	if (!strcmp(name, "syscall"))
		t.src = 6;
	else if (!strcmp(name, "return") && r->proc_event == UP_SYSCALL_RETURN)
		t.src = -2;	/* STP_TARG_RETURN */
	else if (!strncmp(name, "arg", 3) && r->proc_event == UP_SYSCALL_RETURN)
		t.why = "only \"process(PATH_OR_PID).syscall\" support $argN or $$parms";
	else if (!strncmp(name, "arg", 3) && (k = atoi(name + 3)) >= 1 && k <= 6 &&
		 !strcmp(name + 3, arena_printf(s->arena, "%d", k)))
		t.src = k - 1;
	else
		t.why = r->proc_event == UP_SYSCALL ? "process.syscall has $syscall and $arg1..$arg6" :
			"process.syscall.return has $syscall and $return";
	return t;
}

/* process[("PATH" | PID)][.thread].begin/.end, .syscall[.return]: a
 * runtime uprocess.c entry. */
static void events_emit(struct gen *g, struct strbuf *code, const struct rprobe *r, int id)
{
	static const char *const kinds[] = {
		"STP_PROBE_PROC_BEGIN", "STP_PROBE_PROC_END",
		"STP_PROBE_THREAD_BEGIN", "STP_PROBE_THREAD_END",
		"STP_PROBE_SYSCALL", "STP_PROBE_SYSCALL_RETURN"
	};
	const char **names = g->tnames;
	int n = g->ntnames;
	const char *fields = "";

	if (n) {
		struct strbuf tab;

		sb_init(&tab);
		for (int i = 0; i < n; i++) {
			struct targ t = events_targ(g->s, r, names[i]);

			sb_printf(&tab, "%s { %d, %d, %d, NULL }", i ? "," : "", t.src, t.width,
				  t.is_signed);
		}
		sb_printf(code, "static const struct stp_targ stp_uptargs_%d[] = {%s };\n",
			  id, tab.buf);
		sb_free(&tab);
		fields = arena_printf(g->s->arena, ", .targs = stp_uptargs_%d", id);
	}
	tr_table_row(g, "UPROC", "%s, .handler = probe_%d, .pp = %s, .path = %s, "
		     ".upid = %lld, .maxactive = -1, .optional = %s%s", kinds[r->proc_event],
		  r->probe->index, tr_cstr(g, r->pp),
		  r->proc_path ? tr_cstr(g, r->proc_path) : "NULL", (long long)r->proc_pid,
		  tr_optional(r), fields);
}

const struct family family_process_events = {
	.name = "process events",	/* resolved with process points */
	.runtime = "UPROC",
	.targ = events_targ,
	.emit = events_emit,
};
