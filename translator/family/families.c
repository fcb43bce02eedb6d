/*
 * families.c - the one list of probe families. Adding a family is its
 * own file (or folder) under family/, one line here, and its part of the
 * runtime (runtime/). The order is the order in which the families'
 * runtime parts are defined in the module (STP_HAVE_*) and in which they
 * may claim a target variable (procfs before netfilter).
 */
#include "family.h"

const struct family *const family_list[] = {
	&family_begin,
	&family_never,
	&family_timer,
	&family_kernel,
	&family_process,
	&family_process_events,
	&family_tracepoint,
	&family_perf,
	&family_procfs,
	&family_netfilter,
	&family_hwbkpt,
	NULL
};
