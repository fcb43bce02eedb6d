/*
 * usyms.c - pass 3: symbol and unwind tables of user-space objects.
 *
 * `-d BINARY` names an ELF program or library whose symbols and unwind
 * information the module must carry (`--ldd` adds the shared libraries
 * those need); info/uobjs.c finds them and reads each one's symbols, load
 * segments and .eh_frame / .eh_frame_hdr sections, and this writes them
 * into the module source as constant tables (`struct stp_umod`, see
 * runtime/stp_usyms.h) that runtime/ustack.c uses to unwind and name user
 * addresses.  Nothing is written when no user object was named.
 */
#include <string.h>

#include "translate.h"
#include "ubin.h"

/* Bytes as a C string literal (octal escapes never run into a digit). */
static void emit_bytes(struct strbuf *c, const unsigned char *p, size_t n)
{
	sb_puts(c, "\"");
	for (size_t i = 0; i < n; i++) {
		sb_printf(c, "\\%03o", p[i]);
		if (i % 32 == 31 && i + 1 < n)
			sb_puts(c, "\"\n\"");
	}
	sb_puts(c, "\"");
}

static void emit_uobj(struct session *s, struct strbuf *c, struct uobj *o, int k,
		      bool lines)
{
	if (lines)
		ulines_emit(s, c, o->path, k, &o->nlines);
	sb_printf(c, "static const unsigned long stp_usym_addr_%d[] = {", k);
	for (size_t i = 0; i < o->nsyms; i++)
		sb_printf(c, "%s%#lx,", i % 8 ? " " : "\n\t", (unsigned long)o->syms[i].addr);
	sb_printf(c, " 0 };\nstatic const char *const stp_usym_name_%d[] = {", k);
	for (size_t i = 0; i < o->nsyms; i++) {
		sb_puts(c, "\n\t");
		sb_c_string(c, o->syms[i].name);
		sb_puts(c, ",");
	}
	sb_printf(c, " NULL };\nstatic const struct stp_useg stp_useg_%d[] = {", k);
	for (int i = 0; i < o->nsegs; i++)
		sb_printf(c, " { %#lx, %#lx, %#lx },", (unsigned long)o->seg[i][0],
			  (unsigned long)o->seg[i][1], (unsigned long)o->seg[i][2]);
	sb_puts(c, " { 0, 0, 0 } };\n");
	if (o->eh && o->hdr) {
		sb_printf(c, "static const unsigned char stp_ueh_%d[] =\n", k);
		emit_bytes(c, o->eh, o->eh_len);
		sb_printf(c, ";\nstatic const unsigned char stp_uehdr_%d[] =\n", k);
		emit_bytes(c, o->hdr, o->hdr_len);
		sb_puts(c, ";\n");
	}
}

static void emit_table(struct strbuf *c, const struct uobj *objs, int n)
{
	sb_printf(c, "#define STP_NUMODS %d\nstatic const struct stp_umod stp_umods[STP_NUMODS] = {\n", n);
	for (int k = 0; k < n; k++) {
		const struct uobj *o = &objs[k];
		const char *base = strrchr(o->path, '/');

		sb_puts(c, "\t{ .path = ");
		sb_c_string(c, o->path);
		sb_puts(c, ", .name = ");
		sb_c_string(c, base ? base + 1 : o->path);
		sb_printf(c, ", .file_size = %#lx, .is_dyn = %d,\n\t  .segs = stp_useg_%d, "
			  ".nsegs = %d, .sym_addr = stp_usym_addr_%d, .sym_name = stp_usym_name_%d,"
			  " .nsyms = %zu, .sym_end = %#lx,\n",
			  (unsigned long)o->file_size, o->is_dyn, k, o->nsegs, k, k,
			  o->nsyms, (unsigned long)o->sym_end);
		if (o->nlines)
			sb_printf(c, "\t  .line_addr = stp_uline_addr_%d, .line_info = stp_uline_info_%d,"
				  " .line_file = stp_uline_file_%d, .nlines = %zu,\n", k, k, k,
				  o->nlines);
		if (o->eh && o->hdr)
			sb_printf(c, "\t  .eh = stp_ueh_%d, .eh_len = %zu, .eh_addr = %#lx, "
				  ".hdr = stp_uehdr_%d, .hdr_len = %zu, .hdr_addr = %#lx },\n",
				  k, o->eh_len, (unsigned long)o->eh_addr, k, o->hdr_len,
				  (unsigned long)o->hdr_addr);
		else
			sb_puts(c, "\t},\n");
	}
	sb_puts(c, "};\n\n");
}

/* Does the script look up source lines (a function with pragma:lines)? */
static bool ulines_wanted(struct session *s)
{
	for (struct func *f = s->funcs; f; f = f->next_used)
		if (f->body && f->body->kind == N_EMBEDDED_STMT && f->body->str &&
		    strstr(f->body->str, "pragma:lines"))
			return true;
	return false;
}


void usyms_emit(struct session *s, struct strbuf *c)
{
	const char *paths[UOBJ_MAX], *bins[UOBJ_MAX];
	struct uobj *objs;
	bool lines;
	int n = 0, np = uobjs_collect(s, bins, rp_binaries(s, bins, UOBJ_MAX), paths, true);

	if (!np)
		return;
	objs = arena_alloc(s->arena, np * sizeof(*objs));
	for (int i = 0; i < np; i++)
		if (uobj_read(s, paths[i], &objs[n]))
			n++;
	if (!n)
		return;
	sb_puts(c, "#include \"stp_usyms.h\"\n");
	lines = ulines_wanted(s);
	for (int k = 0; k < n; k++)
		emit_uobj(s, c, &objs[k], k, lines);
	emit_table(c, objs, n);
}

int usyms_objects(struct session *s, const char **paths, int max)
{
	const char *all[UOBJ_MAX], *bins[UOBJ_MAX];
	int n = uobjs_collect(s, bins, rp_binaries(s, bins, UOBJ_MAX), all, false);

	for (int i = 0; i < n && i < max; i++)
		paths[i] = all[i];
	return n < max ? n : max;
}
