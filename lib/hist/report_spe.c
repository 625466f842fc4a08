/* libpmukit: Arm SPE latency groups of report (pk_spe_hist, include/pmukit/hist.h). Records are
 * grouped per symbol in a hash table; each group keeps its records'
 * three latencies (to sort for percentiles at the end) and a count per
 * data source. The histogram's bins are 1, 2 or 5 times a power of ten
 * wide, at most 40 of them from 0 past the largest total latency. */
#include <pmukit/hist.h>

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <linux/perf_event.h>
#include <pmukit/symbols.h>

#include "core/strmap.h"
#include "session/pd_session.h"

#define RS_SOURCES 17            /* data source values 0..15, 16: others */
#define RS_MAX_BINS 40

typedef struct lat3 {
	uint16_t total, issue, xlat;
} lat3;

struct pk_spe_hist_entry {
	const char *key;             /* "sym\x01dso": the table's copy */
	lat3 *lats;
	size_t nr, cap;
	uint64_t sources[RS_SOURCES];
	uint32_t midr;               /* for the sources' names */
	struct pk_spe_hist_entry *next; /* the next made */
};

struct pk_spe_hist {
	pki_strmap by_key;           /* the entries by key (the one string table) */
	pk_spe_hist_entry *first, **last; /* in the order made */
	size_t nr_entries;
	uint64_t nr_records;
	uint16_t max_total;
	uint64_t *hist;              /* per total latency value 0..65535 */
};

pk_spe_hist *pk_spe_hist_new(void)
{
	pk_spe_hist *rs = calloc(1, sizeof(*rs));
	if (rs && !(rs->hist = calloc(65536, sizeof(uint64_t)))) {
		free(rs);
		return NULL;
	}
	if (rs)
		rs->last = &rs->first;
	return rs;
}

void pk_spe_hist_free(pk_spe_hist *rs)
{
	if (!rs)
		return;
	for (pk_spe_hist_entry *e = rs->first, *n; e; e = n) {
		n = e->next;
		free(e->lats);
		free(e);
	}
	pki_strmap_free(&rs->by_key, NULL);
	free(rs->hist);
	free(rs);
}

static pk_spe_hist_entry *entry_of(pk_spe_hist *rs, const char *key)
{
	pki_strmap_slot *s = pki_strmap_put(&rs->by_key, key);
	if (!s || s->val)
		return s ? s->val : NULL;
	pk_spe_hist_entry *e = calloc(1, sizeof(*e));
	if (!e)
		return NULL; /* the key stays without an entry: made again next time */
	e->key = s->key;
	s->val = e;
	*rs->last = e;
	rs->last = &e->next;
	rs->nr_entries++;
	return e;
}

int pk_spe_hist_record(void *arg, pk_session *s, const pk_spe_record *r, int64_t pid, uint32_t midr)
{
	pk_spe_hist *rs = arg;
	char key[1100];
	if (r->present & PK_SPE_HAS_PC) {
		unsigned mode = r->pc >= 1ull << 63 ? PERF_RECORD_MISC_KERNEL : PERF_RECORD_MISC_USER;
		pk_addr_loc loc;
		pk_machine_resolve(s->machine, (uint32_t)pid, mode, r->pc, &loc);
		char k = mode == PERF_RECORD_MISC_KERNEL ? 'k' : '.';
		if (loc.sym)
			snprintf(key, sizeof key, "[%c] %.500s\x01%.500s", k, loc.sym, loc.dso);
		else
			snprintf(key, sizeof key, "[%c] %#.16" PRIx64 "\x01%.500s", k,
				 loc.has_map ? loc.dso_addr : r->pc, loc.dso);
	} else {
		snprintf(key, sizeof key, "[unknown]\x01[unknown]");
	}
	pk_spe_hist_entry *e = entry_of(rs, key);
	if (!e)
		return -ENOMEM;
	if (e->nr == e->cap) {
		size_t cap = e->cap ? 2 * e->cap : 16;
		lat3 *n = realloc(e->lats, cap * sizeof(*n));
		if (!n)
			return -ENOMEM;
		e->lats = n;
		e->cap = cap;
	}
	e->lats[e->nr++] = (lat3){r->lat_total, r->lat_issue, r->lat_xlat};
	if ((r->present & PK_SPE_HAS_SOURCE) && (r->present & PK_SPE_HAS_OP) &&
	    r->op_class == PK_SPE_OP_LDST)
		e->sources[r->source < 16 ? r->source : 16]++;
	e->midr = midr;
	rs->nr_records++;
	rs->hist[r->lat_total]++;
	if (r->lat_total > rs->max_total)
		rs->max_total = r->lat_total;
	return 0;
}

static int cmp_u16(const void *a, const void *b)
{
	return (int)*(const uint16_t *)a - (int)*(const uint16_t *)b;
}

/* p50, p90, p99 (nearest rank) of one latency of an entry. */
static void percentiles(const pk_spe_hist_entry *e, size_t field, unsigned out[3])
{
	uint16_t *v = malloc(e->nr * sizeof(*v));
	if (!v) {
		out[0] = out[1] = out[2] = 0;
		return;
	}
	for (size_t i = 0; i < e->nr; i++)
		v[i] = field == 0 ? e->lats[i].total : field == 1 ? e->lats[i].issue : e->lats[i].xlat;
	qsort(v, e->nr, sizeof(*v), cmp_u16);
	static const unsigned pct[3] = {50, 90, 99};
	for (int k = 0; k < 3; k++) {
		size_t rank = (pct[k] * e->nr + 99) / 100; /* ceil(p * n), >= 1 */
		out[k] = v[rank ? rank - 1 : 0];
	}
	free(v);
}

/* "L1D 60%, DRAM 25%, ..." of the entry's loads and stores. */
static void sources_text(const pk_spe_hist_entry *e, char *out, size_t size)
{
	uint64_t total = 0;
	for (int i = 0; i < RS_SOURCES; i++)
		total += e->sources[i];
	size_t o = 0;
	out[0] = 0;
	for (int i = 0; i < RS_SOURCES && total && o < size; i++) {
		if (!e->sources[i])
			continue;
		const char *name = i < 16 ? pk_spe_source_name(e->midr, (uint64_t)i) : NULL;
		char num[16];
		snprintf(num, sizeof num, i < 16 ? "source %d" : "other", i);
		o += (size_t)snprintf(out + o, size - o, "%s%s %.0f%%", o ? ", " : "", name ? name : num,
				      100.0 * (double)e->sources[i] / (double)total);
	}
}

static int cmp_entries(const void *a, const void *b)
{
	const pk_spe_hist_entry *x = *(pk_spe_hist_entry *const *)a, *y = *(pk_spe_hist_entry *const *)b;
	if (x->nr != y->nr)
		return x->nr > y->nr ? -1 : 1;
	return strcmp(x->key, y->key);
}

/* The histogram's bins: width 1, 2 or 5 times a power of ten. */
size_t pk_spe_hist_bins(const pk_spe_hist *rs, unsigned *width)
{
	unsigned span = (unsigned)rs->max_total + 1, w = 1;
	for (unsigned m = 1;; m *= 10) {
		if (span <= RS_MAX_BINS * m) { w = m; break; }
		if (span <= RS_MAX_BINS * 2 * m) { w = 2 * m; break; }
		if (span <= RS_MAX_BINS * 5 * m) { w = 5 * m; break; }
	}
	*width = w;
	return (span + w - 1) / w;
}

uint64_t pk_spe_hist_bin(const pk_spe_hist *rs, size_t b, unsigned width)
{
	uint64_t n = 0;
	for (unsigned v = (unsigned)b * width; v < (unsigned)(b + 1) * width && v < 65536; v++)
		n += rs->hist[v];
	return n;
}

uint64_t pk_spe_hist_nr_records(const pk_spe_hist *rs)
{
	return rs->nr_records;
}

pk_spe_hist_entry **pk_spe_hist_sorted(const pk_spe_hist *rs, size_t *n)
{
	pk_spe_hist_entry **all = malloc((rs->nr_entries ? rs->nr_entries : 1) * sizeof(*all));
	if (!all)
		return NULL;
	size_t k = 0;
	for (pk_spe_hist_entry *e = rs->first; e; e = e->next)
		all[k++] = e;
	qsort(all, k, sizeof(*all), cmp_entries);
	*n = k;
	return all;
}

void pk_spe_hist_row_of(const pk_spe_hist_entry *e, pk_spe_hist_row *row)
{
	row->nr = e->nr;
	for (size_t f = 0; f < 3; f++)
		percentiles(e, f, row->lat[f]);
	sources_text(e, row->sources, sizeof row->sources);
	const char *sep = strchr(e->key, '\x01');
	row->sym = e->key;
	row->sym_len = (int)(sep - e->key);
	row->dso = sep + 1;
}
