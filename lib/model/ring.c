/* The PMU model's ring buffer, written as the kernel writes it
 * (kernel/events/ring_buffer.c's perf_output_begin/end as described in
 * docs/model.md, "Sampling and the user page (pieces)").
 *
 * Invariants: head only grows (a free-running u64; the byte of position p
 * is data[p & (size - 1)]); a record is copied whole before data_head moves
 * past it, and data_head is stored with release ordering, data_tail loaded
 * with acquire, so a reader that loads data_head with acquire sees the
 * bytes; at most size - 1 bytes are ever unread (the kernel's CIRC_SPACE);
 * a record is written whole or not at all (then counted in lost); lost
 * records are reported by one PERF_RECORD_LOST right before the next record
 * that fits, in the same reservation. */
#include "model/sampling.h"

#include "perfdata/pd_internal.h"
#include "perfdata/sample_write.h"

#include <errno.h>
#include <string.h>
#include <poll.h>
#include <stddef.h>

int pki_ring_init(pki_ring *r, void *base, size_t len, size_t page, bool writable,
		  const struct perf_event_attr *a, pk_error *err)
{
	memset(r, 0, sizeof(*r));
	if (!page || (page & (page - 1)) || page < sizeof(struct perf_event_mmap_page))
		return pk_err(err, -EINVAL, "ring: page size %zu is not a power of 2 holding the user page",
			      page);
	size_t nr = len / page;
	if (len % page || !nr || ((nr - 1) & (nr - 2)))
		return pk_err(err, -EINVAL,
			      "ring: a mapping of %zu bytes is not 1 + 2^n pages of %zu bytes", len,
			      page);
	nr--;
	if (nr && !writable)
		return pk_err(err, -EOPNOTSUPP,
			      "ring: a read-only mapping (the kernel's overwrite ring) is not modeled");
	memset(base, 0, page);
	r->page = base;
	r->data = nr ? (uint8_t *)base + page : NULL;
	r->size = (uint64_t)nr * page;
	r->page->cap_bit0_is_deprecated = 1;
	r->page->size = (uint32_t)offsetof(struct perf_event_mmap_page, __reserved);
	r->page->data_offset = page;
	r->page->data_size = r->size;
	/* ring_buffer_init: the attr's watermark capped at the size, else half */
	uint64_t wm = a && a->watermark ? a->wakeup_watermark : 0;
	r->watermark = wm < r->size ? wm : r->size;
	if (!r->watermark)
		r->watermark = r->size / 2;
	return 0;
}

/* Copies n bytes to position pos with wrap-around. */
static void copy_in(pki_ring *r, uint64_t pos, const uint8_t *src, size_t n)
{
	uint64_t mask = r->size - 1;
	size_t at = (size_t)(pos & mask);
	size_t first = (size_t)r->size - at < n ? (size_t)r->size - at : n;
	memcpy(r->data + at, src, first);
	memcpy(r->data, src + first, n - first);
}

/* The wakeup rules once the reservation [.., head) is made: the watermark
 * moves rb->wakeup by whole watermarks; wakeup_events (without watermark)
 * moves it by one after that many samples. Any move is a wakeup. */
static void wakeup(pki_ring *r, const struct perf_event_attr *a, bool sample)
{
	uint64_t before = r->wakeup;
	if (r->head - r->wakeup > r->watermark)
		r->wakeup += r->watermark;
	if (sample && !a->watermark && a->wakeup_events &&
	    ++r->events >= a->wakeup_events) {
		r->events -= a->wakeup_events;
		r->wakeup++;
	}
	if (r->wakeup != before)
		r->pollin = true;
}

int pki_ring_write(pki_ring *r, const pki_ring_writer *w, const void *rec, size_t len)
{
	if (len < 8 || len % 8 || pd_ld16((const uint8_t *)rec + 6) != len)
		return -EINVAL;
	if (!r->size) /* ring_buffer_init pauses a ring without data pages */
		return -ENOBUFS;
	uint8_t lost[PKI_PD_LOST_MAX];
	size_t lost_len = 0;
	if (r->lost)
		lost_len = pki_pd_lost_record(lost, w->attr, &w->sid, w->id, r->lost);
	uint64_t tail = __atomic_load_n(&r->page->data_tail, __ATOMIC_ACQUIRE);
	uint64_t space = (tail - r->head - 1) & (r->size - 1); /* CIRC_SPACE */
	if (lost_len + len > space) {
		r->lost++;
		return -ENOSPC;
	}
	if (lost_len) {
		copy_in(r, r->head, lost, lost_len);
		r->lost = 0;
	}
	copy_in(r, r->head + lost_len, rec, len);
	r->head += lost_len + len;
	__atomic_store_n(&r->page->data_head, r->head, __ATOMIC_RELEASE);
	wakeup(r, w->attr, pd_ld32(rec) == PERF_RECORD_SAMPLE);
	return 0;
}

short pki_ring_revents(pki_ring *r)
{
	bool in = r->pollin;
	r->pollin = false;
	return in ? POLLIN : 0;
}

int pki_ring_output_check(const pki_output_event *ev, const pki_output_event *out,
			  pk_error *err)
{
	const char *why = NULL;
	if (ev->id == out->id)
		why = "an event cannot write into its own ring by SET_OUTPUT";
	else if (ev->cpu != out->cpu)
		why = "the events are on different CPUs";
	else if (ev->cpu == -1 && ev->task != out->task)
		why = "the per-task events follow different tasks";
	else if (ev->clockid != out->clockid)
		why = "the events use different clocks";
	else if (ev->mapped)
		why = "the event has a ring mapped already";
	if (why)
		return pk_err(err, -EINVAL, "PERF_EVENT_IOC_SET_OUTPUT from event %llu to %llu: %s",
			      (unsigned long long)ev->id, (unsigned long long)out->id, why);
	return 0;
}
