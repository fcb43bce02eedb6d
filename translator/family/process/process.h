/*
 * process.h - inside the process family (family/process/): points.c
 * resolves process("PATH") and module("M")-with-DWARF points, probes.c
 * fills and writes their probes (uprobes, or kprobes in a module),
 * events.c the process events (begin, end, thread, syscall).
 */
#ifndef PROCESS_H
#define PROCESS_H

#include "family.h"

/* Fill point rp (just added): a function (how 0 plain, 1 .call, 2
 * .return), a statement at addr inside f, an SDT marker. */
void uprobe_fill_function(struct session *s, struct rprobe *rp, struct ubin *b,
			  const struct ufunc *f, int how);
void uprobe_fill_statement(struct session *s, struct rprobe *rp, struct ubin *b,
			   const struct ufunc *f, const char *spec, uint64_t addr);
void uprobe_fill_mark(struct session *s, struct rprobe *rp, struct ubin *b,
		      const struct usdt *m);
/* .function("F").label("L"): the label l of f. */
void uprobe_fill_label(struct session *s, struct rprobe *rp, struct ubin *b,
		       const struct ufunc *f, const struct ulabel *l);
/* .function("F").callee("G")[.call]: G's entry when called from one of the
 * n call sites of F in calls (all calling the same function). */
void uprobe_fill_callee(struct session *s, struct rprobe *rp, struct ubin *b,
			const struct ufunc *f, const struct ucall *calls, size_t n,
			bool call);
/* A PLT entry (.plt("NAME")): pp() is the statement at its address, $$name
 * the function. */
void uprobe_fill_plt(struct session *s, struct rprobe *rp, struct ubin *b,
		     const struct uplt *p);
/* pn() of rp when it is not pp() (the point as -l lists it, without marks). */
void uprobe_set_pn(struct rprobe *rp, const char *pn);
const char *uprobe_pn(const struct rprobe *rp);

/* process("PATH"), module("M") as written, or kernel (vmlinux) */
const char *uprobe_point_prefix(struct session *s, struct ubin *b);

/* points.c: the family's resolve */
void process_resolve(struct resolver *r, const struct pp_comp *c);

#endif /* PROCESS_H */
