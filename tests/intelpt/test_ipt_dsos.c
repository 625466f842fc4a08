/* Intel PT's instruction trace errors per dso (lib/session/pd_ipt.c), on a
 * hand-made perf.data whose traced binaries are nowhere: perf 6.1's
 * bookkeeping of the dsos whose file it could not read (docs/intelpt.md,
 * "The instruction walker hook"). A walk in a dso fails with an error until
 * the dso's file has been tried and a walk met it so, then silently; perf
 * tries a file in a walk, at a process's vdso mmap (every dso with a path
 * mapped then) and, in script, when it reads the code at a printed
 * sample's IP; an IP in no map fails with an error every time.
 *
 * The file: process 100 maps /x/early.so, then [vdso], then /x/late.so and
 * /x/sampled.so; a sample of its own lies in /x/sampled.so; one CPU's
 * trace then walks twice or three times in each dso and twice where no map
 * is (each walk: a TNT bit from an IP a TIP set, the first from PSB+'s
 * FUP, in no map: script reads the code at the psb sample's IP too). The test's file lives in a temporary folder of its own. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <linux/perf_event.h>
#include <pmukit/intelpt.h>
#include <pmukit/perfdata.h>
#include <pmukit/session.h>

enum { PID = 100, PMU = 8 };
#define EARLY 0x10000000ull
#define LATE 0x20000000ull
#define SAMPLED 0x30000000ull
#define NOMAP 0x40000000ull

static void st(uint8_t *p, uint64_t v, int n)
{
	memcpy(p, &v, (size_t)n); /* little-endian host, as the writer */
}

static void hdr(uint8_t *p, uint32_t type, uint16_t size)
{
	memset(p, 0, size);
	st(p, type, 4);
	st(p + 6, size, 2);
}

/* sample_id_all's trailer: TID, TIME, CPU (0) */
static void trailer(uint8_t *t, uint64_t time)
{
	st(t, PID, 4);
	st(t + 4, PID, 4);
	st(t + 8, time, 8);
	st(t + 16, 0, 8);
}

static void put(pk_pd_writer *w, const uint8_t *r, size_t n)
{
	assert_int_equal(pk_pd_writer_write(w, r, n, NULL), 0);
}

static void mmap2(pk_pd_writer *w, uint64_t addr, const char *name, uint64_t time)
{
	uint8_t m[72 + 24 + 24];
	hdr(m, PERF_RECORD_MMAP2, sizeof m);
	st(m + 8, PID, 4);
	st(m + 12, PID, 4);
	st(m + 16, addr, 8);
	st(m + 24, 0x10000, 8);
	st(m + 64, 5, 4); /* PROT_READ | PROT_EXEC */
	st(m + 68, 2, 4); /* MAP_PRIVATE */
	snprintf((char *)m + 72, 24, "%s", name);
	trailer(m + 96, time);
	put(w, m, sizeof m);
}

/* The trace: PSB+ (FUP at the first IP, TSC), then per IP after the
 * first a full-IP TIP, and after each IP one taken TNT bit (a walk). */
static size_t trace(uint8_t *b, const uint64_t *ips, size_t n)
{
	size_t k = 0;
	for (int i = 0; i < 8; i++)
		b[k++] = 0x02, b[k++] = 0x82;
	b[k++] = 0xdd; /* FUP, IPBytes 6 */
	st(b + k, ips[0], 8), k += 8;
	b[k++] = 0x19; /* TSC */
	st(b + k, 1000, 7), k += 7;
	b[k++] = 0x02, b[k++] = 0x23; /* PSBEND */
	for (size_t i = 0; i < n; i++) {
		if (i) {
			b[k++] = 0xcd; /* TIP, IPBytes 6 */
			st(b + k, ips[i], 8), k += 8;
		}
		b[k++] = 0x06; /* TNT T */
	}
	return k;
}

/* The first IP (the psb sample's, whose code script reads) in no map. */
static const uint64_t walks[] = {NOMAP + 0x100,   LATE + 0x100,    LATE + 0x200,
				 LATE + 0x300,    EARLY + 0x100,   EARLY + 0x200,
				 SAMPLED + 0x100, SAMPLED + 0x200, NOMAP + 0x200};

static void add_evsels(pk_pd_writer *w)
{
	struct perf_event_attr a;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PMU;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU;
	a.sample_id_all = 1;
	uint64_t id = 1;
	assert_int_equal(pk_pd_writer_add_evsel(w, &a, 0, "intel_pt//", &id, 1, NULL), 0);
}

static void write_file(const char *path)
{
	pk_pd_writer *w;
	assert_int_equal(pk_pd_writer_open(path, false, &w, NULL), 0);
	add_evsels(w);
	assert_int_equal(pk_pd_writer_begin(w, NULL), 0);
	uint8_t info[16 + 8 * PK_IPT_INFO_WORDS];
	hdr(info, PK_RECORD_AUXTRACE_INFO, sizeof info);
	st(info + 8, PK_IPT_AUXTRACE_TYPE, 4);
	st(info + 16 + 8 * PK_IPT_PMU_TYPE, PMU, 8);
	put(w, info, sizeof info);
	uint8_t c[8 + 8 + 8 + 24];
	hdr(c, PERF_RECORD_COMM, sizeof c);
	st(c + 8, PID, 4), st(c + 12, PID, 4);
	memcpy(c + 16, "work", 5);
	trailer(c + 24, 10);
	put(w, c, sizeof c);
	mmap2(w, EARLY, "/x/early.so", 20);
	mmap2(w, 0x7fff0000, "[vdso]", 30);
	mmap2(w, LATE, "/x/late.so", 40);
	mmap2(w, SAMPLED, "/x/sampled.so", 45);
	uint8_t sw[16 + 24]; /* CPU 0 switches to PID */
	hdr(sw, PERF_RECORD_SWITCH_CPU_WIDE, sizeof sw);
	sw[5] = PERF_RECORD_MISC_SWITCH_OUT >> 8;
	st(sw + 8, PID, 4), st(sw + 12, PID, 4);
	trailer(sw + 16, 50);
	put(w, sw, sizeof sw);
	uint8_t smp[8 + 32];
	hdr(smp, PERF_RECORD_SAMPLE, sizeof smp);
	smp[4] = PERF_RECORD_MISC_USER;
	st(smp + 8, SAMPLED + 0x80, 8);
	trailer(smp + 16, 60);
	put(w, smp, sizeof smp);
	uint8_t data[256], a[48];
	size_t n = trace(data, walks, sizeof walks / sizeof walks[0]);
	hdr(a, PK_RECORD_AUXTRACE, sizeof a);
	st(a + 8, n, 8);
	st(a + 32, 0, 4);           /* idx */
	st(a + 36, UINT32_MAX, 4);  /* tid */
	st(a + 40, 0, 4);           /* cpu */
	assert_int_equal(pk_pd_writer_write_auxtrace(w, a, sizeof a, data, n, NULL), 0);
	assert_int_equal(pk_pd_writer_close(w, NULL), 0);
}

typedef struct got {
	uint64_t ip[16];
	size_t n;
} got;

static int on_error(void *arg, pk_session *s, const pk_session_itrace_error *e)
{
	(void)s;
	got *g = arg;
	if (g->n < 16)
		g->ip[g->n++] = e->ip;
	return 0;
}

/* script and report hand out every sample (script prints each) */
static int on_sample(void *arg, pk_session *s, const pk_pd_event *ev, const pk_pd_sample *smp)
{
	(void)arg, (void)s, (void)ev, (void)smp;
	return 0;
}

static void errors_of(pk_session_itrace_for which, got *g)
{
	char dir[] = "/tmp/pk_ipt_dsos_XXXXXX", path[64];
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof path, "%s/perf.data", dir);
	write_file(path);
	pk_session *s;
	assert_int_equal(pk_session_open(path, NULL, &s, NULL), 0);
	pk_session_itrace_default(s, which);
	pk_session_on_itrace_error(s, on_error, g);
	assert_int_equal(pk_session_run(s, on_sample, NULL, NULL), 0);
	pk_session_close(s);
	unlink(path);
	rmdir(dir);
}

/* script: late.so two errors (tried by the first walk, met by the
 * second), early.so (tried at the vdso mmap) and sampled.so (tried when
 * script read its sample's code) one each, no map every time. */
static void test_script(void **state)
{
	(void)state;
	got g = {0};
	errors_of(PK_ITRACE_SCRIPT, &g);
	static const uint64_t want[] = {NOMAP + 0x100, LATE + 0x100, LATE + 0x200,
					EARLY + 0x100, SAMPLED + 0x100, NOMAP + 0x200};
	assert_int_equal(g.n, sizeof want / sizeof want[0]);
	for (size_t i = 0; i < g.n; i++)
		assert_int_equal(g.ip[i], want[i]);
}

/* report reads no sample's code: sampled.so is untried at its first walk. */
static void test_report(void **state)
{
	(void)state;
	got g = {0};
	errors_of(PK_ITRACE_REPORT, &g);
	static const uint64_t want[] = {NOMAP + 0x100,   LATE + 0x100,    LATE + 0x200,
					EARLY + 0x100,   SAMPLED + 0x100, SAMPLED + 0x200,
					NOMAP + 0x200};
	assert_int_equal(g.n, sizeof want / sizeof want[0]);
	for (size_t i = 0; i < g.n; i++)
		assert_int_equal(g.ip[i], want[i]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_script),
		cmocka_unit_test(test_report),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
