/*
 * kdwarf.c - kernel modules read through their own DWARF (a .ko built
 * with -g): the module's .ko opened with libdwfl (ubin.c), so that
 * module("M").function(), .statement("F@FILE:N") and inlined instances
 * resolve as the process family does (uprobes.c places and emits them as
 * kprobes on "M:function+offset"), and the module symbols the generated
 * code needs at run time (a static variable's address, DW_OP_addr), which
 * the runtime resolves when the session starts (stp_ksym()).
 */
#include <stdlib.h>
#include <string.h>

#include "ubin.h"
#include "kcatalog.h"

int kdwarf_ksym_index(struct session *s, const char *name)
{
	for (int i = 0; i < s->nksyms; i++)
		if (!strcmp(s->ksyms[i], name))
			return i;
	if (s->nksyms == s->capksyms) {
		const char **v = arena_alloc(s->arena, sizeof(*v) * (size_t)(s->capksyms * 2 + 8));

		if (s->nksyms)
			memcpy(v, s->ksyms, sizeof(*v) * (size_t)s->nksyms);
		s->ksyms = v;
		s->capksyms = s->capksyms * 2 + 8;
	}
	s->ksyms[s->nksyms] = name;
	return s->nksyms++;
}

/* Before the runtime: the names of stp_ksym()'s symbols. */
void kdwarf_emit_ksyms(struct session *s, struct strbuf *c)
{
	if (!s->nksyms)
		return;
	sb_printf(c, "#define STP_NKSYMS %d\nstatic const char *const stp_ksym_names[STP_NKSYMS] = {\n",
		  s->nksyms);
	for (int i = 0; i < s->nksyms; i++)
		sb_printf(c, "\t\"%s\",\n", s->ksyms[i]);
	sb_puts(c, "};\n");
	s->ksyms = NULL;
	s->nksyms = s->capksyms = 0;
}

/*
 * The module `spec` names ("name" from modules.dep, or "/path/to/m.ko"),
 * opened with its DWARF, labelled as written for pp(); NULL when it is
 * unknown or has no DWARF (the caller uses its BTF).
 */
struct ubin *kdwarf_module(struct session *s, const char *spec)
{
	const char **names;
	const char *path;
	struct ubin *b;

	if (kmod_match_modules(s, spec, &names) != 1)
		return NULL;
	path = kmod_path(s, names[0]);
	if (!path)
		return NULL;
	b = ubin_open_kmod(s, path, names[0]);
	if (b)
		ubin_set_label(b, spec);
	return b;
}
