/* The record loop (pk_spe_next: a table-driven fast loop over packets with
 * 8 bytes after their header, a slow path for the rest) against a plain
 * reference written here from the packet decoder: one pk_spe_packet_decode
 * per packet and a switch on its type, the rules of docs/spe.md (PAD
 * skipped, TIMESTAMP or END close a record, a bad byte drops the partial
 * record and is skipped with a warning at its offset). Streams from the
 * generator (every packet kind, extended headers, PAD runs, bad bytes, END)
 * and random bytes, each also cut at every length near its end, where the
 * fast loop hands over to the slow path. */
#include <stdlib.h>
#include <string.h>

#include <pmukit/spe.h>

#include "helpers.h"
#include "spe_gen.h"

/* PC/TGT/PBT as perf stores them: bits [55:0], top byte 0xff for NS=1 at EL1/EL2 */
static uint64_t ref_code(uint64_t v, uint8_t *el, bool *ns)
{
	*el = (uint8_t)((v >> 61) & 3);
	*ns = v >> 63;
	uint64_t a = v & 0x00ffffffffffffffull;
	return *ns && (*el == 1 || *el == 2) ? a | 0xff00000000000000ull : a;
}

static void ref_address(pk_spe_record *r, unsigned idx, uint64_t v)
{
	if (idx == PK_SPE_ADDR_PC) {
		r->pc = ref_code(v, &r->pc_el, &r->pc_ns);
		r->present |= PK_SPE_HAS_PC;
	} else if (idx == PK_SPE_ADDR_TGT) {
		r->tgt = ref_code(v, &r->tgt_el, &r->tgt_ns);
		r->present |= PK_SPE_HAS_TGT;
	} else if (idx == PK_SPE_ADDR_PBT) {
		r->pbt = ref_code(v, &r->pbt_el, &r->pbt_ns);
		r->present |= PK_SPE_HAS_PBT;
	} else if (idx == PK_SPE_ADDR_VA) {
		r->va_tag = (uint8_t)(v >> 56);
		r->va = v & 0x00ffffffffffffffull;
		if ((r->va >> 52 & 0xf) == 0xf)
			r->va |= 0xff00000000000000ull;
		r->present |= PK_SPE_HAS_VA;
	} else if (idx == PK_SPE_ADDR_PA) {
		r->pa = v & 0x00ffffffffffffffull;
		r->pa_ns = v >> 63;
		r->pa_ch = v >> 62 & 1;
		r->pa_pat = (uint8_t)(v >> 56 & 15);
		r->present |= PK_SPE_HAS_PA;
	}
}

/* Folds a packet in; true when it closes the record. */
static bool ref_fold(pk_spe_record *r, const pk_spe_packet *p)
{
	uint64_t v = p->payload;
	r->nr_packets++;
	switch (p->type) {
	case PK_SPE_END: return true;
	case PK_SPE_TIMESTAMP: r->timestamp = v; r->present |= PK_SPE_HAS_TS; return true;
	case PK_SPE_EVENTS: r->events = v; r->present |= PK_SPE_HAS_EVENTS; break;
	case PK_SPE_DATA_SOURCE: r->source = v; r->present |= PK_SPE_HAS_SOURCE; break;
	case PK_SPE_CONTEXT:
		r->context = (uint32_t)v;
		r->context_idx = p->index;
		r->present |= PK_SPE_HAS_CONTEXT;
		break;
	case PK_SPE_OP_TYPE:
		r->op_class = p->index;
		r->op = (uint8_t)v;
		r->present |= PK_SPE_HAS_OP;
		break;
	case PK_SPE_ADDRESS: ref_address(r, p->index, v); break;
	case PK_SPE_COUNTER:
		if (p->index == PK_SPE_CNT_TOTAL) {
			r->lat_total = (uint16_t)v;
			r->present |= PK_SPE_HAS_TOT;
		} else if (p->index == PK_SPE_CNT_ISSUE) {
			r->lat_issue = (uint16_t)v;
			r->present |= PK_SPE_HAS_ISSUE;
		} else if (p->index == PK_SPE_CNT_XLAT) {
			r->lat_xlat = (uint16_t)v;
			r->present |= PK_SPE_HAS_XLAT;
		}
		break;
	default: break;
	}
	return false;
}

/* The reference's next record, or PK_SPE_WARN with *bad set, or DONE. */
static int ref_next(const uint8_t *buf, size_t len, size_t *pos, pk_spe_record *r, size_t *bad)
{
	memset(r, 0, sizeof(*r));
	while (*pos < len && buf[*pos] == 0)
		(*pos)++;
	if (*pos >= len)
		return PK_SPE_DONE;
	r->offset = *pos;
	while (*pos < len) {
		pk_spe_packet p;
		int n = pk_spe_packet_decode(buf, len, *pos, &p, NULL);
		assert_true(n > 0);
		if (p.type == PK_SPE_BAD) {
			*bad = (*pos)++;
			return PK_SPE_WARN;
		}
		*pos += (size_t)n;
		if (p.type != PK_SPE_PAD && ref_fold(r, &p)) {
			r->closed = true;
			break;
		}
	}
	r->end = *pos;
	return PK_SPE_RECORD;
}

#define SAME(f) assert_true(a->f == b->f)
static void same_record(const pk_spe_record *a, const pk_spe_record *b)
{
	SAME(offset); SAME(end); SAME(present); SAME(closed); SAME(nr_packets);
	SAME(pc); SAME(tgt); SAME(pbt); SAME(va); SAME(pa);
	SAME(pc_el); SAME(tgt_el); SAME(pbt_el); SAME(pc_ns); SAME(tgt_ns); SAME(pbt_ns);
	SAME(pa_ns); SAME(pa_ch); SAME(va_tag); SAME(pa_pat); SAME(timestamp);
	SAME(context); SAME(context_idx); SAME(op_class); SAME(op); SAME(events); SAME(source);
	SAME(lat_total); SAME(lat_issue); SAME(lat_xlat);
}

/* Both decoders over buf[0, len): the same records, warnings and offsets;
 * returns the records seen. */
static size_t compare(const uint8_t *buf, size_t len)
{
	pk_spe_decoder d;
	pk_spe_decoder_init(&d, buf, len, 0);
	size_t pos = 0, records = 0, bad = 0;
	for (;;) {
		pk_spe_record a, b;
		int ra = pk_spe_next(&d, &a), rb = ref_next(buf, len, &pos, &b, &bad);
		assert_int_equal(ra, rb);
		if (ra == PK_SPE_DONE)
			break;
		if (ra == PK_SPE_WARN) {
			assert_int_equal(d.warn_offset, bad);
			assert_non_null(d.warn);
		} else {
			same_record(&a, &b);
			records++;
		}
		assert_int_equal(d.pos, pos);
	}
	return records;
}

static void test_generated_streams(void **state)
{
	(void)state;
	enum { CAP = 64 << 10 };
	uint8_t *buf = malloc(CAP);
	assert_non_null(buf);
	for (unsigned v = 0; v < 8; v++) {
		spe_gen_opts o = {.seed = 7 + v, .nr_records = 300, .end_packets = v & 1,
				  .bad_bytes = v & 2, .perf61 = v & 4};
		size_t len = spe_gen_stream(&o, 0, buf, CAP);
		assert_true(compare(buf, len) >= 250);
		/* cut at every length in the last two records: records ending
		 * inside the fast zone, at its edge and in the last 8 bytes */
		for (size_t cut = len > 160 ? len - 160 : 0; cut < len; cut++)
			compare(buf, cut);
	}
	free(buf);
}

static void test_random_bytes(void **state)
{
	(void)state;
	uint8_t buf[512];
	uint64_t x = 0x9e3779b97f4a7c15ull;
	for (int round = 0; round < 400; round++) {
		for (size_t i = 0; i < sizeof buf; i++) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			/* mostly valid headers and zeros, so that records form */
			static const uint8_t common[] = {0xb0, 0xb1, 0xb2, 0xb3, 0xb4, 0x71, 0x01, 0x00,
							 0x20, 0x21, 0x98, 0x99, 0x9a, 0x64, 0x65, 0x49,
							 0x42, 0x52, 0x62, 0x72, 0x43, 0x53};
			buf[i] = x >> 60 < 10 ? common[(x >> 8) % sizeof common] : (uint8_t)x;
		}
		size_t len = sizeof buf - (size_t)round % 40;
		compare(buf, len);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_generated_streams),
		cmocka_unit_test(test_random_bytes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
