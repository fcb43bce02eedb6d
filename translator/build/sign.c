/*
 * sign.c - stap --sign-module[=KEYDIR]: after pass 4, sign the module
 * with the kernel build tree's scripts/sign-file and the user's key,
 * KEYDIR/signing_key.priv and signing_key.x509 (default KEYDIR:
 * $SYSTEMTAP_DIR/signing_key, else ~/.systemtap/signing_key), made with
 * openssl the first time, as 4.8 makes the key it enrolls as a MOK. The
 * kernel loads it under module.sig_enforce once it trusts that key
 * (`mokutil --import KEYDIR/signing_key.x509`).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "build.h"

/* Run argv with its output in log (or discarded); its exit status. */
static int run_logged(char *const argv[], const char *log)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (pid == 0) {
		int fd = open(log ? log : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0600);

		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
		}
		execvp(argv[0], argv);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static const char *key_dir(struct session *s)
{
	const char *sd = getenv("SYSTEMTAP_DIR"), *home = getenv("HOME");

	if (s->sign_keydir && *s->sign_keydir)
		return s->sign_keydir;
	if (sd && *sd)
		return arena_printf(s->arena, "%s/signing_key", sd);
	return arena_printf(s->arena, "%s/.systemtap/signing_key", home ? home : "");
}

/* KEYDIR's key pair, made when missing; false (reported) on failure. */
static bool have_key(struct session *s, const char *dir, const char *priv, const char *x509)
{
	char *const argv[] = {
		"openssl", "req", "-new", "-nodes", "-utf8", "-sha256", "-days", "36500",
		"-batch", "-x509", "-subj", "/CN=stap module signing key/",
		"-newkey", "rsa:2048", "-keyout", (char *)priv, "-outform", "DER",
		"-out", (char *)x509, NULL
	};

	if (path_exists(priv) && path_exists(x509))
		return true;
	if (mkdir(dir, 0700) && errno != EEXIST) {
		diag_plain(s, "cannot make the signing key directory %s: %s", dir, strerror(errno));
		return false;
	}
	if (run_logged(argv, NULL)) {
		diag_plain(s, "cannot make a module signing key in %s (openssl failed)", dir);
		return false;
	}
	if (s->verbose)
		fprintf(s->err, "Made the module signing key %s (enroll it with: mokutil --import %s)\n",
			x509, x509);
	return true;
}

/* The kernel's module signature hash (CONFIG_MODULE_SIG_HASH), else sha256. */
static const char *sig_hash(struct session *s)
{
	size_t len;
	char *cfg = read_file(arena_printf(s->arena, "%s/.config", s->kernel_build_dir), &len);
	const char *key = "\nCONFIG_MODULE_SIG_HASH=\"", *p;
	const char *hash = "sha256";

	if (cfg && (p = strstr(cfg, key))) {
		p += strlen(key);
		hash = arena_strndup(s->arena, p, strcspn(p, "\"\n"));
	}
	free(cfg);
	return hash;
}

int sign_module(struct session *s)
{
	const char *dir = key_dir(s);
	const char *priv = arena_printf(s->arena, "%s/signing_key.priv", dir);
	const char *x509 = arena_printf(s->arena, "%s/signing_key.x509", dir);
	const char *tool = arena_printf(s->arena, "%s/scripts/sign-file", s->kernel_build_dir);
	const char *ko = arena_printf(s->arena, "%s/%s.ko", s->tmpdir, s->module_name);
	const char *log = arena_printf(s->arena, "%s/sign.log", s->tmpdir);
	char *const argv[] = { (char *)tool, (char *)sig_hash(s), (char *)priv, (char *)x509,
			       (char *)ko, NULL };

	if (!have_key(s, dir, priv, x509))
		return 1;
	if (access(tool, X_OK)) {
		diag_plain(s, "cannot sign the module: %s is missing (the kernel's headers "
			   "package has it)", tool);
		return 1;
	}
	if (run_logged(argv, log)) {
		size_t len;
		char *text = read_file(log, &len);

		diag_plain(s, "cannot sign the module with %s: %s", priv, text ? text : "sign-file failed");
		free(text);
		return 1;
	}
	return 0;
}
