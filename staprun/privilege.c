// SPDX-License-Identifier: GPL-2.0
/*
 * privilege.c - who may load which module, as SystemTap 4.8's staprun
 * decides it (staprun is installed setuid root, so that members of the
 * stap groups can load modules without being root):
 *  - root, and the members of group stapdev, load any module;
 *  - members of stapusr (and maybe stapsys) load only a module built for
 *    their level (`stap --privilege=stapusr|stapsys`, recorded in the
 *    module's .modinfo as stap_privilege; none recorded: stapdev), and
 *    only one that sits in /lib/modules/KVER/systemtap (a directory and
 *    module owned by root, not world writable) or is signed and will be
 *    checked by the kernel (module.sig_enforce: the kernel then takes it
 *    only if a key it trusts signed it);
 *  - anyone else is refused before anything is read.
 * 4.8's messages. Every check is done before init_module(2).
 */
#include <errno.h>
#include <grp.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "privilege.h"

static bool member_of(const char *group)
{
	const struct group *g = getgrnam(group);
	gid_t groups[NGROUPS_MAX];
	int n;

	if (!g)
		return false;
	if (getgid() == g->gr_gid)
		return true;
	n = getgroups(NGROUPS_MAX, groups);
	for (int i = 0; i < n; i++)
		if (groups[i] == g->gr_gid)
			return true;
	return false;
}

int user_credentials(void)
{
	int pr = 0;

	if (getuid() == 0 || member_of("stapdev"))
		return PR_STAPDEV | PR_STAPSYS | PR_STAPUSR;
	if (member_of("stapsys"))
		pr |= PR_STAPSYS | PR_STAPUSR;
	if (member_of("stapusr"))
		pr |= PR_STAPUSR;
	return pr;
}

const char *privilege_text(int pr)
{
	if (pr & PR_STAPDEV)
		return "stapdev";
	if (pr & PR_STAPSYS)
		return "stapsys";
	if (pr & PR_STAPUSR)
		return "stapusr";
	return "unknown";
}

int check_groups(void)
{
	if (user_credentials())
		return 0;
	fputs("ERROR: You are trying to run systemtap as a normal user.\n"
	      "You should either be root, or be part of group \"stapusr\" and possibly "
	      "the groups \"stapsys\" or \"stapdev\".\n", stderr);
	return -1;
}

/* "Members of ... can only use unsigned modules within DIR." and why. */
static int path_error(const char *dir, const char *why, const char *arg)
{
	fprintf(stderr, "ERROR: Members of the \"stapusr\" and \"stapsys\" groups can only "
		"use unsigned modules within\n  the \"%s\" directory.\n  ", dir);
	fprintf(stderr, why, arg);
	fputc('\n', stderr);
	return -1;
}

/* The module is in /lib/modules/KVER/systemtap, which only root can write. */
static int check_path(const char *module)
{
	char dir[PATH_MAX], real_dir[PATH_MAX], real_mod[PATH_MAX];
	struct utsname u;
	struct stat st;
	size_t n;

	uname(&u);
	snprintf(dir, sizeof(dir), "/lib/modules/%s/systemtap", u.release);
	if (!realpath(dir, real_dir))
		return path_error(dir, "Unable to canonicalize that directory%s", "");
	if (stat(real_dir, &st))
		return path_error(dir, "Error getting information on that directory%s", "");
	if (!S_ISDIR(st.st_mode))
		return path_error(dir, "That path must refer to a directory.%s", "");
	if (st.st_uid != 0)
		return path_error(dir, "That directory should be owned by root.%s", "");
	if (st.st_mode & S_IWOTH)
		return path_error(dir, "That directory should not be world writable.%s", "");
	n = strlen(real_dir);
	if (!realpath(module, real_mod) || strncmp(real_mod, real_dir, n) ||
	    real_mod[n] != '/' || strchr(real_mod + n + 1, '/'))
		return path_error(dir, "Module \"%s\" does not exist within that directory.",
				  module);
	if (stat(real_mod, &st))
		return path_error(dir, "Module \"%s\" does not exist within that directory.",
				  module);
	if (st.st_uid != 0) {
		fprintf(stderr, "ERROR: The module \"%s\" must be owned by root.\n", module);
		return -1;
	}
	if (st.st_mode & S_IWOTH) {
		fprintf(stderr, "ERROR: The module \"%s\" must not be world writable.\n", module);
		return -1;
	}
	return 0;
}

/* Signed, and the kernel takes only modules signed by a key it trusts. */
static bool signed_and_enforced(const char *img, size_t len)
{
	static const char marker[] = "~Module signature appended~\n";
	size_t m = sizeof(marker) - 1;
	char c = 'N';
	FILE *f;

	if (len < m || memcmp(img + len - m, marker, m))
		return false;
	f = fopen("/sys/module/module/parameters/sig_enforce", "r");
	if (f) {
		if (fread(&c, 1, 1, f) != 1)
			c = 'N';
		fclose(f);
	}
	return c == 'Y';
}

int check_module_privilege(const char *module, const char *img, size_t len,
			   const char *level, int verbose)
{
	int have = user_credentials(), need;

	if (have & PR_STAPDEV)
		return 0;
	if (!signed_and_enforced(img, len) && check_path(module))
		return -1;
	if (!level) {
		if (verbose)
			fprintf(stderr, "staprun: Assuming required privilege level of stapdev.\n");
		need = PR_STAPDEV;
	} else if (!strcmp(level, "stapusr")) {
		need = PR_STAPUSR;
	} else if (!strcmp(level, "stapsys")) {
		need = PR_STAPSYS;
	} else if (!strcmp(level, "stapdev")) {
		need = PR_STAPDEV;
	} else {
		fprintf(stderr, "ERROR: Unknown privilege data, %s in section .modinfo "
			"in module %s\n", level, module);
		return -1;
	}
	if (have & need)
		return 0;
	fprintf(stderr, "ERROR: Your privilege credentials (%s) are insufficient to load "
		"the module %s (%s required)\n", privilege_text(have), module,
		privilege_text(need));
	return -1;
}

bool running_setuid(void)
{
	return getuid() != geteuid();
}

int drop_privileges(void)
{
	if (!running_setuid())
		return 0;
	if (setresgid(getgid(), getgid(), getgid()) || setresuid(getuid(), getuid(), getuid())) {
		fprintf(stderr, "ERROR: cannot drop privileges: %s\n", strerror(errno));
		return -1;
	}
	return 0;
}
