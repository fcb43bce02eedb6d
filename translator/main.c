/*
 * main.c - the stap driver: options, then the five passes in order, each
 * one call that returns an error count, with `-p N` stopping after pass N:
 *   1 parse the script, 2 elaborate it against the tapsets and the probe
 *   points, 3 translate it to C, 4 build the module with kbuild,
 *   5 run it through staprun/stapio.
 * Only this file decides to stop, and only main() exits.
 */
#include <ctype.h>
#include <errno.h>
#include <ftw.h>
#include <getopt.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "elab.h"
#include "kcatalog.h"
#include "ubin.h"
#include "translate.h"
#include "family.h"
#include "build.h"
#include "bpf.h"

#ifndef STAP_PKGDATADIR
#define STAP_PKGDATADIR "/usr/local/share/stap"
#endif
#ifndef STAP_BINDIR
#define STAP_BINDIR "/usr/local/bin"
#endif

static const char usage_text[] =
	"Usage: stap [options] FILE [ARGS...]     run a script file (- for stdin)\n"
	"   or: stap [options] -e SCRIPT [ARGS...] run a script given on the command line\n"
	"Options:\n"
	"  -p NUM     stop after pass NUM (1 parse, 2 elaborate, 3 translate,\n"
	"             4 compile, 5 run; default 5)\n"
	"  -v         more verbose: a line per pass with its time (repeatable)\n"
	"  -k         keep the temporary directory and say where it is\n"
	"  -m NAME    name the module NAME (the .ko is also copied to the current directory)\n"
	"  -r KVER    build for kernel release KVER (default: the running kernel),\n"
	"             or -r DIR for a kernel build directory\n"
	"  -o FILE    send the script's output to FILE\n"
	"  -S SIZE[,N]  with -o: next file after SIZE MiB, keep the last N files\n"
	"  -F         flight recorder: without -o, load the module, start its\n"
	"             probes and detach (staprun -A NAME attaches again); with\n"
	"             -o, run in the background and print the pid\n"
	"  -s MB      relay buffer size per CPU in MiB (default 256 KiB)\n"
	"  -D N[=V]   pass a C define to the module build (e.g. MAXACTION=10000)\n"
	"  -I DIR     look for tapsets in DIR too\n"
	"  -R DIR     use the runtime sources in DIR\n"
	"  -g         guru mode: allow embedded C in the script\n"
	"  -w         suppress warnings\n"
	"  -W         turn warnings into errors\n"
	"  -e SCRIPT  the script text\n"
	"  -c CMD     start the probes, run CMD, exit when it ends; target() is its pid\n"
	"  -x PID     set target() to PID\n"
	"  -T SECS    exit the script after SECS seconds\n"
	"  -G N=V     set scalar global N to V when the module is loaded\n"
	"  -d OBJ     add symbol and unwind tables of the user program or library OBJ\n"
	"  --ldd      with -d, add those of the shared libraries OBJ needs\n"
	"  --all-modules  accepted (kernel symbols are always there)\n"
	"  -l PROBE   list the probe points PROBE matches (wildcards, aliases)\n"
	"  -L PROBE   the same, with the variables available at each\n"
	"  --dump-functions      list the tapset library's functions\n"
	"  --dump-probe-aliases  list the tapset library's probe aliases\n"
	"  --dump-probe-types    list the probe point shapes (with --privilege,\n"
	"                        those that level may use)\n"
	"  -E SCRIPT  run SCRIPT too, with the main script (repeatable; with -l/-L\n"
	"             its aliases are listed too)\n"
	"  --example  FILE is the name of an example script, found under the\n"
	"             examples directory\n"
	"  -q         tapset coverage: accepted (4.8 records it only with sqlite)\n"
	"  -P, --prologue-searching[=never|always|auto]  accepted (parameters are\n"
	"             read at the entry instruction, where they are)\n"
	"  --save-uprobes   accepted (uprobes are the kernel's own)\n"
	"  --target-namespaces=PID  the ns_*() functions see the namespaces of PID\n"
	"  --suppress-handler-errors  a run-time error quietly ends its handler only\n"
	"  --disable-cache  neither read nor write the module cache\n"
	"  --poison-cache   rebuild, ignoring the cache, and replace its entry\n"
	"  --clean-cache    clean the cache by its limits, then exit\n"
	"  --tmpdir=DIR     make the temporary directory in DIR (as $TMPDIR)\n"
	"  --rlimit-{as,cpu,nproc,stack,fsize}=N  limit the translator itself\n"
	"  --no-global-var-display  do not print the unread globals at exit\n"
	"  --vp NNNNN       verbosity of passes 1 to 5, one digit each\n"
	"  --compatible=VER the language version for %( systemtap_v ... %)\n"
	"  --check-version, --color[=WHEN]  accepted (no effect here)\n"
	"  --runtime=kernel|bpf  the module runtime (default), or BPF\n"
	"  -a ARCH    the target architecture: x86_64 only\n"
	"  -B NAME=VALUE  pass NAME=VALUE to kbuild's make\n"
	"  -t         report each probe's hits and cycles at the end\n"
	"  -b         bulk mode: each CPU's output to a file of its own\n"
	"             (FILE_N with -o FILE, else stpd_cpuN; stap-merge joins them)\n"
	"  --suppress-time-limits  with -g: no MAXACTION limit\n"
	"  --modinfo NAME=VALUE  add MODULE_INFO(NAME, \"VALUE\") to the module\n"
	"  --skip-badvars   read a target variable that is not available as 0\n"
	"  --sign-module[=KEYDIR]  sign the module (the key is made the first time)\n"
	"  --privilege=stapusr|stapsys|stapdev  use only what that level may, and\n"
	"             record the level in the module for staprun\n"
	"  --unprivileged   the same as --privilege=stapusr\n"
	"  -h         show this help\n"
	"  -V         show the version\n";

/* ---- options -------------------------------------------------------------- */

static int bad_usage(struct session *s, const char *msg)
{
	fprintf(s->err, "stap: %s\nTry 'stap -h' for more information.\n", msg);
	return 1;
}

static void add_define(struct session *s, const char *text)
{
	struct define *d = arena_alloc(s->arena, sizeof(*d)), **tail;

	d->text = text;
	for (tail = &s->defines; *tail; tail = &(*tail)->next)
		;
	*tail = d;
}

static bool valid_module_name(const char *n)
{
	if (!*n || strlen(n) > 55)
		return false;
	for (; *n; n++) {
		if (!((*n >= 'a' && *n <= 'z') || (*n >= 'A' && *n <= 'Z') ||
		      (*n >= '0' && *n <= '9') || *n == '_'))
			return false;
	}
	return true;
}

static int parse_int_arg(const char *arg, int lo, int hi, int *out)
{
	char *end;
	long v = strtol(arg, &end, 10);

	if (*arg == '\0' || *end || v < lo || v > hi)
		return -1;
	*out = (int)v;
	return 0;
}

/* -G NAME=VALUE: passed to the module as a parameter; the pattern is
 * upstream's, so that nothing but a name and a plain value reaches it. */
static int add_global_setting(struct session *s, const char *arg)
{
	const char *eq = strchr(arg, '=');
	const char *p;

	if (!eq || eq == arg || !eq[1] || (*arg >= '0' && *arg <= '9'))
		goto bad;
	for (p = arg; p < eq; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_'))
			goto bad;
	for (p = eq + 1; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') ||
		      *p == '_' || *p == '.' || *p == '-'))
			goto bad;
	s->global_settings = realloc(s->global_settings,
			(size_t)(s->nglobal_settings + 1) * sizeof(char *));
	if (!s->global_settings)
		abort();
	s->global_settings[s->nglobal_settings++] = arg;
	return -1;
bad:
	return bad_usage(s, arena_printf(s->arena,
		"-G takes NAME=VALUE, a global's name and a value of [a-z0-9_.-] ('%s')", arg));
}

/* Skip the digits at *p; false if there are none. */
static bool skip_digits(const char **p)
{
	const char *start = *p;

	while (isdigit((unsigned char)**p))
		(*p)++;
	return *p != start;
}

/* -S: digits, optionally a comma and digits; 4.8's error text otherwise. */
static int check_size_option(struct session *s, const char *arg)
{
	const char *p = arg;
	bool ok = skip_digits(&p);

	if (ok && *p == ',') {
		p++;
		ok = skip_digits(&p);
	}
	if (!ok || *p) {
		fprintf(s->err, "ERROR: Safety pattern mismatch for -S parameter "
			"('%s' vs. '^[0-9]+(,[0-9]+)?$') rc=1\n", arg);
		return 1;
	}
	s->size_option = arg;
	return -1;
}

/* 4.8's options this version does not offer, with what to use instead;
 * each is getopt code REFUSED + its index. */
#define REFUSED 256	/* above every option letter */
static const struct refused_option {
	const char *name;
	int has_arg;
	const char *why;
} refused[] = {
	{ "use-server", optional_argument, "compile servers are not supported: modules "
	  "are built locally, with the kernel's headers (setup.sh installs them)" },
	{ "use-server-on-error", optional_argument, "compile servers are not supported: "
	  "modules are built locally, with the kernel's headers" },
	{ "list-servers", optional_argument, "compile servers are not supported: there "
	  "are none to list" },
	{ "trust-servers", optional_argument, "compile servers are not supported: there "
	  "are none to trust" },
	{ "remote", required_argument, "remote runs are not supported: build with -p4 "
	  "-m NAME (-r for the target's kernel), copy NAME.ko there and run staprun NAME.ko" },
	{ "remote-prefix", no_argument, "remote runs are not supported: run staprun on "
	  "each machine" },
	{ "download-debuginfo", optional_argument, "debuginfo is not downloaded: install "
	  "the distribution's -dbg packages, or probe kernel functions through BTF, "
	  "which needs none" },
	{ "monitor", optional_argument, "the monitor window is not supported: print "
	  "what you need from a timer probe" },
	{ "sysroot", required_argument, "sysroots are not supported: build on a machine "
	  "with the target's kernel headers and programs" },
	{ "sysenv", required_argument, "sysroots are not supported: build on a machine "
	  "with the target's kernel headers and programs" },
	{ "interactive", no_argument, "the interactive mode is not supported: write the "
	  "script to a file, or use -e" },
	{ "dyninst", no_argument, "the dyninst runtime is not supported: use the kernel "
	  "module runtime (the default)" },
};

/* The message of a refused option (by its name, shown as `as`); exit
 * status 1. */
static int refuse(struct session *s, const char *name, const char *as)
{
	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		if (!strcmp(refused[i].name, name)) {
			fprintf(s->err, "stap: %s: %s\n", as, refused[i].why);
			return 1;
		}
	}
	return bad_usage(s, "invalid option");
}

/* --rlimit-RES=N, as 4.8: set on the translator itself at once. */
static int set_rlimit(struct session *s, int res, const char *name, const char *arg)
{
	char *end;
	unsigned long long v = strtoull(arg, &end, 10);
	struct rlimit rl = { (rlim_t)v, (rlim_t)v };

	if (!*arg || *end || *arg == '-')
		return bad_usage(s, arena_printf(s->arena, "--rlimit-%s takes a number", name));
	if (setrlimit(res, &rl)) {
		fprintf(s->err, "stap: --rlimit-%s=%s: %s\n", name, arg, strerror(errno));
		return 1;
	}
	if (res == RLIMIT_FSIZE)	/* a write past it fails (EFBIG), reported */
		signal(SIGXFSZ, SIG_IGN);
	return -1;
}

/* --vp ABCDE: the verbosity of each pass; this version has one level. */
static int set_pass_verbosity(struct session *s, const char *arg)
{
	int n = 0;

	for (const char *p = arg; *p; p++, n++) {
		if (*p < '0' || *p > '9' || n == 5)
			return bad_usage(s, "--vp takes up to five digits, one per pass");
		if (*p - '0' > s->verbose)
			s->verbose = *p - '0';
	}
	return -1;
}

/* --modinfo NAME=VALUE: a MODULE_INFO(NAME, "VALUE") of the module. */
static int add_modinfo(struct session *s, const char *arg)
{
	const char *eq = strchr(arg, '=');
	const char **v;

	if (!eq || eq == arg)
		return bad_usage(s, "--modinfo takes NAME=VALUE");
	for (const char *p = arg; p < eq; p++)
		if (!isalnum((unsigned char)*p) && *p != '_')
			return bad_usage(s, "--modinfo: NAME is letters, digits and '_'");
	v = arena_alloc(s->arena, (size_t)(s->nmodinfos + 1) * sizeof(*v));
	if (s->nmodinfos)
		memcpy(v, s->modinfos, (size_t)s->nmodinfos * sizeof(*v));
	v[s->nmodinfos++] = arg;
	s->modinfos = v;
	return -1;
}

/* --privilege=LEVEL (and --unprivileged): what the script may use
 * (elab/privilege.c), recorded in the module for staprun; 4.8's errors. */
static int set_privilege(struct session *s, const char *arg)
{
	int pr = !strcmp(arg, "stapusr") ? PR_STAPUSR : !strcmp(arg, "stapsys") ?
		 PR_STAPSYS : !strcmp(arg, "stapdev") ? PR_STAPDEV : 0;

	if (!pr) {
		fprintf(s->err, "Invalid argument '%s' for --privilege.\n", arg);
		return 1;
	}
	if (s->privilege && s->privilege != pr) {
		fputs("Privilege level may be set only once.\n", s->err);
		return 1;
	}
	s->privilege = pr;
	return -1;
}

/* As 4.8: a user who is not root and not in group stapdev gets the
 * --privilege of the groups they are in when the script is to be run. */
static void default_privilege(struct session *s)
{
	if (s->privilege || s->last_pass < 5 || getuid() == 0 || in_group("stapdev"))
		return;
	s->privilege = in_group("stapsys") ? PR_STAPSYS : PR_STAPUSR;
}

/*
 * --target-namespaces=PID: a process ID (the namespace-aware functions see
 * its namespaces: staprun -N PID); --prologue-searching[=WHEN]:
 * never, always or auto (function probes here read their parameters at
 * the entry instruction, where they are: no heuristics needed); 4.8's
 * errors.
 */
static int check_option_arg(struct session *s, const char *opt, const char *arg)
{
	char *end;

	if (!strcmp(opt, "target-namespaces")) {
		if (strtol(arg, &end, 10) < 1 || *end) {
			fputs("Invalid process ID number for target namespaces.\n", s->err);
			return 1;
		}
	} else if (arg && strcmp(arg, "never") && strcmp(arg, "always") &&
		   strcmp(arg, "auto")) {
		fprintf(s->err, "Invalid argument '%s' for --%s.\n", arg, opt);
		return 1;
	}
	return -1;
}

/* -E SCRIPT: parsed after the main script, its probes, functions and
 * globals added to it (pass1). */
static int add_extra_script(struct session *s, const char *text)
{
	const char **v = arena_alloc(s->arena, (size_t)(s->nextra_scripts + 1) * sizeof(*v));

	if (s->nextra_scripts)
		memcpy(v, s->extra_scripts, (size_t)s->nextra_scripts * sizeof(*v));
	v[s->nextra_scripts++] = text;
	s->extra_scripts = v;
	return -1;
}

/* The long options that take effect here (codes 20...). */
static int parse_long(struct session *s, int c)
{
	static const char *const rlimits[] = { "as", "cpu", "nproc", "stack", "fsize" };
	static const int rlimit_res[] = { RLIMIT_AS, RLIMIT_CPU, RLIMIT_NPROC,
					  RLIMIT_STACK, RLIMIT_FSIZE };

	if (c >= 21 && c <= 25)
		return set_rlimit(s, rlimit_res[c - 21], rlimits[c - 21], optarg);
	switch (c) {
	case 20: s->tmpdir_base = optarg; break;
	case 26: s->no_global_display = true; break;
	case 27: return set_pass_verbosity(s, optarg);
	case 28:
		if (!optarg || !strcmp(optarg, "bpf")) {
			s->runtime_bpf = true;	/* bpf/, staprun/stapbpf.c */
			break;
		}
		if (!strcmp(optarg, "dyninst"))
			return refuse(s, optarg, arena_printf(s->arena, "--runtime=%s", optarg));
		if (strcmp(optarg, "kernel"))
			return bad_usage(s, "--runtime takes kernel, dyninst or bpf");
		break;
	case 29:
		if (optarg && strcmp(optarg, "never") && strcmp(optarg, "auto") &&
		    strcmp(optarg, "always"))
			return bad_usage(s, "--color takes never, auto or always");
		break;	/* diagnostics are never coloured here */
	case 30: {
		char *end;

		if (strtol(optarg, &end, 10) < 1 || (*end && (*end != '.' || !end[1])))
			return bad_usage(s, "--compatible takes a version such as 4.8");
		s->compat_version = optarg;
		break;
	}
	case 31:	/* --check-version: our tapsets have no version-gated code */
		break;
	case 32:	/* guru: no MAXACTION (runtime/stp_defines.h) */
		s->suppress_time_limits = true;
		add_define(s, "STP_SUPPRESS_TIME_LIMITS");
		break;
	case 33:
		return add_modinfo(s, optarg);
	case 34:	/* unavailable $vars read as 0 (elab/target.c) */
		s->skip_badvars = true;
		break;
	case 38:	/* --dump-probe-types */
		s->dump = 3;
		break;
	case 39:	/* --example: the script is an example's file name */
		s->example = true;
		break;
	case 40:	/* --save-uprobes: uprobes are the kernel's own here */
		break;
	case 41:
		s->target_ns_pid = atoi(optarg);
		return check_option_arg(s, "target-namespaces", optarg);
	case 42:
		return check_option_arg(s, "prologue-searching", optarg);
	case 36:	/* --privilege=LEVEL */
	case 37:	/* --unprivileged */
		return set_privilege(s, c == 37 ? "stapusr" : optarg);
	case 35:	/* build/sign.c; a signed module is not cached */
		s->sign_module = true;
		s->sign_keydir = optarg;
		s->no_cache = true;
		break;
	default:
		return bad_usage(s, "invalid option");
	}
	return -1;
}

/* -B NAME=VALUE: an argument of kbuild's make. */
static int add_make_arg(struct session *s, const char *arg)
{
	const char **v;

	if (!strchr(arg, '=') || *arg == '=')
		return bad_usage(s, "-B takes NAME=VALUE");
	v = arena_alloc(s->arena, (size_t)(s->nmake_args + 1) * sizeof(*v));
	if (s->nmake_args)
		memcpy(v, s->make_args, (size_t)s->nmake_args * sizeof(*v));
	v[s->nmake_args++] = arg;
	s->make_args = v;
	return -1;
}

/* Returns -1 to go on, else an exit status (0 for -h/-V). */
static int parse_one(struct session *s, int c, const char **script)
{
	switch (c) {
	case 'p':
		if (parse_int_arg(optarg, 1, 5, &s->last_pass))
			return bad_usage(s, "-p takes a pass number from 1 to 5");
		break;
	case 'v': s->verbose++; break;
	case 'k': s->keep_tmp = true; s->no_cache = s->no_build_cache = true; break;
	case 'g': s->guru = true; break;
	case 'w': s->suppress_warnings = true; break;
	case 'W': s->warnings_fail = true; break;
	case 'u': s->unoptimized = true; break;
	case 'e': *script = optarg; break;
	case 'o': s->output_file = optarg; break;
	case 'F': s->flight_recorder = true; break;
	case 'S': return check_size_option(s, optarg);
	case 'r': s->kernel_release = optarg; break;
	case 'R': s->runtime_dir = optarg; break;
	case 'D': add_define(s, optarg); break;
	case 'I':
		s->include_dirs = realloc(s->include_dirs,
				(size_t)(s->ninclude_dirs + 1) * sizeof(char *));
		s->include_dirs[s->ninclude_dirs++] = optarg;
		break;
	case 's':
		if (parse_int_arg(optarg, 1, 4095, &s->bufsize_mb))
			return bad_usage(s, "-s takes a buffer size in MiB from 1 to 4095");
		break;
	case 'm': {
		char *name = arena_strdup(s->arena, optarg);
		size_t len = strlen(name);

		if (len > 3 && !strcmp(name + len - 3, ".ko"))
			name[len - 3] = '\0';
		if (!valid_module_name(name))
			return bad_usage(s, "-m: a module name is 1 to 55 characters of [A-Za-z0-9_]");
		s->module_name = name;
		s->module_named = true;
		s->no_cache = true;	/* as 4.8: -m builds afresh */
		break;
	}
	case 1:
	case 2:
		s->dump = c;
		break;
	case 3:		/* --ldd: the libraries of the -d objects too */
		s->ldd = true;
		break;
	case 4:		/* --all-modules */
		break;	/* kernel symbols are read at run time */
	case 'd': {	/* user objects' tables (translator/usyms.c) */
		const char **v = arena_alloc(s->arena, (size_t)(s->nusym_objs + 1) * sizeof(*v));

		if (s->nusym_objs)
			memcpy(v, s->usym_objs, (size_t)s->nusym_objs * sizeof(*v));
		v[s->nusym_objs++] = optarg;
		s->usym_objs = v;
		break;
	}
	case 'c':
		s->target_cmd = optarg;
		break;
	case 'x':
		if (parse_int_arg(optarg, 1, 1 << 30, &s->target_pid))
			return bad_usage(s, "-x: invalid target process ID number");
		break;
	case 'T':
		if (parse_int_arg(optarg, 1, 1 << 30, &s->timeout_s))
			return bad_usage(s, "-T: invalid timeout interval");
		break;
	case 'G':
		return add_global_setting(s, optarg);
	case 5:		/* as upstream: a macro the runtime tests */
		add_define(s, "STAP_SUPPRESS_HANDLER_ERRORS");
		break;
	case 6:		/* --disable-cache */
		s->no_cache = s->no_build_cache = true;
		break;
	case 7:		/* --poison-cache */
		s->poison_cache = true;
		break;
	case 8:		/* --clean-cache: clean by the limits, then exit */
		cache_setup(s);
		cache_clean(s);
		return 0;
	case 'l':
	case 'L':
		s->listing = c == 'l' ? 1 : 2;
		s->listing_pp = optarg;
		break;
	case 'a':
		if (strcmp(optarg, "x86_64") && strcmp(optarg, "amd64"))
			return bad_usage(s, "-a: only x86_64 is supported");
		break;
	case 'B':
		return add_make_arg(s, optarg);
	case 'b':	/* bulk mode: per-CPU output files (stapio, stap-merge) */
		add_define(s, "STP_BULKMODE");
		break;
	case 't':	/* the probe hit report (runtime/timing.c) */
		s->timing = true;
		add_define(s, "STP_TIMING");
		break;
	case 'i':
		return refuse(s, "interactive", "-i");
	case 'q':	/* tapset coverage: 4.8 records it only when built with
			 * sqlite, which Debian's is not */
		break;
	case 'E':
		return add_extra_script(s, optarg);
	case 'P':	/* --prologue-searching=always */
		break;
	case 'h':
		fputs(usage_text, stdout);
		return 0;
	case 'V':
		printf("stap %s, a SystemTap-compatible tracer (language of SystemTap %s)\n",
		       STAP_VERSION_STRING, STAP_COMPAT_VERSION);
		return 0;
	default:
		if (c >= REFUSED && c < REFUSED + (int)(sizeof(refused) / sizeof(refused[0])))
			return refuse(s, refused[c - REFUSED].name,
				      arena_printf(s->arena, "--%s", refused[c - REFUSED].name));
		if (c >= 20 && c < REFUSED)
			return parse_long(s, c);
		return bad_usage(s, "invalid option");
	}
	return -1;
}

/* -l/-L PROBE: passes 1 and 2 over `probe PROBE {}`, keeping the locals
 * of aliases (no elision) and quiet about warnings, as upstream. */
static int listing_options(struct session *s, int argc, const char **script)
{
	if (*script || optind < argc)
		return bad_usage(s, "-l and -L take a probe point, not a script");
	*script = arena_printf(s->arena, "probe %s {}", s->listing_pp);
	s->last_pass = 2;
	s->unoptimized = true;
	s->suppress_warnings = true;
	return -1;
}

static int parse_options(struct session *s, int argc, char **argv,
			 const char **script, const char **file)
{
	static const struct option fixed[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ "dump-functions", no_argument, NULL, 1 },
		{ "dump-probe-aliases", no_argument, NULL, 2 },
		{ "ldd", no_argument, NULL, 3 },
		{ "all-modules", no_argument, NULL, 4 },
		{ "suppress-handler-errors", no_argument, NULL, 5 },
		{ "disable-cache", no_argument, NULL, 6 },
		{ "poison-cache", no_argument, NULL, 7 },
		{ "clean-cache", no_argument, NULL, 8 },
		{ "tmpdir", required_argument, NULL, 20 },
		{ "rlimit-as", required_argument, NULL, 21 },
		{ "rlimit-cpu", required_argument, NULL, 22 },
		{ "rlimit-nproc", required_argument, NULL, 23 },
		{ "rlimit-stack", required_argument, NULL, 24 },
		{ "rlimit-fsize", required_argument, NULL, 25 },
		{ "no-global-var-display", no_argument, NULL, 26 },
		{ "vp", required_argument, NULL, 27 },
		{ "runtime", required_argument, NULL, 28 },
		{ "bpf", no_argument, NULL, 28 },	/* --runtime=bpf */
		{ "color", optional_argument, NULL, 29 },
		{ "colour", optional_argument, NULL, 29 },
		{ "compatible", required_argument, NULL, 30 },
		{ "check-version", no_argument, NULL, 31 },
		{ "suppress-time-limits", no_argument, NULL, 32 },
		{ "modinfo", required_argument, NULL, 33 },
		{ "skip-badvars", no_argument, NULL, 34 },
		{ "sign-module", optional_argument, NULL, 35 },
		{ "privilege", required_argument, NULL, 36 },
		{ "unprivileged", no_argument, NULL, 37 },
		{ "dump-probe-types", no_argument, NULL, 38 },
		{ "example", no_argument, NULL, 39 },
		{ "save-uprobes", no_argument, NULL, 40 },
		{ "target-namespaces", required_argument, NULL, 41 },
		{ "prologue-searching", optional_argument, NULL, 42 },
	};
	size_t nfixed = sizeof(fixed) / sizeof(fixed[0]);
	size_t nrefused = sizeof(refused) / sizeof(refused[0]);
	struct option longs[sizeof(fixed) / sizeof(fixed[0]) +
			    sizeof(refused) / sizeof(refused[0]) + 1];
	int c, rc;

	memcpy(longs, fixed, sizeof(fixed));
	for (size_t i = 0; i < nrefused; i++)
		longs[nfixed + i] = (struct option){ refused[i].name, refused[i].has_arg,
						     NULL, REFUSED + (int)i };
	longs[nfixed + nrefused] = (struct option){ NULL, 0, NULL, 0 };
	while ((c = getopt_long(argc, argv, "p:vkgwWue:o:S:r:R:D:I:s:m:l:L:hVc:x:T:G:d:a:B:itFbqE:P",
				longs, NULL)) != -1) {
		rc = parse_one(s, c, script);
		if (rc >= 0)
			return rc;
	}
	if (s->target_cmd && s->target_pid)
		return bad_usage(s, "-c and -x cannot be given together");
	if (s->suppress_time_limits && !s->guru) {
		fputs("ERROR --suppress-time-limits requires guru mode (-g)\n", s->err);
		return 1;
	}
	if (s->guru && (s->privilege == PR_STAPUSR || s->privilege == PR_STAPSYS)) {
		fprintf(s->err, "You can't specify -g and --privilege=%s together.\n",
			privilege_name(s->privilege));
		return 1;
	}
	default_privilege(s);
	if (s->dump)
		return -1;
	if (s->listing)
		return listing_options(s, argc, script);
	if (!*script) {
		if (optind >= argc)
			return bad_usage(s, "no script given (a file, '-' for stdin, or -e SCRIPT)");
		*file = argv[optind++];
	}
	s->script_args = (const char **)argv + optind;
	s->nscript_args = argc - optind;
	return -1;
}

/* ---- environment ------------------------------------------------------------ */

static const char *first_existing(struct session *s, const char *const *cands,
				  const char *probe)
{
	for (; *cands; cands++) {
		if (path_exists(arena_printf(s->arena, "%s/%s", *cands, probe)))
			return *cands;
	}
	return NULL;
}

static void find_dirs(struct session *s)
{
	const char *self = self_dir(s->arena);
	const char *rt[] = {
		arena_printf(s->arena, "%s/../runtime", self),
		arena_printf(s->arena, "%s/../share/stap/runtime", self),
		STAP_PKGDATADIR "/runtime", NULL
	};
	const char *ts[] = {
		arena_printf(s->arena, "%s/../tapsets", self),
		arena_printf(s->arena, "%s/../share/stap/tapset", self),
		STAP_PKGDATADIR "/tapset", NULL
	};
	const char *run[] = {
		arena_printf(s->arena, "%s/../staprun", self), self,
		STAP_BINDIR, NULL
	};
	const char *bpfcc[] = {
		arena_printf(s->arena, "%s/bpfcc", self), STAP_PKGLIBEXECDIR, NULL
	};
	const char *loader[] = {
		arena_printf(s->arena, "%s/../staprun", self), STAP_PKGLIBEXECDIR, NULL
	};

	if (!s->runtime_dir && getenv("SYSTEMTAP_RUNTIME"))
		s->runtime_dir = getenv("SYSTEMTAP_RUNTIME");
	if (!s->runtime_dir)
		s->runtime_dir = first_existing(s, rt, "stp_runtime.h");
	s->tapset_dir = first_existing(s, ts, ".");
	s->staprun_path = first_existing(s, run, "staprun");
	s->staprun_path = arena_printf(s->arena, "%s/staprun",
				       s->staprun_path ? s->staprun_path : STAP_BINDIR);
	/* what staprun execs for a NAME.bpf.o, run directly: the same argv,
	 * one exec fewer before the first output (not with another staprun) */
	s->stapbpf_path = first_existing(s, loader, "stapbpf");
	if (s->stapbpf_path)
		s->stapbpf_path = arena_printf(s->arena, "%s/stapbpf", s->stapbpf_path);
	if (getenv("SYSTEMTAP_STAPRUN") && *getenv("SYSTEMTAP_STAPRUN")) {
		s->staprun_path = getenv("SYSTEMTAP_STAPRUN");
		s->stapbpf_path = NULL;
	}
	/* --runtime=bpf's compiler, if the build made it (translator/bpfcc/) */
	s->bpfcc_path = first_existing(s, bpfcc, "stapbpfcc");
	if (s->bpfcc_path)
		s->bpfcc_path = arena_printf(s->arena, "%s/stapbpfcc", s->bpfcc_path);
	/* as 4.8: set, even empty, it replaces the default path */
	s->debuginfo_path = getenv("SYSTEMTAP_DEBUGINFO_PATH");
}

/* The runtime is needed from pass 3 on; a clear error if it is missing. */
static int check_runtime(struct session *s)
{
	char *real;

	if (!s->runtime_dir || !path_exists(arena_printf(s->arena, "%s/stp_runtime.h",
							 s->runtime_dir))) {
		diag_plain(s, "cannot find the runtime sources (stp_runtime.h); use -R DIR");
		return 1;
	}
	real = realpath(s->runtime_dir, NULL);
	if (real) {
		s->runtime_dir = arena_strdup(s->arena, real);
		free(real);
	}
	return 0;
}

static void set_kernel(struct session *s)
{
	struct utsname u;
	const char *r = s->kernel_release;

	uname(&u);
	s->arch = arena_strdup(s->arena, u.machine);
	session_set_kernel(s, r);
	/* a module for another kernel cannot run here: stop after pass 4, as
	 * 4.8 does, unless SYSTEMTAP_STAPRUN names a loader of the user's own
	 * (which may run it elsewhere, as 4.8's --remote would) */
	if (s->last_pass == 5 && strcmp(s->kernel_release, u.release) &&
	    !getenv("SYSTEMTAP_STAPRUN")) {
		fprintf(s->err, "WARNING: kernel release/architecture mismatch with host "
			"forces last-pass 4.\n");
		s->last_pass = 4;
	}
}

/* --example NAME: the example script NAME (a file name, in any folder)
 * under our examples, else 4.8's; 4.8's error when there is none. */
static const char *find_example_in(struct session *s, const char *dir, const char *name)
{
	const char *cmd = arena_printf(s->arena, "find '%s' -name '%s' -type f -print -quit 2>/dev/null",
				       dir, name);
	char line[4096] = "";
	FILE *f;

	if (strchr(name, '\'') || strchr(name, '/') || !(f = popen(cmd, "r")))
		return NULL;
	if (!fgets(line, sizeof(line), f))
		line[0] = '\0';
	pclose(f);
	line[strcspn(line, "\n")] = '\0';
	return *line ? arena_strdup(s->arena, line) : NULL;
}

static const char *find_example(struct session *s, const char *name)
{
	const char *dirs[] = { arena_printf(s->arena, "%s/../share/stap/examples",
					    self_dir(s->arena)),
			       STAP_PKGDATADIR "/examples", "/usr/share/systemtap/examples" };
	const char *found;

	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
		if ((found = find_example_in(s, dirs[i], name)))
			return found;
	fprintf(s->err, "Example '%s' was not found under '%s'\n", name, dirs[2]);
	return NULL;
}

static int read_script(struct session *s, const char *script, const char *file)
{
	struct source *src = arena_alloc(s->arena, sizeof(*src));
	size_t len;
	char *text;

	if (script) {
		src->name = "<input>";
		src->text = script;
		src->len = strlen(script);
	} else {
		if (s->example && !(file = find_example(s, file)))
			return 1;
		text = strcmp(file, "-") ? read_file(file, &len) : read_stream(stdin, &len);
		if (!text) {
			diag_plain(s, "cannot read script %s: %s", file, strerror(errno));
			return 1;
		}
		src->name = strcmp(file, "-") ? file : "<input>";
		src->text = arena_strndup(s->arena, text, len);
		src->len = len;
		free(text);
	}
	s->user = src;
	return 0;
}

/* ---- pass reporting ----------------------------------------------------------- */

struct pass_clock {
	double real;
	long usr, sys;
};

static long ms_of(struct timeval tv)
{
	return tv.tv_sec * 1000L + tv.tv_usec / 1000;
}

/* CPU time of stap and the tools it ran (make, gcc), in ms. */
static void cpu_ms(long *usr, long *sys)
{
	struct rusage self, kids;

	getrusage(RUSAGE_SELF, &self);
	getrusage(RUSAGE_CHILDREN, &kids);
	*usr = ms_of(self.ru_utime) + ms_of(kids.ru_utime);
	*sys = ms_of(self.ru_stime) + ms_of(kids.ru_stime);
}

static void clock_start(struct pass_clock *c)
{
	c->real = now_ms();
	cpu_ms(&c->usr, &c->sys);
}

/* "using Nvirt/Nres/Nshr/Ndata kb, in Ausr/Bsys/Creal ms." as upstream */
static void report_usage(struct session *s, const struct pass_clock *c, bool mem)
{
	long page = sysconf(_SC_PAGESIZE) / 1024, v = 0, r = 0, sh = 0, d = 0;
	long usr, sys;
	FILE *f = fopen("/proc/self/statm", "r");

	if (f) {
		if (fscanf(f, "%ld %ld %ld %*d %*d %ld", &v, &r, &sh, &d) != 4)
			v = r = sh = d = 0;
		fclose(f);
	}
	cpu_ms(&usr, &sys);
	if (mem)
		fprintf(s->err, " using %ldvirt/%ldres/%ldshr/%lddata kb,",
			v * page, r * page, sh * page, d * page);
	fprintf(s->err, " in %ldusr/%ldsys/%ldreal ms.\n",
		usr - c->usr, sys - c->sys,
		(long)(now_ms() - c->real));
}

static int pass_failed(struct session *s, int pass)
{
	static const char *const what[] = { "", "parse", "analysis", "translation",
					    "compilation", "run" };

	fprintf(s->err, "Pass %d: %s failed.  [man error::pass%d]\n", pass,
		what[pass], pass);
	return 1;
}

static int count_list_funcs(struct session *s)
{
	int n = 0;

	for (struct func *f = s->funcs; f; f = f->next_used)
		n++;
	return n;
}

static int count_globals(struct session *s)
{
	int n = 0;

	for (struct var *v = s->globals; v; v = v->next)
		n++;
	return n;
}

/* ---- the pipeline --------------------------------------------------------------- */

/* -T SECS: upstream's `probe timer.ms(SECS*1000) { exit() }`, first. */
static int add_timeout_probe(struct session *s)
{
	struct source *src = arena_alloc(s->arena, sizeof(*src));
	struct file_ast *ast;

	src->name = "<timeout>";
	src->text = arena_printf(s->arena, "probe timer.ms(%lld) { exit() }",
				 (long long)s->timeout_s * 1000);
	src->len = strlen(src->text);
	ast = parse_source(s, src);
	if (!ast || s->errors)
		return 1;
	ast->probes->next = s->user_ast->probes;
	s->user_ast->probes = ast->probes;
	return 0;
}

/* Append the list from to the list to (linked by ->next). */
#define APPEND(to, from) do {						\
	__typeof__(to) *t_ = &(to);					\
	while (*t_)							\
		t_ = &(*t_)->next;					\
	*t_ = (from);							\
} while (0)

/* -E SCRIPT...: each parsed as a script of its own, then its probes,
 * functions, globals and embedded C added to the main script's (with
 * -l/-L, its aliases only). */
static int add_extra_scripts(struct session *s)
{
	for (int i = 0; i < s->nextra_scripts; i++) {
		struct source *src = arena_alloc(s->arena, sizeof(*src));
		struct file_ast *ast;

		src->name = "<input>";
		src->text = s->extra_scripts[i];
		src->len = strlen(src->text);
		ast = parse_source(s, src);
		if (!ast || s->errors)
			return 1;
		if (s->listing) {	/* -l/-L list their point only: aliases */
			struct probe **pp = &ast->probes;

			while (*pp)
				if ((*pp)->alias_names)
					pp = &(*pp)->next;
				else
					*pp = (*pp)->next;
		}
		APPEND(s->user_ast->probes, ast->probes);
		APPEND(s->user_ast->funcs, ast->funcs);
		APPEND(s->user_ast->globals, ast->globals);
		APPEND(s->user_ast->embeds, ast->embeds);
	}
	return 0;
}

/* -W: a warning fails the pass, as 4.8 counts warnings as errors (it
 * checks from pass 2 on: pass 1's warnings fail pass 2) */
static bool warned(const struct session *s)
{
	return s->warnings_fail && s->warnings;
}

static int pass1(struct session *s)
{
	struct pass_clock c;

	clock_start(&c);
	tapset_load_macros(s);
	s->user_ast = parse_source(s, s->user);
	if (!s->user_ast || s->errors)
		return pass_failed(s, 1);
	if (s->timeout_s && add_timeout_probe(s))
		return pass_failed(s, 1);
	if (add_extra_scripts(s))
		return pass_failed(s, 1);
	if (s->verbose) {
		fprintf(s->err, "Pass 1: parsed user script and 0 library scripts");
		report_usage(s, &c, true);
	}
	if (s->last_pass == 1)
		ast_print_file(s, stdout, s->user_ast);
	return 0;
}

static int pass2(struct session *s)
{
	struct pass_clock c;
	int n = 0;

	clock_start(&c);
	n = elaborate(s);
	diag_summary(s);
	if (n || warned(s))
		return pass_failed(s, 2);
	n = 0;
	for (struct rprobe *r = s->rprobes; r; r = r->next)
		n++;
	if (s->verbose) {
		fprintf(s->err, "Pass 2: analyzed script: %d probe%s, %d function%s, %d embed%s, %d global%s",
			n, n == 1 ? "" : "s", count_list_funcs(s),
			count_list_funcs(s) == 1 ? "" : "s", 0, "s",
			count_globals(s), count_globals(s) == 1 ? "" : "s");
		report_usage(s, &c, true);
	}
	if (s->last_pass == 2 && !s->listing)
		elaborate_print(s, stdout);
	return 0;
}

static void print_c(struct session *s)
{
	size_t len;
	char *text = read_file(s->c_file, &len);

	if (text)
		fwrite(text, 1, len, stdout);
	free(text);
}

static int pass3(struct session *s)
{
	struct pass_clock c;

	clock_start(&c);
	if (translate(s) || warned(s))
		return pass_failed(s, 3);
	if (s->verbose) {
		fprintf(s->err, "Pass 3: translated to C into \"%s\"", s->c_file);
		report_usage(s, &c, true);
	}
	if (s->last_pass == 3)
		print_c(s);
	return 0;
}

static int copy_ko_here(struct session *s)
{
	size_t len;
	char *data = read_file(s->ko_file, &len);
	const char *dst = arena_printf(s->arena, "%s.ko", s->module_name);
	int rc = data ? write_file(dst, data, len) : -1;

	free(data);
	if (rc < 0) {
		diag_plain(s, "cannot copy the module to %s: %s", dst, strerror(errno));
		return 1;
	}
	if (s->last_pass == 4)
		printf("%s\n", dst);
	return 0;
}

/* -m: the .ko copied here; -p4: its path, the cache's as 4.8 when the
 * module is in the cache, else a copy here. */
static int save_module(struct session *s)
{
	if (s->last_pass == 4 && s->cache_entry) {
		printf("%s.ko\n", s->cache_entry);
		return 0;
	}
	if (s->module_named || s->last_pass == 4)
		return copy_ko_here(s);
	return 0;
}

static int pass4(struct session *s)
{
	struct pass_clock c;

	clock_start(&c);
	if (kbuild(s) || (s->sign_module && sign_module(s)))
		return pass_failed(s, 4);
	if (s->verbose) {
		fprintf(s->err, "Pass 4: compiled C into \"%s.ko\"", s->module_name);
		report_usage(s, &c, false);
	}
	cache_store(s);
	if (save_module(s))
		return pass_failed(s, 4);
	return 0;
}

/* -p3 or -p4 on a cache hit: print what those passes would have. */
static int cached_passes(struct session *s)
{
	if (s->last_pass == 3)
		print_c(s);
	else if (save_module(s))
		return pass_failed(s, 4);
	return 0;
}

static int pass5(struct session *s)
{
	struct pass_clock c;
	int rc;

	clock_start(&c);
	if (s->verbose)
		fputs("Pass 5: starting run.\n", s->err);
	rc = run_module(s);
	if (rc != 0)
		return pass_failed(s, 5);
	if (s->verbose) {
		fputs("Pass 5: run completed", s->err);
		report_usage(s, &c, false);
	}
	return 0;
}

/* --runtime=bpf: passes 3 and 4 in bpf/ (no cache), pass 5 as a module's
 * (staprun hands NAME.bpf.o to stapbpf). */
static int run_bpf(struct session *s)
{
	struct pass_clock c;

	clock_start(&c);
	if (bpf_translate(s) || warned(s))
		return pass_failed(s, 3);
	if (s->last_pass == 3) {
		print_c(s);
		return 0;
	}
	if (bpf_compile(s))
		return pass_failed(s, 4);
	if (s->verbose) {
		fprintf(s->err, "Pass 4: compiled BPF into \"%s.bpf.o\"", s->module_name);
		report_usage(s, &c, false);
	}
	if (s->module_named || s->last_pass == 4) {
		size_t len;
		char *data = read_file(s->ko_file, &len);
		const char *dst = arena_printf(s->arena, "%s.bpf.o", s->module_name);

		if (!data || write_file(dst, data, len) < 0) {
			free(data);
			diag_plain(s, "cannot copy the BPF object to %s", dst);
			return pass_failed(s, 4);
		}
		free(data);
	}
	return s->last_pass == 4 ? 0 : pass5(s);
}

static int rm_entry(const char *path, const struct stat *st, int flag,
		    struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	remove(path);
	return 0;
}

static void cleanup(struct session *s)
{
	session_child_stop(s);
	if (!s->tmpdir)
		return;
	if (s->keep_tmp)
		fprintf(s->err, "Keeping temporary directory \"%s\"\n", s->tmpdir);
	else
		nftw(s->tmpdir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* --dump-functions / --dump-probe-aliases: the tapset library's catalogue */
static int run_dump(struct session *s)
{
	set_kernel(s);
	find_dirs(s);
	tapset_load_macros(s);
	tapset_load(s);
	if (s->errors)
		return 1;
	if (s->dump == 3)
		return dump_probe_types(s, stdout);
	return s->dump == 1 ? dump_functions(s) : dump_probe_aliases(s);
}

static int run_passes(struct session *s, int argc, char **argv)
{
	set_kernel(s);
	find_dirs(s);
	bpf_clang_start(s, argc, argv);
	if (s->listing)
		return pass1(s) || pass2(s) ? 1 : list_probes(s, stdout);
	if (pass1(s) || s->last_pass == 1)
		return s->errors ? 1 : 0;
	if (pass2(s) || s->last_pass == 2)
		return s->errors || warned(s) ? 1 : 0;
	if (check_runtime(s) || session_tmpdir(s))
		return 1;
	if (s->runtime_bpf)
		return run_bpf(s);
	if (cache_lookup(s)) {
		if (cached_passes(s) || s->last_pass < 5)
			return s->errors || warned(s) ? 1 : 0;
		return pass5(s);
	}
	if (pass3(s) || s->last_pass == 3)
		return s->errors || warned(s) ? 1 : 0;
	if (pass4(s) || s->last_pass == 4)
		return s->errors || warned(s) ? 1 : 0;
	return pass5(s);
}

/*
 * $SYSTEMTAP_DIR/rc (default ~/.systemtap/rc): options taken before the
 * command line's, as 4.8 reads them (words separated by white space).
 */
static char **with_rc_options(struct session *s, int *argc, char **argv)
{
	const char *dir = getenv("SYSTEMTAP_DIR"), *home = getenv("HOME");
	char *text, **v;
	size_t len;
	int n = 0;

	if (!dir || !*dir)
		dir = home && *home ? arena_printf(s->arena, "%s/.systemtap", home) : NULL;
	text = dir ? read_file(arena_printf(s->arena, "%s/rc", dir), &len) : NULL;
	if (!text)
		return argv;
	v = arena_alloc(s->arena, sizeof(*v) * (len / 2 + (size_t)*argc + 2));
	v[n++] = argv[0];
	for (char *w = strtok(text, " \t\n"); w; w = strtok(NULL, " \t\n"))
		v[n++] = arena_strdup(s->arena, w);
	free(text);
	for (int i = 1; i < *argc; i++)
		v[n++] = argv[i];
	v[n] = NULL;
	*argc = n;
	return v;
}

int main(int argc, char **argv)
{
	struct session sess = { 0 };
	const char *script = NULL, *file = NULL;
	int rc;

	sess.arena = arena_new();
	sess.err = stderr;
	sess.last_pass = 5;
	sess.families = family_list;
	argv = with_rc_options(&sess, &argc, argv);
	rc = parse_options(&sess, argc, argv, &script, &file);
	if (rc >= 0)
		goto out;
	if (!sess.module_name)
		sess.module_name = arena_printf(sess.arena, "stap_%d", (int)getpid());
	if (!sess.no_build_cache && !sess.dump && !sess.listing && sess.last_pass >= 3)
		cache_setup(&sess);
	if (sess.dump)
		rc = run_dump(&sess);
	else if ((rc = read_script(&sess, script, file)) == 0)
		rc = run_passes(&sess, argc, argv);
	cleanup(&sess);
out:
	kernel_catalog_close(&sess);
	ubin_close_all(&sess);
	free(sess.include_dirs);
	free(sess.global_settings);
	free(sess.poisoned);
	intern_free(&sess);
	arena_free(sess.arena);
	return rc;
}
