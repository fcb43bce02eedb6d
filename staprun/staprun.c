// SPDX-License-Identifier: GPL-2.0
/*
 * staprun.c - load a generated module and hand over to stapio.
 *
 *   staprun [-v] [-w] [-T MS] [-o FILE [-D] [-S SIZE[,N]]] [-s MB|-b MB] [-c CMD|-x PID] [-L] MODULE.ko [name=value ...]
 *   staprun [-v] [-w] [-T MS] [-o FILE] -A NAME
 *   staprun -d NAME
 *   staprun -h | -V
 *
 * Reads the .ko, calls init_module(2) with the parameters (plus
 * _stp_bufsize for -s/-b and _stp_target for -x/-c), then execs stapio in
 * the same process, so signals sent to staprun's pid reach stapio. -d
 * unloads a module. -c CMD forks the command first, held (in sigsuspend(),
 * its answer on a pipe) until stapio has started the probes (so target()
 * is its pid from the start); stapio releases it with a SIGUSR1 and ends
 * the session when it exits. -o and -S (output file rotation) are checked
 * here, as 4.8 does, and passed to stapio.
 * The flight recorder: -L loads and starts the module, then detaches (its
 * output stays in its buffers); -A NAME attaches to a loaded module of
 * ours without loading anything; -D runs stapio in the background.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdbool.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/vfs.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#ifndef PACKAGE_VERSION
#define PACKAGE_VERSION "unknown"
#endif

#include "stp_msgs.h"
#include "privilege.h"
#include "command.h"

#define DEBUGFS_MOUNT "/sys/kernel/debug"
#define DEBUGFS_MAGIC_NR 0x64626720

#ifndef STAP_PKGLIBEXECDIR
#define STAP_PKGLIBEXECDIR "/usr/local/libexec/stap"
#endif

struct options {
	int verbose;
	const char *outfile;
	const char *size_option;	/* -S, checked */
	unsigned long long fsize_max;	/* its size in bytes */
	long bufsize_mb;
	const char *delete_name;
	const char *module;
	const char *command;	/* -c */
	pid_t cmd_pid;		/* its pid, held until release_fd is written */
	int release_fd;
	bool forward_stdin;	/* -i: input.* probes read stdin */
	bool load_only;		/* -L */
	const char *attach_name;	/* -A */
	bool daemon;		/* -D */
	bool no_warnings;	/* -w */
	const char *timeout;	/* -T MS, checked */
	bool rename;		/* -R */
	char params[4096];
};

/*
 * Only main() exits: helpers print their message and return -1 (or NULL),
 * and main() turns that into exit status 1.
 */
static int usage_to(FILE *f)
{
	fprintf(f,
		"Usage: staprun [-v] [-w] [-V] [-h] [-i] [-c CMD | -x PID] [-A|-L|-d] [-C WHEN]\n"
		"\t[-s MB | -b MB] [-R] [-T MS] [-o FILE [-D] [-S SIZE[,N]]] MODULE [name=value ...]\n"
		"-v              Increase verbosity.\n"
		"-V              Print version number and exit.\n"
		"-h              Print this help text and exit.\n"
		"-w              Suppress warnings.\n"
		"-i              Send standard input to the module's input.char and\n"
		"                input.line probes.\n"
		"-u              Load uprobes.ko: accepted and ignored (uprobes are\n"
		"                built into the kernel).\n"
		"-c CMD          Run CMD once the probes have started; staprun exits\n"
		"                when it does. target() is its pid.\n"
		"-x PID          Set target() to PID.\n"
		"-N PID          Set the module's _stp_namespaces_pid to PID (the\n"
		"                namespaces of the namespace-aware functions).\n"
		"-o FILE         Send output to FILE, a strftime(3) format.\n"
		"-b MB           Relay buffer size per CPU, 1 to 4095 MB.\n"
		"-s MB           The same as -b.\n"
		"-L              Load the module and start its probes, then detach,\n"
		"                leaving it running (a flight recorder: its newest\n"
		"                output is kept in its buffers).\n"
		"-A              Attach to a loaded systemtap module (MODULE is its\n"
		"                name): its buffered output, then the live output.\n"
		"                SIGINT or SIGTERM ends the session, SIGQUIT detaches.\n"
		"-C WHEN         Colored errors: 'auto', 'never' or 'always' (never\n"
		"                colored here).\n"
		"-d              Delete a module (MODULE is its name): a detached or\n"
		"                unused systemtap module.\n"
		"-R              Rename the module to a unique name (NAME_PID) before\n"
		"                loading it, so that it can be loaded more than once.\n"
		"-r N:URI        Pass N and URI to remote_id() and remote_uri().\n"
		"-F FD           4.8's relay directory descriptor: stapio's, refused.\n"
		"-D              Run in the background and print the pid. This\n"
		"                requires '-o' option.\n"
		"-S SIZE[,N]     Switch to the next output file when the file reaches\n"
		"                SIZE MB, keeping the last N files.\n"
		"-T MS           How long the reader waits for new output before\n"
		"                looking again, in ms (>= 1; default 20).\n"
		"\n"
		"MODULE is the path of a module built by stap (MODULE.ko), or with\n"
		"-A and -d the name of a loaded one.\n");
	return -1;
}

static int usage(void)
{
	return usage_to(stderr);
}

/* Print "ERROR: " FMT (with ARG) and a newline; returns -1. */
static int error_msg(const char *fmt, const char *arg)
{
	fprintf(stderr, "ERROR: ");
	fprintf(stderr, fmt, arg);
	fputc('\n', stderr);
	return -1;
}

/* -S SIZE[,N]: numbers as strtoul reads them (SIZE MiB, N files), as
 * 4.8; a bad one is 4.8's error, with the usage on stdout. */
static int parse_size_option(struct options *o, const char *arg)
{
	char *end;

	o->fsize_max = strtoul(arg, &end, 10);
	o->fsize_max <<= 20;
	if (*end == ',')
		strtoul(end + 1, &end, 10);
	if (*end) {
		error_msg("Invalid file size option '%s'.", arg);
		return usage_to(stdout);
	}
	o->size_option = arg;
	return 0;
}

static int add_param(struct options *o, const char *p)
{
	size_t used = strlen(o->params);

	if (used + strlen(p) + 2 > sizeof(o->params))
		return error_msg("too many module parameters at '%s'", p);
	if (used)
		strcat(o->params, " ");
	strcat(o->params, p);
	return 0;
}

/* The local time zone for tz_ctime() and friends: seconds west of UTC
 * and the zone's abbreviation (when it is a plain word). */
static int add_timezone(struct options *o)
{
	time_t now = time(NULL);
	struct tm tm;
	char p[96];
	const char *c;

	if (!localtime_r(&now, &tm))
		return 0;
	snprintf(p, sizeof(p), "_stp_tz_gmtoff=%ld", -(long)tm.tm_gmtoff);
	if (add_param(o, p))
		return -1;
	if (!tm.tm_zone || !*tm.tm_zone || strlen(tm.tm_zone) > 32)
		return 0;
	for (c = tm.tm_zone; *c; c++)
		if (*c == ' ' || *c == '"' || *c == '=')
			return 0;
	snprintf(p, sizeof(p), "_stp_tz_name=%s", tm.tm_zone);
	return add_param(o, p);
}

/* The module parameters from the command line, then the time zone and
 * _stp_bufsize. */
static int add_params(struct options *o, int argc, char **argv)
{
	char p[64];

	while (optind < argc)
		if (add_param(o, argv[optind++]))
			return -1;
	if (add_timezone(o))
		return -1;
	if (!o->bufsize_mb)
		return 0;
	snprintf(p, sizeof(p), "_stp_bufsize=%ld", o->bufsize_mb << 20);
	return add_param(o, p);
}

static int parse_bufsize(struct options *o, const char *arg)
{
	char *end;

	o->bufsize_mb = strtol(arg, &end, 10);
	if (*end || o->bufsize_mb < 1 || o->bufsize_mb > 4095)
		return error_msg("invalid buffer size '%s' (1-4095 MB)", arg);
	return 0;
}

static int add_target(struct options *o, const char *pid)
{
	char p[64];
	char *end;
	long v = strtol(pid, &end, 10);

	if (*pid == '\0' || *end || v <= 0 || v > INT_MAX)
		return error_msg("invalid target process ID '%s'", pid);
	snprintf(p, sizeof(p), "_stp_target=%ld", v);
	return add_param(o, p);
}

static volatile sig_atomic_t woken;

static void on_wake(int sig)
{
	(void)sig;
	woken = 1;
}

/*
 * Fork -c's command, held until stapio releases it. As 4.8's held child
 * does (what scripts tracing signals and syscalls see of it), it waits
 * in sigsuspend() for a SIGUSR1 from stapio; then the pipe says whether
 * to run the command ('g' to read) or give up (end of file: the load
 * failed).
 */
static int start_command(struct options *o)
{
	struct sigaction sa = { .sa_handler = on_wake };
	struct pollfd pfd = { .events = POLLIN };
	sigset_t usr1, old;
	char p[64];
	int fds[2];

	if (pipe(fds) < 0)
		return error_msg("cannot create a pipe: %s", strerror(errno));
	fflush(NULL);
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	sigprocmask(SIG_BLOCK, &usr1, &old);
	o->cmd_pid = fork();
	if (o->cmd_pid < 0) {
		sigprocmask(SIG_SETMASK, &old, NULL);
		return error_msg("cannot fork: %s", strerror(errno));
	}
	if (o->cmd_pid == 0) {
		/* named as 4.8's held command is (forked by its stapio):
		 * process.begin probes see it before the exec */
		prctl(PR_SET_NAME, "stapio", 0, 0, 0);
		if (drop_privileges())	/* the user's command, as the user */
			_exit(127);
		prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
		close(fds[1]);
		fcntl(fds[0], F_SETFD, FD_CLOEXEC);
		pfd.fd = fds[0];
		sigaction(SIGUSR1, &sa, NULL);
		sigdelset(&old, SIGUSR1);
		while (!woken)
			sigsuspend(&old);
		signal(SIGUSR1, SIG_DFL);
		sigprocmask(SIG_SETMASK, &old, NULL);
		/* poll(), not read(): the probes see no read of the pipe */
		if (poll(&pfd, 1, 0) == 1 && (pfd.revents & POLLIN)) {
			exec_command(o->command);
			_exit(1);	/* it could not run */
		}
		_exit(127);	/* stapio never released us: the load failed */
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	close(fds[0]);
	o->release_fd = fds[1];
	snprintf(p, sizeof(p), "_stp_target=%ld", (long)o->cmd_pid);
	return add_param(o, p);
}

/* The load failed: the held command ends without running. */
static void abandon_command(struct options *o)
{
	if (!o->command || o->cmd_pid <= 0)
		return;
	close(o->release_fd);
	kill(o->cmd_pid, SIGUSR1);
	waitpid(o->cmd_pid, NULL, 0);
}

/*
 * -N PID: the module's _stp_namespaces_pid (the namespaces of the
 * namespace-aware functions); -r N:URI: _stp_remote_id and
 * _stp_remote_uri (remote_id(), remote_uri()). 4.8's errors, with the
 * usage on stdout.
 */
static int add_remote_or_ns(struct options *o, int c, const char *arg)
{
	char p[PATH_MAX + 32];
	int n = 0, at = -1;

	if (c == 'N') {
		n = atoi(arg);
		if (n <= 0) {
			fprintf(stderr, "ERROR: Invalid target namespaces pid %d (should be > 0).\n", n);
			return usage_to(stdout);
		}
		snprintf(p, sizeof(p), "_stp_namespaces_pid=%d", n);
		return add_param(o, p);
	}
	if (sscanf(arg, "%d:%n", &n, &at) < 1 || at < 0 || strchr(arg + at, '"')) {
		fprintf(stderr, "ERROR: Cannot process remote id option '%s'.\n", arg);
		return usage_to(stdout);
	}
	snprintf(p, sizeof(p), "_stp_remote_id=%d", n);
	if (add_param(o, p))
		return -1;
	snprintf(p, sizeof(p), "_stp_remote_uri=\"%s\"", arg + at);
	return add_param(o, p);
}

static int parse_args(struct options *o, int argc, char **argv)
{
	int c;

	while ((c = getopt(argc, argv, "+vio:S:s:b:d:hc:x:LADwT:VC:u::N:Rr:F:")) != -1) {
		switch (c) {
		case 'h':
			usage_to(stdout);
			exit(0);
		case 'V':
			printf("Systemtap module loader/runner (version %s, "
			       "a SystemTap 4.8 compatible staprun)\n",
			       PACKAGE_VERSION);
			exit(0);
		case 'L':
			o->load_only = true;
			break;
		case 'A':
			o->attach_name = "";	/* the module name follows */
			break;
		case 'D':
			o->daemon = true;
			break;
		case 'w':
			o->no_warnings = true;
			break;
		case 'T':
			if (atoi(optarg) < 1 || strspn(optarg, "0123456789") != strlen(optarg))
				return error_msg("Invalid timeout option '%s' (ms, >= 1)", optarg);
			o->timeout = optarg;
			break;
		case 'C':
			if (strcmp(optarg, "auto") && strcmp(optarg, "never") &&
			    strcmp(optarg, "always"))
				return error_msg("Invalid option '%s' for -C.", optarg);
			break;
		case 'u':
			break;
		case 'R':
			o->rename = true;
			break;
		case 'N':
		case 'r':
			if (add_remote_or_ns(o, c, optarg))
				return -1;
			break;
		case 'F':	/* 4.8's stapio's, not staprun's */
			return error_msg("Relay basedir -F option is invalid for staprun%s", "");
		case 'i':
			o->forward_stdin = true;
			break;
		case 'v':
			o->verbose++;
			break;
		case 'o':
			o->outfile = optarg;
			break;
		case 'S':
			if (parse_size_option(o, optarg))
				return -1;
			break;
		case 's':
		case 'b':
			if (parse_bufsize(o, optarg))
				return -1;
			break;
		case 'd':
			o->delete_name = optarg;
			break;
		case 'c':
			o->command = optarg;
			break;
		case 'x':
			if (add_target(o, optarg))
				return -1;
			break;
		default:
			return usage();
		}
	}
	if (o->delete_name)
		return 0;
	if (o->fsize_max && !o->outfile) {
		error_msg("You have to specify output FILE with '-S' option.", "");
		return usage_to(stdout);
	}
	if (o->daemon && !o->outfile) {
		error_msg("You have to specify output FILE with '-D' option.", "");
		return usage_to(stdout);
	}
	if (!!o->attach_name + o->load_only + o->daemon > 1)
		return error_msg("You can only use one of -A, -L and -D.%s", "");
	if (optind >= argc)
		return usage();
	o->module = argv[optind++];
	if (o->attach_name) {
		if (o->command || o->fsize_max)
			return error_msg("-c, -x and -S cannot be used with -A.%s", "");
		o->attach_name = o->module;
		return 0;
	}
	return add_params(o, argc, argv);
}

/* As 4.8: a bare NAME (no '/', no .ko) is the module
 * /lib/modules/KVER/systemtap/NAME.ko when that exists. */
static const char *module_path(const char *module)
{
	static char path[PATH_MAX];
	struct utsname u;
	size_t n = strlen(module);

	if (strchr(module, '/') || (n > 3 && !strcmp(module + n - 3, ".ko")) ||
	    uname(&u))
		return module;
	snprintf(path, sizeof(path), "/lib/modules/%s/systemtap/%s.ko", u.release, module);
	return access(path, F_OK) ? module : path;
}

/* Module name from the file name: basename without .ko, '-' -> '_'. */
static void module_name_from_path(const char *path, char *name, size_t size)
{
	const char *base = strrchr(path, '/');
	size_t n;
	char *p;

	base = base ? base + 1 : path;
	snprintf(name, size, "%s", base);
	n = strlen(name);
	if (n > 3 && strcmp(name + n - 3, ".ko") == 0)
		name[n - 3] = '\0';
	for (p = name; *p; p++)
		if (*p == '-')
			*p = '_';
}

/* Read SIZE bytes of FD into a new buffer, or NULL (message printed). */
static char *read_fd(int fd, size_t size, const char *path)
{
	char *buf = malloc(size ? size : 1);
	size_t got = 0;
	ssize_t n;

	if (!buf) {
		error_msg("out of memory reading '%s'", path);
		return NULL;
	}
	while (got < size) {
		n = read(fd, buf + got, size - got);
		if (n <= 0) {
			error_msg("cannot read module '%s'", path);
			free(buf);
			return NULL;
		}
		got += n;
	}
	return buf;
}

/* The whole file at PATH, or NULL after printing why not. */
static char *read_file(const char *path, size_t *len)
{
	struct stat st;
	char *buf;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0) {
		fprintf(stderr, "ERROR: cannot open module '%s': %s\n", path,
			strerror(errno));
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	buf = read_fd(fd, st.st_size, path);
	close(fd);
	*len = st.st_size;
	return buf;
}

/* The .modinfo section of an ELF64 module image, or NULL. */
static const char *modinfo_section(const char *img, size_t len, size_t *size)
{
	const Elf64_Ehdr *eh = (const void *)img;
	const Elf64_Shdr *sh, *strtab;
	unsigned int i;

	if (len < sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh->e_shoff + (size_t)eh->e_shnum * sizeof(*sh) > len ||
	    eh->e_shstrndx >= eh->e_shnum)
		return NULL;
	sh = (const void *)(img + eh->e_shoff);
	strtab = &sh[eh->e_shstrndx];
	for (i = 0; i < eh->e_shnum; i++) {
		if (sh[i].sh_offset + sh[i].sh_size > len ||
		    sh[i].sh_name >= strtab->sh_size ||
		    strtab->sh_offset + strtab->sh_size > len)
			continue;
		if (strcmp(img + strtab->sh_offset + sh[i].sh_name, ".modinfo"))
			continue;
		*size = sh[i].sh_size;
		return img + sh[i].sh_offset;
	}
	return NULL;
}

/* The value of KEY in the module's .modinfo, or NULL. */
static const char *modinfo_get(const char *img, size_t len, const char *key)
{
	size_t size, klen = strlen(key), off;
	const char *info = modinfo_section(img, len, &size);

	if (!info || !size || info[size - 1] != '\0')
		return NULL;
	for (off = 0; off < size; off += strlen(info + off) + 1)
		if (strncmp(info + off, key, klen) == 0 && info[off + klen] == '=')
			return info + off + klen + 1;
	return NULL;
}

/*
 * Why IMG is not a whole ELF64 relocatable object (what a .ko is), or
 * NULL: an empty or truncated file must not read as a kernel mismatch.
 */
static const char *elf_problem(const char *img, size_t len)
{
	const Elf64_Ehdr *eh = (const void *)img;
	const Elf64_Shdr *sh;
	unsigned int i;

	if (!len)
		return "the file is empty";
	if (len < SELFMAG || memcmp(img, ELFMAG, SELFMAG))
		return "not an ELF file";
	if (len < sizeof(*eh))
		return "the file is truncated";
	if (eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_type != ET_REL ||
	    eh->e_shentsize != sizeof(*sh) || !eh->e_shnum)
		return "not a 64-bit relocatable ELF object";
	if (eh->e_shoff > len ||
	    (size_t)eh->e_shnum * sizeof(*sh) > len - eh->e_shoff)
		return "the file is truncated";
	sh = (const void *)(img + eh->e_shoff);
	for (i = 0; i < eh->e_shnum; i++)
		if (sh[i].sh_type != SHT_NOBITS &&
		    (sh[i].sh_offset > len || sh[i].sh_size > len - sh[i].sh_offset))
			return "the file is truncated";
	return NULL;
}

/*
 * Load only what stap built: a module of ours carries
 * STP_MODINFO_KEY=STP_MODINFO_VALUE (any other module, loaded, would
 * run its own init and stay behind without a control file for stapio).
 */
static int check_module(const struct options *o, const char *img, size_t len)
{
	const char *why = elf_problem(img, len);
	const char *tag;

	if (why) {
		fprintf(stderr, "ERROR: module '%s' is not a valid kernel module (%s, %zu bytes)\n",
			o->module, why, len);
		return -1;
	}
	tag = modinfo_get(img, len, STP_MODINFO_KEY);
	if (tag && !strcmp(tag, STP_MODINFO_VALUE))
		return 0;
	if (tag)
		fprintf(stderr, "ERROR: module '%s' was built by another version of stap "
			"(%s=%s, this staprun runs %s); rebuild it\n", o->module,
			STP_MODINFO_KEY, tag, STP_MODINFO_VALUE);
	else
		fprintf(stderr, "ERROR: module '%s' is not a systemtap module "
			"(no %s in its .modinfo); staprun loads only modules built by stap\n",
			o->module, STP_MODINFO_KEY);
	return -1;
}

/* Explain why init_module(2) failed (errno); returns -1. */
/* The kernel takes only modules signed by a key it trusts
 * (module.sig_enforce, or lockdown): say which of the two this one lacks. */
static void signature_error(const char *module, const char *img, size_t len)
{
	static const char marker[] = "~Module signature appended~\n";
	size_t m = sizeof(marker) - 1;

	if (len >= m && !memcmp(img + len - m, marker, m))
		fprintf(stderr,
			"ERROR: the kernel takes only signed modules (module.sig_enforce or "
			"lockdown), and does not trust the key '%s' is signed with: enroll it "
			"(mokutil --import KEYDIR/signing_key.x509, then reboot) or sign with a "
			"key the kernel trusts\n", module);
	else
		fprintf(stderr,
			"ERROR: the kernel takes only signed modules (module.sig_enforce or "
			"lockdown), and '%s' is not signed: build it with stap --sign-module and "
			"enroll its key (mokutil --import KEYDIR/signing_key.x509)\n", module);
}

static int load_error(const struct options *o, const char *name,
		      const char *img, size_t len)
{
	const char *vermagic = modinfo_get(img, len, "vermagic");
	struct utsname u;

	switch (errno) {
	case ENOSYS:
		error_msg("this kernel has no loadable-module support "
			  "(CONFIG_MODULES is off); run '%s' on a kernel that "
			  "has it", o->module);
		break;
	case ENOEXEC:
	case EINVAL:
		uname(&u);
		if (errno == EINVAL && o->params[0] && vermagic &&
		    !strncmp(vermagic, u.release, strlen(u.release)) &&
		    vermagic[strlen(u.release)] == ' ') {
			/* the kernel refused a NAME=VALUE (stap -G) */
			fprintf(stderr, "ERROR: Couldn't insert module '%s': Invalid parameters\n",
				o->module);
			break;
		}
		if (errno == ENOEXEC && vermagic &&
		    !strncmp(vermagic, u.release, strlen(u.release)) &&
		    vermagic[strlen(u.release)] == ' ') {
			/* built for this kernel, yet refused: the file is
			 * damaged (elf_problem() checks only its outline) */
			fprintf(stderr, "ERROR: module '%s' is not a valid kernel module "
				"(the kernel refused its contents: %s, %zu bytes)\n",
				o->module, strerror(errno), len);
			break;
		}
		fprintf(stderr,
			"ERROR: module '%s' does not fit the running kernel (%s).\n"
			"ERROR: module vermagic: %s\n"
			"ERROR: running kernel (uname -r): %s\n",
			o->module, strerror(errno),
			vermagic ? vermagic : "unknown", u.release);
		break;
	case EEXIST:
	case EBUSY:
		fprintf(stderr,
			"ERROR: a module named '%s' is already loaded "
			"(remove it with 'staprun -d %s')\n", name, name);
		break;
	case EPERM:
		fprintf(stderr,
			"ERROR: not permitted to load module '%s' (run as root; "
			"module loading may be disabled)\n", o->module);
		break;
	case EKEYREJECTED:
	case ENOKEY:
		signature_error(o->module, img, len);
		break;
	default:
		fprintf(stderr, "ERROR: cannot load module '%s': %s\n",
			o->module, strerror(errno));
	}
	return -1;
}

/*
 * Say why a module cannot run here before trying: a kernel without module
 * support (no /proc/modules), or a module built for another release.
 */
static int check_kernel(const struct options *o, const char *img, size_t len)
{
	const char *vermagic = modinfo_get(img, len, "vermagic");
	struct utsname u;
	size_t n;

	if (access("/proc/modules", F_OK) != 0) {
		if (errno != ENOENT)	/* ENOMEM: not a kernel without modules */
			return error_msg("cannot look at /proc/modules: %s",
					 strerror(errno));
		errno = ENOSYS;
		return load_error(o, "", img, len);
	}
	if (!vermagic || uname(&u) != 0)
		return 0;
	n = strcspn(vermagic, " ");
	if (strlen(u.release) == n && strncmp(vermagic, u.release, n) == 0)
		return 0;
	fprintf(stderr,
		"ERROR: module '%s' was built for kernel %.*s, but this kernel is %s "
		"(rebuild it with 'stap -r %s')\n", o->module, (int)n, vermagic,
		u.release, u.release);
	return -1;
}

/* A section of an ELF64 image by name, or NULL (the image was checked). */
static char *elf_section(char *img, size_t len, const char *want, size_t *size)
{
	const Elf64_Ehdr *eh = (const void *)img;
	const Elf64_Shdr *sh = (const void *)(img + eh->e_shoff);
	const Elf64_Shdr *strtab = &sh[eh->e_shstrndx];
	unsigned int i;

	if (eh->e_shstrndx >= eh->e_shnum ||
	    strtab->sh_offset + strtab->sh_size > len)
		return NULL;
	for (i = 0; i < eh->e_shnum; i++) {
		if (sh[i].sh_name >= strtab->sh_size ||
		    strnlen(img + strtab->sh_offset + sh[i].sh_name,
			    strtab->sh_size - sh[i].sh_name) >= strtab->sh_size - sh[i].sh_name ||
		    strcmp(img + strtab->sh_offset + sh[i].sh_name, want))
			continue;
		*size = sh[i].sh_size;
		return img + sh[i].sh_offset;
	}
	return NULL;
}

/*
 * -R: NAME becomes NAME_PID (NAME shortened to fit the kernel's 55
 * characters), written over the name in .gnu.linkonce.this_module (the
 * struct module the kernel loads by); the .modinfo "name=" entry, which
 * has no room for it, becomes "_ame=", so that the kernel takes the
 * struct's name.
 */
static int rename_module(char *img, size_t len, char *name, size_t size)
{
	char newname[56], pid[24], key[300];
	size_t secsize, off, klen, n;
	char *sec, *p;

	snprintf(pid, sizeof(pid), "_%ld", (long)getpid());
	n = strlen(pid);
	snprintf(newname, sizeof(newname), "%.*s%s",
		 (int)(sizeof(newname) - 1 - n), name, pid);
	sec = elf_section(img, len, ".gnu.linkonce.this_module", &secsize);
	klen = strlen(name);
	p = NULL;
	for (off = 0; sec && off + klen < secsize && off + sizeof(newname) <= secsize; off++) {
		if ((off == 0 || sec[off - 1] == '\0') &&
		    !memcmp(sec + off, name, klen + 1)) {
			p = sec + off;
			break;
		}
	}
	if (!p)
		return error_msg("cannot rename module '%s': no name in its "
				 ".gnu.linkonce.this_module section", name);
	memset(p, 0, sizeof(newname));
	memcpy(p, newname, strlen(newname));
	sec = elf_section(img, len, ".modinfo", &secsize);
	snprintf(key, sizeof(key), "name=%s", name);
	klen = strlen(key);
	for (off = 0; sec && off + klen < secsize; off += strlen(sec + off) + 1) {
		if (memcmp(sec + off, key, klen + 1))
			continue;
		sec[off] = '_';
		break;
	}
	snprintf(name, size, "%s", newname);
	return 0;
}

/*
 * $STAP_FAIL_NTH=N, for testsuite/debug_faults.py on a kernel with fault
 * injection (ignored when setuid): the Nth fault-injection point
 * (failslab, fail_page_alloc) of our init_module(2) call fails, that is
 * in the kernel's module loading or the module's own init, and nothing
 * else: /proc/thread-self/fail-nth is armed just before the call and
 * disarmed right after it, so that exec, ld.so, stapio and the guest's
 * file system never see an injected failure. Whether it was injected is
 * said on stderr. Returns the armed file (or -1 when not asked), or -2
 * after an error.
 */
static int fail_nth_arm(const char **nth)
{
	const char *env = running_setuid() ? NULL : getenv("STAP_FAIL_NTH");
	char *end;
	unsigned long n;
	int fd, len;

	*nth = env;
	if (!env || !*env)
		return -1;
	errno = 0;
	n = strtoul(env, &end, 10);
	if (errno || *end || n == 0 || n > UINT_MAX || *env == '-' || *env == '+')
		return error_msg("STAP_FAIL_NTH=%s: not a count from 1", env) - 1;
	fd = open("/proc/thread-self/fail-nth", O_RDWR | O_CLOEXEC);
	len = strlen(env);
	if (fd < 0 || write(fd, env, len) != len) {
		fprintf(stderr, "ERROR: STAP_FAIL_NTH=%s: cannot arm "
			"/proc/thread-self/fail-nth (a kernel with CONFIG_FAULT_INJECTION "
			"is needed): %s\n", env, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -2;
	}
	return fd;
}

/* Disarm what fail_nth_arm() armed, keeping errno; say whether the
 * fault was injected (the count reached 0) or how many points were left. */
static void fail_nth_disarm(int fd, const char *nth)
{
	int err = errno;
	char left[24];
	ssize_t len;

	if (fd < 0)
		return;
	len = pread(fd, left, sizeof(left) - 1, 0);
	if (write(fd, "0", 1) != 1 || len <= 0) {
		fprintf(stderr, "staprun: fail-nth %s: cannot read or disarm "
			"/proc/thread-self/fail-nth: %s\n", nth, strerror(errno));
	} else {
		left[len] = '\0';
		left[strcspn(left, "\n")] = '\0';
		if (!strcmp(left, "0"))
			fprintf(stderr, "staprun: fail-nth %s: injected\n", nth);
		else
			fprintf(stderr, "staprun: fail-nth %s: not reached, %s left\n",
				nth, left);
	}
	close(fd);
	errno = err;
}

/* Read, check and load the module; its name goes to NAME. */
static int load_module(const struct options *o, char *name, size_t size)
{
	const char *modname, *nth;
	size_t len;
	char *img;
	int ret, fd;

	img = read_file(o->module, &len);
	if (!img)
		return -1;
	modname = modinfo_get(img, len, "name");
	if (modname)
		snprintf(name, size, "%s", modname);
	else
		module_name_from_path(o->module, name, size);
	if (o->verbose)
		fprintf(stderr, "staprun: loading %s (%zu bytes) params '%s'\n",
			o->module, len, o->params);
	ret = check_module(o, img, len);
	if (!ret)	/* privilege.c: stapusr/stapsys members, setuid */
		ret = check_module_privilege(o->module, img, len,
					     modinfo_get(img, len, "stap_privilege"),
					     o->verbose);
	if (!ret)
		ret = check_kernel(o, img, len);
	if (!ret && o->rename)
		ret = rename_module(img, len, name, size);
	if (!ret) {
		fd = fail_nth_arm(&nth);
		if (fd == -2)
			ret = -1;
	}
	if (!ret) {
		ret = syscall(SYS_init_module, img, len, o->params);
		fail_nth_disarm(fd, nth);
		if (ret != 0)
			ret = load_error(o, name, img, len);
	}
	free(img);
	return ret;
}

/* Whether a failed readlink()/access() only says "not there" (try the
 * next place) rather than that the look-up itself failed (ENOMEM, EIO). */
static bool not_there(int err)
{
	return err == ENOENT || err == ENOTDIR || err == EACCES ||
	       err == ELOOP || err == ENAMETOOLONG;
}

/*
 * -d removes only a module of ours: one with a control file under debugfs
 * (as 4.8, which opens it; we only look, so that a live session is not
 * disturbed: removing it then fails as busy).
 */
static bool is_our_module(const char *name)
{
	char path[PATH_MAX];
	struct statfs st;

	if ((statfs(DEBUGFS_MOUNT, &st) || st.f_type != DEBUGFS_MAGIC_NR) &&
	    mount("debugfs", DEBUGFS_MOUNT, "debugfs", 0, NULL))
		return false;
	if (!*name || strchr(name, '/') || !strcmp(name, ".") || !strcmp(name, "..")) {
		errno = ENOENT;
		return false;
	}
	snprintf(path, sizeof(path), "%s/%s/%s/%s", DEBUGFS_MOUNT,
		 STP_DEBUGFS_DIR, name, STP_CTL_FILE);
	return access(path, F_OK) == 0;
}

static int delete_module(const char *name)
{
	if (!is_our_module(name)) {
		if (errno == EACCES || errno == EPERM)	/* debugfs is root's */
			fprintf(stderr, "ERROR: not permitted to remove module '%s' "
				"(run as root)\n", name);
		else if (!not_there(errno))	/* ENOMEM: say so, not "not ours" */
			fprintf(stderr, "ERROR: cannot tell whether '%s' is a systemtap "
				"module: %s\n", name, strerror(errno));
		else
			fprintf(stderr, "ERROR: '%s' is not a zombie systemtap module.\n",
				name);
		return -1;
	}
	if (syscall(SYS_delete_module, name, O_NONBLOCK) == 0)
		return 0;
	if (errno == ENOSYS)
		return error_msg("this kernel has no loadable-module support; "
				 "cannot remove '%s'", name);
	fprintf(stderr, "ERROR: cannot remove module '%s': %s\n", name,
		strerror(errno));
	return -1;
}

/* stapio: $STAP_STAPIO, the build tree next to us, the install tree
 * relative to us, or the configured install path. Returns 0, or the
 * errno of a look-up that failed for another reason than the file's
 * absence (PATH then names what was looked at): exec'ing the fallback
 * would report ENOENT, hiding the real error. */
static int find_stapio(char *path, size_t size)
{
	/* not a user's choice when we run setuid root */
	const char *env = running_setuid() ? NULL : getenv("STAP_STAPIO");
	char self[PATH_MAX];
	ssize_t n;
	char *slash;

	if (env && *env) {
		snprintf(path, size, "%s", env);
		return 0;
	}
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n < 0 && !not_there(errno)) {
		int err = errno;

		snprintf(path, size, "/proc/self/exe");
		return err;
	}
	if (n > 0) {
		self[n] = '\0';
		slash = strrchr(self, '/');
		if (slash) {
			*slash = '\0';
			snprintf(path, size, "%s/../stapio/stapio", self);
			if (access(path, X_OK) == 0)
				return 0;
			if (!not_there(errno))
				return errno;
			snprintf(path, size, "%s/../libexec/stap/stapio", self);
			if (access(path, X_OK) == 0)
				return 0;
			if (!not_there(errno))
				return errno;
		}
	}
	snprintf(path, size, "%s", STAP_PKGLIBEXECDIR "/stapio");
	return 0;
}

/* Returns only if the exec failed: then the module is removed again. */
static int exec_stapio(const struct options *o, const char *name)
{
	char path[PATH_MAX + 32];
	const char *argv[24];
	char pid[32], fd[32];
	int i = 0;
	int err = find_stapio(path, sizeof(path));

	if (err) {
		fprintf(stderr, "ERROR: cannot run stapio '%s': %s\n", path,
			strerror(err));
		if (!o->attach_name)
			delete_module(name);
		return -1;
	}
	argv[i++] = "stapio";
	if (o->verbose)
		argv[i++] = "-v";
	if (o->forward_stdin)
		argv[i++] = "-i";
	if (o->no_warnings)
		argv[i++] = "-w";
	if (o->load_only)
		argv[i++] = "-L";
	if (o->attach_name)
		argv[i++] = "-A";
	if (o->daemon)
		argv[i++] = "-D";
	if (o->timeout) {
		argv[i++] = "-T";
		argv[i++] = o->timeout;
	}
	if (o->command) {
		snprintf(pid, sizeof(pid), "%ld", (long)o->cmd_pid);
		snprintf(fd, sizeof(fd), "%d", o->release_fd);
		argv[i++] = "-t";
		argv[i++] = pid;
		argv[i++] = "-F";
		argv[i++] = fd;
	}
	if (o->outfile && !o->load_only) {	/* 4.8's -L writes none */
		argv[i++] = "-o";
		argv[i++] = o->outfile;
	}
	if (o->size_option) {
		argv[i++] = "-S";
		argv[i++] = o->size_option;
	}
	argv[i++] = name;
	argv[i] = NULL;
	if (o->verbose)
		fprintf(stderr, "staprun: exec %s %s\n", path, name);
	execv(path, (char *const *)argv);
	fprintf(stderr, "ERROR: cannot run stapio '%s': %s\n", path,
		strerror(errno));
	if (!o->attach_name)
		delete_module(name);
	return -1;
}

/* NAME.bpf.o (stap --runtime=bpf): stapbpf runs it, with the options */
static void exec_stapbpf(int argc, char **argv)
{
	char path[PATH_MAX + 32];
	int i;

	for (i = 1; i < argc; i++) {
		size_t n = strlen(argv[i]);

		if (n > 6 && !strcmp(argv[i] + n - 6, ".bpf.o"))
			break;
	}
	if (i == argc)
		return;
	if (find_stapio(path, sizeof(path)) || !strrchr(path, '/'))
		snprintf(path, sizeof(path), "%s", STAP_PKGLIBEXECDIR "/stapio");
	strcpy(strrchr(path, '/') + 1, "stapbpf");
	if (access(path, X_OK)) {	/* the build tree: staprun/stapbpf */
		ssize_t n = readlink("/proc/self/exe", path, PATH_MAX);

		path[n > 0 ? n : 0] = '\0';
		if (strrchr(path, '/'))
			strcpy(strrchr(path, '/') + 1, "stapbpf");
	}
	/* a setuid staprun hands BPF objects on with the user's own rights:
	 * the group checks are for modules; BPF loading is the kernel's call */
	if (setgid(getgid()) || setuid(getuid())) {
		fprintf(stderr, "staprun: cannot drop privileges: %s\n", strerror(errno));
		exit(1);
	}
	argv[0] = path;
	execv(path, argv);
	fprintf(stderr, "staprun: cannot run %s: %s\n", path, strerror(errno));
	exit(1);
}

int main(int argc, char **argv)
{
	struct options o = { 0 };
	char name[256], verbose[16];

	exec_stapbpf(argc, argv);

	if (parse_args(&o, argc, argv) || check_groups())
		return 1;
	if (o.delete_name)
		return delete_module(o.delete_name) ? 1 : 0;
	if (o.attach_name) {
		/* as 4.8: a name, or the path of its .ko */
		module_name_from_path(o.attach_name, name, sizeof(name));
		snprintf(verbose, sizeof(verbose), "%d", o.verbose);
		setenv("SYSTEMTAP_VERBOSE", verbose, 1);
		setenv("SYSTEMTAP_MODULE", name, 1);
		exec_stapio(&o, name);
		return 1;
	}
	o.module = module_path(o.module);
	/* as 4.8, the command and stapio see the module and the verbosity */
	module_name_from_path(o.module, name, sizeof(name));
	snprintf(verbose, sizeof(verbose), "%d", o.verbose);
	setenv("SYSTEMTAP_VERBOSE", verbose, 1);
	setenv("SYSTEMTAP_MODULE", name, 1);
	if (o.command && start_command(&o)) {
		abandon_command(&o);
		return 1;
	}
	if (load_module(&o, name, sizeof(name))) {
		abandon_command(&o);
		return 1;
	}
	setenv("SYSTEMTAP_MODULE", name, 1);	/* renamed by -R */
	exec_stapio(&o, name);
	abandon_command(&o);
	return 1;
}
