/* Recording: ring buffers on top of the counting layer's open step, drained
 * into a perf.data writer.
 *
 * Invariants: there is one ring per CPU of the union of the evsels' CPU maps
 * (a hybrid machine's cpu_core and cpu_atom events have disjoint maps), or
 * one per thread for per-thread events; the first fd of a CPU owns the
 * mapping and the others are redirected into it. Every fd is polled (a HUP
 * says its task is gone). Each drain pass ends with FINISHED_ROUND and a
 * writer flush, so what the recorder has taken out of the rings is in the
 * output when the pass returns. */
#include <pmukit/record.h>

#include "perfdata/pd_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

typedef struct ring {
	int fd;
	void *base;
	size_t len;                  /* user page + data */
	uint8_t *data;
	uint64_t size;               /* data area size (power of 2) */
	void *aux;                   /* the AUX area (opts.aux_pages), NULL: none */
	size_t aux_len;
	int cpu;                     /* -1 in per-thread mode */
	pid_t tid;                   /* -1 in per-CPU mode */
} ring;

struct pk_recorder {
	const pk_kernel *k;
	pk_counting *counting;
	pk_evlist *evlist;
	ring *rings;
	size_t nr_rings;
	struct pollfd *pfds;
	size_t nr_pfds;
	uint64_t **ids;              /* per evsel */
	size_t *nr_ids;
	size_t nr_evsels;
	pk_record_stats stats;
	uint8_t *tmp;                /* a record that wraps around the buffer end */
	uint64_t first_time, last_time;
	size_t page;
	pk_cpumap *cpus;             /* the rings' CPUs: every evsel's together */
	uint32_t watermark;          /* wakeup_watermark set on every attr we open */
	size_t aux_pages;
	uint8_t *aux_copy;           /* AUX data that wraps, made contiguous */
	uint64_t aux_ref;            /* AUXTRACE reference: a sequence number */
};

/* The largest record the kernel writes: header.size is 16 bits. */
#define PK_RECORD_MAX_SIZE 65536

static size_t page_size(const pk_kernel *k)
{
	int64_t p = pk_host_number(k, PK_HOST_PAGE_SIZE, 4096);
	return p > 0 ? (size_t)p : 4096;
}

/* Ring buffers beyond kernel.perf_event_mlock_kb (per user) need
 * CAP_IPC_LOCK: say what the limit is. */
static void mlock_hint(const pk_kernel *k, pk_error *err)
{
	int64_t kb = pk_host_number(k, PK_HOST_MLOCK_KB, -1);
	if (kb >= 0)
		pk_err_hint(err, "lower the buffer size with -m, or raise kernel.perf_event_mlock_kb "
				 "(now %lld KiB)", (long long)kb);
	else
		pk_err_hint(err, "lower the buffer size with -m, or raise kernel.perf_event_mlock_kb");
}

void pk_recorder_close(pk_recorder *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->nr_rings; i++) {
		if (r->rings[i].aux)
			r->k->ops->munmap(r->k, r->rings[i].aux, r->rings[i].aux_len);
		if (r->rings[i].base)
			r->k->ops->munmap(r->k, r->rings[i].base, r->rings[i].len);
	}
	free(r->aux_copy);
	free(r->rings);
	free(r->pfds);
	for (size_t i = 0; i < r->nr_evsels; i++)
		free(r->ids ? r->ids[i] : NULL);
	free(r->ids);
	free(r->nr_ids);
	pk_counting_free(r->counting);
	pk_cpumap_put(r->cpus);
	free(r->tmp);
	free(r);
}

/* The CPUs of every evsel together: on a hybrid machine cpu_core and
 * cpu_atom events have disjoint maps, and each CPU needs its ring. */
static pk_cpumap *ring_cpus(pk_counting *c, size_t nev)
{
	size_t n = 0;
	for (size_t e = 0; e < nev; e++)
		n += (size_t)pk_cpumap_nr(pk_counting_cpus(c, e));
	int *all = malloc((n ? n : 1) * sizeof(int));
	if (!all)
		return NULL;
	n = 0;
	for (size_t e = 0; e < nev; e++) {
		pk_cpumap *m = pk_counting_cpus(c, e);
		for (int i = 0; i < pk_cpumap_nr(m); i++)
			all[n++] = pk_cpumap_cpu(m, i);
	}
	pk_cpumap *u = pk_cpumap_from_array(all, (int)n);
	free(all);
	return u;
}

/* mmap through the seam, with an error naming what and the mlock limit. */
static int map_area(pk_recorder *r, int fd, size_t len, uint64_t off, size_t evsel,
		    const char *what, void **addr, pk_error *err)
{
	int rc = r->k->ops->mmap(r->k, fd, len, PROT_READ | PROT_WRITE, off, addr);
	if (rc < 0) {
		const char *name = pk_evsel_name(pk_evlist_at(r->evlist, evsel));
		pk_err(err, rc, "cannot map the %s of '%s' (%zu KiB): %s", what,
		       name ? name : "event", len >> 10, strerror(-rc));
		if (rc == -EPERM || rc == -ENOMEM)
			mlock_hint(r->k, err);
	}
	return rc;
}

/* The AUX area beside a ring: its place and size go into the user page
 * (aux_offset past the ring, aux_size), then mmap at that offset. */
static int map_aux(pk_recorder *r, ring *rg, size_t evsel, pk_error *err)
{
	struct perf_event_mmap_page *pg = rg->base;
	size_t len = r->aux_pages * r->page;
	void *aux;
	pg->aux_offset = rg->len;
	pg->aux_size = len;
	int rc = map_area(r, rg->fd, len, pg->aux_offset, evsel, "AUX area", &aux, err);
	if (rc < 0)
		return rc;
	rg->aux = aux;
	rg->aux_len = len;
	return 0;
}

/* Maps the ring of the first fd on a CPU (or thread); the others follow it
 * with SET_OUTPUT. Every fd is polled: a HUP says its task is gone. */
static int attach_fd(pk_recorder *r, ring *rg, int fd, size_t evsel, size_t pages, pk_error *err)
{
	int rc;
	if (rg->fd < 0) {
		size_t len = (pages + 1) * r->page;
		void *base;
		if ((rc = map_area(r, fd, len, 0, evsel, "ring buffer", &base, err)) < 0)
			return rc;
		rg->fd = fd;
		rg->base = base;
		rg->len = len;
		struct perf_event_mmap_page *pg = base;
		uint64_t doff = pg->data_offset ? pg->data_offset : r->page;
		rg->size = pg->data_size ? pg->data_size : pages * r->page;
		rg->data = (uint8_t *)base + doff;
		r->pfds[r->nr_pfds].events = POLLIN;
		if (evsel == 0 && r->aux_pages && (rc = map_aux(r, rg, evsel, err)) < 0)
			return rc;
	} else {
		rc = r->k->ops->ioctl(r->k, fd, PERF_EVENT_IOC_SET_OUTPUT, (unsigned long)rg->fd);
		if (rc < 0)
			return pk_err(err, rc, "cannot redirect an event into its CPU's buffer: %s",
				      strerror(-rc));
		r->pfds[r->nr_pfds].events = 0;
	}
	r->pfds[r->nr_pfds++].fd = fd;
	return 0;
}

/* Ids of every fd, and one ring per CPU of the union of the evsels' maps
 * (per thread for per-thread events). */
static int map_rings(pk_recorder *r, size_t pages, pk_error *err)
{
	size_t nev = r->nr_evsels;
	int nthr = pk_threadmap_nr(pk_counting_threads(r->counting));
	r->cpus = ring_cpus(r->counting, nev);
	if (!r->cpus)
		return pk_err(err, -ENOMEM, "out of memory");
	int ncpu = pk_cpumap_nr(r->cpus);
	bool per_thread = ncpu == 1 && pk_cpumap_cpu(r->cpus, 0) < 0;
	size_t nrings = per_thread ? (size_t)nthr : (size_t)ncpu;
	r->rings = calloc(nrings ? nrings : 1, sizeof(ring));
	r->pfds = calloc((nev * (size_t)ncpu * (size_t)nthr) + 1, sizeof(struct pollfd));
	if (!r->rings || !r->pfds)
		return pk_err(err, -ENOMEM, "out of memory");
	r->nr_rings = nrings;
	for (size_t i = 0; i < nrings; i++)
		r->rings[i].fd = -1;
	for (size_t e = 0; e < nev; e++) {
		pk_cpumap *cpus = pk_counting_cpus(r->counting, e);
		int nc = pk_cpumap_nr(cpus);
		r->ids[e] = calloc((size_t)nc * (size_t)nthr + 1, sizeof(uint64_t));
		if (!r->ids[e])
			return pk_err(err, -ENOMEM, "out of memory");
		for (int ci = 0; ci < nc; ci++) {
			int ring_cpu = per_thread ? 0 : pk_cpumap_idx(r->cpus, pk_cpumap_cpu(cpus, ci));
			for (int ti = 0; ti < nthr; ti++) {
				int fd = pk_counting_fd(r->counting, e, ci, ti);
				if (fd < 0)
					continue;
				r->ids[e][r->nr_ids[e]++] = pk_counting_id(r->counting, e, ci, ti);
				ring *rg = &r->rings[per_thread ? ti : ring_cpu];
				rg->cpu = per_thread ? -1 : pk_cpumap_cpu(r->cpus, ring_cpu);
				rg->tid = per_thread ? pk_threadmap_tid(pk_counting_threads(r->counting), ti)
						     : -1;
				int rc = attach_fd(r, rg, fd, e, pages, err);
				if (rc < 0)
					return rc;
			}
		}
	}
	return 0;
}

/* What the rings need of every attr opened (and written to perf.data). */
static void ring_attr(const pk_recorder *r, struct perf_event_attr *a)
{
	if (r->watermark && !a->watermark && !a->wakeup_events) {
		a->watermark = 1;
		a->wakeup_watermark = r->watermark;
	}
}

static int ring_attr_tweak(void *arg, const pk_evsel *e, int cpu, pid_t tid,
			   struct perf_event_attr *a)
{
	(void)e, (void)cpu, (void)tid;
	ring_attr(arg, a);
	return 0;
}

int pk_recorder_open(pk_evlist *evlist, const pk_record_opts *o, pk_recorder **out,
		     pk_error *err)
{
	*out = NULL;
	pk_recorder *r = calloc(1, sizeof(*r));
	if (!r)
		return pk_err(err, -ENOMEM, "out of memory");
	r->k = o->kernel ? o->kernel : pk_kernel_linux();
	r->evlist = evlist;
	r->page = page_size(r->k);
	size_t pages = o->mmap_pages ? o->mmap_pages : 128;
	if ((pages & (pages - 1)) || (o->aux_pages & (o->aux_pages - 1)) || o->aux_pages == 1) {
		pk_recorder_close(r);
		return pk_err(err, -EINVAL, "mmap pages must be a power of 2 (AUX: at least 2)");
	}
	r->aux_pages = o->aux_pages;
	if (r->aux_pages && !(r->aux_copy = malloc(r->aux_pages * r->page))) {
		pk_recorder_close(r);
		return pk_err(err, -ENOMEM, "out of memory");
	}
	/* a watermark asked for; else the kernel wakes us when half of the
	 * buffer is full (no watermark bit: the attrs perf 6.1 writes) */
	r->watermark = o->wakeup_watermark;
	pk_counting_opts co;
	pk_counting_opts_init(&co);
	co.kernel = r->k;
	co.cpus = o->cpus;
	co.threads = o->threads;
	co.skip_unsupported = false;
	co.exclude_kernel_fallback = true;
	co.tweak = ring_attr_tweak;
	co.tweak_arg = r;
	r->counting = pk_counting_new(evlist, &co, err);
	if (!r->counting) {
		pk_recorder_close(r);
		return err && err->code ? err->code : -ENOMEM;
	}
	int rc = pk_counting_open(r->counting, err);
	size_t nev = pk_evlist_count(evlist);
	r->nr_evsels = nev;
	r->ids = calloc(nev ? nev : 1, sizeof(*r->ids));
	r->nr_ids = calloc(nev ? nev : 1, sizeof(*r->nr_ids));
	r->tmp = malloc(PK_RECORD_MAX_SIZE);
	if (rc == 0 && (!r->ids || !r->nr_ids || !r->tmp))
		rc = pk_err(err, -ENOMEM, "out of memory");
	if (rc == 0)
		rc = map_rings(r, pages, err);
	if (rc < 0) {
		pk_recorder_close(r);
		return rc;
	}
	*out = r;
	return 0;
}

size_t pk_recorder_ids(const pk_recorder *r, size_t evsel_idx, const uint64_t **ids)
{
	if (evsel_idx >= r->nr_evsels)
		return 0;
	*ids = r->ids[evsel_idx];
	return r->nr_ids[evsel_idx];
}

/* GROUP_DESC: each group of more than one event, as perf 6.1 writes it
 * (name, "{anon_group}" when it has none; leader index; member count). */
static int add_group_desc(pk_recorder *r, pk_pd_writer *w, pk_error *err)
{
	pk_pd_buf b = {0};
	uint32_t nr = 0;
	pk_pd_buf_u32(&b, 0);
	for (size_t i = 0; i < r->nr_evsels; i++) {
		const pk_evsel *e = pk_evlist_at(r->evlist, i);
		if (!pk_evsel_is_leader(e) || pk_evsel_nr_members(e) < 2)
			continue;
		pk_pd_buf_string(&b, "{anon_group}");
		pk_pd_buf_u32(&b, (uint32_t)i);
		pk_pd_buf_u32(&b, (uint32_t)pk_evsel_nr_members(e));
		nr++;
	}
	int rc = 0;
	if (b.oom)
		rc = pk_err(err, -ENOMEM, "out of memory");
	else if (nr) {
		memcpy(b.data, &nr, sizeof(nr));
		rc = pk_pd_writer_set_feature(w, PK_FEAT_GROUP_DESC, b.data, b.len, err);
	}
	pk_pd_buf_release(&b);
	return rc;
}

int pk_recorder_add_evsels(pk_recorder *r, pk_pd_writer *w, pk_error *err)
{
	for (size_t i = 0; i < r->nr_evsels; i++) {
		/* the attr as opened, not as configured */
		union {
			struct perf_event_attr attr;
			unsigned char bytes[PK_ATTR_SIZE_CONFIG3];
		} a;
		pk_counting_attr(r->counting, i, a.bytes);
		ring_attr(r, &a.attr);
		int rc = pk_pd_writer_add_evsel(w, &a.attr,
						pk_evsel_config3(pk_evlist_at(r->evlist, i)),
						pk_counting_name(r->counting, i), r->ids[i],
						r->nr_ids[i], err);
		if (rc < 0)
			return rc;
		/* BRANCH_STACK (no payload) says samples carry branch stacks:
		 * perf report then sorts by branch */
		if ((a.attr.sample_type & PERF_SAMPLE_BRANCH_STACK) &&
		    (rc = pk_pd_writer_set_feature(w, PK_FEAT_BRANCH_STACK, "", 0, err)) < 0)
			return rc;
	}
	return add_group_desc(r, w, err);
}

int pk_recorder_enable(pk_recorder *r, pk_error *err)
{
	return pk_counting_enable(r->counting, err);
}

int pk_recorder_disable(pk_recorder *r, pk_error *err)
{
	return pk_counting_disable(r->counting, err);
}

int pk_recorder_poll(pk_recorder *r, int timeout_ms, bool *all_hup)
{
	*all_hup = false;
	int n = r->k->ops->poll(r->k, r->pfds, r->nr_pfds, timeout_ms);
	if (n < 0)
		return n;
	size_t hup = 0;
	for (size_t i = 0; i < r->nr_pfds; i++) {
		if (r->pfds[i].fd >= 0 && (r->pfds[i].revents & (POLLHUP | POLLERR)))
			r->pfds[i].fd = -1 - r->pfds[i].fd; /* gone: stop polling it */
		if (r->pfds[i].fd < 0)
			hup++;
	}
	*all_hup = r->nr_pfds && hup == r->nr_pfds;
	return n;
}

static void note_sample_time(pk_recorder *r, const uint8_t *rec, size_t size)
{
	const pk_evsel *e = pk_evlist_at(r->evlist, 0);
	if (!e || !(pk_evsel_attr(e)->sample_type & PERF_SAMPLE_TIME))
		return;
	uint64_t st = pk_evsel_attr(e)->sample_type;
	size_t off = 8 + 8 * (size_t)pki_pd_sample_field_pos(st, PERF_SAMPLE_TIME);
	if (off + 8 > size)
		return;
	uint64_t t = pd_ld64(rec + off);
	if (!r->first_time || t < r->first_time)
		r->first_time = t;
	if (t > r->last_time)
		r->last_time = t;
}

static void note_aux_flags(pk_recorder *r, uint64_t flags)
{
	r->stats.nr_aux++;
	r->stats.nr_aux_truncated += (flags & PERF_AUX_FLAG_TRUNCATED) != 0;
	r->stats.nr_aux_partial += (flags & PERF_AUX_FLAG_PARTIAL) != 0;
	r->stats.nr_aux_collision += (flags & PERF_AUX_FLAG_COLLISION) != 0;
}

/* What the kernel wrote into a ring's AUX area since the last pass, as one
 * AUXTRACE record (offset: the position in the AUX stream; reference: a
 * sequence number, so the same run gives the same bytes; idx: the ring;
 * tid and cpu: the ring's, -1 where it has none), then aux_tail moved past
 * it. Returns the records written (0 or 1) or a negative errno. */
static int drain_aux(pk_recorder *r, ring *rg, size_t idx, pk_pd_writer *w, pk_error *err)
{
	struct perf_event_mmap_page *pg = rg->base;
	uint64_t head = __atomic_load_n(&pg->aux_head, __ATOMIC_ACQUIRE);
	uint64_t tail = pg->aux_tail;
	uint64_t n = head - tail, mask = rg->aux_len - 1;
	if (head <= tail)
		return 0;
	if (n > rg->aux_len) /* cannot happen with a sane kernel: keep the newest */
		tail = head - (n = rg->aux_len);
	const uint8_t *src = (const uint8_t *)rg->aux + (tail & mask);
	size_t first = (size_t)(rg->aux_len - (tail & mask));
	if (first < n) {
		memcpy(r->aux_copy, src, first);
		memcpy(r->aux_copy + first, rg->aux, (size_t)n - first);
		src = r->aux_copy;
	}
	uint8_t rec[48] = {0};
	pd_st32(rec, PK_RECORD_AUXTRACE);
	pd_st16(rec + 6, sizeof(rec));
	pd_st64(rec + 16, tail);
	pd_st64(rec + 24, ++r->aux_ref);
	pd_st32(rec + 32, (uint32_t)idx);
	pd_st32(rec + 36, (uint32_t)rg->tid);
	pd_st32(rec + 40, (uint32_t)rg->cpu);
	int rc = pk_pd_writer_write_auxtrace(w, rec, sizeof(rec), src, (size_t)n, err);
	if (rc < 0)
		return rc;
	r->stats.nr_auxtrace++;
	r->stats.aux_bytes += n;
	__atomic_store_n(&pg->aux_tail, head, __ATOMIC_RELEASE);
	return 1;
}

int pk_recorder_drain(pk_recorder *r, pk_pd_writer *w, pk_error *err)
{
	int total = 0;
	for (size_t i = 0; i < r->nr_rings; i++) {
		ring *rg = &r->rings[i];
		if (!rg->base)
			continue;
		struct perf_event_mmap_page *pg = rg->base;
		uint64_t head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);
		uint64_t tail = pg->data_tail;
		uint64_t mask = rg->size - 1;
		int rc = 0;
		while (tail < head && head - tail >= 8) {
			const uint8_t *p = rg->data + (tail & mask);
			uint8_t hdr[8];
			size_t first = (size_t)(rg->size - (tail & mask));
			if (first >= 8) {
				memcpy(hdr, p, 8);
			} else {
				memcpy(hdr, p, first);
				memcpy(hdr + first, rg->data, 8 - first);
			}
			size_t size = pd_ld16(hdr + 6);
			if (size < 8 || size > head - tail)
				break; /* not whole yet (cannot happen with a sane kernel) */
			if (first < size) {
				memcpy(r->tmp, p, first);
				memcpy(r->tmp + first, rg->data, size - first);
				p = r->tmp;
			}
			uint32_t type = pd_ld32(p);
			if (type == PERF_RECORD_SAMPLE) {
				r->stats.nr_samples++;
				note_sample_time(r, p, size);
			} else if (type == PERF_RECORD_LOST && size >= 24) {
				r->stats.nr_lost_records++;
				r->stats.nr_lost += pd_ld64(p + 16);
			} else if (type == PERF_RECORD_AUX && size >= 32) {
				note_aux_flags(r, pd_ld64(p + 24));
			}
			rc = pk_pd_writer_write(w, p, size, err);
			if (rc < 0)
				break;
			r->stats.nr_records++;
			r->stats.bytes += size;
			tail += size;
			total++;
		}
		__atomic_store_n(&pg->data_tail, tail, __ATOMIC_RELEASE);
		if (rc == 0 && rg->aux)
			rc = drain_aux(r, rg, i, w, err);
		if (rc < 0)
			return rc;
		total += rc;
	}
	if (total) {
		uint8_t fr[8] = {0};
		pd_st32(fr, PK_RECORD_FINISHED_ROUND);
		pd_st16(fr + 6, 8);
		int rc = pk_pd_writer_write(w, fr, sizeof(fr), err);
		if (rc < 0)
			return rc;
		r->stats.nr_rounds++;
	}
	/* through to the output after each pass: a kill loses one pass at most */
	int rc = pk_pd_writer_flush(w, err);
	return rc < 0 ? rc : total;
}

bool pk_recorder_time_conv(const pk_recorder *r, uint8_t rec[56])
{
	for (size_t i = 0; i < r->nr_rings; i++) {
		const struct perf_event_mmap_page *pg = r->rings[i].base;
		if (!pg)
			continue;
		memset(rec, 0, 56);
		pd_st32(rec, PK_RECORD_TIME_CONV);
		pd_st16(rec + 6, 56);
		pd_st64(rec + 8, pg->time_shift);
		pd_st64(rec + 16, pg->time_mult);
		pd_st64(rec + 24, pg->time_zero);
		pd_st64(rec + 32, pg->time_cycles);
		pd_st64(rec + 40, pg->time_mask);
		rec[48] = (uint8_t)pg->cap_user_time_zero;
		rec[49] = (uint8_t)pg->cap_user_time_short;
		return true;
	}
	return false;
}

int pk_recorder_write_lost(pk_recorder *r, pk_pd_writer *w, pk_error *err)
{
	pk_threadmap *threads = pk_counting_threads(r->counting);
	int nthr = pk_threadmap_nr(threads);
	for (size_t e = 0; e < r->nr_evsels; e++) {
		const pk_evsel *ev = pk_evlist_at(r->evlist, e);
		if (!(pk_evsel_attr(ev)->read_format & PERF_FORMAT_LOST) || (pk_evsel_attr(ev)->read_format & PERF_FORMAT_GROUP))
			continue;
		pk_cpumap *cpus = pk_counting_cpus(r->counting, e);
		for (int ci = 0; ci < pk_cpumap_nr(cpus); ci++) {
			for (int ti = 0; ti < nthr; ti++) {
				int fd = pk_counting_fd(r->counting, e, ci, ti);
				if (fd < 0)
					continue;
				uint64_t vals[8] = {0};
				ssize_t n = r->k->ops->read(r->k, fd, vals, sizeof(vals));
				if (n < 0)
					continue;
				pk_counts cnt[1];
				if (pk_counts_parse(pk_evsel_attr(ev)->read_format, vals, (size_t)n, cnt, 1) < 1 ||
				    !cnt[0].lost)
					continue;
				r->stats.nr_lost_samples += cnt[0].lost;
				uint8_t rec[16 + 64];
				memset(rec, 0, sizeof(rec));
				pd_st32(rec, PERF_RECORD_LOST_SAMPLES);
				pd_st64(rec + 8, cnt[0].lost);
				pk_pd_sample_id sid = {.id = cnt[0].id, .stream_id = cnt[0].id,
						       .cpu = (uint32_t)pk_cpumap_cpu(cpus, ci)};
				size_t t = pk_evsel_attr(ev)->sample_id_all
						   ? pki_pd_write_trailer(rec + 16, pk_evsel_attr(ev)->sample_type, &sid)
						   : 0;
				pd_st16(rec + 6, (uint16_t)(16 + t));
				int rc = pk_pd_writer_write(w, rec, 16 + t, err);
				if (rc < 0)
					return rc;
			}
		}
	}
	return 0;
}

const pk_record_stats *pk_recorder_stats(const pk_recorder *r) { return &r->stats; }
uint64_t pk_recorder_first_time(const pk_recorder *r) { return r->first_time; }
uint64_t pk_recorder_last_time(const pk_recorder *r) { return r->last_time; }
