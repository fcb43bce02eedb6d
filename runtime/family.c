/* SPDX-License-Identifier: GPL-2.0 */
/*
 * family.c - the interface every runtime probe family provides (struct
 * stp_family_ops), and what the families share: finding their entries of
 * stp_probes[] (stp_probes_collect()). Included by stp_runtime.c before
 * the families' files; the list of the module's families, and the loops
 * the session runs over it, follow them there.
 */

/*
 * A probe family's hooks, each optional (NULL: nothing to do). All run in
 * process context.
 *  init:		module load, before stapio connects; an error fails the load
 *  register_probes:	session start, after the begin probes (not running yet:
 *			no handler of ours runs before the session does)
 *  start:		then, once the session runs
 *  unregister_probes:	session stop, before the end probes, and again at
 *			unload; no handler of the family runs after it returns
 *  free:		module unload, after unregister_probes
 * Registration failures are the family's to report (a warning, or an
 * error that ends the script, as SystemTap 4.8 does for that family).
 */
struct stp_family_ops {
	const char *name;
	int (*init)(void);
	void (*register_probes)(void);
	void (*start)(void);
	void (*unregister_probes)(void);
	void (*free)(void);
};

static_assert(STP_PROBE_NKINDS <= 64, "kind masks are u64");

/* How many entries of stp_probes[] have a kind in the mask `kinds` (bits
 * BIT_ULL(STP_PROBE_...)). */
static unsigned int stp_probes_count(u64 kinds)
{
	unsigned int i, n = 0;

	for (i = 0; i < STP_NPROBES; i++)
		n += !!(kinds & BIT_ULL(stp_probes[i].kind));
	return n;
}

/*
 * The entries of stp_probes[] whose kind is in the mask `kinds`, in table
 * order: a zeroed array of *n elements of `size` bytes each, whose
 * `const struct stp_probe *` at byte `off` points to its entry. NULL with
 * *n == 0 when there is none; NULL with *n set when it cannot be
 * allocated (then, unless what is NULL, the error "cannot allocate N
 * <what>"). Free it with kvfree(). Use STP_PROBES_COLLECT().
 */
static void *stp_probes_collect(u64 kinds, size_t size, size_t off,
				unsigned int *n, const char *what)
{
	unsigned int i, k = 0;
	char *v;

	*n = stp_probes_count(kinds);
	if (!*n)
		return NULL;
	v = kvcalloc(*n, size, GFP_KERNEL);
	if (!v) {
		if (what)
			stp_error_msg("cannot allocate %u %s", *n, what);
		return NULL;
	}
	for (i = 0; i < STP_NPROBES; i++)
		if (kinds & BIT_ULL(stp_probes[i].kind))
			*(const struct stp_probe **)(v + k++ * size + off) = &stp_probes[i];
	return v;
}

/* arr = the probes of `kinds` as elements of *arr, whose member `probe`
 * points to the table entry; n their count (0 when arr is NULL). */
#define STP_PROBES_COLLECT(arr, n, kinds, what)					\
	do {									\
		unsigned int stp_n_;						\
										\
		(arr) = stp_probes_collect((kinds), sizeof(*(arr)),		\
					   offsetof(typeof(*(arr)), probe),	\
					   &stp_n_, (what));			\
		(n) = (arr) ? stp_n_ : 0;					\
	} while (0)
