/*
 * run.c - pass 5: hand the module to staprun, which loads it and execs
 * stapio. SIGINT, SIGTERM and SIGHUP reaching stap are forwarded to it so
 * that the script's end probes run; stap's status is staprun's.
 */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "build.h"

static volatile sig_atomic_t child_pid;

static void forward(int sig)
{
	if (child_pid > 0)
		kill((pid_t)child_pid, sig);
}

/* staprun [-v...] [-o F] [-S SIZE[,N]] [-s MB] [-c CMD] [-i] [-x PID] MODULE.ko [NAME=VALUE...] */
static void build_argv(struct session *s, const char **argv)
{
	int n = 0;

	argv[n++] = s->staprun_path;
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
	argv[n++] = s->ko_file;
	for (int i = 0; i < s->nglobal_settings; i++)
		argv[n++] = s->global_settings[i];
	argv[n] = NULL;
}

int run_module(struct session *s)
{
	const char **argv = arena_alloc(s->arena, sizeof(char *) *
					(size_t)(20 + s->nglobal_settings));
	struct sigaction sa;
	int status;
	pid_t pid;

	build_argv(s, argv);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = forward;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0) {
		diag_plain(s, "cannot start staprun: %s", strerror(errno));
		return 1;
	}
	if (pid == 0) {
		execv(argv[0], (char *const *)argv);
		fprintf(stderr, "stap: error: cannot run %s: %s\n", argv[0],
			strerror(errno));
		_exit(127);
	}
	child_pid = pid;
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR)
			return 1;
	}
	child_pid = 0;
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return 1;
}
