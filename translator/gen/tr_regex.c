/*
 * tr_regex.c - pass 3 for the regexes of `=~` and `!~`: the programs
 * elab/regex.c compiled in pass 2 (s->regexes) written into the module
 * as static tables for the runtime's Pike VM (runtime/regex.c), the
 * #defines that size its match state, and the call of its matcher.
 */
#include "translate.h"

static const char *const op_names[] = {
	[RX_CHAR] = "STP_RX_CHAR", [RX_SPLIT] = "STP_RX_SPLIT", [RX_JMP] = "STP_RX_JMP",
	[RX_SAVE] = "STP_RX_SAVE", [RX_BOL_OP] = "STP_RX_BOL", [RX_EOL_OP] = "STP_RX_EOL",
	[RX_MATCH] = "STP_RX_MATCH",
};

/* The #defines that size the runtime's match state (before the runtime
 * header), when the script matches regexes or reads submatches. */
void regex_defines(struct session *s, struct strbuf *c)
{
	int insns = 1, groups = 1, slots = 2;

	if (!s->nregexes && !s->regex_tags)
		return;
	for (int i = 0; i < s->nregexes; i++) {
		if (s->regexes[i]->ninsns > insns)
			insns = s->regexes[i]->ninsns;
		if (s->regexes[i]->ngroups > groups)
			groups = s->regexes[i]->ngroups;
		if (s->regexes[i]->ninsns * 2 * s->regexes[i]->ngroups > slots)
			slots = s->regexes[i]->ninsns * 2 * s->regexes[i]->ngroups;
	}
	sb_printf(c, "#define STP_REGEX_MAXINSNS %d\n#define STP_REGEX_MAXGROUPS %d\n"
		  "#define STP_REGEX_MAXSLOTS %d\n", insns, groups, slots);
}

void regex_tables(struct session *s, struct strbuf *c)
{
	for (int i = 0; i < s->nregexes; i++) {
		const struct rx_prog *pr = s->regexes[i];

		sb_printf(c, "/* regex %d */\nstatic const struct stp_rx_insn stp_rx_%d_insns[] = {\n",
			  i, i);
		for (int k = 0; k < pr->ninsns; k++)
			sb_printf(c, "\t{ %s, %d, %d },\n", op_names[pr->insns[k].op],
				  pr->insns[k].x, pr->insns[k].y);
		sb_printf(c, "};\nstatic const u32 stp_rx_%d_sets[][8] = {\n", i);
		for (int k = 0; k < pr->nsets; k++) {
			sb_puts(c, "\t{");
			for (int w = 0; w < 8; w++) {
				const uint8_t *b = pr->sets[k] + 4 * w;

				sb_printf(c, " 0x%08xu,", (unsigned)b[0] | (unsigned)b[1] << 8 |
					  (unsigned)b[2] << 16 | (unsigned)b[3] << 24);
			}
			sb_puts(c, " },\n");
		}
		if (!pr->nsets)
			sb_puts(c, "\t{ 0 },\n");
		sb_printf(c, "};\nstatic const struct stp_regex __attribute__((unused)) stp_rx_%d = {\n\tstp_rx_%d_insns, stp_rx_%d_sets, %d, %d\n};\n\n",
			  i, i, i, pr->ninsns, pr->ngroups);
	}
}

/* `s =~ "re"` / `s !~ "re"`: a call of the runtime matcher. */
const char *tr_regex_match(struct gen *g, struct node *n)
{
	const char *subject = tr_gen_expr(g, n->a);
	const char *t = tr_new_tmp(g, T_LONG);

	tr_line(g, "%s = stp_regex_match(c, &stp_rx_%d, %s, %d);", t, (int)n->num, subject,
		g->s->regex_tags ? 1 : 0);
	if (n->op[0] == '!')
		return arena_printf(g->s->arena, "((int64_t)!%s)", t);
	return t;
}
