/* The PMU model's mappings, user page, RDPMC emulation and sampling through
 * the pk_kernel seam (issue 8): the page says which counter an event is on
 * and pki_selfread over it with pk_model_rdpmc gives read(2)'s counts
 * (multiplexed too); IOC_RESET starts a new period through rdpmc as well;
 * SLOTS and PERF_METRICS stay continuous across a modeled context switch
 * and are cleared by a read; samples at a fixed period land where the
 * scenario says (count, IPs, TIDs, times, periods); a
 * {slots,cycles,topdown-retiring} group samples its read; a full ring
 * loses samples, counts them and reports them with a LOST record; poll
 * waits in virtual time; Skymont's TopDown events on fixed counters 4-6.
 * Truths come from the scenario's numbers. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>

#include "helpers.h"
#include "counting/selfread.h"
#include "model/mkernel.h"
#include "perfdata/pd_internal.h"

#define MS 1000000ull
#define PAGE 4096u
#define TID 1001

static pk_model *model(const char *name)
{
	return pk_test_model(pk_test_example(name));
}

static int open_ev(pk_model *m, uint32_t type, uint64_t config, uint64_t rf, int group)
{
	const pk_kernel *k = pk_model_kernel(m);
	struct perf_event_attr a = {.type = type, .size = sizeof(a), .config = config,
				    .read_format = rf};
	int fd = k->ops->open(k, &a, TID, -1, group, 0);
	assert_true(fd >= 0);
	return fd;
}

static struct perf_event_mmap_page *map(pk_model *m, int fd, size_t data_pages)
{
	const pk_kernel *k = pk_model_kernel(m);
	void *p = NULL;
	assert_int_equal(k->ops->mmap(k, fd, (1 + data_pages) * PAGE, PROT_READ | PROT_WRITE, 0, &p),
			 0);
	return p;
}

static uint64_t emu_rdpmc(void *arg, uint32_t ecx)
{
	uint64_t v = 0;
	pk_error err;
	pk_error_clear(&err);
	if (pk_model_rdpmc(arg, TID, ecx, &v, &err) < 0)
		fail_msg("rdpmc 0x%x: %s", ecx, err.msg);
	return v;
}

static uint64_t emu_rdtsc(void *arg)
{
	return pk_model_now(arg);
}

/* pki_selfread over the page: 0 (from the counter) or the fallback. */
static int selfread(pk_model *m, const struct perf_event_mmap_page *pg, pk_counts *c)
{
	pki_selfread_ops ops = {emu_rdpmc, emu_rdtsc, m};
	int r = pki_selfread(pg, &ops, c, NULL);
	assert_true(r == 0 || r == PKI_SELFREAD_FALLBACK);
	return r;
}

static const uint64_t TIMES = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;

static pk_counts read_fd(pk_model *m, int fd)
{
	const pk_kernel *k = pk_model_kernel(m);
	uint64_t v[3];
	assert_int_equal(k->ops->read(k, fd, v, sizeof(v)), 24);
	return (pk_counts){.val = v[0], .ena = v[1], .run = v[2]};
}

static void test_userpage_index(void **state)
{
	(void)state;
	pk_model *m = model("sapphirerapids.json");
	int cyc = open_ev(m, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, TIMES, -1);
	int gen = open_ev(m, PERF_TYPE_RAW, 0x01c2, TIMES, -1); /* UOPS_RETIRED.HEAVY */
	struct perf_event_mmap_page *pc = map(m, cyc, 0), *pg = map(m, gen, 0);
	assert_int_equal(pc->index, (1u | 1u << 30) + 1); /* fixed counter 1 */
	assert_int_equal(pg->index, 0 + 1);               /* generic counter 0 */
	assert_true(pc->cap_user_rdpmc && pc->cap_user_time && pc->cap_user_time_zero);
	assert_int_equal(pc->pmc_width, 48);
	assert_int_equal(pc->data_size, 0);
	pk_model_advance(m, 100 * MS + 123);
	pk_counts s, r;
	assert_int_equal(selfread(m, pc, &s), 0);
	r = read_fd(m, cyc);
	assert_int_equal(s.val, r.val);
	assert_int_equal(r.val, 300000369); /* 100.000123 ms at 3 GHz */
	assert_int_equal(selfread(m, pg, &s), 0);
	assert_int_equal(s.val, read_fd(m, gen).val);
	/* disabled: off the counter, read(2) instead */
	const pk_kernel *k = pk_model_kernel(m);
	assert_int_equal(k->ops->ioctl(k, cyc, PERF_EVENT_IOC_DISABLE, 0), 0);
	assert_int_equal(pc->index, 0);
	assert_int_equal(selfread(m, pc, &s), PKI_SELFREAD_FALLBACK);
	assert_int_equal(s.val, r.val);
	/* RDPMC of counters the core has not: the hardware's #GP */
	uint64_t v;
	assert_int_equal(pk_model_rdpmc(m, TID, 1u << 30 | 7, &v, NULL), -EINVAL);
	assert_int_equal(pk_model_rdpmc(m, TID, 9, &v, NULL), -EINVAL);
	assert_int_equal(pk_model_rdpmc(m, 4242, 0, &v, NULL), -ESRCH);
	pk_model_advance(m, pk_model_end(m));
	assert_int_equal(pk_model_rdpmc(m, TID, 0, &v, NULL), -ESRCH); /* the thread ended */
	pk_model_free(m);
}

/* The seam's simulated-kernel entries (kernel.h) of the model's kernel:
 * RDPMC gives what the user page promises (read(2)'s count), errors as
 * pk_model_rdpmc's; its clock is virtual time; run_to stops 1 ns before the
 * scenario ends and never goes back; the sysfs root and the source are the
 * model's. What the region library reads the model through (lib/region
 * does not import lib/model). */
static void test_seam_sim_entries(void **state)
{
	(void)state;
	pk_model *m = model("sapphirerapids.json");
	const pk_kernel *k = pk_model_kernel(m);
	assert_non_null(k->ops->rdpmc);
	assert_null(pk_kernel_linux()->ops->rdpmc);
	assert_null(pk_kernel_linux()->ops->now);
	int cyc = open_ev(m, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, TIMES, -1);
	struct perf_event_mmap_page *pc = map(m, cyc, 0);
	k->ops->run_to(k, 100 * MS);
	assert_int_equal(k->ops->now(k), 100 * MS);
	k->ops->run_to(k, 50 * MS); /* never back */
	assert_int_equal(k->ops->now(k), 100 * MS);
	uint64_t v = 0;
	assert_int_equal(k->ops->rdpmc(k, TID, pc->index - 1, &v), 0);
	pk_counts r = read_fd(m, cyc);
	assert_int_equal((uint64_t)pc->offset + v, r.val);
	assert_int_equal(r.val, 300000000); /* 100 ms at 3 GHz */
	assert_int_equal(k->ops->rdpmc(k, TID, 1u << 30 | 7, &v), -EINVAL);
	assert_int_equal(k->ops->rdpmc(k, 4242, 0, &v), -ESRCH);
	assert_string_equal(k->ops->sysfs_root(k), pk_model_sysfs_root(m));
	assert_string_equal(k->ops->source(k), pk_model_scenario(m));
	k->ops->run_to(k, UINT64_MAX);
	assert_int_equal(k->ops->now(k), pk_model_end(m) - 1);
	assert_int_equal(k->ops->rdpmc(k, TID, 0, &v), 0); /* the thread still runs */
	pk_model_free(m);
}

/* Skymont (lunarlake-hybrid.json, thread 5002 on an E-core the whole run):
 * the kernel's codes 0x0073, 0x019c, 0x02c2 take the perfmon v6 TopDown
 * fixed counters 4, 5, 6 (RDPMC index n | 1 << 30), the backend 0xa4/0x02 a
 * generic one; RDPMC gives read(2)'s count, width x share x cycles. */
static void test_skymont_fixed_counters(void **state)
{
	(void)state;
	pk_model *m = model("lunarlake-hybrid.json");
	const pk_kernel *k = pk_model_kernel(m);
	static const struct { uint64_t config; uint32_t index; double share; } ev[] = {
		{0x0073, 4u | 1u << 30, 0.05}, {0x019c, 5u | 1u << 30, 0.40},
		{0x02c2, 6u | 1u << 30, 0.25}, {0x02a4, 0, 0.30},
	};
	int fd[4];
	struct perf_event_mmap_page *pg[4];
	for (int i = 0; i < 4; i++) {
		struct perf_event_attr a = {.type = 8 /* cpu_atom */, .size = sizeof(a),
					    .config = ev[i].config, .read_format = TIMES};
		fd[i] = k->ops->open(k, &a, 5002, -1, -1, 0);
		assert_true(fd[i] >= 0);
		pg[i] = map(m, fd[i], 0);
	}
	pk_model_advance(m, 100 * MS);
	for (int i = 0; i < 4; i++) {
		assert_int_equal(pg[i]->index, ev[i].index + 1);
		uint64_t v;
		assert_int_equal(pk_model_rdpmc(m, 5002, ev[i].index, &v, NULL), 0);
		pk_counts r = read_fd(m, fd[i]);
		assert_int_equal(v, r.val);
		/* 100 ms at 3.5 GHz, 8 slots per cycle */
		assert_float_equal((double)r.val, 8 * ev[i].share * 3.5e8, 1);
	}
	pk_model_free(m);
}

/* 12 cycles events on fixed 1 + 8 generic counters: every user page gives
 * what read(2) gives, counts and times, at odd moments. */
static void test_selfread_multiplexed(void **state)
{
	(void)state;
	pk_model *m = model("sapphirerapids.json");
	int fd[12];
	struct perf_event_mmap_page *pg[12];
	for (int i = 0; i < 12; i++) {
		fd[i] = open_ev(m, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, TIMES, -1);
		pg[i] = map(m, fd[i], 0);
	}
	int on = 0, off = 0;
	for (uint64_t step = 1; step < 40; step++) {
		pk_model_advance(m, step * 777777);
		for (int i = 0; i < 12; i++) {
			pk_counts s, r;
			int how = selfread(m, pg[i], &s);
			r = read_fd(m, fd[i]);
			on += how == 0, off += how != 0;
			assert_int_equal(s.val, r.val);
			if (how == 0 && s.ena != s.run) { /* extrapolated by the TSC */
				assert_int_equal(s.ena, r.ena);
				assert_int_equal(s.run, r.run);
			} else { /* libperf's loop: the times of the last update */
				assert_true(s.ena <= r.ena && s.run <= r.run);
			}
		}
	}
	assert_int_equal(on, 39 * 9); /* 9 counters */
	assert_int_equal(off, 39 * 3);
	pk_model_free(m);
}

static void test_reset_through_rdpmc(void **state)
{
	(void)state;
	pk_model *m = model("sapphirerapids.json");
	const pk_kernel *k = pk_model_kernel(m);
	int cyc = open_ev(m, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, TIMES, -1);
	struct perf_event_mmap_page *pg = map(m, cyc, 0);
	pk_counts s;
	pk_model_advance(m, 50 * MS);
	assert_int_equal(k->ops->ioctl(k, cyc, PERF_EVENT_IOC_RESET, 0), 0);
	assert_int_equal(selfread(m, pg, &s), 0);
	assert_int_equal(s.val, 0);
	pk_model_advance(m, 10 * MS);
	assert_int_equal(selfread(m, pg, &s), 0);
	assert_int_equal(s.val, 30000000);
	assert_int_equal(read_fd(m, cyc).val, 30000000);
	pk_model_free(m);
}

/* Two {slots, 4 metrics} groups share fixed counter 3 and rotate every mux
 * tick (4 ms). Group A's SLOTS register read by RDPMC only grows across
 * A's switch-out and switch-in (saved and written back), by the slots A
 * ran; PERF_METRICS reads the phase's shares; a read(2) of A clears both;
 * the user page's count equals read(2)'s. */
static void test_slots_save_restore(void **state)
{
	(void)state;
	pk_model *m = model("sapphirerapids.json");
	const pk_kernel *k = pk_model_kernel(m);
	uint64_t rf = PERF_FORMAT_GROUP | TIMES;
	int a = open_ev(m, PERF_TYPE_RAW, 0x0400, rf, -1), b;
	for (int i = 0; i < 4; i++)
		open_ev(m, PERF_TYPE_RAW, 0x8000 + 0x100u * (unsigned)i, rf, a);
	b = open_ev(m, PERF_TYPE_RAW, 0x0400, rf, -1);
	for (int i = 0; i < 4; i++)
		open_ev(m, PERF_TYPE_RAW, 0x8000 + 0x100u * (unsigned)i, rf, b);
	struct perf_event_mmap_page *pa = map(m, a, 0), *pb = map(m, b, 0);
	const uint32_t fixed3 = 3u | 1u << 30, metrics = 1u << 29;
	pk_model_advance(m, 2 * MS); /* A is in (the first flexible group) */
	assert_int_equal(pa->index, fixed3 + 1);
	assert_int_equal(pb->index, 0);
	uint64_t v1 = emu_rdpmc(m, fixed3);
	assert_int_equal(v1, 6 * 3 * 2 * MS); /* width 6 x 3 GHz x 2 ms */
	pk_model_advance(m, 4 * MS); /* A out at 4 ms, B in */
	assert_int_equal(pa->index, 0);
	assert_int_equal(pb->index, fixed3 + 1);
	assert_int_equal(emu_rdpmc(m, fixed3), 6 * 3 * 2 * MS); /* B's, since 4 ms */
	pk_model_advance(m, 4 * MS); /* A back in at 8 ms: its register restored */
	assert_int_equal(pa->index, fixed3 + 1);
	uint64_t v2 = emu_rdpmc(m, fixed3);
	assert_int_equal(v2 - v1, 6 * 3 * 4 * MS); /* A ran 2-4 and 8-10 ms */
	uint64_t pm = emu_rdpmc(m, metrics);
	const double share[4] = {0.30, 0.10, 0.25, 0.35};
	for (int i = 0; i < 4; i++)
		assert_true(fabs((double)(pm >> (8 * i) & 0xff) / 255 - share[i]) < 1.0 / 255);
	pk_counts s;
	assert_int_equal(selfread(m, pa, &s), 0);
	uint64_t g[16];
	assert_true(k->ops->read(k, a, g, sizeof(g)) > 0);
	assert_int_equal(g[0], 5);
	assert_int_equal(s.val, g[3]); /* the page's count is read(2)'s */
	assert_int_equal(g[3], 6 * 3 * 6 * MS);
	assert_int_equal(emu_rdpmc(m, fixed3), 0); /* cleared together by the read */
	assert_int_equal(emu_rdpmc(m, metrics), 0);
	pk_model_advance(m, 1 * MS);
	assert_int_equal(selfread(m, pa, &s), 0);
	assert_int_equal(s.val, 6 * 3 * 7 * MS);
	pk_model_free(m);
}

/* Walks the records of a ring from data_tail to data_head; fn per record. */
typedef void (*rec_fn)(void *arg, const uint8_t *rec);
static size_t drain(struct perf_event_mmap_page *pg, rec_fn fn, void *arg)
{
	uint8_t *data = (uint8_t *)pg + pg->data_offset, buf[65536];
	uint64_t head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE), tail = pg->data_tail;
	uint64_t mask = pg->data_size - 1;
	size_t n = 0;
	while (tail < head) {
		for (size_t i = 0; i < 8; i++)
			buf[i] = data[(tail + i) & mask];
		size_t size = pd_ld16(buf + 6);
		assert_true(size >= 8 && size <= head - tail);
		for (size_t i = 0; i < size; i++)
			buf[i] = data[(tail + i) & mask];
		fn(arg, buf);
		tail += size;
		n++;
	}
	__atomic_store_n(&pg->data_tail, tail, __ATOMIC_RELEASE);
	return n;
}

typedef struct seen {
	uint64_t samples, lost_records, lost, last_time;
	uint64_t at_ip[2];
	uint64_t period;
} seen;

/* IP, TID, TIME, CPU, PERIOD in that order after the header. */
static void check_sample(void *arg, const uint8_t *rec)
{
	seen *s = arg;
	if (pd_ld32(rec) == PERF_RECORD_LOST) {
		s->lost_records++;
		s->lost += pd_ld64(rec + 16);
		return;
	}
	assert_int_equal(pd_ld32(rec), PERF_RECORD_SAMPLE);
	assert_int_equal(pd_ld16(rec + 4), PERF_RECORD_MISC_USER);
	uint64_t ip = pd_ld64(rec + 8), time = pd_ld64(rec + 24), k = s->samples + s->lost;
	assert_int_equal(pd_ld32(rec + 16), TID); /* pid */
	assert_int_equal(pd_ld32(rec + 20), TID); /* tid */
	assert_int_equal(pd_ld32(rec + 32), 0);   /* cpu */
	assert_int_equal(pd_ld64(rec + 40), s->period);
	/* overflow k at (k + 1) x period cycles of 3 GHz, to the ns */
	uint64_t want = (k + 1) * s->period / 3;
	assert_true(time >= want && time <= want + 1);
	assert_true(time > s->last_time);
	s->last_time = time;
	/* the overflow at 400 ms is the first phase's last cycle */
	assert_int_equal(ip, time <= 400 * MS ? 0x401000 : 0x402000);
	s->at_ip[time <= 400 * MS ? 0 : 1]++;
	s->samples++;
}

static int open_sampling(pk_model *m, uint64_t period, uint64_t rf)
{
	const pk_kernel *k = pk_model_kernel(m);
	struct perf_event_attr a = {.type = PERF_TYPE_HARDWARE, .size = sizeof(a),
				    .config = PERF_COUNT_HW_CPU_CYCLES, .sample_period = period,
				    .sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID |
						   PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
						   PERF_SAMPLE_PERIOD,
				    .read_format = rf};
	int fd = k->ops->open(k, &a, TID, -1, -1, 0);
	assert_true(fd >= 0);
	return fd;
}

/* 1 s at 3 GHz with a period of 1e6 cycles: 3000 samples, 1200 in the
 * first phase (400 ms), at (k + 1) x period cycles. */
static void test_sampling_fixed_period(void **state)
{
	(void)state;
	pk_model *m = model("sapphirerapids.json");
	int fd = open_sampling(m, 1000000, 0);
	struct perf_event_mmap_page *pg = map(m, fd, 64);
	seen s = {.period = 1000000};
	pk_model_advance(m, pk_model_end(m));
	drain(pg, check_sample, &s);
	assert_int_equal(s.samples, 3000);
	assert_int_equal(s.at_ip[0], 1200);
	assert_int_equal(s.at_ip[1], 1800);
	assert_int_equal(s.lost_records, 0);
	pk_model_free(m);
}

/* One data page holds 85 samples of 48 bytes: the rest of the first
 * 500 ms is lost, counted in PERF_FORMAT_LOST, and reported by a LOST
 * record before the first sample that fits after the reader caught up. */
static void test_sampling_lost(void **state)
{
	(void)state;
	pk_model *m = model("sapphirerapids.json");
	const pk_kernel *k = pk_model_kernel(m);
	int fd = open_sampling(m, 1000000, PERF_FORMAT_LOST);
	struct perf_event_mmap_page *pg = map(m, fd, 1);
	seen s = {.period = 1000000};
	pk_model_advance(m, 500 * MS);
	drain(pg, check_sample, &s);
	assert_int_equal(s.samples, 4095 / 48);
	uint64_t v[2];
	assert_int_equal(k->ops->read(k, fd, v, sizeof(v)), 16);
	assert_int_equal(v[1], 1500 - 85);
	pk_model_advance(m, 1 * MS);
	drain(pg, check_sample, &s);
	assert_int_equal(s.lost_records, 1);
	assert_int_equal(s.lost, 1500 - 85);
	assert_int_equal(s.samples + s.lost, 1503);
	pk_model_free(m);
}

/* poll waits in virtual time until the ring's watermark (half of it). */
static void test_poll_wakeup(void **state)
{
	(void)state;
	pk_model *m = model("sapphirerapids.json");
	const pk_kernel *k = pk_model_kernel(m);
	int fd = open_sampling(m, 1000000, 0);
	struct perf_event_mmap_page *pg = map(m, fd, 2);
	struct pollfd p = {.fd = fd, .events = POLLIN};
	assert_int_equal(k->ops->poll(k, &p, 1, 0), 0); /* no time passes */
	assert_int_equal(pk_model_now(m), 0);
	assert_int_equal(k->ops->poll(k, &p, 1, -1), 1);
	assert_int_equal(p.revents, POLLIN);
	/* past 4096 bytes: the 86th sample of 48 bytes, at 86e6 cycles */
	assert_int_equal(pg->data_head, 86 * 48);
	assert_true(pk_model_now(m) >= 86000000 / 3 && pk_model_now(m) < 87000000 / 3);
	assert_int_equal(k->ops->poll(k, &p, 1, 0), 0); /* once per wakeup */
	assert_int_equal(k->ops->poll(k, &p, 1, 5), 0); /* 5 virtual ms: no wakeup */
	assert_true(pk_model_now(m) >= 86000000 / 3 + 5 * MS);
	pk_model_free(m);
}

typedef struct group_seen {
	uint64_t samples;
} group_seen;

/* TIME, READ {nr, slots id, cycles id, retiring id}. */
static void check_group_sample(void *arg, const uint8_t *rec)
{
	group_seen *g = arg;
	assert_int_equal(pd_ld32(rec), PERF_RECORD_SAMPLE);
	const uint8_t *p = rec + 8;
	uint64_t time = pd_ld64(p), nr = pd_ld64(p + 8);
	assert_int_equal(nr, 3);
	uint64_t slots = pd_ld64(p + 16), cycles = pd_ld64(p + 32), ret = pd_ld64(p + 48);
	assert_int_equal(pd_ld64(p + 40), 2); /* ids: open order */
	/* virtual time stops at the ns of the overflow: up to 3 cycles more */
	uint64_t at = (g->samples + 1) * 1000000;
	assert_true(cycles >= at && cycles <= at + 3);
	assert_true(time >= at / 3 && time <= at / 3 + 1);
	assert_true(slots >= 6 * cycles - 6 && slots <= 6 * cycles + 6);
	double share = time < 400 * MS ? 0.30 : 0.60;
	if (time < 400 * MS)
		assert_true(fabs((double)ret / (double)slots - share) < 1.0 / 255 + 1e-6);
	g->samples++;
}

static void test_group_sample_read(void **state)
{
	(void)state;
	pk_model *m = model("sapphirerapids.json");
	const pk_kernel *k = pk_model_kernel(m);
	uint64_t rf = PERF_FORMAT_GROUP | PERF_FORMAT_ID;
	struct perf_event_attr a = {.type = PERF_TYPE_RAW, .size = sizeof(a), .config = 0x0400,
				    .read_format = rf, .sample_type = PERF_SAMPLE_TIME | PERF_SAMPLE_READ};
	int slots = k->ops->open(k, &a, TID, -1, -1, 0);
	assert_true(slots >= 0);
	a.type = PERF_TYPE_HARDWARE;
	a.config = PERF_COUNT_HW_CPU_CYCLES;
	a.sample_period = 1000000;
	int cyc = k->ops->open(k, &a, TID, -1, slots, 0);
	assert_true(cyc >= 0);
	a.type = PERF_TYPE_RAW;
	a.config = 0x8000;
	a.sample_period = 0;
	assert_true(k->ops->open(k, &a, TID, -1, slots, 0) >= 0);
	struct perf_event_mmap_page *pg = map(m, cyc, 64);
	group_seen g = {0};
	pk_model_advance(m, 300 * MS);
	drain(pg, check_group_sample, &g);
	assert_int_equal(g.samples, 900);
	pk_model_free(m);
}

static void count_by_period(void *arg, const uint8_t *rec)
{
	uint64_t *n = arg;
	assert_int_equal(pd_ld32(rec), PERF_RECORD_SAMPLE);
	n[pd_ld64(rec + 40) == 3000000]++;
}

/* SET_OUTPUT: a second event writes into the first one's ring. */
static void test_set_output(void **state)
{
	(void)state;
	pk_model *m = model("sapphirerapids.json");
	const pk_kernel *k = pk_model_kernel(m);
	int a = open_sampling(m, 1000000, 0), b = open_sampling(m, 3000000, 0);
	struct perf_event_mmap_page *pg = map(m, a, 64);
	assert_int_equal(k->ops->ioctl(k, b, PERF_EVENT_IOC_SET_OUTPUT, (unsigned long)a), 0);
	assert_int_equal(k->ops->ioctl(k, a, PERF_EVENT_IOC_SET_OUTPUT, (unsigned long)a), -EINVAL);
	pk_model_advance(m, 30 * MS);
	uint64_t by_period[2] = {0, 0};
	drain(pg, count_by_period, by_period);
	assert_int_equal(by_period[0], 90); /* 9e7 cycles / 1e6 */
	assert_int_equal(by_period[1], 30); /* / 3e6, in a's ring */
	pk_model_free(m);
}

static void count_samples(void *arg, const uint8_t *rec)
{
	if (pd_ld32(rec) == PERF_RECORD_SAMPLE)
		++*(uint64_t *)arg;
}

/* Frequency mode, 4000 Hz over the 1 s scenario: the kernel's period
 * adjustment from period 1 gives 4000 samples and a few more from the ramp;
 * 200 kHz is above perf_event_max_sample_rate. */
static void test_sampling_freq(void **state)
{
	(void)state;
	pk_model *m = model("sapphirerapids.json");
	const pk_kernel *k = pk_model_kernel(m);
	struct perf_event_attr a = {.type = PERF_TYPE_HARDWARE, .size = sizeof(a),
				    .config = PERF_COUNT_HW_CPU_CYCLES, .freq = 1,
				    .sample_freq = 200000, .sample_type = PERF_SAMPLE_PERIOD};
	assert_int_equal(k->ops->open(k, &a, TID, -1, -1, 0), -EINVAL);
	a.sample_freq = 4000;
	int fd = k->ops->open(k, &a, TID, -1, -1, 0);
	assert_true(fd >= 0);
	struct perf_event_mmap_page *pg = map(m, fd, 64);
	uint64_t n = 0;
	pk_model_advance(m, pk_model_end(m));
	drain(pg, count_samples, &n);
	assert_true(n >= 4000 && n <= 4020);
	/* unmapped: the memory goes back, a second munmap is refused */
	assert_int_equal(k->ops->munmap(k, pg, 65 * PAGE), 0);
	assert_int_equal(k->ops->munmap(k, pg, 65 * PAGE), -EINVAL);
	pk_model_free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_userpage_index),       cmocka_unit_test(test_selfread_multiplexed),
		cmocka_unit_test(test_skymont_fixed_counters), cmocka_unit_test(test_seam_sim_entries),
		cmocka_unit_test(test_reset_through_rdpmc),  cmocka_unit_test(test_slots_save_restore),
		cmocka_unit_test(test_sampling_fixed_period), cmocka_unit_test(test_sampling_lost),
		cmocka_unit_test(test_poll_wakeup),          cmocka_unit_test(test_group_sample_read),
		cmocka_unit_test(test_set_output),          cmocka_unit_test(test_sampling_freq),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
