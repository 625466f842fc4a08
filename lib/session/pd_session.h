/* pmukit CLI: reading a perf.data for script and report (shared loop). */
#ifndef PMUKIT_PD_SESSION_H
#define PMUKIT_PD_SESSION_H

#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <pmukit/perfdata.h>
#include <pmukit/symbols.h>

#include "core/strmap.h"
#include "pd_spe.h"
#include "pd_trace.h"

typedef struct pd_session {
	const char *cmd;
	const char *input;
	pk_pd_reader *reader;
	pk_machine *machine;
	uint64_t nr_samples;         /* samples handed to the callback */
	bool ran;                    /* pd_session_run was called */
	pd_spe spe;                  /* Arm SPE data; spe.dump (-D): dump, no samples */
	pd_trace trace;              /* tracepoint payloads (tracing data) */
	/* PERF_SAMPLE_READ: each counter's last value, by id, for the deltas
	 * handed out as one sample per group member (perf's way) */
	struct pd_read_prev { uint64_t id, value; bool used; } *read_prev;
	size_t read_cap, read_used;
	/* Non-sample records for a command that shows them (script's
	 * --show-*-events), called before and after the task state takes
	 * each one; NULL: none, at no cost. */
	void (*on_event)(void *arg, struct pd_session *s, const pk_pd_event *ev, bool before);
	void *event_arg;
	/* --header of a pipe: its features printed here as their records are
	 * read (perf prints them while it reads), NULL: not */
	FILE *pipe_features;
	/* --call-graph dwarf samples: the chain handed out (the kernel's part,
	 * then the user stack unwound, pd_session.c), the file's ARCH, how many
	 * samples gave the IP alone and why the first did */
	uint64_t *uw_chain;
	const char **uw_inl;         /* per entry: "name (inlined)", or NULL */
	size_t uw_cap;
	pki_strmap uw_names;         /* the texts uw_inl points at, kept to the end
					(report's trees keep them) */
	char *uw_arch;
	bool uw_arch_read;
	uint64_t uw_failed;
	pk_error uw_err;
} pd_session;

/* Called for each sample, in time order, after the task state is updated. */
typedef int (*pd_sample_fn)(void *arg, pd_session *s, const pk_pd_event *ev,
			    const pk_pd_sample *sample);

/* input NULL: stdin when it is a pipe, else "perf.data" (perf's rule).
 * Without force (-f/--force), a file owned by neither the current user
 * nor root is refused as perf refuses it (a directory: its "data" file).
 * rounds (-D): FINISHED_ROUND records handed to on_event too. */
int pd_session_open(pd_session *s, const char *cmd, const char *input, bool no_order, bool force,
		    bool rounds);
/* A machine with options (--kallsyms FILE, --no-demangle) in place of the
 * default one (before the run); 0, or 1 after printing an error. */
int pd_session_machine(pd_session *s, const pk_machine_opts *o);
/* Runs to the end; returns 0, or 1 after printing an error (the samples
 * before the damage have been handed out). */
int pd_session_run(pd_session *s, pd_sample_fn fn, void *arg);
/* The file's events, then the synthetic ones of its AUX data (Arm SPE's
 * l1d-miss, ...; made when the AUXTRACE_INFO is read): evsel->idx is the
 * index here. */
size_t pd_session_nr_evsels(const pd_session *s);
const pk_pd_evsel *pd_session_evsel_at(const pd_session *s, size_t idx);
/* Prints the reader's warnings and what it dropped (stderr); returns
 * status, or 1 when samples were there and none could be decoded. */
int pd_session_finish(pd_session *s, int status);
/* perf's warnings for PERF_RECORD_AUX flags (TRUNCATED: lost, PARTIAL: gaps,
 * COLLISION) out of nr_aux records, each hint after its sentence. */
void pd_aux_flags_warn(uint64_t truncated, uint64_t partial, uint64_t collision, uint64_t nr_aux,
		       const char *lost_hint, const char *collision_hint);
void pd_session_close(pd_session *s);

/* A call chain entry seen as perf 6.1 follows chains: 0 an address, 1 a
 * context marker (*mode set), -1 a marker for which perf drops the whole
 * chain (corrupt, or a guest context). */
static inline int pd_chain_marker(uint64_t ip, unsigned *mode)
{
	if (ip < (uint64_t)-4095)
		return 0;
	int c = pk_callchain_context(ip, mode);
	if (c < 0 || *mode == PERF_RECORD_MISC_GUEST_KERNEL || *mode == PERF_RECORD_MISC_GUEST_USER)
		return -1;
	return 1;
}

/* The inlined function perf 6.1 shows at entry i of a --call-graph dwarf
 * chain, as "name (inlined)" (script prints "name+off (inlined)", off from
 * the symbol the address is in), or NULL for an address shown as usual;
 * pd_chain_inlines: the array of them by entry, NULL when there are none.
 * The text lives as long as the session. */
static inline const char *const *pd_chain_inlines(const pd_session *s, const pk_pd_sample *smp)
{
	return smp->callchain == s->uw_chain && s->uw_chain ? (const char *const *)s->uw_inl : NULL;
}
static inline const char *pd_chain_inlined(const pd_session *s, const pk_pd_sample *smp,
					   uint64_t i)
{
	const char *const *inl = pd_chain_inlines(s, smp);
	return inl ? inl[i] : NULL;
}

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
