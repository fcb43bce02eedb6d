/*
 * command.c - -c CMD's exec, shared by staprun and stapbpf: the command
 * split into words and exec'd itself (target() is then its pid), as 4.8's
 * staprun does, or run by /bin/sh -c when it has shell syntax.
 */
#include <stdio.h>
#include <string.h>
#include <errno.h>
#include <unistd.h>
#include <wordexp.h>

#include "command.h"

/* The command of -c split into words as a shell would (quotes, variables,
 * globs; wordexp() without command substitution), as 4.8 does; a command
 * with shell syntax wordexp() refuses (| & ; < > ( ) { } newline, $(...))
 * runs under /bin/sh -c. */
void exec_command(const char *cmd)
{
	wordexp_t we;

	if (wordexp(cmd, &we, WRDE_NOCMD | WRDE_UNDEF) == 0) {
		if (we.we_wordc > 0) {
			execvp(we.we_wordv[0], we.we_wordv);
			fprintf(stderr, "%s: %s\n", we.we_wordv[0], strerror(errno));
			return;
		}
		wordfree(&we);
	}
	execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
	fprintf(stderr, "ERROR: cannot run '%s': %s\n", cmd, strerror(errno));
}
