/*
 * sha256.c - SHA-256 (FIPS 180-4) for the module cache (cache.c): the
 * key of an entry and the checksums that find a corrupt one.
 */
#include <string.h>

#include "build.h"

static const uint32_t k256[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1,
	0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3,
	0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
	0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147,
	0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
	0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
	0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
	0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
	0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2
};

static uint32_t ror(uint32_t x, int n)
{
	return (x >> n) | (x << (32 - n));
}

static void block(struct sha256 *c, const unsigned char *p)
{
	uint32_t w[64], a, b, cc, d, e, f, g, h, t1, t2;
	int i;

	for (i = 0; i < 16; i++)
		w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
		       (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
	for (; i < 64; i++)
		w[i] = w[i - 16] + (ror(w[i - 15], 7) ^ ror(w[i - 15], 18) ^ (w[i - 15] >> 3)) +
		       w[i - 7] + (ror(w[i - 2], 17) ^ ror(w[i - 2], 19) ^ (w[i - 2] >> 10));
	a = c->h[0]; b = c->h[1]; cc = c->h[2]; d = c->h[3];
	e = c->h[4]; f = c->h[5]; g = c->h[6]; h = c->h[7];
	for (i = 0; i < 64; i++) {
		t1 = h + (ror(e, 6) ^ ror(e, 11) ^ ror(e, 25)) + ((e & f) ^ (~e & g)) +
		     k256[i] + w[i];
		t2 = (ror(a, 2) ^ ror(a, 13) ^ ror(a, 22)) + ((a & b) ^ (a & cc) ^ (b & cc));
		h = g; g = f; f = e; e = d + t1;
		d = cc; cc = b; b = a; a = t1 + t2;
	}
	c->h[0] += a; c->h[1] += b; c->h[2] += cc; c->h[3] += d;
	c->h[4] += e; c->h[5] += f; c->h[6] += g; c->h[7] += h;
}

void sha256_init(struct sha256 *c)
{
	static const uint32_t h0[8] = {
		0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
		0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19
	};

	memcpy(c->h, h0, sizeof(h0));
	c->len = 0;
}

void sha256_update(struct sha256 *c, const void *data, size_t n)
{
	const unsigned char *p = data;
	size_t used = c->len % 64;

	c->len += n;
	if (used) {
		size_t take = 64 - used < n ? 64 - used : n;

		memcpy(c->buf + used, p, take);
		p += take;
		n -= take;
		if (used + take < 64)
			return;
		block(c, c->buf);
	}
	for (; n >= 64; p += 64, n -= 64)
		block(c, p);
	memcpy(c->buf, p, n);
}

/* The digest as 64 lowercase hex digits and a NUL. */
void sha256_hex(struct sha256 *c, char out[65])
{
	static const char hex[] = "0123456789abcdef";
	uint64_t bits = c->len * 8;
	unsigned char pad[72] = { 0x80 };
	size_t npad = 64 - (c->len + 8) % 64;

	if (npad == 0)
		npad = 64;
	for (int i = 0; i < 8; i++)
		pad[npad + i] = (unsigned char)(bits >> (56 - 8 * i));
	sha256_update(c, pad, npad + 8);
	for (int i = 0; i < 32; i++) {
		unsigned v = c->h[i / 4] >> (24 - 8 * (i % 4)) & 0xff;

		out[2 * i] = hex[v >> 4];
		out[2 * i + 1] = hex[v & 15];
	}
	out[64] = '\0';
}

void sha256_buf_hex(const void *data, size_t n, char out[65])
{
	struct sha256 c;

	sha256_init(&c);
	sha256_update(&c, data, n);
	sha256_hex(&c, out);
}
