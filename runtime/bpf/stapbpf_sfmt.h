/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stapbpf_sfmt.h - stp_sfmt_num(), sprintf's number conversions (as
 * runtime/print.c's), a global BPF function declared by stapbpf.h. The C
 * that stap --runtime=bpf writes includes this at its end only when it
 * calls stp_sfmt_long() (translator/bpf/bpf_out.c): clang compiles a
 * global function whether or not it is called, and this one, its loops
 * unrolled, took as long to compile as the rest of a one-line script.
 */
#ifndef STAPBPF_SFMT_H
#define STAPBPF_SFMT_H

__attribute__((noinline)) long stp_sfmt_num(struct stp_sbuf *d, long l, long v, long cf,
					     long wp)
{
	char digits[24], head[4], out[24], *dst, conv = (char)cf;
	long *len = &l, flags = cf >> 8, width = (int)wp, prec = wp >> 32;
	int nhead = 0, ndig = 0;
	unsigned long num = v, base = 10;
	int is_signed = 0, upper = conv == 'X';

	if (!d)
		return l;
	dst = d->s;
	if (conv == 'c') {
		if (!(flags & STP_F_LEFT))
			stp_fill(dst, len, ' ', width - 1);
		stp_put(dst, len, (char)v);
		if (flags & STP_F_LEFT)
			stp_fill(dst, len, ' ', width - 1);
		return l;
	}
	if (conv == 'd' || conv == 'i')
		is_signed = 1;
	else if (conv == 'o')
		base = 8;
	else if (conv == 'x' || conv == 'X' || conv == 'p')
		base = 16;
	if (conv == 'p')
		flags |= STP_F_ALT;
	if (flags & STP_F_LEFT)
		flags &= ~STP_F_ZERO;
	if (is_signed && v < 0) {
		head[nhead++] = '-';
		num = 0 - num;
	} else if (is_signed && (flags & STP_F_PLUS)) {
		head[nhead++] = '+';
	} else if (is_signed && (flags & STP_F_SPACE)) {
		head[nhead++] = ' ';
	}
	if ((flags & STP_F_ALT) && (base == 16 || base == 8))
		head[nhead++] = '0';
	if ((flags & STP_F_ALT) && base == 16)
		head[nhead++] = upper ? 'X' : 'x';
	for (int i = 0; i < 23; i++) {
		unsigned long d = num % base;

		digits[ndig++] = d < 10 ? '0' + d : (upper ? 'A' : 'a') + d - 10;
		num /= base;
		if (!num)
			break;
	}
	for (int i = 0; i < 23; i++)
		if (i < ndig)
			out[i] = digits[ndig - 1 - i];
	if (prec < ndig)
		prec = ndig;
	width -= nhead + prec;
	if (!(flags & (STP_F_LEFT | STP_F_ZERO)))
		stp_fill(dst, len, ' ', width);
	stp_putn(dst, len, head, nhead & 3);
	if (flags & STP_F_ZERO)
		stp_fill(dst, len, '0', width);
	stp_fill(dst, len, '0', prec - ndig);
	if (ndig > 0 && ndig < 24)
		stp_putn(dst, len, out, ndig);
	if (flags & STP_F_LEFT)
		stp_fill(dst, len, ' ', width);
	return l;
}

#endif
