/*
 * stp_scflags.h - the table walkers of the syscall argstr decoders: a
 * table of { value, name } entries (STP_SC_F(X) makes { X, "X" }), read as
 * or-ed flags (stp_sc_flags) or as one value (stp_sc_lookup). Included by
 * the top-level C of tapsets/linux/syscall_support.stp and of each
 * tapsets/linux/sc_flags_*.stp, so a script may call any of their
 * decoders without a syscall probe; the include guard keeps one copy.
 */
#ifndef STP_SCFLAGS_H
#define STP_SCFLAGS_H

struct stp_sc_flag {
	unsigned long val;
	const char *name;
};

#define STP_SC_F(x) { x, #x }

/*
 * Appends to dst (MAXSTRINGLEN bytes) the names of the entries whose bits
 * val has, in table order, each taking its bits out of val, joined by '|'
 * (also after what dst holds, unless it ends in '|' or ' '), then what is
 * left of val as 0x...; val 0 appends zero_name, or 0x0 when it is NULL.
 */
static inline void stp_sc_flags(char *dst, const struct stp_sc_flag *t,
				unsigned long val, const char *zero_name)
{
	size_t n = strlen(dst);

	if (!val) {
		strscpy(dst + n, zero_name ? zero_name : "0x0", MAXSTRINGLEN - n);
		return;
	}
	for (; t->name; t++) {
		if (!(t->val & val))
			continue;
		n = strlen(dst);
		snprintf(dst + n, MAXSTRINGLEN - n, "%s%s",
			 n && dst[n - 1] != '|' && dst[n - 1] != ' ' ? "|" : "",
			 t->name);
		val &= ~t->val;
	}
	if (val) {
		n = strlen(dst);
		snprintf(dst + n, MAXSTRINGLEN - n, "%s0x%lx",
			 n && dst[n - 1] != '|' && dst[n - 1] != ' ' ? "|" : "",
			 val);
	}
}

/* appends to dst (MAXSTRINGLEN bytes) the name of the entry equal to val,
 * else val as 0x... */
static inline void stp_sc_lookup(char *dst, const struct stp_sc_flag *t,
				 unsigned long val)
{
	size_t n = strlen(dst);

	while (t->name && t->val != val)
		t++;
	if (t->name)
		strscpy(dst + n, t->name, MAXSTRINGLEN - n);
	else
		snprintf(dst + n, MAXSTRINGLEN - n, "0x%lx", val);
}

#endif /* STP_SCFLAGS_H */
