/*
 * netfilter.c - the netfilter family, passes 2 and 3:
 * netfilter.hook("HOOK").pf("PF")[.priority("PRI")] (or .pf().hook()) is
 * a netfilter hook function the runtime (runtime/netfilter.c) registers
 * in the initial network namespace. Without guru mode only the names
 * SystemTap 4.8 knows are accepted: the protocol families, each family's
 * hooks and, for IPv4 and IPv6, the named priorities (a priority may
 * also be a decimal number). The names are turned into numbers here, so
 * the module needs none of the kernel's netfilter headers; in guru mode
 * anything else goes into the C code as written, as in 4.8.
 *
 * Context variables: $hooknum, $skb, $in, $out, $okfn (read only) and
 * $verdict (guru mode only; what the hook returns, NF_ACCEPT unless the
 * handler assigns another verdict).
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/btf.h>

#include "family.h"

struct nf_name {
	const char *name;
	long long value;
};

static const struct nf_name nf_families[] = {
	{ "NFPROTO_IPV4", 2 }, { "NFPROTO_ARP", 3 }, { "NFPROTO_BRIDGE", 7 },
	{ "NFPROTO_IPV6", 10 }, { NULL, 0 }
};

static const struct nf_name nf_ipv4_hooks[] = {
	{ "NF_INET_PRE_ROUTING", 0 }, { "NF_INET_LOCAL_IN", 1 },
	{ "NF_INET_FORWARD", 2 }, { "NF_INET_LOCAL_OUT", 3 },
	{ "NF_INET_POST_ROUTING", 4 },
	{ "NF_IP_PRE_ROUTING", 0 }, { "NF_IP_LOCAL_IN", 1 },
	{ "NF_IP_FORWARD", 2 }, { "NF_IP_LOCAL_OUT", 3 },
	{ "NF_IP_POST_ROUTING", 4 }, { NULL, 0 }
};

static const struct nf_name nf_ipv6_hooks[] = {
	{ "NF_IP6_PRE_ROUTING", 0 }, { "NF_IP6_LOCAL_IN", 1 },
	{ "NF_IP6_FORWARD", 2 }, { "NF_IP6_LOCAL_OUT", 3 },
	{ "NF_IP6_POST_ROUTING", 4 }, { NULL, 0 }
};

static const struct nf_name nf_arp_hooks[] = {
	{ "NF_ARP_IN", 0 }, { "NF_ARP_OUT", 1 }, { "NF_ARP_FORWARD", 2 },
	{ NULL, 0 }
};

static const struct nf_name nf_bridge_hooks[] = {
	{ "NF_BR_PRE_ROUTING", 0 }, { "NF_BR_LOCAL_IN", 1 },
	{ "NF_BR_FORWARD", 2 }, { "NF_BR_LOCAL_OUT", 3 },
	{ "NF_BR_POST_ROUTING", 4 }, { NULL, 0 }
};

/* enum nf_ip_hook_priorities of <linux/netfilter_ipv4.h> */
static const struct nf_name nf_ipv4_prios[] = {
	{ "NF_IP_PRI_FIRST", INT_MIN }, { "NF_IP_PRI_CONNTRACK_DEFRAG", -400 },
	{ "NF_IP_PRI_RAW", -300 }, { "NF_IP_PRI_SELINUX_FIRST", -225 },
	{ "NF_IP_PRI_CONNTRACK", -200 }, { "NF_IP_PRI_MANGLE", -150 },
	{ "NF_IP_PRI_NAT_DST", -100 }, { "NF_IP_PRI_FILTER", 0 },
	{ "NF_IP_PRI_SECURITY", 50 }, { "NF_IP_PRI_NAT_SRC", 100 },
	{ "NF_IP_PRI_SELINUX_LAST", 225 }, { "NF_IP_PRI_CONNTRACK_CONFIRM", INT_MAX },
	{ "NF_IP_PRI_LAST", INT_MAX }, { NULL, 0 }
};

/* enum nf_ip6_hook_priorities of <linux/netfilter_ipv6.h> */
static const struct nf_name nf_ipv6_prios[] = {
	{ "NF_IP6_PRI_FIRST", INT_MIN }, { "NF_IP6_PRI_CONNTRACK_DEFRAG", -400 },
	{ "NF_IP6_PRI_RAW", -300 }, { "NF_IP6_PRI_SELINUX_FIRST", -225 },
	{ "NF_IP6_PRI_CONNTRACK", -200 }, { "NF_IP6_PRI_MANGLE", -150 },
	{ "NF_IP6_PRI_NAT_DST", -100 }, { "NF_IP6_PRI_FILTER", 0 },
	{ "NF_IP6_PRI_SECURITY", 50 }, { "NF_IP6_PRI_NAT_SRC", 100 },
	{ "NF_IP6_PRI_SELINUX_LAST", 225 }, { "NF_IP6_PRI_LAST", INT_MAX },
	{ NULL, 0 }
};

static const struct nf_name *nf_find(const struct nf_name *t, const char *name)
{
	for (; t && t->name; t++)
		if (!strcmp(t->name, name))
			return t;
	return NULL;
}

/* A whole decimal int, as 4.8 reads a priority (leading blanks, a sign). */
static bool nf_decimal(const char *s, long long *v)
{
	char *end;

	errno = 0;
	*v = strtoll(s, &end, 10);
	return *s && !*end && end != s && !errno && *v >= INT_MIN && *v <= INT_MAX;
}

static const char *nf_num(struct session *s, long long v)
{
	if (v == INT_MIN)
		return "INT_MIN";
	if (v == INT_MAX)
		return "INT_MAX";
	return arena_printf(s->arena, "%lld", v);
}

const char *nf_resolve(struct session *s, const char *hook, const char *pf,
		       const char *prio, struct rprobe *rp)
{
	const struct nf_name *f = nf_find(nf_families, pf), *h = NULL, *q = NULL;
	const struct nf_name *hooks = NULL, *prios = NULL;
	long long n;

	if (!f && !s->guru)
		return arena_printf(s->arena, "unsupported netfilter protocol family \"%s\"; need stap -g",
				    pf);
	if (f) {
		switch (f->value) {
		case 2: hooks = nf_ipv4_hooks; prios = nf_ipv4_prios; break;
		case 10: hooks = nf_ipv6_hooks; prios = nf_ipv6_prios; break;
		case 3: hooks = nf_arp_hooks; break;
		default: hooks = nf_bridge_hooks; break;
		}
	}
	h = nf_find(hooks, hook);
	/* guru mode with a family of its own: any family's names still
	 * stand for their numbers (the module has no netfilter headers) */
	for (int i = 0; !f && !h && i < 4; i++)
		h = nf_find((const struct nf_name *[]){ nf_ipv4_hooks, nf_ipv6_hooks,
						 nf_arp_hooks, nf_bridge_hooks }[i], hook);
	if (!f && prio && !nf_find(nf_ipv4_prios, prio))
		prios = nf_ipv6_prios;
	else if (!f)
		prios = nf_ipv4_prios;
	if (!h && !s->guru)
		return arena_printf(s->arena, "unsupported netfilter hook \"%s\" for protocol family \"%lld\"; need stap -g",
				    hook, f->value);
	if (prio && !(q = nf_find(prios, prio)) && !nf_decimal(prio, &n) && !s->guru)
		return arena_printf(s->arena, "unsupported netfilter priority \"%s\" for protocol family \"%lld\"; need stap -g",
				    prio, f->value);
	rp->nf_pf = f ? nf_num(s, f->value) : pf;
	rp->nf_hook = h ? nf_num(s, h->value) : hook;
	rp->nf_priority = !prio ? "0" : q ? nf_num(s, q->value) :
			  nf_decimal(prio, &n) ? nf_num(s, n) : prio;
	return NULL;
}

/* ---- context variables ---- */

static const char *const nf_vars[] = { "hooknum", "skb", "in", "out", "okfn", "verdict" };
#define NF_NVARS 6
#define NF_VERDICT 5

/* A BTF pointer to struct `name`, or 0. */
static unsigned int nf_ptr_to(const struct btf *btf, const char *name)
{
	__s32 id = btf__find_by_name_kind(btf, name, BTF_KIND_STRUCT);
	unsigned int n = btf__type_cnt(btf);

	if (id <= 0)
		return 0;
	for (unsigned int i = 1; i < n; i++) {
		const struct btf_type *t = btf__type_by_id(btf, i);

		if (btf_is_ptr(t) && t->type == (unsigned int)id)
			return i;
	}
	return 0;
}

/* The netfilter points' context variables, typed from the kernel's BTF
 * ($skb a struct sk_buff *, $in and $out struct net_device *). */
const struct kcat_arg *nf_args(struct session *s, int *n)
{
	struct kcat_arg *args = arena_alloc(s->arena, sizeof(*args) * NF_NVARS);
	struct kcatalog *kc;
	const struct btf *btf;

	*n = NF_NVARS;
	for (int i = 0; i < NF_NVARS; i++)
		args[i].name = nf_vars[i];
	args[0].type = "unsigned int";
	args[1].type = "struct sk_buff*";
	args[2].type = args[3].type = "struct net_device*";
	args[4].type = "void*";
	args[5].type = "long int";
	kc = kernel_catalog(s);
	btf = kc ? kcat_btf(kc) : NULL;
	if (!btf)
		return args;
	args[1].btf = args[2].btf = args[3].btf = btf;
	args[1].type_id = nf_ptr_to(btf, "sk_buff");
	args[2].type_id = args[3].type_id = nf_ptr_to(btf, "net_device");
	return args;
}

/* Where $name comes from at a netfilter point: the hook's arguments,
 * collected by the runtime in this order. */
static struct targ nf_targ(struct session *s, const struct rprobe *r, const char *name)
{
	struct targ t = { .src = -1, .why = "unsupported context variable" };

	(void)s;
	(void)r;
	for (int i = 0; i < NF_NVARS; i++) {
		if (strcmp(nf_vars[i], name))
			continue;
		t.src = i;
		t.width = i ? 8 : 4;
		t.is_signed = i == NF_VERDICT;
		t.why = NULL;
	}
	return t;
}

/* 4.8's checks of a context variable in a netfilter probe: true when an
 * error was reported, or when n is a guru-mode write of $verdict (which
 * needs nothing more). */
static bool elab_nf_target(struct session *s, struct probe *p, struct node *n,
			   bool written)
{
	const char *msg = NULL;

	if (!probe_has(s, p, RF_LOCAL_VARS))
		return false;
	if (n->op[1] == '$' || nf_targ(s, NULL, n->op + 1).src < 0)
		msg = "unsupported context variable";
	else if (!strcmp(n->op, "$verdict") && !s->guru)
		msg = "write to netfilter verdict requires guru mode; need stap -g";
	else if (written && strcmp(n->op, "$verdict"))
		msg = "write to netfilter parameter not permitted";
	if (msg)
		diag_error(s, n->loc, "%s", msg);
	n->type = T_LONG;
	return msg || written;
}

/* The table row of point r, with its target variable table. */
static void tr_nf_probe(struct gen *g, struct strbuf *code, const struct rprobe *r, int id)
{
	tr_table_row(g, "NETFILTER", "STP_PROBE_NETFILTER, .handler = probe_%d, .pp = %s, "
		     ".nf_hook = (%s), .nf_pf = (%s), .nf_priority = (%s), .maxactive = -1%s",
		     r->probe->index, tr_cstr(g, r->pp), r->nf_hook, r->nf_pf,
		     r->nf_priority, tr_targ_arrays(g, code, r, id, false));
}

/* netfilter.hook("H").pf("PF")[.priority("P")] | netfilter.pf("PF").hook("H")[...] */
static void resolve_netfilter(struct resolver *r, const struct pp_comp *c)
{
	const struct pp_comp *k = c->next, *h, *f, *q;
	struct rprobe tmp = { 0 }, *rp;
	const char *err;
	int n;

	if (c->arg)
		return;
	if ((h = pp_take(&k, "hook", N_STR)))
		f = pp_take(&k, "pf", N_STR);
	else if ((f = pp_take(&k, "pf", N_STR)))
		h = pp_take(&k, "hook", N_STR);
	if (!h || !f)
		return;
	q = pp_take(&k, "priority", N_STR);
	if (k)
		return;
	err = nf_resolve(r->s, h->arg->str, f->arg->str, q ? q->arg->str : NULL, &tmp);
	if (err) {
		rp_fail(r, r->pp->loc, "%s", err);
		return;
	}
	rp = rp_add(r, &family_netfilter, RP_NETFILTER, "netfilter", pp_to_string(r->s, r->pp));
	rp->nf_hook = tmp.nf_hook;
	rp->nf_pf = tmp.nf_pf;
	rp->nf_priority = tmp.nf_priority;
	rp->args = nf_args(r->s, &n);
	rp->nargs = n;
}

/* 4.8 lists no context variables of a netfilter probe */
static int nf_nlisted(const struct rprobe *r)
{
	(void)r;
	return 0;
}

static const char *const nf_roots[] = { "netfilter", NULL };
static const char *const nf_shapes[] = {
	"netfilter.hook.pf.priority", "netfilter.pf.hook.priority", NULL
};

const struct family family_netfilter = {
	.name = "netfilter",
	.roots = nf_roots,
	.shapes = nf_shapes,
	.flags = RF_LOCAL_VARS,
	.runtime = "NETFILTER",
	.resolve = resolve_netfilter,
	.targ = nf_targ,
	.claim_target = elab_nf_target,
	.listed_locals = "__nf",
	.nlisted = nf_nlisted,
	.emit = tr_nf_probe,
};
