/*
 * tr_kernel.h - kernel probes (kprobes, kretprobes, tracepoints) and their
 * target variables: the pass-2 check (elaborate.c) and the pass-3 code
 * (translate.c), in tr_kernel.c.
 */
#ifndef TR_KERNEL_H
#define TR_KERNEL_H

#include "stap.h"

struct gen;

/* Pass 2: check the target variable n ($name, $$parms...) used in probe p
 * (NULL in a function) against every resolved point of p; sets n->type. */
void elab_target(struct session *s, struct probe *p, struct node *n,
		 bool written);
enum type elab_target_type(const struct node *n);
bool elab_target_defined(struct session *s, struct probe *p,
			 const struct node *n);

/* Pass 3: the value of the target variable n in a handler. */
const char *tr_target(struct gen *g, struct node *n);
/* Pass 3: write r's probe table entry (and any code it needs) when r is a
 * kernel probe (RP_KFUNC, RP_KPROBE, RP_TRACEPOINT); false otherwise. */
bool tr_kernel_probe(struct gen *g, struct strbuf *code, struct strbuf *table,
		     const struct rprobe *r);

#endif /* TR_KERNEL_H */
