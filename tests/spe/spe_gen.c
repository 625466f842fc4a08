/* SPE stream and perf.data generator (see spe_gen.h). Streams cover every
 * packet kind of docs/spe.md: PC/TGT/VA/PA/PBT addresses with EL, NS, tags,
 * the three counters, EVENTS of 1/2/4/8 bytes, DATA SOURCE, CONTEXT EL1/EL2,
 * operation types of every class, extended headers, PAD runs, TS or END. */
#include "spe_gen.h"

#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>

#include <pmukit/perfdata.h>

typedef struct gen {
	uint64_t s;
	uint8_t *p;
	size_t len, cap;
	const spe_gen_opts *o;
} gen;

static uint64_t rnd(gen *g)
{
	g->s ^= g->s << 13;
	g->s ^= g->s >> 7;
	g->s ^= g->s << 17;
	return g->s;
}

static unsigned pick(gen *g, unsigned n) { return (unsigned)(rnd(g) % n); }

static void put(gen *g, uint64_t v, unsigned n)
{
	for (unsigned i = 0; i < n && g->len < g->cap; i++)
		g->p[g->len++] = (uint8_t)(v >> (8 * i));
}

static void pkt(gen *g, uint8_t hdr, uint64_t payload, unsigned n)
{
	put(g, hdr, 1);
	put(g, payload, n);
}

/* A code address: user (EL0) or kernel (EL1/EL2, NS=1). */
static uint64_t code_addr(gen *g, bool kernel)
{
	uint64_t va = kernel ? 0xffff800010000000ull + (rnd(g) & 0xfffffc)
			     : 0x0000aaaae0000000ull + (rnd(g) & 0xffffc);
	if (g->o->hot_pcs) /* a few hot instructions, for per-symbol views */
		va = (kernel ? 0xffff800010000000ull : 0x0000aaaae0000000ull) +
		     0x1000 * (1 + pick(g, g->o->hot_pcs));
	uint64_t el = kernel ? 1 + pick(g, 2) : 0;
	return (va & 0x00ffffffffffffffull) | el << 61 | 1ull << 63;
}

static void addr(gen *g, unsigned idx, uint64_t v)
{
	if (!g->o->perf61 && pick(g, 8) == 0) { /* extended header form */
		pkt(g, 0x20, 0, 0);
		pkt(g, (uint8_t)(0xb0 | idx), v, 8);
	} else {
		pkt(g, (uint8_t)(0xb0 | idx), v, 8);
	}
}

static void pad(gen *g)
{
	if (pick(g, 3) == 0)
		for (unsigned i = 1 + pick(g, 20); i; i--)
			put(g, 0, 1);
}

static void events(gen *g, uint64_t ev)
{
	unsigned k = g->o->perf61 ? 1 : pick(g, 4); /* 1, 2, 4, 8 bytes */
	if (k == 0 && ev >= 0x100)
		k = 1;
	uint64_t extra = g->o->perf61 ? 0 : (k >= 2 ? rnd(g) & 0x3f80000ull : 0) | (k == 3 ? 1ull << 50 : 0);
	pkt(g, (uint8_t)(0x42 | k << 4), ev | extra, 1u << k);
}

static void ldst(gen *g, bool kernel)
{
	static const uint8_t ops61[] = {0x00, 0x01, 0x04, 0x05, 0x02, 0x03, 0x06, 0x16, 0x1f};
	static const uint8_t ops[] = {0x00, 0x01, 0x04, 0x05, 0x10, 0x30, 0x14, 0x20, 0x25, 0x16,
				      0x0b, 0x08, 0x88, 0x4c, 0x40, 0x1f, 0x31};
	uint8_t op = g->o->perf61 ? ops61[pick(g, sizeof ops61)] : ops[pick(g, sizeof ops)];
	pkt(g, 0x49, op, 1);
	uint64_t ev = 1u << 1 | 1u << 2 | 1u << 4;
	ev |= (uint64_t)pick(g, 2) << 3 | (uint64_t)pick(g, 2) << 5 | (uint64_t)pick(g, 4) << 8;
	ev |= (uint64_t)(pick(g, 8) == 0) << 10 | (uint64_t)(pick(g, 8) == 0) << 0;
	events(g, ev);
	pkt(g, 0x99, pick(g, 64), 2);
	pad(g);
	pkt(g, 0x98, pick(g, 600), 2);
	uint64_t va = kernel ? 0xffff000800000000ull + (rnd(g) & 0xffffff8)
			     : 0x0000aaaaf0000000ull + (rnd(g) & 0xffff8);
	if (pick(g, 4) == 0)
		va = (va & 0x00ffffffffffffffull) | (uint64_t)pick(g, 256) << 56; /* a tag */
	addr(g, 2, va);
	pkt(g, 0x9a, pick(g, 40), 2);
	if (pick(g, 2))
		addr(g, 3, (rnd(g) & 0xffffffffff8ull) | (uint64_t)pick(g, 2) << 63 |
				    (uint64_t)pick(g, 2) << 62 | (uint64_t)pick(g, 16) << 56);
	static const uint8_t src[] = {0x0, 0x8, 0x9, 0xa, 0xb, 0xc, 0xd, 0xe};
	if (pick(g, 5)) {
		bool wide = !g->o->perf61 && pick(g, 3) == 0; /* a 2-byte payload */
		pkt(g, wide ? 0x53 : 0x43, src[pick(g, 8)], wide ? 2 : 1);
	}
}

static void branch(gen *g, bool kernel)
{
	uint8_t op = (uint8_t)(g->o->perf61 ? pick(g, 4) : pick(g, 32));
	pkt(g, 0x4a, op, 1);
	uint64_t ev = 1u << 1 | (uint64_t)pick(g, 2) << 6 | (uint64_t)(pick(g, 6) == 0) << 7;
	events(g, ev);
	pkt(g, 0x99, pick(g, 64), 2);
	pkt(g, 0x98, pick(g, 100), 2);
	addr(g, 1, code_addr(g, kernel));
	if (pick(g, 2)) { /* perf 6.1 predates PBT: it prints "ADDR 0x... (4)" */
		uint64_t pbt = code_addr(g, kernel);
		if (!g->o->perf61)
			addr(g, 4, pbt);
	}
}

static void other(gen *g)
{
	static const uint8_t ops61[] = {0x00, 0x01};
	static const uint8_t ops[] = {0x00, 0x01, 0x06, 0x07, 0x08, 0x1a, 0x7e, 0x88, 0x9e, 0xfa};
	pkt(g, 0x48, g->o->perf61 ? ops61[pick(g, 2)] : ops[pick(g, sizeof ops)], 1);
	events(g, 1u << 1 | (uint64_t)(pick(g, 4) == 0) << 0);
	pkt(g, 0x98, pick(g, 30), 2);
	if (!g->o->perf61 && pick(g, 4) == 0) { /* a counter through an extended header */
		pkt(g, 0x20, 0, 0);
		pkt(g, 0x99, pick(g, 30), 2);
	}
}

static void record(gen *g, uint64_t *ts)
{
	bool kernel = pick(g, 4) == 0;
	size_t start = g->len;
	addr(g, 0, code_addr(g, kernel));
	pad(g);
	if (!g->o->no_context)
		pkt(g, g->o->perf61 ? 0x65 : (uint8_t)(0x64 | pick(g, 2)),
		    g->o->context_tid ? g->o->context_tid : 1000 + pick(g, 4), 4);
	switch (pick(g, 3)) {
	case 0: ldst(g, kernel); break;
	case 1: branch(g, kernel); break;
	default: other(g); break;
	}
	pad(g);
	if (g->o->end_packets) {
		pkt(g, 0x01, 0, 0);
	} else {
		*ts += 8 * (1 + pick(g, 125)); /* = cpu mod 8: no two CPUs' records at one time */
		pkt(g, 0x71, *ts, 8);
	}
	while ((g->len - start) % 64 && g->len < g->cap) /* the driver's 64-byte records */
		put(g, 0, 1);
	if (g->o->bad_bytes && pick(g, 5) == 0)
		put(g, 0x03, 1); /* no packet has header 0x03 */
}

size_t spe_gen_stream(const spe_gen_opts *o, int cpu, uint8_t *buf, size_t cap)
{
	gen g = {.s = o->seed * 0x9e3779b97f4a7c15ull + (uint64_t)cpu + 1, .p = buf, .cap = cap, .o = o};
	uint64_t ts = 1000000 + (uint64_t)cpu;
	for (int i = 0; i < o->nr_records && g.len + 128 <= cap; i++)
		record(&g, &ts);
	while (g.len % 8 && g.len < cap)
		put(&g, 0, 1);
	return g.len;
}

/* ---- perf.data ---- */

static void st64(uint8_t *p, uint64_t v) { memcpy(p, &v, 8); }
static void st32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); }

static void hdr(uint8_t *p, uint32_t type, uint16_t size)
{
	memset(p, 0, size);
	st32(p, type);
	memcpy(p + 6, &size, 2);
}

/* AUXTRACE_INFO: v1 (PMU type, per-CPU mmaps) or v2 with per-CPU MIDRs. */
static size_t auxtrace_info(uint8_t *p, const spe_gen_opts *o, int nr_cpus)
{
	size_t n = o->midr ? 4 + (size_t)nr_cpus * 6 : 2;
	hdr(p, PK_RECORD_AUXTRACE_INFO, (uint16_t)(16 + 8 * n));
	st32(p + 8, 4); /* PERF_AUXTRACE_ARM_SPE */
	uint8_t *v = p + 16;
	if (!o->midr) {
		st64(v, SPE_GEN_PMU_TYPE);
		st64(v + 8, 1);
		return 16 + 8 * n;
	}
	st64(v, 2);
	st64(v + 8, 4);
	st64(v + 16, SPE_GEN_PMU_TYPE);
	st64(v + 24, (uint64_t)nr_cpus);
	for (int c = 0; c < nr_cpus; c++) {
		uint8_t *q = v + 32 + 48 * (size_t)c;
		st64(q, 0x1010101010101010ull);
		st64(q + 8, (uint64_t)c);
		st64(q + 16, 3);
		st64(q + 24, o->midr);
		st64(q + 32, SPE_GEN_PMU_TYPE);
		st64(q + 40, 1024);
	}
	return 16 + 8 * n;
}

static int add_events(pk_pd_writer *w, int nr_cpus)
{
	struct perf_event_attr a;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = SPE_GEN_PMU_TYPE;
	a.config = 3; /* ts_enable, pa_enable */
	a.sample_period = 1024;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
			PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_PHYS_ADDR;
	a.sample_id_all = 1;
	a.disabled = 1;
	a.enable_on_exec = 1;
	uint64_t ids[64], dids[64];
	for (int c = 0; c < nr_cpus; c++) {
		ids[c] = 100 + (uint64_t)c;
		dids[c] = 200 + (uint64_t)c;
	}
	if (pk_pd_writer_add_evsel(w, &a, 0, "arm_spe_0//", ids, (size_t)nr_cpus, NULL) < 0)
		return -1;
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_DUMMY;
	a.sample_period = 1;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
			PERF_SAMPLE_IDENTIFIER;
	a.exclude_kernel = 1;
	a.comm = 1;
	a.task = 1;
	a.context_switch = 1;
	return pk_pd_writer_add_evsel(w, &a, 0, "dummy:u", dids, (size_t)nr_cpus, NULL);
}

/* The sample_id trailer of the dummy event (TID, TIME, CPU, IDENTIFIER). */
static void trailer(uint8_t *t, uint32_t pid, uint32_t tid, uint64_t time, uint32_t cpu)
{
	st32(t, pid);
	st32(t + 4, tid);
	st64(t + 8, time);
	st32(t + 16, cpu);
	st32(t + 20, 0);
	st64(t + 24, 200 + (uint64_t)cpu);
}

/* perf time of a timestamp through the generator's TIME_CONV. */
static uint64_t perf_time(uint64_t ts)
{
	uint64_t q = ts >> SPE_GEN_TIME_SHIFT, r = ts & ((1ull << SPE_GEN_TIME_SHIFT) - 1);
	return SPE_GEN_TIME_ZERO + q * SPE_GEN_TIME_MULT + ((r * SPE_GEN_TIME_MULT) >> SPE_GEN_TIME_SHIFT);
}

/* COMM of the workload's threads (the TIDs of CONTEXT packets) and the
 * MMAP2 of its code, before the first record. */
static int comms(pk_pd_writer *w, const spe_gen_opts *o)
{
	for (uint32_t i = 0; i < 5; i++) {
		uint32_t tid = i < 4 ? 1000 + i : o->context_tid;
		if (!tid)
			continue;
		uint8_t r[8 + 8 + 16 + 32];
		hdr(r, PERF_RECORD_COMM, sizeof r);
		st32(r + 8, SPE_GEN_PID);
		st32(r + 12, tid);
		memcpy(r + 16, "spework", 8);
		trailer(r + 32, SPE_GEN_PID, tid, perf_time(100 + i), 0);
		if (pk_pd_writer_write(w, r, sizeof r, NULL) < 0)
			return -1;
	}
	uint8_t m[72 + 24 + 32];
	hdr(m, PERF_RECORD_MMAP2, sizeof m);
	st32(m + 8, SPE_GEN_PID);
	st32(m + 12, SPE_GEN_PID);
	st64(m + 16, 0x0000aaaae0000000ull);
	st64(m + 24, 0x100000);
	st32(m + 64, 5); /* PROT_READ | PROT_EXEC */
	st32(m + 68, 2); /* MAP_PRIVATE */
	memcpy(m + 72, "/usr/bin/spework", 17);
	trailer(m + 96, SPE_GEN_PID, SPE_GEN_PID, perf_time(200), 0);
	return pk_pd_writer_write(w, m, sizeof m, NULL) < 0 ? -1 : 0;
}

/* Without CONTEXT packets: context switches on every CPU (perf's TIDs
 * then come from them), one every 20000 timestamp ticks. */
static int switches(pk_pd_writer *w, const spe_gen_opts *o, int nr_cpus)
{
	uint64_t span = (uint64_t)o->nr_records * 1000 + 2000000;
	for (uint64_t ts = 1000000 - 17; ts < span; ts += 20000)
		for (int c = 0; c < nr_cpus; c++) {
			uint32_t tid = 1000 + (uint32_t)((ts / 20000 + (uint64_t)c) % 4);
			uint8_t r[16 + 32];
			hdr(r, PERF_RECORD_SWITCH_CPU_WIDE, sizeof r);
			r[5] = 0x20; /* misc: PERF_RECORD_MISC_SWITCH_OUT */
			st32(r + 8, SPE_GEN_PID);
			st32(r + 12, tid);
			trailer(r + 16, SPE_GEN_PID, tid, perf_time(ts + (uint64_t)c * 3), (uint32_t)c);
			if (pk_pd_writer_write(w, r, sizeof r, NULL) < 0)
				return -1;
		}
	return 0;
}

static int auxtrace(pk_pd_writer *w, const spe_gen_opts *o, int cpu)
{
	size_t cap = (size_t)o->nr_records * 160 + 64;
	uint8_t *data = malloc(cap);
	if (!data)
		return -1;
	size_t n = spe_gen_stream(o, cpu, data, cap);
	uint8_t r[48];
	hdr(r, PK_RECORD_AUXTRACE, sizeof r);
	st64(r + 8, n);
	st64(r + 16, 0);
	st64(r + 24, 0x1234 + (uint64_t)cpu);
	st32(r + 32, (uint32_t)cpu);
	st32(r + 36, UINT32_MAX);
	st32(r + 40, (uint32_t)cpu);
	int rc = pk_pd_writer_write_auxtrace(w, r, sizeof r, data, n, NULL);
	free(data);
	return rc;
}

int spe_gen_perfdata(const char *path, const spe_gen_opts *o)
{
	int nr_cpus = o->nr_cpus > 0 ? o->nr_cpus : 1;
	pk_pd_writer *w;
	if (nr_cpus > 64 || pk_pd_writer_open(path, o->pipe, &w, NULL) < 0)
		return -1;
	pk_pd_buf cpuid = {0};
	pk_pd_buf_string(&cpuid, "0x00000000410fd0c1");
	int rc = add_events(w, nr_cpus);
	if (!rc)
		rc = pk_pd_writer_set_feature(w, PK_FEAT_CPUID, cpuid.data, cpuid.len, NULL);
	pk_pd_buf_release(&cpuid);
	pk_pd_buf maps = {0}; /* perf names the SPE PMU type by it */
	pk_pd_buf_u32(&maps, 2);
	pk_pd_buf_u32(&maps, SPE_GEN_PMU_TYPE);
	pk_pd_buf_string(&maps, "arm_spe_0");
	pk_pd_buf_u32(&maps, PERF_TYPE_SOFTWARE);
	pk_pd_buf_string(&maps, "software");
	if (!rc)
		rc = pk_pd_writer_set_feature(w, PK_FEAT_PMU_MAPPINGS, maps.data, maps.len, NULL);
	pk_pd_buf_release(&maps);
	if (!rc)
		rc = pk_pd_writer_event_desc(w, NULL);
	if (!rc)
		rc = pk_pd_writer_begin(w, NULL);
	uint8_t rec[16 + 8 * (4 + 64 * 6)], tc[56];
	/* TIME_CONV first, as perf record writes it: perf copies it when it
	 * reads AUXTRACE_INFO (old_order: the other way, perf then has none) */
	hdr(tc, PK_RECORD_TIME_CONV, 56);
	st64(tc + 8, SPE_GEN_TIME_SHIFT);
	st64(tc + 16, SPE_GEN_TIME_MULT);
	st64(tc + 24, SPE_GEN_TIME_ZERO);
	st64(tc + 40, UINT64_MAX);
	tc[48] = 1; /* cap_user_time_zero */
	if (!rc && !o->old_order)
		rc = pk_pd_writer_write(w, tc, 56, NULL);
	size_t n = auxtrace_info(rec, o, nr_cpus);
	if (!rc)
		rc = pk_pd_writer_write(w, rec, n, NULL);
	if (!rc && o->old_order)
		rc = pk_pd_writer_write(w, tc, 56, NULL);
	if (!rc)
		rc = comms(w, o);
	if (!rc && o->no_context)
		rc = switches(w, o, nr_cpus);
	for (int c = 0; c < nr_cpus && !rc; c++)
		rc = auxtrace(w, o, c);
	if (rc) {
		pk_pd_writer_abort(w);
		return -1;
	}
	return pk_pd_writer_close(w, NULL) < 0 ? -1 : 0;
}
