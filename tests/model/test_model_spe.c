/* The PMU model's SPE unit (issue 11): the scenario's "spe" object and its
 * errors; the driver's refusals at open (no "spe", frequency mode, a filter
 * bit the SPE cannot filter on, pa_enable without privilege or without a
 * physical address); the AUX area's mmap rules; records decoded back with
 * the library's decoder: one per `period` operations (the phase's
 * instructions, counted by the model itself), kinds in the scenario's
 * proportions, the phase's PC, latencies, addresses, data sources,
 * timestamps and CONTEXT; the filters; PERF_RECORD_AUX records, wrap and
 * TRUNCATED when the reader does not move aux_tail; discard mode on a tree
 * with the current driver's formats (tests/model/data/spe-current); the same calls give the same bytes. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <pmukit/model.h>
#include <pmukit/perfdata.h>
#include <pmukit/record.h>
#include <pmukit/spe.h>

#include "helpers.h"
#include "model/model.h"

#define PAGE 4096u
#define TID 7001
#define MS 1000000ull

static char *tmp;

/* One phase's "spe" object used by most tests. */
static const char *spe_obj =
	"{\"loads\": 0.4, \"stores\": 0.1, \"branches\": 0.2, \"mispredicts\": 0.25,"
	" \"load_sources\": {\"L1D\": 0.5, \"L2D\": 0.25, \"DRAM\": 0.25},"
	" \"latency\": {\"L1D\": 4, \"L2D\": 12, \"DRAM\": 200, \"store\": 2, \"branch\": 1,"
	" \"other\": 1},"
	" \"data_addr\": \"0x7f0000001040\", \"branch_target\": \"0x400100\"}";

/* A one-thread scenario file on machine (bundled name or path), whose
 * phases have `spe` (NULL: none); returns its path. */
static const char *scenario(const char *name, const char *machine, const char *spe,
			    const char *extra)
{
	static char path[4096];
	char text[4096];
	snprintf(text, sizeof(text),
		 "{\"machine\": \"%s\", \"cpuid\": \"0x00000000413fd0c1\", %s"
		 "\"threads\": [{\"tid\": %d, \"comm\": \"spe-test\", \"cpu\": 0, \"phases\": ["
		 "{\"ms\": 2, \"ghz\": 2.0, \"ip\": \"0x400800\", \"tma\": {\"retiring\": 0.4,"
		 " \"bad_speculation\": 0.1, \"frontend_bound\": 0.2, \"backend_bound\": 0.3}"
		 "%s%s}]}]}",
		 machine, extra ? extra : "", TID, spe ? ", \"spe\": " : "", spe ? spe : "");
	pk_test_put_file(tmp, name, text);
	snprintf(path, sizeof(path), "%s/%s", tmp, name);
	return path;
}

static pk_model *load(const char *path)
{
	return pk_test_model(path);
}

static struct perf_event_attr spe_attr(uint64_t config, uint64_t config1, uint64_t config2,
				       uint64_t period)
{
	struct perf_event_attr a = {.type = 9, .size = sizeof(a), .config = config,
				    .config1 = config1, .config2 = config2,
				    .sample_period = period, .disabled = 1, .sample_id_all = 1,
				    .sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
						   PERF_SAMPLE_IDENTIFIER};
	return a;
}

static int open_spe(pk_model *m, const struct perf_event_attr *a, char *why, size_t len)
{
	const pk_kernel *k = pk_model_kernel(m);
	int fd = k->ops->open(k, a, TID, -1, -1, 0);
	if (why)
		k->ops->explain(k, why, len);
	return fd;
}

/* The ring (1 + 8 pages) and an AUX area of aux_pages. */
static struct perf_event_mmap_page *map_both(pk_model *m, int fd, size_t aux_pages,
					     uint8_t **aux)
{
	const pk_kernel *k = pk_model_kernel(m);
	void *ring = NULL, *a = NULL;
	assert_int_equal(k->ops->mmap(k, fd, 9 * PAGE, PROT_READ | PROT_WRITE, 0, &ring), 0);
	struct perf_event_mmap_page *pg = ring;
	pg->aux_offset = 9 * PAGE;
	pg->aux_size = aux_pages * PAGE;
	assert_int_equal(k->ops->mmap(k, fd, aux_pages * PAGE, PROT_READ | PROT_WRITE,
				      pg->aux_offset, &a),
			 0);
	*aux = a;
	return pg;
}

static void expect_scenario_error(const char *spe, const char *want)
{
	char text[4096];
	pki_scenario s;
	pk_error err;
	snprintf(text, sizeof(text),
		 "{\"machine\": \"neoverse-n1-spe\", \"threads\": [{\"tid\": 1, \"comm\": \"x\","
		 " \"cpu\": 0, \"phases\": [{\"ms\": 1, \"ghz\": 1, \"tma\": {\"retiring\": 1,"
		 " \"bad_speculation\": 0, \"frontend_bound\": 0, \"backend_bound\": 0},"
		 " \"spe\": %s}]}]}",
		 spe);
	pk_error_clear(&err);
	int rc = pki_scenario_parse(text, strlen(text), "s.json", &s, &err);
	if (rc != -EINVAL || !strstr(err.msg, want))
		fail_msg("spe %s: rc %d, '%s' (wanted '%s')", spe, rc, err.msg, want);
}

static void test_scenario_errors(void **state)
{
	(void)state;
	expect_scenario_error("{\"loads\": 0.5, \"data_addr\": \"0x10\"}",
			      "threads[0].phases[0].spe.load_sources: missing: loads have a share");
	expect_scenario_error("{\"foo\": 1}", "threads[0].phases[0].spe.foo: 1: unknown key");
	expect_scenario_error("{\"loads\": 0.7, \"stores\": 0.5}", "loads + stores + branches "
								   "exceed 1");
	expect_scenario_error("{\"loads\": 1.5}", "spe.loads: 1.5: expected a number in [0, 1]");
	expect_scenario_error("{\"loads\": 0.5, \"load_sources\": {\"L1D\": 0.5}}",
			      "spe.load_sources: {\"L1D\":0.5}: the sources' shares");
	expect_scenario_error("{\"loads\": 0.5, \"load_sources\": {\"L3\": 1}}",
			      "spe.load_sources.L3: 1: unknown key");
	expect_scenario_error("{\"loads\": 0.5, \"load_sources\": {\"DRAM\": 1}, \"data_addr\": "
			      "\"0x10\", \"latency\": {\"other\": 1}}",
			      "spe.latency.DRAM: missing: loads from DRAM have a share");
	expect_scenario_error("{\"latency\": {\"other\": 1.5}}", "spe.latency.other: 1.5: expected "
								 "whole cycles");
	expect_scenario_error("{\"latency\": {}}", "spe.latency.other: missing: other have a share");
	expect_scenario_error("{\"branches\": 1, \"latency\": {\"branch\": 1}}",
			      "spe.branch_target: missing: branches have a share");
	expect_scenario_error("{\"stores\": 1, \"data_addr\": \"16\", \"latency\": {\"store\": 1}}",
			      "spe.data_addr: \"16\": expected a hex address");
}

static void test_open_refusals(void **state)
{
	(void)state;
	char why[512];
	pk_model *m = load(scenario("nospe.json", "neoverse-n1-spe", NULL, NULL));
	struct perf_event_attr a = spe_attr(0, 0, 0, 1024);
	assert_int_equal(open_spe(m, &a, why, sizeof(why)), -ENOENT);
	assert_non_null(strstr(why, "threads[0].phases[0]: the scenario gives no \"spe\""));
	pk_model_free(m);

	m = load(scenario("spe.json", "neoverse-n1-spe", spe_obj, NULL));
	a.freq = 1;
	assert_int_equal(open_spe(m, &a, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "Frequency is not supported. Set period with -c"));
	a = spe_attr(0, 0x100, 0, 1024); /* LLC-ACCESS: not filterable without v1p4 */
	assert_int_equal(open_spe(m, &a, why, sizeof(why)), -EOPNOTSUPP);
	assert_non_null(strstr(why, "event_filter=0x100: bit(s) 8 cannot be filtered on"));
	a = spe_attr(1ull << 3, 0, 0, 1024); /* no format term at config:3 */
	assert_int_equal(open_spe(m, &a, why, sizeof(why)), -EOPNOTSUPP);
	assert_non_null(strstr(why, "config=0x8 sets bits 0x8 that no format term"));
	a = spe_attr(1ull << 1, 0, 0, 1024); /* pa_enable: the phase has no physical address */
	assert_int_equal(open_spe(m, &a, why, sizeof(why)), -ENOENT);
	assert_non_null(strstr(why, "add \"data_phys_addr\""));
	pk_model_free(m);

	m = load(scenario("unpriv.json", "neoverse-n1-spe", spe_obj, "\"privileged\": false, "));
	assert_int_equal(open_spe(m, &a, why, sizeof(why)), -EACCES);
	assert_non_null(strstr(why, "pa_enable=1 requires privilege"));
	pk_model_free(m);
}

static void test_aux_mmap_rules(void **state)
{
	(void)state;
	pk_model *m = load(scenario("spe.json", "neoverse-n1-spe", spe_obj, NULL));
	const pk_kernel *k = pk_model_kernel(m);
	struct perf_event_attr a = spe_attr(0, 0, 0, 1024);
	int fd = open_spe(m, &a, NULL, 0);
	void *ring = NULL, *aux = NULL;
	assert_true(fd >= 0);
	assert_int_equal(k->ops->mmap(k, fd, 2 * PAGE, PROT_READ | PROT_WRITE, 2 * PAGE, &aux),
			 -EINVAL); /* no ring yet */
	assert_int_equal(k->ops->mmap(k, fd, 9 * PAGE, PROT_READ | PROT_WRITE, 0, &ring), 0);
	struct perf_event_mmap_page *pg = ring;
	pg->aux_offset = 9 * PAGE;
	pg->aux_size = 3 * PAGE;
	assert_int_equal(k->ops->mmap(k, fd, 3 * PAGE, PROT_READ | PROT_WRITE, 9 * PAGE, &aux),
			 -EINVAL); /* not a power of 2 */
	pg->aux_size = 4 * PAGE;
	assert_int_equal(k->ops->mmap(k, fd, 4 * PAGE, PROT_READ | PROT_WRITE, 8 * PAGE, &aux),
			 -EINVAL); /* not the page's offset */
	assert_int_equal(k->ops->mmap(k, fd, 4 * PAGE, PROT_READ, 9 * PAGE, &aux), -EOPNOTSUPP);
	assert_int_equal(k->ops->mmap(k, fd, 4 * PAGE, PROT_READ | PROT_WRITE, 9 * PAGE, &aux), 0);
	assert_int_equal(k->ops->mmap(k, fd, 4 * PAGE, PROT_READ | PROT_WRITE, 9 * PAGE, &aux),
			 -EINVAL); /* twice */
	assert_int_equal(k->ops->munmap(k, aux, 4 * PAGE), 0);
	assert_int_equal(k->ops->munmap(k, ring, 9 * PAGE), 0);
	pk_model_free(m);
}

/* What the AUX data of [from, to) decodes to. */
typedef struct tally {
	size_t records, loads, stores, branches, other, mispred, dram, ctx_ok;
	uint64_t last_ts;
	bool ts_sorted;
} tally;

static void decode(const uint8_t *buf, size_t len, tally *t)
{
	pk_spe_decoder d;
	pk_spe_record r;
	int rc;
	pk_spe_decoder_init(&d, buf, len, 0);
	while ((rc = pk_spe_next(&d, &r)) != PK_SPE_DONE) {
		assert_int_equal(rc, PK_SPE_RECORD);
		assert_true(r.closed);
		assert_int_equal(r.pc, 0x400800);
		t->records++;
		t->ctx_ok += (r.present & PK_SPE_HAS_CONTEXT) && r.context == TID;
		if (r.present & PK_SPE_HAS_TS) {
			t->ts_sorted &= r.timestamp >= t->last_ts;
			t->last_ts = r.timestamp;
		}
		if (r.op_class == PK_SPE_OP_LDST && !(r.op & 1)) {
			t->loads++;
			assert_int_equal(r.va, 0x7f0000001040);
			t->dram += r.source == 0xe;
			assert_int_equal(r.lat_total, r.source == 0xe ? 200 : r.source == 0x8 ? 12 : 4);
		} else if (r.op_class == PK_SPE_OP_LDST) {
			t->stores++;
		} else if (r.op_class == PK_SPE_OP_BRANCH) {
			t->branches++;
			assert_int_equal(r.tgt, 0x400100);
			t->mispred += (r.events >> PK_SPE_EV_MISPRED) & 1;
		} else {
			t->other++;
		}
	}
}

/* Runs the scenario's 2 ms with the reader keeping up (aux_tail moved after
 * each advance); returns the instructions the model counted. */
static uint64_t run_reading(pk_model *m, int fd, struct perf_event_mmap_page *pg,
			    const uint8_t *aux, size_t aux_len, tally *t)
{
	const pk_kernel *k = pk_model_kernel(m);
	struct perf_event_attr ia = {.type = PERF_TYPE_HARDWARE, .size = sizeof(ia),
				     .config = PERF_COUNT_HW_INSTRUCTIONS};
	int ifd = k->ops->open(k, &ia, TID, -1, -1, 0);
	assert_true(ifd >= 0);
	assert_int_equal(k->ops->ioctl(k, fd, PERF_EVENT_IOC_ENABLE, 0), 0);
	for (int step = 0; step < 40; step++) {
		pk_model_advance(m, 50000); /* 50 us: less than half the buffer */
		uint64_t head = pg->aux_head, tail = pg->aux_tail;
		for (; tail < head; tail += 64)
			decode(aux + (tail & (aux_len - 1)), 64, t);
		pg->aux_tail = head;
	}
	uint64_t insns = 0;
	assert_int_equal(k->ops->read(k, ifd, &insns, sizeof(insns)), 8);
	return insns;
}

static void test_records(void **state)
{
	(void)state;
	pk_model *m = load(scenario("spe.json", "neoverse-n1-spe", spe_obj, NULL));
	struct perf_event_attr a = spe_attr(1, 0, 0, 1024); /* ts_enable */
	int fd = open_spe(m, &a, NULL, 0);
	uint8_t *aux;
	struct perf_event_mmap_page *pg = map_both(m, fd, 4, &aux);
	tally t = {.ts_sorted = true};
	uint64_t insns = run_reading(m, fd, pg, aux, 4 * PAGE, &t);
	/* one sample per 1024 operations (the phase's instructions) */
	assert_true(insns > 100000);
	assert_true(t.records + 1 >= insns / 1024 && t.records <= insns / 1024 + 1);
	/* the shares: loads 0.4, stores 0.1, branches 0.2, other 0.3, within one */
	assert_true(labs((long)(t.loads * 10) - (long)(t.records * 4)) <= 10);
	assert_true(labs((long)(t.stores * 10) - (long)t.records) <= 10);
	assert_true(labs((long)(t.branches * 10) - (long)(t.records * 2)) <= 10);
	assert_true(labs((long)(t.dram * 4) - (long)t.loads) <= 4);
	assert_true(labs((long)(t.mispred * 4) - (long)t.branches) <= 4);
	assert_int_equal(t.ctx_ok, t.records); /* privileged: CONTEXT = the tid */
	assert_true(t.ts_sorted && t.last_ts > 0 && t.last_ts <= 2 * MS);
	pk_model_free(m);
}

static void test_filters(void **state)
{
	(void)state;
	static const struct {
		uint64_t config, config1, config2;
		const char *what;
	} cases[] = {
		{1ull << 33, 0, 0, "load_filter"},
		{0, 0, 100, "min_latency=100"},
		{0, 1ull << 7, 0, "event_filter=MISPRED"},
		{(1ull << 32) | (1ull << 34), 0, 0, "branch_filter,store_filter"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		pk_model *m = load(scenario("spe.json", "neoverse-n1-spe", spe_obj, NULL));
		struct perf_event_attr a = spe_attr(cases[i].config, cases[i].config1,
						    cases[i].config2, 1024);
		int fd = open_spe(m, &a, NULL, 0);
		uint8_t *aux;
		struct perf_event_mmap_page *pg = map_both(m, fd, 4, &aux);
		tally t = {.ts_sorted = true};
		run_reading(m, fd, pg, aux, 4 * PAGE, &t);
		if (t.records == 0)
			fail_msg("%s: no records", cases[i].what);
		if (i == 0)
			assert_int_equal(t.loads, t.records);
		if (i == 1)
			assert_int_equal(t.dram, t.records); /* only DRAM loads have 200 >= 100 */
		if (i == 2)
			assert_int_equal(t.mispred, t.records);
		if (i == 3)
			assert_int_equal(t.branches + t.stores, t.records);
		pk_model_free(m);
	}
}

/* Reads the PERF_RECORD_AUX records of the ring: count, flags OR-ed. */
static size_t aux_records(const struct perf_event_mmap_page *pg, uint64_t *flags, uint64_t *bytes)
{
	const uint8_t *data = (const uint8_t *)pg + pg->data_offset;
	size_t n = 0;
	*flags = 0;
	*bytes = 0;
	for (uint64_t off = 0; off < pg->data_head;) {
		struct perf_event_header h;
		memcpy(&h, data + (off % pg->data_size), sizeof(h));
		if (h.type == PERF_RECORD_AUX) {
			uint64_t v[3];
			memcpy(v, data + (off % pg->data_size) + 8, sizeof(v));
			*bytes += v[1];
			*flags |= v[2];
			n++;
		}
		off += h.size;
	}
	return n;
}

static void test_truncated(void **state)
{
	(void)state;
	pk_model *m = load(scenario("spe.json", "neoverse-n1-spe", spe_obj, NULL));
	const pk_kernel *k = pk_model_kernel(m);
	struct perf_event_attr a = spe_attr(1, 0, 0, 1024);
	int fd = open_spe(m, &a, NULL, 0);
	uint8_t *aux;
	struct perf_event_mmap_page *pg = map_both(m, fd, 2, &aux);
	uint64_t flags, bytes;
	assert_int_equal(k->ops->ioctl(k, fd, PERF_EVENT_IOC_ENABLE, 0), 0);
	pk_model_advance(m, 2 * MS); /* nobody reads: the 8 KiB fill up */
	assert_int_equal(pg->aux_head, 2 * PAGE);
	/* two handles at the watermark (half), then one with no room: size 0, TRUNCATED */
	assert_int_equal(aux_records(pg, &flags, &bytes), 3);
	assert_true(flags & PERF_AUX_FLAG_TRUNCATED);
	assert_int_equal(bytes, 2 * PAGE);
	/* the reader frees the buffer: a new handle; the head wraps */
	pk_model_free(m);
	m = load(scenario("spe.json", "neoverse-n1-spe", spe_obj, NULL));
	k = pk_model_kernel(m);
	fd = open_spe(m, &a, NULL, 0);
	pg = map_both(m, fd, 2, &aux);
	assert_int_equal(k->ops->ioctl(k, fd, PERF_EVENT_IOC_ENABLE, 0), 0);
	for (int i = 0; i < 20; i++) {
		pk_model_advance(m, 20000);
		pg->aux_tail = pg->aux_head;
	}
	assert_int_equal(k->ops->ioctl(k, fd, PERF_EVENT_IOC_DISABLE, 0), 0);
	assert_true(pg->aux_head > 4 * PAGE); /* wrapped around the 8 KiB */
	aux_records(pg, &flags, &bytes);
	assert_int_equal(flags, 0);
	assert_int_equal(bytes, pg->aux_head); /* every byte in some AUX record */
	pk_model_free(m);
}

static void test_discard_and_caps(void **state)
{
	(void)state;
	char root[4096], why[512];
	const char *src = getenv("PK_SRCDIR");
	snprintf(root, sizeof(root), "%s/tests/model/data/spe-current", src ? src : ".");
	pk_model *m = load(scenario("full.json", root, spe_obj, NULL));
	const pk_kernel *k = pk_model_kernel(m);
	/* caps/event_filter 0x3e0fae allows LLC-ACCESS (bit 8) here */
	struct perf_event_attr a = spe_attr(0, 1ull << 8, 0, 256);
	int fd = open_spe(m, &a, why, sizeof(why));
	if (fd < 0)
		fail_msg("event_filter=0x100 with caps/event_filter: %s", why);
	a = spe_attr(0, 1ull << 0, 0, 256); /* bit 0 is not in the caps */
	assert_int_equal(open_spe(m, &a, why, sizeof(why)), -EOPNOTSUPP);
	assert_non_null(strstr(why, "(filterable: 1,2,3,5,7,8,9,10,11,17,18,19,20,21)"));
	a = spe_attr(1ull << 35, 0, 0, 256); /* discard: no AUX area needed */
	fd = open_spe(m, &a, NULL, 0);
	assert_true(fd >= 0);
	void *ring = NULL;
	assert_int_equal(k->ops->mmap(k, fd, 9 * PAGE, PROT_READ | PROT_WRITE, 0, &ring), 0);
	assert_int_equal(k->ops->ioctl(k, fd, PERF_EVENT_IOC_ENABLE, 0), 0);
	pk_model_advance(m, 2 * MS);
	uint64_t flags, bytes;
	assert_int_equal(aux_records(ring, &flags, &bytes), 0);
	assert_int_equal(((struct perf_event_mmap_page *)ring)->aux_head, 0);
	pk_model_free(m);
}

static void test_same_bytes(void **state)
{
	(void)state;
	uint8_t *copy[2];
	for (int run = 0; run < 2; run++) {
		pk_model *m = load(scenario("spe.json", "neoverse-n1-spe", spe_obj, NULL));
		struct perf_event_attr a = spe_attr(1, 0, 0, 4096);
		int fd = open_spe(m, &a, NULL, 0);
		uint8_t *aux;
		struct perf_event_mmap_page *pg = map_both(m, fd, 64, &aux);
		assert_int_equal(pk_model_kernel(m)->ops->ioctl(pk_model_kernel(m), fd,
								 PERF_EVENT_IOC_ENABLE, 0),
				 0);
		pk_model_advance(m, 2 * MS);
		assert_true(pg->aux_head > 0 && pg->aux_head <= 64 * PAGE);
		copy[run] = malloc(pg->aux_head + 1);
		memcpy(copy[run], aux, pg->aux_head);
		memcpy(copy[run] + pg->aux_head, "", 1);
		if (run == 1)
			assert_memory_equal(copy[0], copy[1], pg->aux_head);
		pk_model_free(m);
	}
	free(copy[0]);
	free(copy[1]);
}

/* A recording of the SPE scenario on the model through lib/record: an
 * AUX area of 2 pages, enabled, writing to tmp/name. */
typedef struct recording {
	pk_model *m;
	pk_pmus *pmus;
	pk_evlist *l;
	pk_threadmap *threads;
	pk_recorder *rec;
	pk_pd_writer *w;
	char path[4096];
} recording;

static void rec_start(recording *r, const char *name)
{
	pk_error err;
	int tid = TID;
	pk_error_clear(&err);
	r->m = load(scenario("spe.json", "neoverse-n1-spe", spe_obj, NULL));
	r->pmus = pk_pmus_load(pk_model_sysfs_root(r->m), &err);
	r->l = pk_evlist_new();
	r->threads = pk_threadmap_new(&tid, 1);
	assert_int_equal(pk_evlist_parse(r->l, r->pmus, "arm_spe/period=1024/", NULL, &err), 0);
	pk_record_opts ro = {.kernel = pk_model_kernel(r->m), .threads = r->threads,
			     .aux_pages = 2};
	snprintf(r->path, sizeof(r->path), "%s/%s", tmp, name);
	if (pk_recorder_open(r->l, &ro, &r->rec, &err) < 0)
		fail_msg("%s", err.msg);
	assert_int_equal(pk_pd_writer_open(r->path, false, &r->w, &err), 0);
	assert_int_equal(pk_recorder_add_evsels(r->rec, r->w, &err), 0);
	assert_int_equal(pk_pd_writer_begin(r->w, &err), 0);
	assert_int_equal(pk_recorder_enable(r->rec, &err), 0);
}

static void rec_end(recording *r)
{
	pk_error err;
	pk_error_clear(&err);
	assert_int_equal(pk_pd_writer_close(r->w, &err), 0);
	pk_recorder_close(r->rec);
	pk_threadmap_put(r->threads);
	pk_evlist_put(r->l);
	pk_pmus_put(r->pmus);
	pk_model_free(r->m);
}

/* The recorder's AUX path over the model: drains at moments that do not
 * fall on the buffer's halves, so the data read wraps around the 8 KiB AUX
 * area; the AUXTRACE records carry every byte written, in order (offsets
 * contiguous), and decode to whole records. */
static void test_recorder_wrap(void **state)
{
	(void)state;
	recording rc;
	pk_error err;
	pk_error_clear(&err);
	rec_start(&rc, "wrap.data");
	for (int i = 0; i < 60; i++) {
		pk_model_advance(rc.m, 13000); /* ~25 records: not a divisor of 128 */
		assert_true(pk_recorder_drain(rc.rec, rc.w, &err) >= 0);
	}
	assert_int_equal(pk_recorder_disable(rc.rec, &err), 0);
	assert_true(pk_recorder_drain(rc.rec, rc.w, &err) >= 0);
	const pk_record_stats *st = pk_recorder_stats(rc.rec);
	assert_int_equal(st->nr_aux_truncated, 0);
	assert_true(st->aux_bytes > 4 * 8192); /* wrapped several times */
	uint64_t bytes = st->aux_bytes;
	rec_end(&rc);
	pk_pd_reader *r;
	pk_pd_event ev;
	uint64_t next = 0;
	size_t n = 0, across = 0;
	tally t = {.ts_sorted = true};
	assert_int_equal(pk_pd_reader_open(rc.path, NULL, &r, &err), 0);
	while (pk_pd_next(r, &ev, &err) > 0) {
		if (ev.type != PK_RECORD_AUXTRACE)
			continue;
		uint64_t off;
		memcpy(&off, ev.data + 16, 8);
		assert_int_equal(off, next); /* contiguous */
		across += off % 8192 + ev.aux_size > 8192; /* read across the buffer's end */
		next += ev.aux_size;
		decode(ev.aux, ev.aux_size, &t);
		n++;
	}
	assert_int_equal(next, bytes);
	assert_int_equal(t.records * 64, bytes);
	assert_true(n >= 60);
	assert_true(across > 0);
	pk_pd_reader_close(r);
}

/* A reader that does not keep up: the recorder counts the TRUNCATED AUX
 * record the model's driver wrote, and what was in the buffer still
 * arrives. */
static void test_recorder_truncated(void **state)
{
	(void)state;
	recording rc;
	pk_error err;
	pk_error_clear(&err);
	rec_start(&rc, "trunc.data");
	pk_model_advance(rc.m, 2 * MS); /* ~3900 records into 128 places */
	assert_true(pk_recorder_drain(rc.rec, rc.w, &err) > 0);
	const pk_record_stats *st = pk_recorder_stats(rc.rec);
	assert_int_equal(st->nr_aux, 3);
	assert_int_equal(st->nr_aux_truncated, 1);
	assert_int_equal(st->nr_aux_partial + st->nr_aux_collision, 0);
	assert_int_equal(st->aux_bytes, 8192);
	assert_int_equal(st->nr_auxtrace, 1);
	rec_end(&rc);
}

static int setup(void **state)
{
	(void)state;
	tmp = pk_test_tmpdir();
	return tmp ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	char cmd[4200];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
	if (system(cmd) != 0)
		return -1;
	free(tmp);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_scenario_errors), cmocka_unit_test(test_open_refusals),
		cmocka_unit_test(test_aux_mmap_rules),  cmocka_unit_test(test_records),
		cmocka_unit_test(test_filters),         cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_discard_and_caps), cmocka_unit_test(test_same_bytes),
		cmocka_unit_test(test_recorder_wrap),   cmocka_unit_test(test_recorder_truncated),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
