/*
 * elaborate.h - what pass 2's files share: the scope a name is resolved
 * in (resolve.c), the type inference entry point (types.c), used by the
 * pass's driver (elaborate.c).
 */
#ifndef ELABORATE_H
#define ELABORATE_H

#include "elab.h"

struct scope {
	struct var **locals;	/* the probe's or function's local list */
	struct func *func;	/* NULL in a probe */
	struct probe *probe;
};

/* resolve.c */
void resolve_append_global(struct session *s, struct var *v);
void resolve_probe_points(struct session *s, struct probe *p);
void resolve_probe(struct session *s, struct probe *p);
bool resolve_is_hist_bucket(const struct node *n);

/* types.c */
void types_infer(struct session *s);

#endif /* ELABORATE_H */
