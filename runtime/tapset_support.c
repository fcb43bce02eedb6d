/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tapset_support.c - helpers for the embedded C of the tapset library
 * (tapsets/strings.stp, tapsets/time.stp, tapsets/context.stp): printable
 * escaping of strings, the per-CPU state of tokenize(), the calendar of
 * ctime() and the credentials of the current task.
 *
 * The generated code includes this file at the end (through stp_runtime.c),
 * after the tapset functions that call these helpers, so each caller
 * declares the prototype it needs in its own body.
 */
#include <linux/cred.h>
#include <linux/ctype.h>
#include <linux/percpu.h>
#include <linux/string.h>

int stp_text_str(char *out, const char *in, int inlen, int outlen, int quoted);
int stp_text_buf(char *out, const char *in, int inlen, int outlen, int quoted,
		 int buffer);
void stp_tokenize(char *ret, const char *input, const char *delim);
const char *stp_ctime(char *ret, int64_t secs);
int64_t stp_current_id(int which);

/* uid(), euid(), gid(), egid() (which 0..3) of the current task, as seen
 * from its own user namespace. */
int64_t stp_current_id(int which)
{
	switch (which) {
	case 0:
		return from_kuid_munged(current_user_ns(), current_uid());
	case 1:
		return from_kuid_munged(current_user_ns(), current_euid());
	case 2:
		return from_kgid_munged(current_user_ns(), current_gid());
	default:
		return from_kgid_munged(current_user_ns(), current_egid());
	}
}

/*
 * One character of `p` (at most `avail` bytes may be looked at): a well
 * formed 2, 3 or 4 byte UTF-8 sequence gives its code point and length;
 * anything else (ASCII, bad or overlong sequences, surrogates, values past
 * U+10FFFF, too few bytes allowed) is taken as the single byte.
 */
static int stp_utf8_char(const unsigned char *p, int avail, u32 *cp)
{
	unsigned char b = p[0];
	int len, k;
	u32 v;

	if ((b & 0xe0) == 0xc0 && avail >= 2) {
		len = 2;
		v = b & 0x1f;
	} else if ((b & 0xf0) == 0xe0 && avail >= 3) {
		len = 3;
		v = b & 0x0f;
	} else if ((b & 0xf8) == 0xf0 && avail >= 4) {
		len = 4;
		v = b & 0x07;
	} else {
		goto single;
	}
	for (k = 1; k < len; k++) {
		if ((p[k] & 0xc0) != 0x80)
			goto single;
		v = (v << 6) | (p[k] & 0x3f);
	}
	if ((v >= 0xd800 && v <= 0xdfff) || v > 0x10ffff || v < 0x80 ||
	    (len == 3 && v < 0x800) || (len == 4 && v < 0x10000))
		goto single;
	*cp = v;
	return len;
single:
	*cp = b;
	return 1;
}

/* The escape of one byte-sized character, NUL-terminated into esc[5]. */
static void stp_escape_byte(u32 ch, char *esc)
{
	static const char shorts[] = "\aa\bb\ff\nn\rr\tt\vv\"\"\\\\";
	int k;

	esc[0] = '\\';
	for (k = 0; shorts[k]; k += 2) {
		if (shorts[k] == (char)ch) {
			esc[1] = shorts[k + 1];
			esc[2] = '\0';
			return;
		}
	}
	esc[1] = '0' + ((ch >> 6) & 3);
	esc[2] = '0' + ((ch >> 3) & 7);
	esc[3] = '0' + (ch & 7);
	esc[4] = '\0';
}

/*
 * text_str() and friends: copy `in` (at most inlen bytes; <= 0 or too big
 * means MAXSTRINGLEN - 1) into out, escaping what is not printable ASCII
 * as C escapes (\n, \", \\, \ooo) and UTF-8 as \uXXXX / \UXXXXXXXX, with at
 * most outlen output bytes (same limits). An escape that does not fit is
 * left out whole (stp_text_buf() with `buffer` goes on past NUL bytes, as
 * "\0"). With `quoted` the text is put in double quotes inside
 * the limit, and a cut-off input ends in "..." after the closing quote.
 */
int stp_text_buf(char *out, const char *in, int inlen, int outlen, int quoted,
		 int buffer)
{
	const unsigned char *p = (const unsigned char *)in;
	char *o = out;
	char *first_cut = NULL;	/* first escape that a quoted cut may split */
	int first_cut_len = 0;
	u32 ch = 0;

	if (inlen <= 0 || inlen > MAXSTRINGLEN - 1)
		inlen = MAXSTRINGLEN - 1;
	if (outlen <= 0 || outlen > MAXSTRINGLEN - 1)
		outlen = MAXSTRINGLEN - 1;
	if (quoted) {
		outlen = (outlen < 5 ? 5 : outlen) - 2;
		*o++ = '"';
	}
	while (inlen > 0) {
		char esc[12];
		int used = stp_utf8_char(p, inlen, &ch);
		int n;

		if ((ch == 0 && !buffer) || outlen <= 0)
			break;
		p += used;
		inlen -= used;
		if (ch == 0) {
			/* a NUL of a buffer: "\0", counted as four bytes as
			 * 4.8 counts it (it budgets it as an octal escape) */
			if (!first_cut && outlen - 3 < 4) {
				first_cut = o;
				first_cut_len = 4;
			}
			if (outlen < 4)
				break;
			*o++ = '\\';
			*o++ = '0';
			outlen -= 4;
			continue;
		}
		if (used > 1) {
			snprintf(esc, sizeof(esc), ch <= 0xffff ? "\\u%04X" : "\\U%08X", ch);
		} else if (ch < 0x80 && isprint(ch) && ch != '"' && ch != '\\') {
			*o++ = ch;
			outlen--;
			continue;
		} else {
			stp_escape_byte(ch, esc);
		}
		n = strlen(esc);
		if (!first_cut && outlen - 3 < n) {
			first_cut = o;
			first_cut_len = n;
		}
		if (outlen < n)
			break;
		memcpy(o, esc, n);
		o += n;
		outlen -= n;
	}
	if (quoted) {
		if (ch && inlen > 0) {
			char *cut = o - 3 + outlen;

			if (first_cut && first_cut < cut && cut < first_cut + first_cut_len)
				cut = first_cut;
			memcpy(cut, "\"...", 4);
			o = cut + 4;
		} else {
			*o++ = '"';
		}
	}
	*o = '\0';
	return 0;
}

int stp_text_str(char *out, const char *in, int inlen, int outlen, int quoted)
{
	return stp_text_buf(out, in, inlen, outlen, quoted, 0);
}

/*
 * tokenize(): the string being split and the position in it, kept per CPU
 * between calls (and between probes), as SystemTap keeps them in its
 * per-CPU context. Callers run with preemption disabled.
 */
struct stp_tok_state {
	char str[MAXSTRINGLEN];
	char *next;	/* NULL: no more tokens */
	char *end;
};
static DEFINE_PER_CPU(struct stp_tok_state, stp_tok_states);

void stp_tokenize(char *ret, const char *input, const char *delim)
{
	struct stp_tok_state *t = this_cpu_ptr(&stp_tok_states);
	char *tok;

	if (input[0]) {
		strscpy(t->str, input, MAXSTRINGLEN);
		t->next = t->str;
		t->end = t->str + strlen(t->str);
	}
	do {
		tok = strsep(&t->next, delim);
	} while (tok && !tok[0]);	/* empty tokens are skipped */
	if (tok)
		strscpy(ret, tok, MAXSTRINGLEN);
	else
		ret[0] = '\0';
}

/*
 * ctime(): "Www Mmm dd hh:mm:ss yyyy" (day of month padded with a space)
 * for seconds since the epoch, UTC, 32-bit time_t range only. Returns NULL,
 * or the error message for a value out of range (ret untouched).
 */
const char *stp_ctime(char *ret, int64_t secs)
{
	static const char days[] = "SunMonTueWedThuFriSat";
	static const char months[] = "JanFebMarAprMayJunJulAugSepOctNovDec";
	static const u8 mdays[12] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
	int64_t day, sec_of_day;
	int year = 1970, mon = 0, wday, leap, ylen, mlen;

	if (secs > 2147483647LL)
		return "Time too far in the future to be converted";
	if (secs < -2147483648LL)
		return "Time too far in the past to be converted";
	day = div64_s64(secs, 86400);
	sec_of_day = secs - day * 86400;
	if (sec_of_day < 0) {
		sec_of_day += 86400;
		day--;
	}
	wday = (int)((4 + day) % 7);	/* 1970-01-01 was a Thursday */
	if (wday < 0)
		wday += 7;
	for (;;) {
		leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
		ylen = 365 + leap;
		if (day < 0) {
			year--;
			leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
			day += 365 + leap;
		} else if (day >= ylen) {
			day -= ylen;
			year++;
		} else {
			break;
		}
	}
	for (;;) {
		mlen = mdays[mon] + (mon == 1 && leap);
		if (day < mlen)
			break;
		day -= mlen;
		mon++;
	}
	snprintf(ret, MAXSTRINGLEN, "%.3s %.3s%3d %.2d:%.2d:%.2d %d",
		 days + 3 * wday, months + 3 * mon, (int)day + 1,
		 (int)(sec_of_day / 3600), (int)(sec_of_day / 60 % 60),
		 (int)(sec_of_day % 60), year);
	return NULL;
}
