/*
 * run.c - pass 5: hand the module to staprun, which loads it and execs
 * stapio (a --runtime=bpf object to stapbpf directly, as staprun would
 * exec it: one exec fewer). SIGINT, SIGTERM and SIGHUP reaching stap are
 * forwarded to it so that the script's end probes run; stap's status is
 * staprun's.
 */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "build.h"

/* staprun [-v...] [-o F] [-S SIZE[,N]] [-s MB] [-c CMD] [-i] [-x PID] [-N PID] [-L|-D] [-w]
 * MODULE.ko [NAME=VALUE...]; -F is -L without -o, -D with it, as in 4.8 */
static void build_argv(struct session *s, const char **argv)
{
	int n = 0;

	/* a BPF object: staprun would exec stapbpf with this argv */
	argv[n++] = s->runtime_bpf && s->stapbpf_path ? s->stapbpf_path : s->staprun_path;
	for (int i = 1; i < s->verbose && i < 4; i++)
		argv[n++] = "-v";
	if (s->output_file) {
		argv[n++] = "-o";
		argv[n++] = s->output_file;
	}
	if (s->size_option) {
		argv[n++] = "-S";
		argv[n++] = s->size_option;
	}
	if (s->bufsize_mb) {
		argv[n++] = "-s";
		argv[n++] = arena_printf(s->arena, "%d", s->bufsize_mb);
	}
	if (s->target_cmd) {
		argv[n++] = "-c";
		argv[n++] = s->target_cmd;
	}
	for (const struct rprobe *r = s->rprobes; r; r = r->next) {
		if (r->flags & RF_STDIN) {
			argv[n++] = "-i";	/* input.char, input.line */
			break;
		}
	}
	if (s->target_pid) {
		argv[n++] = "-x";
		argv[n++] = arena_printf(s->arena, "%d", s->target_pid);
	}
	if (s->target_ns_pid) {
		argv[n++] = "-N";
		argv[n++] = arena_printf(s->arena, "%d", s->target_ns_pid);
	}
	if (s->flight_recorder)
		argv[n++] = s->output_file ? "-D" : "-L";
	if (s->suppress_warnings)
		argv[n++] = "-w";	/* as 4.8: the module's warnings too */
	argv[n++] = s->ko_file;
	for (int i = 0; i < s->nglobal_settings; i++)
		argv[n++] = s->global_settings[i];
	argv[n] = NULL;
}

/*
 * Runs staprun and waits for it with SIGINT, SIGTERM, SIGHUP and SIGCHLD
 * blocked, taken by sigwait(): the first three are forwarded to staprun,
 * SIGCHLD says it may have ended. No handler, so no file-scope pid for it
 * to read. They stay blocked afterwards: one arriving once staprun has
 * ended is dropped, as a handler with no child to forward to did.
 */
int run_module(struct session *s)
{
	const char **argv = arena_alloc(s->arena, sizeof(char *) *
					(size_t)(20 + s->nglobal_settings));
	sigset_t set, old;
	int status, sig, rc = 0;
	pid_t pid, w;

	build_argv(s, argv);
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGCHLD);
	fflush(stdout);
	fflush(stderr);
	sigprocmask(SIG_BLOCK, &set, &old);
	pid = fork();
	if (pid < 0) {
		diag_plain(s, "cannot start staprun: %s", strerror(errno));
		return 1;
	}
	if (pid == 0) {
		/* staprun starts with them at their defaults, as after a
		 * handler, none pending (exec keeps the mask and SIG_IGN) */
		signal(SIGINT, SIG_IGN);
		signal(SIGTERM, SIG_IGN);
		signal(SIGHUP, SIG_IGN);
		sigprocmask(SIG_SETMASK, &old, NULL);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		execv(argv[0], (char *const *)argv);
		fprintf(stderr, "stap: error: cannot run %s: %s\n", argv[0],
			strerror(errno));
		_exit(127);
	}
	/* --runtime=bpf: clang, exiting after its output, reaped when it
	 * has; a failure then ends staprun as SIGTERM would, and is stap's */
	while ((w = waitpid(pid, &status, WNOHANG)) != pid) {
		if (w < 0 && errno != EINTR)
			return 1;
		if (!session_child_poll(s, &rc))
			kill(pid, SIGTERM);
		if (sigwait(&set, &sig))
			return 1;
		if (sig != SIGCHLD)
			kill(pid, sig);
	}
	session_child_stop(s);	/* still running: killed */
	if (rc)
		return rc;
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return 1;
}
