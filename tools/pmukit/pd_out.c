/* pmukit CLI: the output buffer (pd_out.h). */
#include "pd_out.h"

#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>


/* 64 KiB: small enough to stay in the L2 cache between two writes (a 1 MiB
 * buffer missed on every line written), large enough that write calls are few */
#define OUT_CAP ((size_t)1 << 16)

void pd_out_init(pd_out *o, FILE *f)
{
	o->f = f;
	o->cap = OUT_CAP;
	o->len = 0;
	o->flushes = 0;
	o->buf = malloc(o->cap);
	if (!o->buf)
		o->cap = 0;
}

void pd_out_flush(pd_out *o)
{
	if (o->len)
		fwrite(o->buf, 1, o->len, o->f);
	o->len = 0;
	o->flushes++;
}

void pd_out_free(pd_out *o)
{
	pd_out_flush(o);
	free(o->buf);
	o->buf = NULL;
	o->cap = 0;
}

void pd_out_mem_slow(pd_out *o, const char *s, size_t n)
{
	pd_out_flush(o);
	if (n > o->cap) {
		fwrite(s, 1, n, o->f);
		return;
	}
	memcpy(o->buf + o->len, s, n);
	o->len += n;
}

void pd_out_str(pd_out *o, const char *s)
{
	pd_out_mem(o, s, strlen(s));
}

void pd_out_pad(pd_out *o, int n)
{
	static const char spaces[] = "                                                                ";
	while (n > 0) {
		int k = n > 64 ? 64 : n;
		pd_out_mem(o, spaces, (size_t)k);
		n -= k;
	}
}

/* Decimal digits of v, written backwards ending at end; returns how many. */
const char pd_dec_pairs[201] = "00010203040506070809101112131415161718192021222324"
			    "25262728293031323334353637383940414243444546474849"
			    "50515253545556575859606162636465666768697071727374"
			    "75767778798081828384858687888990919293949596979899";

int pd_dec_digits(char *end, unsigned long long v)
{
	char *p = end;
	if (v <= UINT32_MAX) {
		/* 32-bit division by constants: cheaper multiplies */
		uint32_t w = (uint32_t)v;
		while (w >= 100) {
			uint32_t r = w % 100;
			w /= 100;
			p -= 2;
			memcpy(p, pd_dec_pairs + r * 2, 2);
		}
		v = w;
	}
	while (v >= 100) {
		unsigned r = (unsigned)(v % 100);
		v /= 100;
		p -= 2;
		memcpy(p, pd_dec_pairs + r * 2, 2);
	}
	if (v >= 10) {
		p -= 2;
		memcpy(p, pd_dec_pairs + v * 2, 2);
	} else {
		*--p = (char)('0' + v);
	}
	return (int)(end - p);
}

/* n <= 16 bytes from s to d as two fixed-size, possibly overlapping copies
 * (inlined moves, no libc call). */
static inline void copy_small(char *d, const char *s, size_t n)
{
	if (n >= 8) {
		memcpy(d, s, 8);
		memcpy(d + n - 8, s + n - 8, 8);
	} else if (n >= 4) {
		memcpy(d, s, 4);
		memcpy(d + n - 4, s + n - 4, 4);
	} else {
		for (size_t i = 0; i < n; i++)
			d[i] = s[i];
	}
}

/* n characters right-aligned in width (> 0) or left-aligned in -width. */
static void put_aligned(pd_out *o, const char *s, int n, int width)
{
	int left = width > n ? width - n : 0, right = -width > n ? -width - n : 0;
	size_t total = (size_t)(left + n + right);
	if (left <= 16 && right <= 16 && o->len + total + 16 <= o->cap) {
		/* the common case: padding as fixed 16-byte stores (inlined,
		 * no libc call), spaces past the end are written over later */
		char *d = o->buf + o->len;
		if (left)
			memset(d, ' ', 16);
		if (n <= 16)
			copy_small(d + left, s, (size_t)n);
		else
			memcpy(d + left, s, (size_t)n);
		if (right)
			memset(d + left + n, ' ', 16);
		o->len += total;
		return;
	}
	if (o->len + total <= o->cap) {
		char *d = o->buf + o->len;
		memset(d, ' ', (size_t)left);
		memcpy(d + left, s, (size_t)n);
		memset(d + left + n, ' ', (size_t)right);
		o->len += total;
		return;
	}
	pd_out_pad(o, left);
	pd_out_mem(o, s, (size_t)n);
	pd_out_pad(o, right);
}

void pd_out_pad_str(pd_out *o, const char *s, int width)
{
	size_t n = strlen(s);
	if (n > (size_t)INT_MAX / 2) {
		pd_out_mem(o, s, n);
		return;
	}
	put_aligned(o, s, (int)n, width);
}

void pd_out_u64(pd_out *o, uint64_t v, int width)
{
	char tmp[24];
	int n = pd_dec_digits(tmp + sizeof(tmp), v);
	put_aligned(o, tmp + sizeof(tmp) - n, n, width);
}

void pd_out_int(pd_out *o, long long v, int width)
{
	char tmp[24];
	unsigned long long u = v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;
	int n = pd_dec_digits(tmp + sizeof(tmp), u);
	if (v < 0)
		tmp[sizeof(tmp) - 1 - n++] = '-';
	put_aligned(o, tmp + sizeof(tmp) - n, n, width);
}

/* 8 hex digits of a 32-bit value, most significant first, without a
 * loop: spread the nibbles into bytes, then turn each into '0'..'f'. */
static inline uint64_t hex8(uint32_t v)
{
	uint64_t x = v;
	x = ((x & 0xffff0000ULL) << 16) | (x & 0xffffULL);
	x = ((x & 0x0000ff000000ff00ULL) << 8) | (x & 0x000000ff000000ffULL);
	x = ((x & 0x00f000f000f000f0ULL) << 4) | (x & 0x000f000f000f000fULL);
	/* 0x01 in every byte holding 10..15 */
	uint64_t letters = ((x + 0x0606060606060606ULL) >> 4) & 0x0101010101010101ULL;
	x += 0x3030303030303030ULL + letters * ('a' - '0' - 10);
	return __builtin_bswap64(x);
}

void pd_out_hex(pd_out *o, uint64_t v, int width)
{
	int n = v ? (64 - __builtin_clzll(v) + 3) / 4 : 1;
	char tmp[16];
	uint64_t hi = hex8((uint32_t)(v >> 32)), lo = hex8((uint32_t)v);
	memcpy(tmp, &hi, 8);
	memcpy(tmp + 8, &lo, 8);
	if (width == 16 && o->len + 16 <= o->cap) {
		/* the common case, straight into the buffer: the leading
		 * zeros turned into spaces by a mask, no libc call */
		uint64_t sp = 0x2020202020202020ULL;
		int z = 16 - n; /* leading zeros, 0..15 */
		uint64_t mhi = z >= 8 ? ~0ULL : z ? ~0ULL >> (64 - 8 * z) : 0;
		uint64_t mlo = z > 8 ? ~0ULL >> (64 - 8 * (z - 8)) : 0;
		/* little-endian: the first bytes are the low ones */
		hi = (hi & ~mhi) | (sp & mhi);
		lo = (lo & ~mlo) | (sp & mlo);
		char *d = o->buf + o->len;
		memcpy(d, &hi, 8);
		memcpy(d + 8, &lo, 8);
		o->len += 16;
		return;
	}
	if (width <= 0 && o->len + 16 <= o->cap) {
		copy_small(o->buf + o->len, tmp + 16 - n, (size_t)n);
		o->len += (size_t)n;
		return;
	}
	if (n < width)
		pd_out_pad(o, width - n);
	pd_out_mem(o, tmp + 16 - n, (size_t)n);
}

void pd_out_printf(pd_out *o, const char *fmt, ...)
{
	char tmp[1024];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n < sizeof(tmp)) {
		pd_out_mem(o, tmp, (size_t)n);
		return;
	}
	char *big = malloc((size_t)n + 1);
	if (!big)
		return;
	va_start(ap, fmt);
	vsnprintf(big, (size_t)n + 1, fmt, ap);
	va_end(ap);
	pd_out_mem(o, big, (size_t)n);
	free(big);
}
