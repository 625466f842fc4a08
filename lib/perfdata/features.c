/* Header features: raw sections (read on demand) and the typed parse of the
 * ones the tools show (and perf's names of CLOCK_DATA's clocks). Each parser checks every length against the section,
 * so a damaged section is reported and skipped, never read past. */
#include "pd_internal.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define PD_MAX_FEAT_SIZE ((uint64_t)256 << 20)
#define PD_MAX_LIST 1000000

bool pk_pd_has_feature(const pk_pd_reader *r, int feat)
{
	return feat > 0 && feat < PK_FEAT_MAX && r->feats[feat].present;
}

/* Reads without moving the record window (pointers handed out stay valid). */
static int raw_read_at(pk_pd_reader *r, uint64_t off, void *dst, size_t n)
{
	if (r->src.mem) {
		if (off > r->src.mem_len || n > r->src.mem_len - off)
			return -ENODATA;
		memcpy(dst, r->src.mem + off, n);
		return 0;
	}
	size_t done = 0;
	while (done < n) {
		ssize_t k = pread(r->fd, (uint8_t *)dst + done, n - done, (off_t)(off + done));
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return -errno;
		if (k == 0)
			return -ENODATA;
		done += (size_t)k;
	}
	return 0;
}

int pk_pd_feature_raw(pk_pd_reader *r, int feat, const uint8_t **data, size_t *len,
		      pk_error *err)
{
	if (!pk_pd_has_feature(r, feat))
		return pk_err(err, -ENOENT, "the file has no %s feature",
			      pk_pd_feature_name(feat) ? pk_pd_feature_name(feat) : "such");
	pd_feat *f = &r->feats[feat];
	if (f->bad)
		return pki_pd_err_off(r, err, -EINVAL, f->offset, "%s feature section is damaged",
				  pk_pd_feature_name(feat) ? pk_pd_feature_name(feat) : "a");
	if (!f->loaded) {
		if (f->size > PD_MAX_FEAT_SIZE)
			return pki_pd_err_off(r, err, -EFBIG, f->offset, "feature section too large");
		uint8_t *buf = malloc(f->size ? (size_t)f->size : 1);
		if (!buf)
			return pk_err(err, -ENOMEM, "out of memory");
		int rc = raw_read_at(r, f->offset, buf, (size_t)f->size);
		if (rc < 0) {
			free(buf);
			f->bad = true;
			return pki_pd_err_off(r, err, rc, f->offset, "cannot read the %s feature",
					  pk_pd_feature_name(feat) ? pk_pd_feature_name(feat) : "?");
		}
		f->data = buf;
		f->loaded = true;
	}
	*data = f->data;
	*len = (size_t)f->size;
	return 0;
}

/* ---- a bounds-checked cursor over a feature payload ---- */
typedef struct cur {
	const uint8_t *p, *end;
	bool swap, bad;
} cur;

static uint32_t c32(cur *c)
{
	if (c->bad || c->end - c->p < 4) {
		c->bad = true;
		return 0;
	}
	uint32_t v = pd_get32(c->p, c->swap);
	c->p += 4;
	return v;
}

static uint64_t c64(cur *c)
{
	if (c->bad || c->end - c->p < 8) {
		c->bad = true;
		return 0;
	}
	uint64_t v = pd_get64(c->p, c->swap);
	c->p += 8;
	return v;
}

/* perf_header_string: u32 len, then len bytes holding a C string. */
static char *cstr(cur *c)
{
	uint32_t len = c32(c);
	if (c->bad || (uint64_t)(c->end - c->p) < len) {
		c->bad = true;
		return NULL;
	}
	char *s = strndup((const char *)c->p, len);
	if (!s)
		c->bad = true;
	c->p += len;
	return s;
}

char *pki_pd_feat_string(const uint8_t *p, size_t len, bool swap, size_t *used)
{
	cur c = {p, p + len, swap, false};
	char *s = cstr(&c);
	if (used)
		*used = (size_t)(c.p - p);
	return c.bad ? (free(s), NULL) : s;
}

static char **cstrlist(cur *c, uint32_t *nr)
{
	uint32_t n = c32(c);
	*nr = 0;
	if (c->bad || n > PD_MAX_LIST || n > (uint64_t)(c->end - c->p) / 4) {
		c->bad = true;
		return NULL;
	}
	char **v = calloc(n ? n : 1, sizeof(*v));
	if (!v) {
		c->bad = true;
		return NULL;
	}
	for (uint32_t i = 0; i < n && !c->bad; i++)
		v[i] = cstr(c);
	*nr = n;
	return v;
}

static void free_strlist(char **v, uint32_t n)
{
	for (uint32_t i = 0; v && i < n; i++)
		free(v[i]);
	free(v);
}

static void free_event_desc(pk_pd_event_desc *d, uint32_t n)
{
	for (uint32_t i = 0; d && i < n; i++) {
		free(d[i].name);
		free(d[i].ids);
	}
	free(d);
}

static pk_pd_event_desc *parse_event_desc(const uint8_t *p, size_t len, bool swap, uint32_t *nr)
{
	cur c = {p, p + len, swap, false};
	uint32_t n = c32(&c), asz = pki_pd_attr_size_check(c32(&c));
	*nr = 0;
	if (c.bad || n > PD_MAX_LIST || !asz ||
	    (uint64_t)n * asz > (uint64_t)(c.end - c.p))
		return NULL;
	pk_pd_event_desc *d = calloc(n ? n : 1, sizeof(*d));
	if (!d)
		return NULL;
	for (uint32_t i = 0; i < n && !c.bad; i++) {
		uint64_t c3;
		if ((uint64_t)(c.end - c.p) < asz) {
			c.bad = true;
			break;
		}
		pki_pd_attr_from_file(c.p, asz, swap, &d[i].attr, &c3);
		c.p += asz;
		uint32_t nids = c32(&c);
		d[i].name = cstr(&c);
		if (c.bad || nids > (uint64_t)(c.end - c.p) / 8) {
			c.bad = true;
			break;
		}
		d[i].ids = malloc((nids ? nids : 1) * sizeof(uint64_t));
		if (!d[i].ids) {
			c.bad = true;
			break;
		}
		for (uint32_t k = 0; k < nids; k++)
			d[i].ids[k] = c64(&c);
		d[i].nr_ids = nids;
	}
	if (c.bad) {
		free_event_desc(d, n);
		return NULL;
	}
	*nr = n;
	return d;
}

void pki_pd_apply_event_desc(pk_pd_reader *r)
{
	const uint8_t *p;
	size_t len;
	if (!pk_pd_has_feature(r, PK_FEAT_EVENT_DESC) ||
	    pk_pd_feature_raw(r, PK_FEAT_EVENT_DESC, &p, &len, NULL) < 0)
		return;
	uint32_t n;
	pk_pd_event_desc *d = parse_event_desc(p, len, r->swap, &n);
	if (!d) {
		pki_pd_warn(r, "EVENT_DESC feature is damaged; event names come from the attrs");
		r->stats.nr_bad_features++;
		return;
	}
	for (uint32_t i = 0; i < n; i++) {
		pk_pd_evsel *e = NULL;
		/* by id when the file has ids, else by position */
		for (uint32_t k = 0; k < d[i].nr_ids && !e; k++) {
			int idx = pki_pd_idmap_get(&r->ids, d[i].ids[k]);
			if (idx >= 0)
				e = r->evsels[idx];
		}
		if (!e && !d[i].nr_ids && i < r->nr_evsels)
			e = r->evsels[i];
		if (e && d[i].name && d[i].name[0]) {
			char *nm = strdup(d[i].name);
			if (nm) {
				free(e->name);
				e->name = nm;
			}
		}
	}
	free_event_desc(d, n);
}

/* ---- the typed header ---- */

static void feat_bad(pk_pd_reader *r, int f)
{
	pki_pd_warn(r, "%s feature is damaged; skipped", pk_pd_feature_name(f));
	r->stats.nr_bad_features++;
}

static bool feat_cur(pk_pd_reader *r, int f, cur *c)
{
	const uint8_t *p;
	size_t len;
	if (!pk_pd_has_feature(r, f))
		return false;
	if (pk_pd_feature_raw(r, f, &p, &len, NULL) < 0) {
		feat_bad(r, f);
		return false;
	}
	c->p = p;
	c->end = p + len;
	c->swap = r->swap;
	c->bad = false;
	return true;
}

/* ---- one parser per feature; each returns false when its section is
 * damaged, leaving what it filled consistent for pk_pd_header_release ---- */

static bool parse_nrcpus(cur *c, pk_pd_header *h)
{
	h->nr_cpus_avail = c32(c);
	h->nr_cpus_online = c32(c);
	h->has_nrcpus = !c->bad;
	return !c->bad;
}

static bool parse_total_mem(cur *c, pk_pd_header *h)
{
	h->total_mem = c64(c);
	return !c->bad;
}

static bool parse_cmdline(cur *c, pk_pd_header *h)
{
	h->cmdline = cstrlist(c, &h->nr_cmdline);
	if (!c->bad)
		return true;
	free_strlist(h->cmdline, h->nr_cmdline);
	h->cmdline = NULL;
	h->nr_cmdline = 0;
	return false;
}

static bool parse_event_desc_feat(cur *c, pk_pd_header *h)
{
	h->event_desc = parse_event_desc(c->p, (size_t)(c->end - c->p), c->swap, &h->nr_event_desc);
	return h->event_desc != NULL;
}

/* The bytes perf 6.1 counts for a string list: the count, then each
 * string as its own writer pads it (to 64 bytes with its NUL), whatever
 * length the file gave. */
static uint64_t perf_list_size(char **v, uint32_t n)
{
	uint64_t size = 4;
	for (uint32_t i = 0; v && i < n; i++)
		size += 4 + ((v[i] ? strlen(v[i]) : 0) + 1 + 63) / 64 * 64;
	return size;
}

/* core and thread siblings; then, told by the section size, per-CPU core
 * and socket ids, die siblings and die ids (NRCPUS gives the CPU count).
 * perf 6.1 decides there are ids when the section is longer than its own
 * count of the lists (another writer's shorter padding hides them) and
 * drops them all when a socket id exceeds the CPU count (but on s390 and
 * aarch64). */
static bool parse_cpu_topology(cur *c, pk_pd_header *h)
{
	const uint8_t *start = c->p;
	h->core_siblings = cstrlist(c, &h->nr_core_siblings);
	h->thread_siblings = cstrlist(c, &h->nr_thread_siblings);
	uint32_t ncpu = h->has_nrcpus ? h->nr_cpus_avail : 0;
	uint64_t perf_size = perf_list_size(h->core_siblings, h->nr_core_siblings) +
			     perf_list_size(h->thread_siblings, h->nr_thread_siblings);
	if (c->bad || !ncpu || ncpu > PD_MAX_LIST || (uint64_t)(c->end - c->p) < (uint64_t)ncpu * 8 ||
	    (uint64_t)(c->end - start) <= perf_size)
		return !c->bad;
	h->cpu_topo = calloc(ncpu, sizeof(*h->cpu_topo));
	bool ids = h->cpu_topo != NULL;
	/* s390 and aarch64 number their sockets apart from the CPUs (perf) */
	bool any_socket = h->arch && (!strncmp(h->arch, "s390", 4) || !strncmp(h->arch, "aarch64", 7));
	for (uint32_t i = 0; ids && i < ncpu; i++) {
		h->cpu_topo[i].core_id = c32(c);
		h->cpu_topo[i].socket_id = c32(c);
		ids = any_socket || h->cpu_topo[i].socket_id == UINT32_MAX ||
		      h->cpu_topo[i].socket_id <= ncpu;
	}
	if (!ids) { /* perf: "socket_id number is too big", no topology */
		free(h->cpu_topo);
		h->cpu_topo = NULL;
		return !c->bad;
	}
	h->nr_cpu_topo = ncpu;
	if (c->bad || c->end - c->p < 4)
		return !c->bad;
	h->die_siblings = cstrlist(c, &h->nr_die_siblings);
	if (!c->bad && (uint64_t)(c->end - c->p) >= (uint64_t)ncpu * 4 && h->cpu_topo) {
		for (uint32_t i = 0; i < ncpu; i++)
			h->cpu_topo[i].die_id = c32(c);
		h->has_die_ids = true;
	}
	return !c->bad;
}

/* A u32 count of entries of at least min_size bytes each; 0 when absurd. */
/* A section's list: its u32 count, checked against the bytes left (each
 * entry at least min_size), and an array of n entries of elem bytes. NULL
 * (and the section marked bad) when the count cannot be right or memory
 * runs out, so no list is ever silently shortened. */
static void *list_new(cur *c, size_t min_size, size_t elem, uint32_t *n)
{
	*n = c32(c);
	void *v = NULL;
	if (!c->bad && *n <= PD_MAX_LIST && *n <= (uint64_t)(c->end - c->p) / min_size)
		v = calloc(*n ? *n : 1, elem);
	if (!v)
		c->bad = true;
	return v;
}

static bool parse_pmu_mappings(cur *c, pk_pd_header *h)
{
	uint32_t n;
	h->pmu_mappings = list_new(c, 8, sizeof(*h->pmu_mappings), &n);
	for (uint32_t i = 0; i < n && !c->bad; i++) {
		h->pmu_mappings[i].type = c32(c);
		h->pmu_mappings[i].name = cstr(c);
		h->nr_pmu_mappings = i + 1;
	}
	return !c->bad;
}

static bool parse_group_desc(cur *c, pk_pd_header *h)
{
	uint32_t n;
	h->groups = list_new(c, 12, sizeof(*h->groups), &n);
	for (uint32_t i = 0; i < n && !c->bad; i++) {
		h->groups[i].name = cstr(c);
		h->groups[i].leader_idx = c32(c);
		h->groups[i].nr_members = c32(c);
		h->nr_groups = i + 1;
	}
	return !c->bad;
}

static bool parse_auxtrace(cur *c, pk_pd_header *h)
{
	uint64_t n = c64(c);
	if (c->bad || n > (uint64_t)(c->end - c->p) / 16)
		return false;
	h->auxtrace = calloc(n ? n : 1, sizeof(*h->auxtrace));
	if (!h->auxtrace)
		return false;
	for (uint64_t i = 0; i < n; i++) {
		h->auxtrace[i].offset = c64(c);
		h->auxtrace[i].size = c64(c);
		h->nr_auxtrace = i + 1;
	}
	return !c->bad;
}

static bool parse_clockid(cur *c, pk_pd_header *h)
{
	h->clockid_res_ns = c64(c);
	h->has_clockid = !c->bad;
	return !c->bad;
}

static bool parse_hybrid_topology(cur *c, pk_pd_header *h)
{
	uint32_t n;
	h->hybrid = list_new(c, 8, sizeof(*h->hybrid), &n);
	for (uint32_t i = 0; i < n && !c->bad; i++) {
		h->hybrid[i].pmu_name = cstr(c);
		h->hybrid[i].cpus = cstr(c);
		h->nr_hybrid = i + 1;
	}
	return !c->bad;
}

static bool parse_sample_time(cur *c, pk_pd_header *h)
{
	h->sample_time_first = c64(c);
	h->sample_time_last = c64(c);
	h->has_sample_time = !c->bad;
	return !c->bad;
}

static bool parse_compressed(cur *c, pk_pd_header *h)
{
	h->comp_ver = c32(c);
	h->comp_type = c32(c);
	h->comp_level = c32(c);
	h->comp_ratio = c32(c);
	h->comp_mmap_len = c32(c);
	h->has_compressed = !c->bad;
	return !c->bad;
}

static bool parse_clock_data(cur *c, pk_pd_header *h)
{
	uint32_t version = c32(c); /* perf takes version 1 only */
	h->clock_data_clockid = c32(c);
	h->clock_wall_ns = c64(c);
	h->clock_clockid_ns = c64(c);
	h->has_clock_data = !c->bad && version == 1;
	return !c->bad;
}

/* The features pk_pd_header_read knows, in the order they are parsed
 * (NRCPUS before CPU_TOPOLOGY, which needs the CPU count): a parser, or
 * for a single string the place of its field in pk_pd_header. */
#define STR_FEAT(f, field) {f, offsetof(pk_pd_header, field), NULL}
static const struct feat_handler {
	int feat;
	size_t str_off;
	bool (*parse)(cur *c, pk_pd_header *h);
} feat_handlers[] = {
	STR_FEAT(PK_FEAT_HOSTNAME, hostname),
	STR_FEAT(PK_FEAT_OSRELEASE, osrelease),
	STR_FEAT(PK_FEAT_VERSION, version),
	STR_FEAT(PK_FEAT_ARCH, arch),
	STR_FEAT(PK_FEAT_CPUDESC, cpudesc),
	STR_FEAT(PK_FEAT_CPUID, cpuid),
	{PK_FEAT_NRCPUS, 0, parse_nrcpus},
	{PK_FEAT_TOTAL_MEM, 0, parse_total_mem},
	{PK_FEAT_CMDLINE, 0, parse_cmdline},
	{PK_FEAT_EVENT_DESC, 0, parse_event_desc_feat},
	{PK_FEAT_CPU_TOPOLOGY, 0, parse_cpu_topology},
	{PK_FEAT_PMU_MAPPINGS, 0, parse_pmu_mappings},
	{PK_FEAT_GROUP_DESC, 0, parse_group_desc},
	{PK_FEAT_AUXTRACE, 0, parse_auxtrace},
	{PK_FEAT_CLOCKID, 0, parse_clockid},
	{PK_FEAT_HYBRID_TOPOLOGY, 0, parse_hybrid_topology},
	{PK_FEAT_SAMPLE_TIME, 0, parse_sample_time},
	{PK_FEAT_COMPRESSED, 0, parse_compressed},
	{PK_FEAT_CLOCK_DATA, 0, parse_clock_data},
};
#undef STR_FEAT

/* A one-string feature into the char * at str_off of h. */
static bool parse_string(cur *c, pk_pd_header *h, size_t str_off)
{
	char *s = cstr(c);
	if (c->bad) {
		free(s);
		return false;
	}
	memcpy((char *)h + str_off, &s, sizeof(s));
	return true;
}

int pk_pd_header_read(pk_pd_reader *r, pk_pd_header *h, pk_error *err)
{
	(void)err;
	memset(h, 0, sizeof(*h));
	for (size_t i = 0; i < sizeof(feat_handlers) / sizeof(feat_handlers[0]); i++) {
		const struct feat_handler *fh = &feat_handlers[i];
		cur c;
		if (!feat_cur(r, fh->feat, &c))
			continue;
		bool ok = fh->parse ? fh->parse(&c, h) : parse_string(&c, h, fh->str_off);
		if (!ok)
			feat_bad(r, fh->feat);
	}
	return 0;
}

void pk_pd_header_release(pk_pd_header *h)
{
	free(h->hostname);
	free(h->osrelease);
	free(h->version);
	free(h->arch);
	free(h->cpudesc);
	free(h->cpuid);
	free_strlist(h->cmdline, h->nr_cmdline);
	free_event_desc(h->event_desc, h->nr_event_desc);
	free_strlist(h->core_siblings, h->nr_core_siblings);
	free_strlist(h->thread_siblings, h->nr_thread_siblings);
	free_strlist(h->die_siblings, h->nr_die_siblings);
	free(h->cpu_topo);
	for (uint32_t i = 0; h->pmu_mappings && i < h->nr_pmu_mappings; i++)
		free(h->pmu_mappings[i].name);
	free(h->pmu_mappings);
	for (uint32_t i = 0; h->groups && i < h->nr_groups; i++)
		free(h->groups[i].name);
	free(h->groups);
	free(h->auxtrace);
	for (uint32_t i = 0; h->hybrid && i < h->nr_hybrid; i++) {
		free(h->hybrid[i].pmu_name);
		free(h->hybrid[i].cpus);
	}
	free(h->hybrid);
	memset(h, 0, sizeof(*h));
}

int pk_pd_build_ids(pk_pd_reader *r, int (*fn)(void *arg, const pk_pd_rec_build_id *b),
		    void *arg, pk_error *err)
{
	const uint8_t *data;
	size_t len;
	int rc = pk_pd_feature_raw(r, PK_FEAT_BUILD_ID, &data, &len, err);
	if (rc < 0)
		return rc;
	for (size_t off = 0; off + 8 <= len;) {
		pk_pd_rec_build_id b;
		int n = pk_pd_build_id_parse(data + off, len - off, r->swap, &b);
		if (n < 0)
			return pki_pd_err_off(r, err, -EINVAL, r->feats[PK_FEAT_BUILD_ID].offset + off,
					  "damaged BUILD_ID entry");
		rc = fn(arg, &b);
		if (rc)
			return rc;
		off += (size_t)n;
	}
	return 0;
}

const char *pk_pd_clockid_name(uint32_t clockid)
{
	static const struct {
		uint32_t id;
		const char *name;
	} clocks[] = {{CLOCK_MONOTONIC, "monotonic"}, {CLOCK_MONOTONIC_RAW, "monotonic_raw"},
		      {CLOCK_REALTIME, "realtime"}, {CLOCK_BOOTTIME, "boottime"},
		      {CLOCK_TAI, "tai"}};
	for (size_t i = 0; i < sizeof(clocks) / sizeof(clocks[0]); i++)
		if (clocks[i].id == clockid)
			return clocks[i].name;
	return NULL;
}

int pk_pd_dir_format(pk_pd_reader *r, uint64_t *version)
{
	const uint8_t *p;
	size_t len;
	if (pk_pd_feature_raw(r, PK_FEAT_DIR_FORMAT, &p, &len, NULL) < 0 || len < 8)
		return -ENODATA;
	memcpy(version, p, 8);
	if (pk_pd_needs_swap(r))
		*version = __builtin_bswap64(*version);
	return 0;
}
