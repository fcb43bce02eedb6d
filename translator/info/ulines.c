/*
 * ulines.c - pass 3: the source line table of a user-space object, for
 * usymfile(), usymline(), usymfileline() and print_ubacktrace_fileline().
 *
 * Written only when the script calls one of them (their embedded C says
 * pragma:lines) and only from the object's own .debug_line (as SystemTap
 * 4.8, not from a separate debuginfo file). The rows of every CU's line
 * program (libdw's dwarf_getsrclines) are sorted by address and reduced
 * to the rows where the file or line changes, plus the ends of the
 * sequences (line 0: no line there). The module gets three arrays: the
 * link-time addresses, file << 20 | line per row, and the file names
 * (runtime/stp_usyms.h, looked up by runtime/ustack.c).
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <elfutils/libdw.h>

#include "ubin.h"

#define LINE_BITS 20
#define MAX_FILES 4096
#define MAX_ROWS (1u << 22)

struct lrow {
	uint64_t addr;
	const char *file;	/* NULL: end of a sequence */
	unsigned int line;
	size_t seq;		/* input order: the later row at one address wins */
};

struct lfiles {
	const char **names;
	int n;
};

static int cmp_row(const void *a, const void *b)
{
	const struct lrow *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	/* an end of sequence before the rows starting at the same address */
	if (!x->file != !y->file)
		return x->file ? 1 : -1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int file_index(struct session *s, struct lfiles *f, const char *name)
{
	for (int i = f->n - 1; i >= 0; i--)
		if (!strcmp(f->names[i], name))
			return i;
	if (f->n == MAX_FILES)
		return -1;
	if (!(f->n & (f->n - 1))) {
		const char **v = arena_alloc(s->arena, sizeof(*v) * (size_t)(f->n ? 2 * f->n : 8));

		if (f->n)
			memcpy(v, f->names, sizeof(*v) * (size_t)f->n);
		f->names = v;
	}
	f->names[f->n] = arena_strdup(s->arena, name);
	return f->n++;
}

/* Every row of every CU of dw, unsorted; their number. */
static size_t read_rows(Dwarf *dw, struct lrow **out)
{
	Dwarf_Off off = 0, next;
	size_t hsize, n = 0, cap = 0;
	struct lrow *rows = NULL;

	while (dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu;
		Dwarf_Lines *lines;
		size_t nl;

		if (dwarf_offdie(dw, off + hsize, &cu) &&
		    dwarf_getsrclines(&cu, &lines, &nl) == 0) {
			for (size_t i = 0; i < nl && n < MAX_ROWS; i++) {
				Dwarf_Line *l = dwarf_onesrcline(lines, i);
				Dwarf_Addr a;
				int line = 0;
				bool end = false;
				const char *src;

				if (!l || dwarf_lineaddr(l, &a) || dwarf_lineno(l, &line) ||
				    dwarf_lineendsequence(l, &end))
					continue;
				src = dwarf_linesrc(l, NULL, NULL);
				if (n == cap) {
					cap = cap ? 2 * cap : 1024;
					rows = realloc(rows, cap * sizeof(*rows));
					if (!rows)
						return 0;
				}
				rows[n] = (struct lrow){ a, end || !src || line <= 0 ? NULL : src,
							 (unsigned int)line, n };
				n++;
			}
		}
		off = next;
	}
	*out = rows;
	return n;
}

/* Sort, keep the last row at each address and only the rows that change
 * file or line; false if the table cannot be written (an address above
 * 4 GiB, too many files). */
static bool reduce_rows(struct session *s, struct lrow *rows, size_t *n, struct lfiles *f,
			unsigned int *info)
{
	size_t k = 0;

	qsort(rows, *n, sizeof(*rows), cmp_row);
	for (size_t i = 0; i < *n; i++) {
		if (k && rows[k - 1].addr == rows[i].addr)
			k--;
		rows[k++] = rows[i];
	}
	*n = k;
	k = 0;
	for (size_t i = 0; i < *n; i++) {
		unsigned int v = 0;

		if (rows[i].addr > 0xffffffffu)
			return false;
		if (rows[i].file) {
			int fi = file_index(s, f, rows[i].file);

			if (fi < 0)
				return false;
			v = (unsigned int)fi << LINE_BITS |
			    (rows[i].line < (1u << LINE_BITS) ? rows[i].line : 0);
		}
		if (k && info[k - 1] == v)
			continue;
		if (!k && !v)
			continue;
		rows[k] = rows[i];
		info[k++] = v;
	}
	*n = k;
	return k > 0;
}

static void emit_rows(struct strbuf *c, const struct lrow *rows, const unsigned int *info,
		      size_t n, const struct lfiles *f, int k)
{
	sb_printf(c, "static const unsigned int stp_uline_addr_%d[] = {", k);
	for (size_t i = 0; i < n; i++)
		sb_printf(c, "%s%#x,", i % 8 ? " " : "\n\t", (unsigned int)rows[i].addr);
	sb_printf(c, "\n};\nstatic const unsigned int stp_uline_info_%d[] = {", k);
	for (size_t i = 0; i < n; i++)
		sb_printf(c, "%s%#x,", i % 8 ? " " : "\n\t", info[i]);
	sb_printf(c, "\n};\nstatic const char *const stp_uline_file_%d[] = {", k);
	for (int i = 0; i < f->n; i++) {
		sb_puts(c, "\n\t");
		sb_c_string(c, f->names[i]);
		sb_puts(c, ",");
	}
	sb_puts(c, "\n};\n");
}

bool ulines_emit(struct session *s, struct strbuf *c, const char *path, int k, size_t *nrows)
{
	int fd = open(path, O_RDONLY);
	Dwarf *dw = fd < 0 ? NULL : dwarf_begin(fd, DWARF_C_READ);
	struct lrow *rows = NULL;
	struct lfiles f = { NULL, 0 };
	unsigned int *info;
	size_t n = dw ? read_rows(dw, &rows) : 0;
	bool ok = false;

	if (n) {
		info = arena_alloc(s->arena, n * sizeof(*info));
		ok = reduce_rows(s, rows, &n, &f, info);
		if (ok)
			emit_rows(c, rows, info, n, &f, k);
	}
	free(rows);
	if (dw)
		dwarf_end(dw);
	if (fd >= 0)
		close(fd);
	*nrows = ok ? n : 0;
	return ok;
}
