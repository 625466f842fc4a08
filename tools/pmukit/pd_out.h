/* pmukit CLI: the output buffer of script's and report's hot printing
 * paths (text built in a 64 KiB block, written in few calls), with
 * decimal and hex formatting without printf. Invariant: the text in the
 * buffer stays in place while `flushes` does not change. */
#ifndef PMUKIT_PD_OUT_H
#define PMUKIT_PD_OUT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* Output buffer for fast printing. */
typedef struct pd_out {
	FILE *f;
	char *buf;
	size_t len, cap;
	uint64_t flushes;            /* times the buffer was emptied: text in it stays while this does */
} pd_out;
/* "00" to "99": the two digits of n at pd_dec_pairs + 2 * n. */
extern const char pd_dec_pairs[201];
/* The decimal digits of v, written backwards ending at end; their count. */
int pd_dec_digits(char *end, unsigned long long v);
/* ".uuuuuu" of f microseconds (< 1000000): the 7 bytes ending at end
 * (inline: once per sample). */
static inline void pd_dec_usecs(char *end, uint32_t f)
{
	uint32_t hi = f / 10000, lo = f % 10000;
	memcpy(end - 2, pd_dec_pairs + lo % 100 * 2, 2);
	memcpy(end - 4, pd_dec_pairs + lo / 100 * 2, 2);
	memcpy(end - 6, pd_dec_pairs + hi * 2, 2);
	end[-7] = '.';
}
/* Copies n bytes (16 <= n <= 96, a constant) as 16-byte vector moves, the
 * last one overlapping, each move written out (constant conditions fold
 * away): compilers turn a fixed-size memcpy of 40 or 88 bytes into
 * `rep movs`, whose start-up costs more than the copy, and keep a loop. */
typedef char pd_v16 __attribute__((vector_size(16), aligned(1), may_alias));
#define PD_V16_AT(d, s, at) (*(pd_v16 *)(void *)((d) + (at)) = *(const pd_v16 *)(const void *)((s) + (at)))
static inline __attribute__((always_inline)) void pd_copy_fixed(char *d, const char *s, size_t n)
{
	PD_V16_AT(d, s, 0);
	if (n >= 32)
		PD_V16_AT(d, s, 16);
	if (n >= 48)
		PD_V16_AT(d, s, 32);
	if (n >= 64)
		PD_V16_AT(d, s, 48);
	if (n >= 80)
		PD_V16_AT(d, s, 64);
	if (n >= 96)
		PD_V16_AT(d, s, 80);
	if (n % 16)
		PD_V16_AT(d, s, n - 16);
}
void pd_out_init(pd_out *o, FILE *f);
void pd_out_flush(pd_out *o);
void pd_out_free(pd_out *o);
void pd_out_str(pd_out *o, const char *s);
void pd_out_mem_slow(pd_out *o, const char *s, size_t n);
/* The hot path stays inline: one copy into the buffer. */
static inline void pd_out_mem(pd_out *o, const char *s, size_t n)
{
	if (o->len + n <= o->cap) {
		memcpy(o->buf + o->len, s, n);
		o->len += n;
		return;
	}
	pd_out_mem_slow(o, s, n);
}
/* n (<= PD_OUT_BLOCK) bytes of s, which has PD_OUT_BLOCK readable bytes:
 * one fixed-size move (a few stores, no call) when the buffer has room. */
#define PD_OUT_BLOCK 32
static inline void pd_out_block(pd_out *o, const char *s, size_t n)
{
	if (o->cap - o->len >= PD_OUT_BLOCK) {
		pd_copy_fixed(o->buf + o->len, s, PD_OUT_BLOCK);
		o->len += n;
		return;
	}
	pd_out_mem(o, s, n);
}
static inline void pd_out_ch(pd_out *o, char c)
{
	if (o->len < o->cap) {
		o->buf[o->len++] = c;
		return;
	}
	pd_out_mem_slow(o, &c, 1);
}
/* Makes room for n more bytes without a flush in between (flushing now
 * if needed); false when n can never fit. */
static inline bool pd_out_room(pd_out *o, size_t n)
{
	if (o->cap - o->len >= n)
		return true;
	pd_out_flush(o);
	return n <= o->cap;
}
/* A string literal, its length known at compile time. */
#define pd_out_lit(o, s) pd_out_mem((o), (s), sizeof(s) - 1)
/* Signed decimal, right-aligned (width > 0) or left-aligned (width < 0). */
void pd_out_int(pd_out *o, long long v, int width);
/* n spaces (none when n <= 0). */
void pd_out_pad(pd_out *o, int n);
/* Right-aligned in width (0: as is). */
void pd_out_pad_str(pd_out *o, const char *s, int width);
void pd_out_u64(pd_out *o, uint64_t v, int width);
void pd_out_hex(pd_out *o, uint64_t v, int width);
void pd_out_printf(pd_out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
