/*
 * arena.c - the session arena: bump allocation in large chunks, all freed
 * together by arena_free(). Every AST node, symbol and string of a session
 * lives here; nothing is freed one at a time. Out of memory is fatal for
 * the translator, so allocation never returns NULL (abort() on failure).
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "stap.h"

#define CHUNK_SIZE (256 * 1024)

struct chunk {
	struct chunk *next;
	size_t used, size;
	_Alignas(16) unsigned char data[];
};

struct arena {
	struct chunk *head;
};

static void *xcalloc(size_t n)
{
	void *p = calloc(1, n);

	if (!p) {
		fputs("stap: out of memory\n", stderr);
		abort();
	}
	return p;
}

struct arena *arena_new(void)
{
	return xcalloc(sizeof(struct arena));
}

void arena_free(struct arena *a)
{
	struct chunk *c, *next;

	if (!a)
		return;
	for (c = a->head; c; c = next) {
		next = c->next;
		free(c);
	}
	free(a);
}

void *arena_alloc(struct arena *a, size_t n)
{
	struct chunk *c = a->head;
	size_t need = (n + 15) & ~(size_t)15;
	void *p;

	if (!c || c->size - c->used < need) {
		size_t size = need > CHUNK_SIZE ? need : CHUNK_SIZE;

		c = xcalloc(sizeof(*c) + size);
		c->size = size;
		c->next = a->head;
		a->head = c;
	}
	p = c->data + c->used;
	c->used += need;
	return p;
}

char *arena_strndup(struct arena *a, const char *p, size_t n)
{
	char *d = arena_alloc(a, n + 1);

	memcpy(d, p, n);
	d[n] = '\0';
	return d;
}

char *arena_strdup(struct arena *a, const char *p)
{
	return arena_strndup(a, p, strlen(p));
}

char *arena_printf(struct arena *a, const char *fmt, ...)
{
	va_list ap;
	int n;
	char *d;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	d = arena_alloc(a, (size_t)n + 1);
	va_start(ap, fmt);
	vsnprintf(d, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return d;
}
