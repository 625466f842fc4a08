/* Inside the library: the PMU model's pieces for sampling and
 * self-monitoring (issue 8), pure functions over memory the model's kernel
 * owns; the kernel layer (fds, ioctl, virtual time) wires them in.
 *
 *  - the ring buffer as the kernel writes it (ring.c): the user page plus
 *    2^n data pages, records at data_head with wrap-around, data_head
 *    published after the bytes, the reader's data_tail honoured, lost
 *    records counted and reported by a PERF_RECORD_LOST before the next
 *    record that fits, POLLIN readiness from the watermark and
 *    wakeup_events, the checks of PERF_EVENT_IOC_SET_OUTPUT;
 *  - the user page for self-monitoring (userpage.c): the seqlock update of
 *    perf_event_update_userpage, and the RDPMC index encodings (generic n,
 *    fixed n with bit 30, PERF_METRICS with bit 29; the page stores
 *    index + 1);
 *  - overflow arithmetic (overflow.c): which counts and times of an
 *    interval make a sample, at a fixed sample_period or in frequency mode
 *    with the kernel's period adjustment.
 *
 * Facts, choices and what is not modeled: docs/model.md, "Sampling and the
 * user page (pieces)". Names are pki_; nothing here is exported. The
 * reader's side of the user page is lib/counting/selfread.h. */
#ifndef PK_MODEL_SAMPLING_H
#define PK_MODEL_SAMPLING_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <pmukit/error.h>
#include <pmukit/perfdata.h>

#include "model/model.h"

/* ---- the ring buffer (ring.c) ---- */

typedef struct pki_ring {
	struct perf_event_mmap_page *page; /* the user page, at the mapping's start */
	uint8_t *data;             /* the data pages (page->data_offset) */
	uint64_t size;             /* page->data_size: 0 or 2^n pages */
	uint64_t head;             /* the writer's head (rb->head) */
	uint64_t lost;             /* records lost since the last LOST record (rb->lost) */
	uint64_t watermark;        /* bytes between wakeups (rb->watermark) */
	uint64_t wakeup;           /* rb->wakeup: moved by the watermark and wakeup_events */
	uint64_t events;           /* samples since the last wakeup_events wakeup */
	bool pollin;               /* rb->poll: POLLIN until a poll reads it */
} pki_ring;

/* The event that writes a record: its attr (sample_type, sample_id_all,
 * watermark, wakeup_events), its id (the LOST record's id) and its sample_id
 * values now (the LOST record's trailer). With PERF_EVENT_IOC_SET_OUTPUT the
 * writer is the redirected event and the ring is its target's. */
typedef struct pki_ring_writer {
	const struct perf_event_attr *attr;
	uint64_t id;
	pk_pd_sample_id sid;
} pki_ring_writer;

/* A mapping of `len` bytes at base, from the event `a` (watermark,
 * wakeup_watermark). The kernel's perf_mmap rule: len is 1 + 2^n pages
 * (n >= 0; the user page alone serves self-monitoring), else -EINVAL.
 * The page is zeroed and gets data_offset = page, data_size = n pages,
 * size (the header size), cap_bit0_is_deprecated. A read-only mapping with
 * data pages is the kernel's overwrite (backward) ring: -EOPNOTSUPP. */
int pki_ring_init(pki_ring *r, void *base, size_t len, size_t page, bool writable,
		  const struct perf_event_attr *a, pk_error *err);

/* Writes one record (header first, len = header.size, a multiple of 8) at
 * the head: 0 when written, -ENOSPC when it does not fit before data_tail
 * (lost: counted in r->lost; the caller adds it to the event's
 * PERF_FORMAT_LOST count), -ENOBUFS when the mapping has no data pages (the
 * kernel's paused ring drops it without counting), -EINVAL for a malformed
 * record. When records were lost, a PERF_RECORD_LOST of the writer goes
 * first and must fit with it. */
int pki_ring_write(pki_ring *r, const pki_ring_writer *w, const void *rec, size_t len);

/* Readiness for poll(2): POLLIN when a wakeup happened since the last call
 * (the kernel's perf_poll exchanges rb->poll with 0), else 0. */
short pki_ring_revents(pki_ring *r);

/* What PERF_EVENT_IOC_SET_OUTPUT checks of the two events. */
typedef struct pki_output_event {
	uint64_t id;               /* tells the events apart */
	int cpu;                   /* -1: per task */
	int task;                  /* the task of a per-task event */
	int clockid;               /* -1 without use_clockid */
	bool mapped;               /* the event has its own mapping */
} pki_output_event;
/* 0 when `ev` may write into `out`'s ring, else -EINVAL naming the rule
 * (itself, another CPU, another task, another clock, ev already mapped). */
int pki_ring_output_check(const pki_output_event *ev, const pki_output_event *out,
			  pk_error *err);

/* ---- the user page and RDPMC (userpage.c) ---- */

typedef enum pki_pmc_kind { PKI_PMC_GENERIC, PKI_PMC_FIXED, PKI_PMC_METRICS } pki_pmc_kind;

/* RDPMC's ECX for a counter: generic n -> n, fixed n -> n | 1 << 30,
 * PERF_METRICS -> 1 << 29 (n ignored). */
uint32_t pki_rdpmc_ecx(pki_pmc_kind kind, unsigned n);
/* The user page's index for a counter: ecx + 1. */
uint32_t pki_userpage_index(pki_pmc_kind kind, unsigned n);
/* Decodes ECX on a core PMU row (generic counters per thread by smt): 0
 * and kind, n; or -EINVAL (the hardware's #GP) naming what is wrong: bit 31
 * or both 29 and 30, a counter the row does not have, PERF_METRICS with
 * index bits or on a row without it. */
int pki_rdpmc_decode(uint32_t ecx, const pki_counters *row, bool smt, pki_pmc_kind *kind,
		     unsigned *n, pk_error *err);

/* What perf_event_update_userpage publishes. */
typedef struct pki_userpage {
	uint32_t index;            /* pki_userpage_index, 0 when not on a counter */
	int64_t offset;            /* count - the counter's raw value (or the count when index is 0) */
	uint64_t time_enabled, time_running;
	uint16_t pmc_width;        /* counter bits (Intel 48) */
	bool cap_user_rdpmc;
	bool cap_user_time, cap_user_time_zero;
	uint16_t time_shift;
	uint32_t time_mult;
	uint64_t time_offset, time_zero;
} pki_userpage;

/* The model's clock on the page: a TSC that counts virtual nanoseconds
 * (time_mult 1, time_shift 0), time_offset = -now so that a reader's
 * time_offset + tsc is the time since this update, time_zero 0. */
void pki_userpage_vtime(pki_userpage *u, uint64_t now_ns);
/* The update under the seqlock: lock incremented, compiler and store
 * barrier, the fields, barrier, lock incremented again. */
void pki_userpage_update(struct perf_event_mmap_page *pg, const pki_userpage *u);

/* ---- overflow: fixed period and frequency mode (overflow.c) ---- */

typedef struct pki_overflow {
	uint64_t period;           /* hwc->sample_period: the period armed next */
	uint64_t left;             /* counts to the next overflow (hwc->period_left) */
	uint64_t last_period;      /* hwc->last_period: the period that elapses now */
	uint64_t freq;             /* attr.sample_freq; 0: a fixed period */
	uint64_t tick_ns;          /* TICK_NSEC (1e9 / HZ) of the modeled kernel */
	uint64_t freq_time_stamp;  /* virtual ns of the last overflow (freq) */
	uint64_t freq_count_stamp; /* the count at the last tick (freq) */
} pki_overflow;

/* From a sampling attr: a fixed sample_period (>= 1; 0 is -EINVAL), or
 * freq with sample_freq (>= 1; 0 is -EINVAL): the period starts at 1 and is
 * adjusted as the kernel does (pki_overflow_next, pki_overflow_tick).
 * tick_ns is the modeled kernel's tick (1e9 / HZ), > 0 in freq mode. */
int pki_overflow_init(pki_overflow *o, const struct perf_event_attr *a, uint64_t tick_ns,
		      pk_error *err);

/* Closed forms for a fixed period (freq 0), for long intervals: */
/* the overflows while the count advances by delta; */
uint64_t pki_overflow_fires(const pki_overflow *o, uint64_t delta);
/* overflow k (0-based, k < fires) of an interval where the count goes from
 * c0 to c1 during [t0, t1]: its count and its time, linear in the interval
 * (truncated); */
void pki_overflow_at(const pki_overflow *o, uint64_t c0, uint64_t c1, uint64_t t0, uint64_t t1,
		     uint64_t k, uint64_t *count, uint64_t *time);
/* the count advanced by delta: left moves on (a period again after each
 * overflow). */
void pki_overflow_advance(pki_overflow *o, uint64_t delta);

/* One overflow at a time, either mode. An interval: the count goes from c0
 * to c1 during [t0, t1] (linear); `done` counts consumed so far (start 0). */
typedef struct pki_overflow_span {
	uint64_t c0, c1, t0, t1;
	uint64_t done;
} pki_overflow_span;
typedef struct pki_overflow_hit {
	uint64_t count, time;      /* where the counter overflowed */
	uint64_t period;           /* PERF_SAMPLE_PERIOD: the period that elapsed */
} pki_overflow_hit;
/* 1 and the next overflow of the span, the state moved past it as x86's
 * interrupt handler and __perf_event_account_interrupt do (re-armed at the
 * period, then in freq mode the period adjusted by perf_adjust_period from
 * the time since the last overflow); 0 when the rest of the span does not
 * reach it (the state moved to c1). */
int pki_overflow_next(pki_overflow *o, pki_overflow_span *s, pki_overflow_hit *hit);
/* The kernel's tick (perf_adjust_freq_unthr_context) in freq mode, with the
 * event's count now: the period adjusted from the counts of the last tick.
 * Nothing in fixed mode. */
void pki_overflow_tick(pki_overflow *o, uint64_t count);
/* perf_calculate_period: the period that gives `freq` samples per second
 * when `count` events take `nsec`: count x 1e9 / (nsec x freq), in 128 bits
 * (the kernel reduces precision instead when the products pass 64 bits). */
uint64_t pki_freq_period(uint64_t nsec, uint64_t count, uint64_t freq);

/* PERF_EVENT_IOC_PERIOD: the new period applies from now (the kernel
 * zeroes period_left, so the counter is re-armed at the full new period);
 * in freq mode the value is the new frequency. 0 is -EINVAL. */
int pki_overflow_set_period(pki_overflow *o, uint64_t value, pk_error *err);

#endif
