/* SPDX-License-Identifier: GPL-2.0 */
/*
 * netfilter.c - netfilter.hook("H").pf("PF")[.priority("P")] probes: one
 * struct nf_hook_ops per STP_PROBE_NETFILTER entry of stp_probes[],
 * registered in the initial network namespace after the begin probes and
 * unregistered before the end probes (the session's synchronize_rcu()
 * then waits for hooks still running: they run under rcu_read_lock()).
 *
 * The handler sees the hook's arguments as its raw arguments, in the
 * order the translator's target variables use: $hooknum, $skb, $in,
 * $out, $okfn (0, as SystemTap 4.8 gives it on these kernels), $verdict
 * (index 5). $verdict starts as NF_ACCEPT; a
 * guru-mode write (stp_target_set() in context.c stores it into this
 * array) changes what the hook returns, as in SystemTap 4.8.
 * A hook that cannot run its handler (session not running, reentrancy)
 * accepts the packet.
 */
#ifdef STP_HAVE_NF_NET_HOOK
#include <linux/netfilter.h>
#include <linux/netfilter_arp.h>
#include <net/net_namespace.h>
#endif

#define STP_NF_NARGS 6
#define STP_NF_VERDICT 5	/* $verdict among the arguments */

struct stp_nf {
#ifdef STP_HAVE_NF_NET_HOOK
	struct nf_hook_ops ops;
#endif
	const struct stp_probe *probe;
	bool registered;
};

static struct stp_nf *stp_nfs;
static unsigned int stp_nnfs;

#ifdef STP_HAVE_NF_NET_HOOK
static unsigned int stp_nf_hookfn(void *priv, struct sk_buff *skb,
				  const struct nf_hook_state *state)
{
	unsigned long args[STP_NF_NARGS] = {
		state->hook, (unsigned long)skb, (unsigned long)state->in,
		(unsigned long)state->out, 0 /* $okfn: 0, as 4.8 here */, NF_ACCEPT,
	};

	if (!stp_may_run(STP_PROBE_NETFILTER))
		return NF_ACCEPT;
	stp_run_probe_ctx(priv, NULL, args);
	return (unsigned int)args[STP_NF_VERDICT];
}
#endif

#ifdef STP_HAVE_NF_NET_HOOK
/* Does the kernel have hook `hook` of family `pf` in a namespace? Anything
 * else (a guru-mode point may name any numbers) would trip a WARN_ON in
 * nf_hook_entry_head(): it is refused here instead. */
static bool stp_nf_hook_ok(int pf, int hook)
{
	switch (pf) {
	case NFPROTO_IPV4:
	case NFPROTO_IPV6:
		return hook >= 0 && hook < NF_INET_NUMHOOKS;
#ifdef CONFIG_NETFILTER_FAMILY_ARP
	case NFPROTO_ARP:
		return hook >= 0 && hook < NF_ARP_NUMHOOKS;
#endif
#ifdef CONFIG_NETFILTER_FAMILY_BRIDGE
	case NFPROTO_BRIDGE:	/* the five of NF_INET's: NF_BR_PRE_ROUTING.. */
		return hook >= 0 && hook < NF_INET_NUMHOOKS;
#endif
	default:
		return false;
	}
}
#endif

static void stp_netfilter_register(void)
{
	unsigned int i;
	int rc;

	if (stp_nfs)
		return;
	STP_PROBES_COLLECT(stp_nfs, stp_nnfs, BIT_ULL(STP_PROBE_NETFILTER),
			   "netfilter probes");
	for (i = 0; i < stp_nnfs; i++) {
		struct stp_nf *f = &stp_nfs[i];

#ifdef STP_HAVE_NF_NET_HOOK
		f->ops.hook = stp_nf_hookfn;
		f->ops.priv = (void *)f->probe;
		f->ops.pf = (u_int8_t)f->probe->nf_pf;
		f->ops.hooknum = (unsigned int)f->probe->nf_hook;
		f->ops.priority = f->probe->nf_priority;
		rc = stp_nf_hook_ok(f->probe->nf_pf, f->probe->nf_hook) ?
		     nf_register_net_hook(&init_net, &f->ops) : -EINVAL;
#else
		rc = -EOPNOTSUPP;
#endif
		if (rc) {
			stp_warn_msg("probe %s registration error [man warning::pass5] (rc %d)",
				     f->probe->pp, rc);
			continue;
		}
		f->registered = true;
	}
}

static void stp_netfilter_unregister(void)
{
	unsigned int i;

	for (i = 0; stp_nfs && i < stp_nnfs; i++) {
		struct stp_nf *f = &stp_nfs[i];

		if (!f->registered)
			continue;
#ifdef STP_HAVE_NF_NET_HOOK
		nf_unregister_net_hook(&init_net, &f->ops);
#endif
		f->registered = false;
	}
}

static void stp_netfilter_free(void)
{
	kvfree(stp_nfs);
	stp_nfs = NULL;
	stp_nnfs = 0;
}

static const struct stp_family_ops stp_netfilter_family = {
	.name = "netfilter",
	.register_probes = stp_netfilter_register,
	.unregister_probes = stp_netfilter_unregister,
	.free = stp_netfilter_free,
};
