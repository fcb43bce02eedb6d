/*
 * fuzz_parse.c - libFuzzer target for pass 1: each input is lexed and
 * parsed as a user script (as `stap -p1 FILE` would), and on success the
 * AST is re-printed as -p1 does, then the whole session is freed. Built
 * with -fsanitize=fuzzer,address,undefined by testsuite/fuzz.sh; linked
 * with every translator source except main.c. Not part of `stap`.
 *
 * Diagnostics go to /dev/null; set FUZZ_PARSE_STDERR=1 to see them when
 * reproducing a crash (`fuzz_parse CRASH-FILE`).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ast.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* $1..$3 and @1..@3 resolve; $3 pastes several tokens. None contains a
 * $N itself: an argument "$1" makes the lexer paste $1 into itself until
 * the stack overflows (reported; to add here once the lexer refuses it). */
static const char *script_args[] = { "42", "hello world", "x + 1" };

static const char kconfig[] =
	"CONFIG_SMP=y\nCONFIG_X86_64=y\nCONFIG_HZ=250\n"
	"CONFIG_MODULES=y\nCONFIG_LOCALVERSION=\"\"\n# CONFIG_DEBUG_INFO is not set\n";

static FILE *null_stream(void)
{
	static FILE *f;

	if (!f) {
		f = getenv("FUZZ_PARSE_STDERR") ? stderr : fopen("/dev/null", "w");
		if (!f)
			abort();
	}
	return f;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct session s = { 0 };
	struct source src = { 0 };
	struct file_ast *ast;
	char *text;

	/* main.c reads files into a NUL-terminated copy (NULs inside stay) */
	text = malloc(size + 1);
	if (!text)
		return 0;
	if (size)
		memcpy(text, data, size);
	text[size] = '\0';

	s.arena = arena_new();
	s.err = null_stream();
	s.last_pass = 1;
	s.module_name = "stap_fuzz";
	/* what main.c's set_kernel() fills in, fixed so that %( kernel_v,
	 * arch and CONFIG_* conditions never read files */
	s.kernel_release = "6.1.0-0-amd64";
	s.kernel_build_dir = "/nonexistent";
	s.arch = "x86_64";
	s.kconfig = kconfig;
	s.script_args = script_args;
	s.nscript_args = (int)(sizeof(script_args) / sizeof(script_args[0]));

	src.name = "<fuzz>";
	src.text = text;
	src.len = size;
	s.user = &src;

	ast = parse_source(&s, &src);
	s.user_ast = ast;
	if (ast && !s.errors)
		ast_print_file(&s, s.err, ast);

	intern_free(&s);
	arena_free(s.arena);
	free(text);
	return 0;
}
