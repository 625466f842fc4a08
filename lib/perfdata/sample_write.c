/* Building PERF_RECORD_SAMPLE and the sample_id trailer as the kernel lays
 * them out: the inverse of sample.c's walk (declarations and the contract in
 * sample_write.h).
 *
 * Invariants: a record is built in one pass into the caller's buffer; a
 * field that does not fit stops the writing but the size keeps counting, so
 * the error can say how big the record would be. The identification fields
 * come from sample.c's table; the body order below is perfdata.md 1.6 (the
 * kernel's perf_output_sample), checked against the parser by round trips.
 * Padding bytes (RAW, AUX) are zero. Nothing here reads the attr beyond
 * sample_type, read_format, branch_sample_type and the register masks. */
#include "sample_write.h"

#include "pd_internal.h"

#include <errno.h>

#define PD_BRANCH_HW_INDEX (1ULL << 17)
#define PD_BRANCH_COUNTERS (1ULL << 19)

typedef struct out {
	uint8_t *buf;
	size_t cap, pos;             /* pos may pass cap: bytes the record needs */
} out;

static void put(out *o, const void *src, size_t n)
{
	if (o->pos <= o->cap && n <= o->cap - o->pos && n)
		memcpy(o->buf + o->pos, src, n);
	o->pos += n;
}

static void put64(out *o, uint64_t v)
{
	put(o, &v, 8);
}

static void put_zero(out *o, size_t n)
{
	static const uint8_t zero[8];
	put(o, zero, n);
}

/* Data padded with zeros to 8 bytes, after a size field of `size_bytes`
 * (4: RAW's u32, 8: AUX's u64) holding the padded size. */
static void put_padded(out *o, const void *data, uint64_t len, size_t size_bytes)
{
	uint64_t padded = (len + size_bytes + 7) / 8 * 8 - size_bytes;
	if (size_bytes == 4) {
		uint32_t sz = (uint32_t)padded;
		put(o, &sz, 4);
	} else {
		put64(o, padded);
	}
	put(o, data, (size_t)len);
	put_zero(o, (size_t)(padded - len));
}

static void put_arr(out *o, const uint64_t *a, uint64_t n)
{
	put(o, a, (size_t)n * 8);
}

/* The number of u64s of read_format rf for a group of nr counters (nr is
 * ignored without GROUP). */
static uint64_t read_nr(uint64_t rf, uint64_t nr)
{
	uint64_t per = 1 + !!(rf & PERF_FORMAT_ID) + !!(rf & PERF_FORMAT_LOST);
	uint64_t times = !!(rf & PERF_FORMAT_TOTAL_TIME_ENABLED) +
			 !!(rf & PERF_FORMAT_TOTAL_TIME_RUNNING);
	return rf & PERF_FORMAT_GROUP ? 1 + times + nr * per : per + times;
}

int pki_pd_read_values(uint64_t rf, const pk_counts *c, size_t nr, uint64_t *dst, size_t cap)
{
	bool group = rf & PERF_FORMAT_GROUP;
	if (!nr || (!group && nr != 1))
		return -EINVAL;
	if (read_nr(rf, nr) > cap)
		return -E2BIG;
	size_t n = 0;
	if (group)
		dst[n++] = nr;
	else
		dst[n++] = c[0].val;
	if (rf & PERF_FORMAT_TOTAL_TIME_ENABLED)
		dst[n++] = c[0].ena;
	if (rf & PERF_FORMAT_TOTAL_TIME_RUNNING)
		dst[n++] = c[0].run;
	for (size_t i = 0; i < nr; i++) {
		if (group)
			dst[n++] = c[i].val;
		if (rf & PERF_FORMAT_ID)
			dst[n++] = c[i].id;
		if (rf & PERF_FORMAT_LOST)
			dst[n++] = c[i].lost;
	}
	return (int)n;
}

static int put_read(out *o, uint64_t rf, const pk_pd_sample *s, pk_error *err)
{
	uint64_t want = read_nr(rf, s->read_nr ? s->read[0] : 0);
	if (!s->read_nr || s->read_nr != want)
		return pk_err(err, -EINVAL,
			      "sample field READ: %zu values given, read_format 0x%llx needs %llu",
			      s->read_nr, (unsigned long long)rf, (unsigned long long)want);
	put_arr(o, s->read, s->read_nr);
	return 0;
}

static void put_branch(out *o, uint64_t bst, const pk_pd_sample *s)
{
	put64(o, s->branch_nr);
	if (bst & PD_BRANCH_HW_INDEX)
		put64(o, s->branch_hw_idx);
	put(o, s->branch, (size_t)s->branch_nr * sizeof(pk_pd_branch_entry));
	if (bst & PD_BRANCH_COUNTERS) {
		if (s->branch_counters)
			put_arr(o, s->branch_counters, s->branch_nr);
		else
			for (uint64_t i = 0; i < s->branch_nr; i++)
				put64(o, 0);
	}
}

/* REGS_USER / REGS_INTR: abi, then the mask's registers unless abi is 0. */
static int put_regs(out *o, uint64_t mask, uint64_t abi, const uint64_t *regs, size_t nr,
		    const char *field, pk_error *err)
{
	put64(o, abi);
	if (!abi)
		return 0;
	if (nr != pd_popcount64(mask) || (nr && !regs))
		return pk_err(err, -EINVAL, "sample field %s: %zu registers given, the mask 0x%llx has %u",
			      field, nr, (unsigned long long)mask, pd_popcount64(mask));
	put_arr(o, regs, nr);
	return 0;
}

static int put_stack(out *o, const pk_pd_sample *s, pk_error *err)
{
	put64(o, s->stack_size);
	if (!s->stack_size)
		return 0;
	if (s->stack_size % 8 || !s->stack)
		return pk_err(err, -EINVAL,
			      "sample field STACK_USER: size %llu is not a multiple of 8 with data",
			      (unsigned long long)s->stack_size);
	put(o, s->stack, (size_t)s->stack_size);
	put64(o, s->stack_dyn_size);
	return 0;
}

static int put_weight(out *o, uint64_t st, const pk_pd_sample *s, pk_error *err)
{
	if ((st & PERF_SAMPLE_WEIGHT) && (st & PERF_SAMPLE_WEIGHT_STRUCT))
		return pk_err(err, -EINVAL, "sample_type has both WEIGHT and WEIGHT_STRUCT");
	if (st & PERF_SAMPLE_WEIGHT)
		put64(o, s->weight);
	if (!(st & PERF_SAMPLE_WEIGHT_STRUCT))
		return 0;
	if (s->weight > UINT32_MAX)
		return pk_err(err, -EINVAL, "sample field WEIGHT_STRUCT: var1 %llu is above 32 bits",
			      (unsigned long long)s->weight);
	uint32_t var1 = (uint32_t)s->weight;
	put(o, &var1, 4);
	put(o, &s->weight_var2, 2);
	put(o, &s->weight_var3, 2);
	return 0;
}

/* One u64 when st has bit. */
static void opt64(out *o, uint64_t st, uint64_t bit, uint64_t v)
{
	if (st & bit)
		put64(o, v);
}

/* A field with n items and no data is an error naming it. */
static int no_data(const void *data, uint64_t n, const char *field, pk_error *err)
{
	if (n && !data)
		return pk_err(err, -EINVAL, "sample field %s: %llu items without data", field,
			      (unsigned long long)n);
	return 0;
}

/* The pointers of the fields st asks for. */
static int check_data(uint64_t st, const pk_pd_sample *s, pk_error *err)
{
	int rc = 0;
	if (st & PERF_SAMPLE_CALLCHAIN)
		rc = no_data(s->callchain, s->callchain_nr, "CALLCHAIN", err);
	if (!rc && (st & PERF_SAMPLE_RAW))
		rc = no_data(s->raw, s->raw_size, "RAW", err);
	if (!rc && (st & PERF_SAMPLE_BRANCH_STACK))
		rc = no_data(s->branch, s->branch_nr, "BRANCH_STACK", err);
	if (!rc && (st & PERF_SAMPLE_AUX))
		rc = no_data(s->aux, s->aux_size, "AUX", err);
	return rc;
}

/* PERIOD .. CALLCHAIN, RAW, BRANCH_STACK, REGS_USER, STACK_USER. */
static int body_first(out *o, const struct perf_event_attr *a, const pk_pd_sample *s,
		      pk_error *err)
{
	uint64_t st = a->sample_type;
	int rc = 0;
	opt64(o, st, PERF_SAMPLE_PERIOD, s->period);
	if ((st & PERF_SAMPLE_READ) && (rc = put_read(o, a->read_format, s, err)) < 0)
		return rc;
	if (st & PERF_SAMPLE_CALLCHAIN) {
		put64(o, s->callchain_nr);
		put_arr(o, s->callchain, s->callchain_nr);
	}
	if (st & PERF_SAMPLE_RAW)
		put_padded(o, s->raw, s->raw_size, 4);
	if (st & PERF_SAMPLE_BRANCH_STACK)
		put_branch(o, a->branch_sample_type, s);
	if ((st & PERF_SAMPLE_REGS_USER) &&
	    (rc = put_regs(o, a->sample_regs_user, s->user_abi, s->user_regs, s->user_regs_nr,
			   "REGS_USER", err)) < 0)
		return rc;
	if (st & PERF_SAMPLE_STACK_USER)
		rc = put_stack(o, s, err);
	return rc;
}

/* WEIGHT .. AUX. */
static int body_rest(out *o, const struct perf_event_attr *a, const pk_pd_sample *s,
		     pk_error *err)
{
	uint64_t st = a->sample_type;
	int rc = put_weight(o, st, s, err);
	if (rc < 0)
		return rc;
	opt64(o, st, PERF_SAMPLE_DATA_SRC, s->data_src);
	opt64(o, st, PERF_SAMPLE_TRANSACTION, s->transaction);
	if ((st & PERF_SAMPLE_REGS_INTR) &&
	    (rc = put_regs(o, a->sample_regs_intr, s->intr_abi, s->intr_regs, s->intr_regs_nr,
			   "REGS_INTR", err)) < 0)
		return rc;
	opt64(o, st, PERF_SAMPLE_PHYS_ADDR, s->phys_addr);
	opt64(o, st, PERF_SAMPLE_CGROUP, s->cgroup);
	opt64(o, st, PERF_SAMPLE_DATA_PAGE_SIZE, s->data_page_size);
	opt64(o, st, PERF_SAMPLE_CODE_PAGE_SIZE, s->code_page_size);
	if (st & PERF_SAMPLE_AUX)
		put_padded(o, s->aux, s->aux_size, 8);
	return 0;
}

ssize_t pki_pd_sample_write(const struct perf_event_attr *a, const pk_pd_sample *s, uint8_t *buf,
			    size_t cap, pk_error *err)
{
	uint64_t st = a->sample_type;
	if (st & ~PKI_PD_SAMPLE_KNOWN) {
		int bit = __builtin_ctzll(st & ~PKI_PD_SAMPLE_KNOWN);
		return pk_err(err, -EOPNOTSUPP,
			      "sample_type bit %d (0x%llx) is not known to the sample writer", bit,
			      1ULL << bit);
	}
	int rc = check_data(st, s, err);
	if (rc < 0)
		return rc;
	out o = {buf, cap, 0};
	uint8_t hdr[8], head[64];
	pd_st32(hdr, PERF_RECORD_SAMPLE);
	pd_st16(hdr + 4, s->misc);
	pd_st16(hdr + 6, 0);
	put(&o, hdr, 8);
	put(&o, head, pki_pd_write_sample_head(head, st, s));
	rc = body_first(&o, a, s, err);
	if (rc < 0 || (rc = body_rest(&o, a, s, err)) < 0)
		return rc;
	if (o.pos > PKI_PD_RECORD_MAX || o.pos > cap)
		return pk_err(err, -E2BIG, "a sample of %zu bytes does not fit %s (%zu bytes)", o.pos,
			      o.pos > PKI_PD_RECORD_MAX ? "a record" : "the buffer",
			      o.pos > PKI_PD_RECORD_MAX ? (size_t)PKI_PD_RECORD_MAX : cap);
	pd_st16(buf + 6, (uint16_t)o.pos);
	return (ssize_t)o.pos;
}

size_t pki_pd_record_end(uint8_t *rec, size_t len, const struct perf_event_attr *a,
			 const pk_pd_sample_id *sid)
{
	if (a->sample_id_all)
		len += pki_pd_write_trailer(rec + len, a->sample_type, sid);
	pd_st16(rec + 6, (uint16_t)len);
	return len;
}

size_t pki_pd_lost_record(uint8_t rec[PKI_PD_LOST_MAX], const struct perf_event_attr *a,
			  const pk_pd_sample_id *sid, uint64_t id, uint64_t lost)
{
	memset(rec, 0, 24);
	pd_st32(rec, PERF_RECORD_LOST);
	pd_st64(rec + 8, id);
	pd_st64(rec + 16, lost);
	return pki_pd_record_end(rec, 24, a, sid);
}
