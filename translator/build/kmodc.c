/*
 * kmodc.c - the module's .mod.o without compiling its .mod.c (issue 17,
 * for kdirect.c). modpost writes the .mod.c: the kernel's headers (gcc
 * reads them for 0.1 s of CPU a module), then __this_module and the
 * .modinfo strings, which differ between modules only by the module's
 * name, and the __versions table (a CRC and a name for each kernel
 * symbol the module uses). Once per shape of .mod.c (its text without
 * the table's entries, and the command compiling it), gcc compiles it
 * to assembly with a placeholder name and one placeholder entry; that
 * assembly is kept beside kdirect's commands in
 * $SYSTEMTAP_DIR/cache/kbuild/. Later modules of the same shape get
 * their .mod.s from it (the name put in, the entry repeated for each
 * symbol, the sizes around them adjusted) and gcc assembles it: the
 * object is the one gcc makes from the .mod.c. Whatever does not match
 * the expected forms makes no template, and the .mod.c is compiled.
 */
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "build.h"

#define P_DIR "@STP_DIR@"
#define P_MOD "@STP_MOD@"
#define MOD_C P_DIR "/" P_MOD ".mod.c"
#define MOD_O_C "-c -o " P_DIR "/" P_MOD ".mod.o " MOD_C
/* placeholders of the longest name (MODULE_NAME_LEN - 1) */
#define PH_MOD "STPMODNAMEPLACEHOLDERXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX"
#define PH_SYM "STPSYMNAMEPLACEHOLDERXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX"
#define PH_CRC "305419896"	/* 0x12345678 */
#define VERSIONS "static const struct modversion_info ____versions[]"
/* shapes kept for one kernel tree: a .mod.c whose other parts differ
 * from module to module (a kernel's other form of the table) is not
 * compiled twice for every module for ever */
#define MAX_TEMPLATES 8

/* The .mod.c's __versions entries: [*begin, *end) of text, the lines
 * "\t{ 0x%x, \"%s\" },". False if the table is not in that form; no
 * table: *begin == *end == NULL. */
static bool versions_span(const char *text, const char **begin, const char **end)
{
	const char *v = strstr(text, VERSIONS), *p, *close;

	*begin = *end = NULL;
	if (!v)
		return true;
	if (!(p = strstr(v, "= {\n")) || !(close = strstr(p, "\n};\n")))
		return false;
	*begin = p + 4;
	*end = close + 1;
	return true;
}

static bool is_symbol(const char *p, size_t n)
{
	return n > 0 && n <= strlen(PH_SYM) && strspn(p, "abcdefghijklmnopqrstuvwxyz"
		"ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.") >= n;
}

/* the template's key: the .mod.c without its entries and the command */
static const char *template_path(struct session *s, const char *recipe, const char *line,
				 const char *text)
{
	const char *b, *e;
	struct sha256 h;
	char hex[65];

	if (!versions_span(text, &b, &e))
		return NULL;
	sha256_init(&h);
	sha256_update(&h, line, strlen(line) + 1);
	if (b) {
		sha256_update(&h, text, (size_t)(b - text));
		sha256_update(&h, e, strlen(e));
	} else {
		sha256_update(&h, text, strlen(text));
	}
	sha256_hex(&h, hex);
	return arena_printf(s->arena, "%s.%.16s.mod.s", recipe, hex);
}

/* run the recipe's line with its placeholders and "-c -o X.mod.o X.mod.c" replaced */
static int run_line(struct session *s, const char *kdir, const char *line, const char *mod,
		    const char *tail)
{
	struct strbuf cmd;
	const char *p = strstr(line, MOD_O_C), *q;
	pid_t pid;
	int status;

	if (!p || strchr(line, '\n') || strstr(line, "@STP_FLAGS@"))
		return -1;
	sb_init(&cmd);
	for (q = line; q < p;) {
		if (!strncmp(q, P_DIR, strlen(P_DIR))) {
			sb_puts(&cmd, s->tmpdir);
			q += strlen(P_DIR);
		} else if (!strncmp(q, P_MOD, strlen(P_MOD))) {
			sb_puts(&cmd, mod);
			q += strlen(P_MOD);
		} else {
			sb_putc(&cmd, *q++);
		}
	}
	sb_puts(&cmd, tail);
	sb_puts(&cmd, p + strlen(MOD_O_C));
	pid = fork();
	if (pid == 0) {
		if (chdir(kdir) < 0 || !freopen("/dev/null", "w", stdout) || dup2(1, 2) < 0)
			_exit(127);
		execl("/bin/sh", "sh", "-c", cmd.buf, (char *)NULL);
		_exit(127);
	}
	sb_free(&cmd);
	if (pid < 0 || waitpid(pid, &status, 0) < 0)
		return -1;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

/* the next line of *p (without its newline), or NULL at the end */
static const char *next_line(const char **p, size_t *n)
{
	const char *l = *p, *nl;

	if (!*l)
		return NULL;
	nl = strchr(l, '\n');
	*n = nl ? (size_t)(nl - l) : strlen(l);
	*p = nl ? nl + 1 : l + *n;
	return l;
}

static bool line_is(const char *l, size_t n, const char *what)
{
	return n == strlen(what) && !memcmp(l, what, n);
}

/* "\t.zero\tK" or "\t.size\tSYM, K": K, else -1 */
static long trailing_number(const char *l, size_t n, const char *prefix)
{
	char buf[128], *end;
	long k;

	if (n >= sizeof(buf) || n <= strlen(prefix) || strncmp(l, prefix, strlen(prefix)))
		return -1;
	memcpy(buf, l, n);
	buf[n] = '\0';
	end = strrchr(buf, ' ');
	end = end ? end : strrchr(buf, '\t');
	k = end ? strtol(end + 1, &end, 10) : -1;
	return end && !*end ? k : -1;
}

/*
 * A .string of len+1 bytes stood for one of plen+1 (a placeholder): the
 * lines it was in, the string's line already written to out, the rest
 * from *p. Either the string is an object of its own (label, then the
 * line: its .size, written before, is fixed in out at size_at) or a
 * field followed by padding (the next .zero grows, or one is added).
 */
static bool fix_string(struct strbuf *out, size_t size_at, const char **p, long plen, long len)
{
	const char *l, *save = *p;
	size_t n;
	long k;

	if (size_at != (size_t)-1) {
		/* out ends at the string's line; ".size SYM, K" is at size_at */
		char *size = out->buf + size_at, *eol = strchr(size, '\n'), *comma = eol, *rest;

		while (comma > size && *comma != ',')
			comma--;
		if (!eol || *comma != ',')
			return false;
		k = strtol(comma + 1, NULL, 10) + len - plen;
		rest = strdup(eol);
		if (!rest)
			return false;
		out->len = (size_t)(comma - out->buf);
		sb_printf(out, ", %ld", k);
		sb_puts(out, rest);
		free(rest);
		return true;
	}
	l = next_line(p, &n);
	k = l ? trailing_number(l, n, "\t.zero\t") : -1;
	if (k < 0) {
		*p = save;
		k = 0;
	}
	if (k + plen - len > 0)
		sb_printf(out, "\t.zero\t%ld\n", k + plen - len);
	return true;
}

/*
 * The .mod.s of module mod from the template tmpl, the entries from the
 * .mod.c's lines [b, e). NULL where the template or an entry is not in
 * the forms known.
 */
static char *instantiate(const char *tmpl, const char *mod, const char *b, const char *e)
{
	const char *p = tmpl, *l, *label = NULL, *q;
	size_t n, label_n = 0, size_at = (size_t)-1;
	long nsyms = 0, plen = (long)strlen(PH_MOD), mlen = (long)strlen(mod);
	bool ok = true, entry = false;
	struct strbuf out;

	for (q = b; q && q < e; q = strchr(q, '\n') + 1)
		nsyms++;
	sb_init(&out);
	while (ok && (l = next_line(&p, &n))) {
		const char *ph = memmem(l, n, PH_MOD, strlen(PH_MOD));

		if (line_is(l, n, "\t.quad\t" PH_CRC)) {
			const char *s = next_line(&p, &n);

			ok = entry == false && s && line_is(s, n, "\t.string\t\"" PH_SYM "\"");
			entry = true;
			for (q = b; ok && q < e; q = strchr(q, '\n') + 1) {
				unsigned long crc;
				const char *name = strchr(q, '"'), *close = name ? strchr(name + 1, '"') : NULL;
				const char *save = p;

				ok = sscanf(q, "\t{ %lx,", &crc) == 1 && close &&
				     is_symbol(name + 1, (size_t)(close - name - 1));
				if (!ok)
					break;
				sb_printf(&out, "\t.quad\t%lu\n\t.string\t\"%.*s\"\n", crc,
					  (int)(close - name - 1), name + 1);
				fix_string(&out, (size_t)-1, &p, (long)strlen(PH_SYM),
					   (long)(close - name - 1));
				if (strchr(q, '\n') + 1 < e)
					p = save;
			}
			ok = ok && nsyms > 0;
			continue;
		}
		if (!strncmp(l, "\t.size\t____versions, ", strlen("\t.size\t____versions, "))) {
			long k = trailing_number(l, n, "\t.size\t");

			ok = k > 0 && nsyms > 0;
			sb_printf(&out, "\t.size\t____versions, %ld\n", k * nsyms);
			continue;
		}
		if (n > 7 && !strncmp(l, "\t.size\t", 7))
			size_at = out.len;
		if (!ph) {
			if (n && l[n - 1] == ':') {
				label = l;
				label_n = n;
			} else if (strncmp(l, "\t.size\t", 7) && strncmp(l, "\t.type\t", 7)) {
				label = NULL;
			}
			sb_putn(&out, l, n);
			sb_putc(&out, '\n');
			continue;
		}
		/* the placeholder: once in the line, in .file or a .string */
		ok = !memmem(ph + 1, n - (size_t)(ph + 1 - l), PH_MOD, strlen(PH_MOD));
		sb_putn(&out, l, (size_t)(ph - l));
		sb_puts(&out, mod);
		sb_putn(&out, ph + plen, n - (size_t)(ph + plen - l));
		sb_putc(&out, '\n');
		if (!strncmp(l, "\t.file\t", 7))
			continue;
		ok = ok && !strncmp(l, "\t.string\t\"", 10) && l[n - 1] == '"';
		if (!ok)
			break;
		if (label) {
			/* a whole object: its .size, between its label and the
			 * .type before it, is the string's */
			const char *sz = size_at != (size_t)-1 ? out.buf + size_at : "";
			long k = trailing_number(sz, strcspn(sz, "\n"), "\t.size\t");

			ok = k == (long)(n - 10) && !strncmp(sz + 7, label, label_n - 1);
			ok = ok && fix_string(&out, size_at, &p, plen, mlen);
		} else {
			ok = fix_string(&out, (size_t)-1, &p, plen, mlen);
		}
		label = NULL;
	}
	if (!ok || entry != (b != NULL)) {
		sb_free(&out);
		return NULL;
	}
	return out.buf;
}

/* the recipe's .mod.o line, placeholders kept: a pointer into recipe */
const char *kmodc_line(const char *recipe, size_t *n)
{
	const char *p = strstr(recipe, MOD_O_C), *l;

	if (!p)
		return NULL;
	for (l = p; l > recipe && l[-1] != '\n'; l--)
		;
	*n = strcspn(l, "\n");
	return l;
}

int kmodc_build(struct session *s, const char *recipe, const char *kdir, const char *line)
{
	const char *mod = s->module_name, *b, *e, *path;
	char *text, *tmpl, *out = NULL;
	size_t len;
	int rc = -1;

	if ((size_t)strspn(mod, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") !=
	    strlen(mod) || strlen(mod) > strlen(PH_MOD))
		return -1;
	text = read_file(arena_printf(s->arena, "%s/%s.mod.c", s->tmpdir, mod), &len);
	path = text ? template_path(s, recipe, line, text) : NULL;
	tmpl = path ? read_file(path, &len) : NULL;
	if (tmpl && versions_span(text, &b, &e) && !(out = instantiate(tmpl, mod, b, e))) {
		unlink(path);	/* kmodc_learn() makes it again */
	} else if (tmpl && out) {
		const char *s_path = arena_printf(s->arena, "%s/%s.mod.s", s->tmpdir, mod);

		if (write_file(s_path, out, strlen(out)) == 0)
			rc = run_line(s, kdir, line, mod,
				      arena_printf(s->arena, "-c -o %s/%s.mod.o %s", s->tmpdir,
						   mod, s_path));
		free(out);
	}
	free(tmpl);
	free(text);
	return rc;
}

/* the templates kept for a recipe */
static size_t templates(struct session *s, const char *recipe)
{
	glob_t g;
	size_t n;

	if (glob(arena_printf(s->arena, "%s.*.mod.s", recipe), GLOB_NOSORT, NULL, &g))
		return 0;
	n = g.gl_pathc;
	globfree(&g);
	return n;
}

void kmodc_learn(struct session *s, const char *recipe, const char *kdir, const char *line)
{
	const char *mod = s->module_name, *b, *e, *path, *c_path, *s_path, *tmp;
	char *text, *tmpl = NULL, *out = NULL;
	struct strbuf c;
	size_t len;

	text = read_file(arena_printf(s->arena, "%s/%s.mod.c", s->tmpdir, mod), &len);
	path = text ? template_path(s, recipe, line, text) : NULL;
	if (!path || access(path, F_OK) == 0 || !versions_span(text, &b, &e) ||
	    templates(s, recipe) >= MAX_TEMPLATES) {
		free(text);
		return;
	}
	sb_init(&c);
	if (b) {
		sb_putn(&c, text, (size_t)(b - text));
		sb_puts(&c, "\t{ 0x12345678, \"" PH_SYM "\" },\n");
		sb_puts(&c, e);
	} else {
		sb_puts(&c, text);
	}
	c_path = arena_printf(s->arena, "%s/" PH_MOD ".mod.c", s->tmpdir);
	s_path = arena_printf(s->arena, "%s/" PH_MOD ".mod.s", s->tmpdir);
	if (write_file(c_path, c.buf, c.len) == 0 &&
	    run_line(s, kdir, line, PH_MOD, arena_printf(s->arena, "-S -o %s %s", s_path,
							  c_path)) == 0)
		tmpl = read_file(s_path, &len);
	/* kept only if it makes this module's .mod.s */
	if (tmpl && (out = instantiate(tmpl, mod, b, e))) {
		tmp = arena_printf(s->arena, "%s.%d.tmp", path, (int)getpid());
		if (write_file(tmp, tmpl, strlen(tmpl)) < 0 || rename(tmp, path) < 0)
			unlink(tmp);
	}
	free(out);
	free(tmpl);
	sb_free(&c);
	free(text);
}
