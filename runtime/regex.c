/* SPDX-License-Identifier: GPL-2.0 */
/*
 * regex.c - the matcher behind `=~` and `!~`: a Pike VM running the program
 * the translator compiled from the regex literal (static tables in the
 * generated file). Threads advance in lock step over the subject, at most
 * one per instruction and position, so a match costs at most
 * O(strlen * instructions) steps with no recursion and no backtracking;
 * the thread lists live in a per-CPU workspace allocated at module init.
 *
 * Semantics follow SystemTap 4.8's tagged DFA: the search is unanchored,
 * earlier start positions take priority; the first position where the
 * highest-priority thread accepts gives the match, which is then extended
 * while later accepting threads of highest priority share its start.
 * Submatches are those of that thread (alternatives and repetitions are
 * greedy, left first). Bytes >= 0x80 in the subject behave as 0xff does.
 */
#ifdef STP_REGEX_MAXGROUPS

#include <linux/mm.h>
#include <linux/slab.h>

#define STP_RX_NCAPS (2 * STP_REGEX_MAXGROUPS)

/* Threads in priority order; thread i's captures are caps[i * ncaps ...]. */
struct stp_rx_list {
	int n;
	u16 pc[STP_REGEX_MAXINSNS];
	s32 caps[STP_REGEX_MAXSLOTS];
};

struct stp_rx_job {
	s32 pc;			/* >= 0: explore pc; < 0: restore slot -1 - pc */
	s32 old;
};

struct stp_rx_ws {
	u32 gen;
	u32 mark[STP_REGEX_MAXINSNS];	/* == gen: visited at this position */
	struct stp_rx_list list[2];
	struct stp_rx_job stack[STP_REGEX_MAXINSNS + 1];
	s32 tmp[STP_RX_NCAPS];
	s32 start[STP_RX_NCAPS];
	s32 best[STP_RX_NCAPS];
};

static int stp_regex_init(void)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu) {
		struct stp_context *c = stp_contexts[cpu];

		c->regex_ws = kvzalloc(sizeof(struct stp_rx_ws), GFP_KERNEL);
		if (!c->regex_ws)
			return -ENOMEM;
	}
	return 0;
}

static void stp_regex_exit(void)
{
	unsigned int cpu;

	if (!stp_contexts)
		return;
	for_each_possible_cpu(cpu) {
		if (stp_contexts[cpu])
			kvfree(stp_contexts[cpu]->regex_ws);
	}
}

static void stp_rx_next_gen(struct stp_rx_ws *ws)
{
	if (++ws->gen == 0) {
		memset(ws->mark, 0, sizeof(ws->mark));
		ws->gen = 1;
	}
}

/*
 * Add the thread at pc with captures caps to l, following jumps, splits
 * (preferred branch first), saves and anchors at position p; reaching an
 * instruction already visited at p ends a path (a higher-priority thread
 * got there first). Each instruction is visited once, so the explicit
 * stack never holds more than ninsns + 1 jobs.
 */
static void stp_rx_add(struct stp_rx_ws *ws, const struct stp_regex *re,
		       struct stp_rx_list *l, int pc0, const s32 *caps, int ncaps,
		       int p, bool at_end)
{
	int sp = 0;

	memcpy(ws->tmp, caps, ncaps * sizeof(s32));
	ws->stack[sp++] = (struct stp_rx_job){ pc0, 0 };
	while (sp > 0) {
		struct stp_rx_job j = ws->stack[--sp];
		int pc = j.pc;

		if (pc < 0) {
			ws->tmp[-1 - pc] = j.old;
			continue;
		}
		while (pc < re->ninsns && ws->mark[pc] != ws->gen) {
			const struct stp_rx_insn *in = &re->insns[pc];

			ws->mark[pc] = ws->gen;
			if (in->op == STP_RX_JMP) {
				pc = in->x;
			} else if (in->op == STP_RX_SPLIT) {
				if (sp <= re->ninsns)
					ws->stack[sp++] = (struct stp_rx_job){ in->y, 0 };
				pc = in->x;
			} else if (in->op == STP_RX_SAVE) {
				if (in->x < ncaps && sp <= re->ninsns) {
					ws->stack[sp++] = (struct stp_rx_job){ -1 - in->x,
									       ws->tmp[in->x] };
					ws->tmp[in->x] = p;
				}
				pc++;
			} else if (in->op == STP_RX_BOL) {
				if (p != 0)
					break;
				pc++;
			} else if (in->op == STP_RX_EOL) {
				if (!at_end)
					break;
				pc++;
			} else {	/* CHAR, MATCH: a thread */
				if ((l->n + 1) * ncaps > STP_REGEX_MAXSLOTS)
					break;
				l->pc[l->n] = pc;
				memcpy(&l->caps[l->n * ncaps], ws->tmp, ncaps * sizeof(s32));
				l->n++;
				break;
			}
		}
	}
}

static bool stp_rx_in_set(const struct stp_regex *re, int set, unsigned char ch)
{
	if (ch >= 0x80)
		ch = 0xff;
	return re->sets[set][ch >> 5] & (1u << (ch & 31));
}

/* Record the match in the context for matched() and ngroups(). */
static void stp_rx_record(struct stp_context *c, const struct stp_regex *re,
			  const char *subject, bool found, const s32 *caps)
{
	struct stp_regex_match *m = &c->last_match;
	int i;

	if (subject != m->str)
		strscpy(m->str, subject, MAXSTRINGLEN);
	m->result = found;
	for (i = 0; i < STP_RX_NCAPS; i++)
		m->tags[i] = found && i < 2 * re->ngroups ? caps[i] : -1;
	if (found)
		m->ntags = 2 * re->ngroups;
}

int64_t stp_regex_match(struct stp_context *c, const struct stp_regex *re,
			const char *subject, int tags)
{
	struct stp_rx_ws *ws = c->regex_ws;
	struct stp_rx_list *cl, *nl;
	s32 *best;
	size_t len = strnlen(subject, MAXSTRINGLEN - 1), p;
	bool found = false;
	/* without submatches the first match decides: no captures to carry */
	int i, ncaps = tags ? 2 * re->ngroups : 0;

	if (!ws || re->ngroups > STP_REGEX_MAXGROUPS || re->ninsns > STP_REGEX_MAXINSNS)
		return 0;
	best = ws->best;
	for (i = 0; i < STP_RX_NCAPS; i++)
		ws->start[i] = best[i] = -1;
	cl = &ws->list[0];
	nl = &ws->list[1];
	cl->n = 0;
	for (p = 0;; p++) {
		stp_rx_next_gen(ws);
		nl->n = 0;
		for (i = 0; p > 0 && i < cl->n; i++) {
			const struct stp_rx_insn *in = &re->insns[cl->pc[i]];

			if (in->op == STP_RX_CHAR &&
			    stp_rx_in_set(re, in->x, (unsigned char)subject[p - 1]))
				stp_rx_add(ws, re, nl, cl->pc[i] + 1, &cl->caps[i * ncaps],
					   ncaps, p, p == len);
		}
		if (!found)	/* a new start: lowest priority */
			stp_rx_add(ws, re, nl, 0, ws->start, ncaps, p, p == len);
		for (i = 0; i < nl->n; i++) {
			if (re->insns[nl->pc[i]].op != STP_RX_MATCH)
				continue;
			if (!found || nl->caps[i * ncaps] == best[0]) {
				memcpy(best, &nl->caps[i * ncaps], ncaps * sizeof(s32));
				found = true;
			}
			break;
		}
		if ((found && !tags) || p >= len || (found && !nl->n))
			break;
		swap(cl, nl);
	}
	if (tags)
		stp_rx_record(c, re, subject, found, best);
	return found;
}

#else /* !STP_REGEX_MAXGROUPS */

static int stp_regex_init(void) { return 0; }
static void stp_regex_exit(void) { }

#endif
