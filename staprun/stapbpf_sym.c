/*
 * stapbpf_sym.c - the BPF loader's kernel symbols: print_backtrace()'s
 * records (the addresses bpf_get_stack() found) printed a line a frame as
 * the module runtime's runtime/sym.c prints them,
 * " 0xADDR : name+0xoff/0xsize [module]" ("kernel" for the kernel), from
 * /proc/kallsyms (read at the first backtrace). A symbol's size reaches
 * the next higher address, and of several names at one address the first
 * listed is taken, as the kernel's sprint_symbol() does.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stapbpf_sym.h"

struct stapbpf_ksym {
	uint64_t addr;
	size_t order;		/* its line: the first of aliases wins */
	char *name, *mod;
};

static int cmp(const void *a, const void *b)
{
	const struct stapbpf_ksym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

static void load(struct stapbpf_ksyms *K)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	char line[512], name[256], mod[128];
	size_t cap = 0;
	uint64_t a;
	char t;

	K->loaded = 1;
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		int k;

		mod[0] = 0;
		k = sscanf(line, "%" SCNx64 " %c %255s [%127[^]]]", &a, &t, name, mod);
		if (k < 3 || !a)
			continue;
		if (K->nsyms == cap) {
			struct stapbpf_ksym *n;

			cap = cap ? 2 * cap : 65536;
			n = realloc(K->syms, cap * sizeof(*n));
			if (!n)
				break;
			K->syms = n;
		}
		K->syms[K->nsyms].addr = a;
		K->syms[K->nsyms].order = K->nsyms;
		K->syms[K->nsyms].name = strdup(name);
		K->syms[K->nsyms].mod = strdup(mod[0] ? mod : "kernel");
		if (!K->syms[K->nsyms].name || !K->syms[K->nsyms].mod)
			break;
		K->nsyms++;
	}
	fclose(f);
	qsort(K->syms, K->nsyms, sizeof(*K->syms), cmp);
}

/* the symbol holding addr and the next higher address, or NULL */
static const struct stapbpf_ksym *lookup(const struct stapbpf_ksyms *K, uint64_t addr,
					  uint64_t *end)
{
	size_t lo = 0, hi = K->nsyms, i;

	while (lo < hi) {	/* the first symbol above addr */
		size_t mid = lo + (hi - lo) / 2;

		if (K->syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || lo == K->nsyms)
		return NULL;
	*end = K->syms[lo].addr;
	i = lo - 1;
	while (i && K->syms[i - 1].addr == K->syms[i].addr)
		i--;
	return &K->syms[i];
}

static void frame(const struct stapbpf_ksyms *K, FILE *out, uint64_t pc)
{
	uint64_t end;
	const struct stapbpf_ksym *s = lookup(K, pc, &end);

	if (!s)
		fprintf(out, " 0x%" PRIx64 "\n", pc);
	else
		fprintf(out, " 0x%" PRIx64 " : %s+0x%" PRIx64 "/0x%" PRIx64 " [%s]\n",
			pc, s->name, pc - s->addr, end - s->addr, s->mod);
}

void stapbpf_print_backtrace(struct stapbpf_ksyms *K, FILE *out, const uint64_t *pcs, size_t n, uint64_t from)
{
	if (!K->loaded)
		load(K);
	if (from && n) {
		fputs("Returning from: ", out);
		frame(K, out, from);
		fputs("Returning to  : ", out);
	}
	for (size_t i = 0; i < n; i++)
		frame(K, out, pcs[i]);
}
