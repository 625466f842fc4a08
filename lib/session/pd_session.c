/* pmukit CLI: the read loop shared by `pmukit script` and `pmukit report`,
 * and its closing words: what the reader warned about and what it had to
 * leave out (per kind, how many, the first file offset), so that no sample
 * is lost without a word; a file of which nothing could be decoded fails. */
#include "pd_session.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "builtin.h"
#include "pd_header.h"
#include "perfdata/pd_fast.h"

/* perf's check of whose file it reads: the owner must be the effective
 * user or root, unless forced (perf's "don't complain, do it"). Pipes and
 * files that cannot be stat'ed are left to the reader. */
static int check_owner(const char *cmd, const char *input)
{
	char path[PATH_MAX];
	struct stat st;
	if (!strcmp(input, "-") || stat(input, &st) < 0)
		return 0;
	snprintf(path, sizeof(path), "%s%s", input, S_ISDIR(st.st_mode) ? "/data" : "");
	if (S_ISDIR(st.st_mode) && stat(path, &st) < 0)
		return 0;
	if (!st.st_uid || st.st_uid == geteuid())
		return 0;
	fprintf(stderr, "pmukit %s: file %s not owned by current user or root (use -f to override)\n",
		cmd, path);
	return 1;
}

int pd_session_open(pd_session *s, const char *cmd, const char *input, bool no_order, bool force,
		    bool rounds)
{
	memset(s, 0, sizeof(*s));
	s->cmd = cmd;
	if (!input) {
		struct stat st;
		input = fstat(0, &st) == 0 && S_ISFIFO(st.st_mode) ? "-" : "perf.data";
	}
	s->input = input;
	if (!force && check_owner(cmd, input))
		return 1;
	pk_error err;
	pk_error_clear(&err);
	pk_pd_open_opts o = {.no_order = no_order, .rounds = rounds};
	if (pk_pd_reader_open(input, &o, &s->reader, &err) < 0) {
		if (err.code == -ENOENT) /* perf's hint */
			pk_err_hint(&err, "(try 'pmukit record' first)");
		pk_cli_print_error(cmd, &err);
		return 255; /* perf's status for a file it cannot open or read */
	}
	s->machine = pk_machine_new(NULL);
	if (!s->machine) {
		fprintf(stderr, "pmukit %s: out of memory\n", cmd);
		pd_session_close(s);
		return 1;
	}
	/* binaries rebuilt or deleted since the recording come from perf's
	 * build-id cache, as perf reads them */
	if (pk_machine_read_build_ids(s->machine, s->reader, &err) < 0) {
		fprintf(stderr, "pmukit %s: warning: build ids not used: %s\n", cmd, err.msg);
		pk_error_clear(&err);
	}
	pd_trace_open(&s->trace, s);
	return 0;
}

/* The slot of a counter id in the read-value table (grown as needed);
 * NULL when out of memory. */
static struct pd_read_prev *read_slot(pd_session *s, uint64_t id)
{
	if (2 * (s->read_used + 1) > s->read_cap) {
		size_t ncap = s->read_cap ? 2 * s->read_cap : 64;
		struct pd_read_prev *n = calloc(ncap, sizeof(*n));
		if (!n)
			return NULL;
		for (size_t i = 0; i < s->read_cap; i++) {
			if (!s->read_prev[i].used)
				continue;
			size_t h = (s->read_prev[i].id * 0x9e3779b97f4a7c15ULL) & (ncap - 1);
			while (n[h].used)
				h = (h + 1) & (ncap - 1);
			n[h] = s->read_prev[i];
		}
		free(s->read_prev);
		s->read_prev = n;
		s->read_cap = ncap;
	}
	size_t h = (id * 0x9e3779b97f4a7c15ULL) & (s->read_cap - 1);
	while (s->read_prev[h].used && s->read_prev[h].id != id)
		h = (h + 1) & (s->read_cap - 1);
	if (!s->read_prev[h].used) {
		s->read_prev[h].used = true;
		s->read_prev[h].id = id;
		s->read_used++;
	}
	return &s->read_prev[h];
}

/* A sample with PERF_SAMPLE_READ: one sample per value read, to the value's
 * event, whose period is how much the counter grew since its last sample
 * (perf report and script do the same); a counter that did not grow gives
 * no sample, as in perf. */
static int deliver_read(pd_session *s, const pk_pd_event *ev, const pk_pd_sample *smp,
			pd_sample_fn fn, void *arg)
{
	uint64_t rf = ev->evsel->attr.read_format;
	size_t per = 1 + !!(rf & PERF_FORMAT_ID) + !!(rf & PERF_FORMAT_LOST);
	size_t head = !!(rf & PERF_FORMAT_TOTAL_TIME_ENABLED) + !!(rf & PERF_FORMAT_TOTAL_TIME_RUNNING);
	size_t nr = 1, at = head;
	if (rf & PERF_FORMAT_GROUP) {
		nr = smp->read[0];
		at = 1 + head;
	} else {
		at = 0; /* value, then the times, then id */
	}
	for (size_t i = 0; i < nr; i++) {
		size_t vi = (rf & PERF_FORMAT_GROUP) ? at + i * per : 0;
		size_t ii = (rf & PERF_FORMAT_GROUP) ? vi + 1 : 1 + head;
		if (ii >= smp->read_nr + !(rf & PERF_FORMAT_ID) || vi >= smp->read_nr)
			break;
		uint64_t id = (rf & PERF_FORMAT_ID) ? smp->read[ii] : smp->id;
		pk_pd_event e = *ev;
		e.evsel = (rf & PERF_FORMAT_ID) ? pk_pd_evsel_by_id(s->reader, id) : ev->evsel;
		if (!e.evsel)
			continue;
		struct pd_read_prev *p = read_slot(s, id);
		if (!p)
			return 1;
		pk_pd_sample one = *smp;
		one.period = smp->read[vi] - p->value;
		one.id = id;
		p->value = smp->read[vi];
		if (!one.period)
			continue;
		int r = fn(arg, s, &e, &one);
		if (r)
			return r;
	}
	return 0;
}

int pd_session_machine(pd_session *s, const pk_machine_opts *o)
{
	pk_machine *m = pk_machine_new(o);
	if (!m) {
		fprintf(stderr, "pmukit %s: out of memory\n", s->cmd);
		return 1;
	}
	pk_machine_free(s->machine);
	s->machine = m;
	pk_error err;
	pk_error_clear(&err);
	if (pk_machine_read_build_ids(s->machine, s->reader, &err) < 0)
		fprintf(stderr, "pmukit %s: warning: build ids not used: %s\n", s->cmd, err.msg);
	return 0;
}

/* The callback's nonzero result, or a failure of the SPE path (-ENOMEM). */
static int spe_failed(const pd_session *s, int r)
{
	if (r > 0)
		return r;
	fprintf(stderr, "pmukit %s: out of memory\n", s->cmd);
	return 1;
}

/* A record's time: a sample's own (the internal path leaves ev->id unread
 * for samples), else its sample_id's. */
static bool record_time(const pk_pd_event *ev, const pk_pd_sample *smp, uint64_t *t)
{
	if (ev->type == PERF_RECORD_SAMPLE && (smp->type & PERF_SAMPLE_TIME)) {
		*t = smp->time;
		return true;
	}
	*t = ev->id.time;
	return ev->type != PERF_RECORD_SAMPLE && ev->has_time;
}

#define UW_BOTH (PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER | PERF_SAMPLE_CALLCHAIN)

/* The file's ARCH feature, read once (NULL: the unwinder takes the host's). */
static const char *file_arch(pd_session *s)
{
	if (s->uw_arch_read)
		return s->uw_arch;
	s->uw_arch_read = true;
	pk_pd_header h;
	pk_error err;
	pk_error_clear(&err);
	if (pk_pd_header_read(s->reader, &h, &err) == 0) {
		s->uw_arch = h.arch ? strdup(h.arch) : NULL;
		pk_pd_header_release(&h);
	}
	return s->uw_arch;
}

/* Room for n chain entries; false when out of memory. */
static bool uw_reserve(pd_session *s, size_t n)
{
	if (n <= s->uw_cap)
		return true;
	size_t cap = n < 2 * s->uw_cap ? 2 * s->uw_cap : n;
	uint64_t *c = realloc(s->uw_chain, cap * sizeof(*c));
	if (c)
		s->uw_chain = c;
	const char **in = c ? realloc(s->uw_inl, cap * sizeof(*in)) : NULL;
	if (in)
		s->uw_inl = in;
	if (!c || !in)
		return false;
	s->uw_cap = cap;
	return true;
}

/* "name (inlined)", kept once for the session; NULL when out of memory. */
static const char *uw_intern(pd_session *s, const char *name)
{
	char text[512];
	snprintf(text, sizeof(text), "%s (inlined)", name);
	return pki_strmap_intern(&s->uw_names, text);
}

/* Entry n of the chain: ip, shown as the inlined function name (NULL: as
 * usual). false when out of memory. */
static bool uw_put(pd_session *s, size_t n, uint64_t ip, const char *name)
{
	if (!uw_reserve(s, n + 1))
		return false;
	s->uw_chain[n] = ip;
	s->uw_inl[n] = name ? uw_intern(s, name) : NULL;
	return !name || s->uw_inl[n];
}

/* The frames of a user address as perf 6.1 appends an unwound one: each
 * function the debug info has there (inlined ones first); one named as
 * the address's symbol is shown as usual. Returns the next entry, 0 when
 * out of memory. */
static size_t uw_frame(pd_session *s, size_t n, uint32_t pid, uint64_t ip)
{
	const pk_addr_loc *loc = pk_machine_lookup(s->machine, pid, PERF_RECORD_MISC_USER, ip);
	char base[512];
	bool has_sym = loc->sym != NULL;
	snprintf(base, sizeof(base), "%s", has_sym ? loc->sym : "");
	const char *names[16];
	int k = pk_machine_inlines(s->machine, pid, ip, names, 16);
	if (k <= 0)
		return uw_put(s, n, ip, NULL) ? n + 1 : 0;
	for (int j = 0; j < k; j++) {
		bool same = has_sym && !strcmp(names[j], base);
		if (!uw_put(s, n++, ip, same ? NULL : names[j]))
			return 0;
	}
	return n;
}

/* A --call-graph dwarf sample's chain as perf 6.1 builds it: the kernel's
 * part of the recorded chain (its user part cut: the unwinder gives it),
 * a PERF_CONTEXT_USER marker and the unwound user frames with their
 * inlined functions. A sample that cannot be unwound keeps what it has;
 * 0, or -ENOMEM. */
static int unwind_sample(pd_session *s, const pk_pd_event *ev, pk_pd_sample *smp)
{
	const uint64_t ctx_user = (uint64_t)-512; /* PERF_CONTEXT_USER */
	uint64_t ips[PK_MAX_STACK];
	size_t k = 0;
	while (k < smp->callchain_nr && smp->callchain[k] != ctx_user)
		k++;
	pk_error err;
	pk_error_clear(&err);
	int nr = pk_machine_unwind(s->machine, smp, ev->evsel->attr.sample_regs_user, file_arch(s),
				   ips, PK_MAX_STACK, &err);
	if (nr <= 0) {
		if (nr < 0 && !s->uw_failed++)
			s->uw_err = err;
		return 0;
	}
	size_t n = 0;
	for (size_t i = 0; i < k; i++)
		if (!uw_put(s, n++, smp->callchain[i], NULL))
			return -ENOMEM;
	if (!uw_put(s, n++, ctx_user, NULL))
		return -ENOMEM;
	for (int i = 0; i < nr; i++)
		if (!(n = uw_frame(s, n, smp->pid, ips[i])))
			return -ENOMEM;
	smp->callchain = s->uw_chain;
	smp->callchain_nr = n;
	return 0;
}

/* A --call-graph lbr sample's chain as perf 6.1 builds it (branch stack
 * sampled with PERF_SAMPLE_BRANCH_CALL_STACK): the kernel's part of the
 * recorded chain, a PERF_CONTEXT_USER marker, then the user frames from the
 * LBR call stack: the newest call's target (the entry of the function the
 * sample is in; not the sample's IP), then each call's site, newest first.
 * The recorded user part is not used. A chain without a user part, or a
 * stack without entries (perf 6.1 reads the bytes after the record there:
 * docs/perfdata-differences.md), is kept as recorded. 0, or -ENOMEM. */
static int lbr_sample(pd_session *s, pk_pd_sample *smp)
{
	const uint64_t ctx_user = (uint64_t)-512; /* PERF_CONTEXT_USER */
	size_t k = 0;
	while (k < smp->callchain_nr && smp->callchain[k] != ctx_user)
		k++;
	if (k == smp->callchain_nr || !smp->branch_nr)
		return 0;
	size_t n = 0;
	for (size_t i = 0; i <= k; i++)
		if (!uw_put(s, n++, smp->callchain[i], NULL))
			return -ENOMEM;
	if (!uw_put(s, n++, smp->branch[0].to, NULL))
		return -ENOMEM;
	for (uint64_t i = 0; i < smp->branch_nr; i++)
		if (!uw_put(s, n++, smp->branch[i].from, NULL))
			return -ENOMEM;
	smp->callchain = s->uw_chain;
	smp->callchain_nr = n;
	return 0;
}

/* The chain script and report show: unwound (dwarf) or stitched from the
 * LBR call stack (lbr); 0, or -ENOMEM. */
static int sample_chain(pd_session *s, const pk_pd_event *ev, pk_pd_sample *smp)
{
	if ((smp->type & UW_BOTH) == UW_BOTH)
		return unwind_sample(s, ev, smp);
	if ((smp->type & (PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_BRANCH_STACK)) ==
		    (PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_BRANCH_STACK) &&
	    (ev->evsel->attr.branch_sample_type & PERF_SAMPLE_BRANCH_CALL_STACK))
		return lbr_sample(s, smp);
	return 0;
}

int pd_session_run(pd_session *s, pd_sample_fn fn, void *arg)
{
	pk_error err;
	pk_error_clear(&err);
	pk_pd_event ev;
	pk_pd_sample sample;
	int rc;
	s->ran = true;
	/* the internal path: each sample parsed once, those that do not parse
	 * counted by the reader and reported by pd_session_finish */
	while ((rc = pki_pd_next_parsed(s->reader, &ev, &sample, &err)) > 0) {
		uint64_t t;
		if (s->spe.have_info && record_time(&ev, &sample, &t)) {
			/* the Arm SPE samples older than this record come first */
			int r = pd_spe_before(&s->spe, s, &ev, t, fn, arg);
			if (r)
				return spe_failed(s, r);
		}
		if (ev.type != PERF_RECORD_SAMPLE) {
			if ((ev.type == PK_RECORD_AUXTRACE || ev.type == PK_RECORD_AUXTRACE_INFO) &&
			    pd_spe_event(&s->spe, s, &ev) < 0) {
				fprintf(stderr, "pmukit %s: out of memory\n", s->cmd);
				return 1;
			}
			if (ev.type == PK_RECORD_HEADER_TRACING_DATA)
				pd_trace_record(&s->trace, s, &ev);
			if (s->pipe_features && ev.type == PK_RECORD_HEADER_FEATURE) {
				pd_header_feature(s->reader, &ev, s->pipe_features);
				fflush(s->pipe_features);
			}
			if (s->on_event)
				s->on_event(s->event_arg, s, &ev, true);
			if (pk_machine_event(s->machine, &ev) < 0) {
				fprintf(stderr, "pmukit %s: out of memory\n", s->cmd);
				return 1;
			}
			if (s->on_event)
				s->on_event(s->event_arg, s, &ev, false);
			continue;
		}
		s->nr_samples++;
		if (s->spe.dump) { /* -D: each sample as it is in the file */
			int r = fn(arg, s, &ev, &sample);
			if (r)
				return r;
			continue;
		}
		if (sample_chain(s, &ev, &sample) < 0) {
			fprintf(stderr, "pmukit %s: out of memory\n", s->cmd);
			return 1;
		}
		int r = (sample.type & PERF_SAMPLE_READ) && sample.read_nr
				? deliver_read(s, &ev, &sample, fn, arg)
				: fn(arg, s, &ev, &sample);
		if (r)
			return r;
	}
	if (rc < 0) {
		pk_cli_print_error(s->cmd, &err);
		return 1;
	}
	rc = s->spe.have_info ? pd_spe_before(&s->spe, s, NULL, UINT64_MAX, fn, arg) : 0;
	return rc ? spe_failed(s, rc) : 0;
}

size_t pd_session_nr_evsels(const pd_session *s)
{
	return pk_pd_nr_evsels(s->reader) + s->spe.nr_synth;
}

const pk_pd_evsel *pd_session_evsel_at(const pd_session *s, size_t idx)
{
	size_t n = pk_pd_nr_evsels(s->reader);
	return idx < n ? pk_pd_evsel_at(s->reader, idx)
	       : idx - n < s->spe.nr_synth ? &s->spe.synth[idx - n] : NULL;
}

/* One line about one kind of dropped record. */
static void print_drop(const pd_session *s, int kind, const pk_pd_drop *d)
{
	fprintf(stderr, "pmukit %s: warning: %" PRIu64 " %s skipped", s->cmd, d->count,
		pk_pd_drop_name(kind));
	switch (kind) {
	case PK_PD_DROP_BAD_SAMPLE:
		fprintf(stderr, " (field %s runs past the record end: is the event's sample_type "
				"damaged?)", d->first_detail ? d->first_detail : "?");
		break;
	case PK_PD_DROP_UNKNOWN_ID:
		fprintf(stderr, " (their id matches no event of the file)");
		break;
	case PK_PD_DROP_NO_EVENT:
		fprintf(stderr, " (the file has no event attributes to decode them)");
		break;
	case PK_PD_DROP_UNKNOWN_TYPE:
		fprintf(stderr, " (first of type %" PRIu32 ")", d->first_type);
		break;
	}
	fprintf(stderr, "; first at file offset %" PRIu64 " (0x%" PRIx64 ")\n", d->first_offset,
		d->first_offset);
}

void pd_aux_flags_warn(uint64_t truncated, uint64_t partial, uint64_t collision, uint64_t nr_aux,
		       const char *lost_hint, const char *collision_hint)
{
	if (truncated)
		fprintf(stderr, "warning: AUX data lost %" PRIu64 " times out of %" PRIu64 "!%s\n",
			truncated, nr_aux, lost_hint);
	if (partial)
		fprintf(stderr, "warning: AUX data had gaps in it %" PRIu64 " times out of %" PRIu64
				"!\n", partial, nr_aux);
	if (collision)
		fprintf(stderr, "warning: AUX data detected collision %" PRIu64 " times out of %" PRIu64
				"!%s\n", collision, nr_aux, collision_hint);
}

int pd_session_finish(pd_session *s, int status)
{
	if (!s->reader)
		return status;
	status = pd_spe_finish(&s->spe, s, status);
	pk_pd_reader *r = s->reader;
	for (size_t i = 0; i < pk_pd_nr_warnings(r); i++)
		fprintf(stderr, "pmukit %s: warning: %s\n", s->cmd, pk_pd_warning(r, i));
	if (s->uw_failed)
		fprintf(stderr, "pmukit %s: warning: %" PRIu64 " --call-graph dwarf samples not "
				"unwound (their chains have the kernel's part only); the first: %s\n",
			s->cmd, s->uw_failed, s->uw_err.msg);
	const pk_pd_stats *st = pk_pd_get_stats(r);
	pd_aux_flags_warn(st->nr_aux_truncated, st->nr_aux_partial, st->nr_aux_collision,
			  st->nr_records[PERF_RECORD_AUX], "", "");
	uint64_t dropped = 0;
	for (int k = 0; k < PK_PD_DROP_MAX; k++) {
		if (!st->drops[k].count)
			continue;
		print_drop(s, k, &st->drops[k]);
		if (k != PK_PD_DROP_UNKNOWN_TYPE)
			dropped += st->drops[k].count;
	}
	if (s->ran && !status && dropped && !s->nr_samples) {
		fprintf(stderr, "pmukit %s: error: none of the %" PRIu64 " samples of %s could be decoded\n",
			s->cmd, dropped, s->input);
		return 1;
	}
	return status;
}

void pd_session_close(pd_session *s)
{
	free(s->uw_chain);
	free(s->uw_inl);
	pki_strmap_free(&s->uw_names, NULL);
	free(s->uw_arch);
	pd_spe_release(&s->spe);
	pd_trace_release(&s->trace);
	free(s->read_prev);
	s->read_prev = NULL;
	pk_machine_free(s->machine);
	pk_pd_reader_close(s->reader);
	s->machine = NULL;
	s->reader = NULL;
}

/* ---- output buffer ---- */

/* 64 KiB: small enough to stay in the L2 cache between two writes (a 1 MiB
 * buffer missed on every line written), large enough that write calls are few */
#define OUT_CAP ((size_t)1 << 16)

void pd_out_init(pd_out *o, FILE *f)
{
	o->f = f;
	o->cap = OUT_CAP;
	o->len = 0;
	o->flushes = 0;
	o->buf = malloc(o->cap);
	if (!o->buf)
		o->cap = 0;
}

void pd_out_flush(pd_out *o)
{
	if (o->len)
		fwrite(o->buf, 1, o->len, o->f);
	o->len = 0;
	o->flushes++;
}

void pd_out_free(pd_out *o)
{
	pd_out_flush(o);
	free(o->buf);
	o->buf = NULL;
	o->cap = 0;
}

void pd_out_mem_slow(pd_out *o, const char *s, size_t n)
{
	pd_out_flush(o);
	if (n > o->cap) {
		fwrite(s, 1, n, o->f);
		return;
	}
	memcpy(o->buf + o->len, s, n);
	o->len += n;
}

void pd_out_str(pd_out *o, const char *s)
{
	pd_out_mem(o, s, strlen(s));
}

void pd_out_pad(pd_out *o, int n)
{
	static const char spaces[] = "                                                                ";
	while (n > 0) {
		int k = n > 64 ? 64 : n;
		pd_out_mem(o, spaces, (size_t)k);
		n -= k;
	}
}

/* Decimal digits of v, written backwards ending at end; returns how many. */
const char pd_dec_pairs[201] = "00010203040506070809101112131415161718192021222324"
			    "25262728293031323334353637383940414243444546474849"
			    "50515253545556575859606162636465666768697071727374"
			    "75767778798081828384858687888990919293949596979899";

int pd_dec_digits(char *end, unsigned long long v)
{
	char *p = end;
	if (v <= UINT32_MAX) {
		/* 32-bit division by constants: cheaper multiplies */
		uint32_t w = (uint32_t)v;
		while (w >= 100) {
			uint32_t r = w % 100;
			w /= 100;
			p -= 2;
			memcpy(p, pd_dec_pairs + r * 2, 2);
		}
		v = w;
	}
	while (v >= 100) {
		unsigned r = (unsigned)(v % 100);
		v /= 100;
		p -= 2;
		memcpy(p, pd_dec_pairs + r * 2, 2);
	}
	if (v >= 10) {
		p -= 2;
		memcpy(p, pd_dec_pairs + v * 2, 2);
	} else {
		*--p = (char)('0' + v);
	}
	return (int)(end - p);
}

/* n <= 16 bytes from s to d as two fixed-size, possibly overlapping copies
 * (inlined moves, no libc call). */
static inline void copy_small(char *d, const char *s, size_t n)
{
	if (n >= 8) {
		memcpy(d, s, 8);
		memcpy(d + n - 8, s + n - 8, 8);
	} else if (n >= 4) {
		memcpy(d, s, 4);
		memcpy(d + n - 4, s + n - 4, 4);
	} else {
		for (size_t i = 0; i < n; i++)
			d[i] = s[i];
	}
}

/* n characters right-aligned in width (> 0) or left-aligned in -width. */
static void put_aligned(pd_out *o, const char *s, int n, int width)
{
	int left = width > n ? width - n : 0, right = -width > n ? -width - n : 0;
	size_t total = (size_t)(left + n + right);
	if (left <= 16 && right <= 16 && o->len + total + 16 <= o->cap) {
		/* the common case: padding as fixed 16-byte stores (inlined,
		 * no libc call), spaces past the end are written over later */
		char *d = o->buf + o->len;
		if (left)
			memset(d, ' ', 16);
		if (n <= 16)
			copy_small(d + left, s, (size_t)n);
		else
			memcpy(d + left, s, (size_t)n);
		if (right)
			memset(d + left + n, ' ', 16);
		o->len += total;
		return;
	}
	if (o->len + total <= o->cap) {
		char *d = o->buf + o->len;
		memset(d, ' ', (size_t)left);
		memcpy(d + left, s, (size_t)n);
		memset(d + left + n, ' ', (size_t)right);
		o->len += total;
		return;
	}
	pd_out_pad(o, left);
	pd_out_mem(o, s, (size_t)n);
	pd_out_pad(o, right);
}

void pd_out_pad_str(pd_out *o, const char *s, int width)
{
	size_t n = strlen(s);
	if (n > (size_t)INT_MAX / 2) {
		pd_out_mem(o, s, n);
		return;
	}
	put_aligned(o, s, (int)n, width);
}

void pd_out_u64(pd_out *o, uint64_t v, int width)
{
	char tmp[24];
	int n = pd_dec_digits(tmp + sizeof(tmp), v);
	put_aligned(o, tmp + sizeof(tmp) - n, n, width);
}

void pd_out_int(pd_out *o, long long v, int width)
{
	char tmp[24];
	unsigned long long u = v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;
	int n = pd_dec_digits(tmp + sizeof(tmp), u);
	if (v < 0)
		tmp[sizeof(tmp) - 1 - n++] = '-';
	put_aligned(o, tmp + sizeof(tmp) - n, n, width);
}

/* 8 hex digits of a 32-bit value, most significant first, without a
 * loop: spread the nibbles into bytes, then turn each into '0'..'f'. */
static inline uint64_t hex8(uint32_t v)
{
	uint64_t x = v;
	x = ((x & 0xffff0000ULL) << 16) | (x & 0xffffULL);
	x = ((x & 0x0000ff000000ff00ULL) << 8) | (x & 0x000000ff000000ffULL);
	x = ((x & 0x00f000f000f000f0ULL) << 4) | (x & 0x000f000f000f000fULL);
	/* 0x01 in every byte holding 10..15 */
	uint64_t letters = ((x + 0x0606060606060606ULL) >> 4) & 0x0101010101010101ULL;
	x += 0x3030303030303030ULL + letters * ('a' - '0' - 10);
	return __builtin_bswap64(x);
}

void pd_out_hex(pd_out *o, uint64_t v, int width)
{
	int n = v ? (64 - __builtin_clzll(v) + 3) / 4 : 1;
	char tmp[16];
	uint64_t hi = hex8((uint32_t)(v >> 32)), lo = hex8((uint32_t)v);
	memcpy(tmp, &hi, 8);
	memcpy(tmp + 8, &lo, 8);
	if (width == 16 && o->len + 16 <= o->cap) {
		/* the common case, straight into the buffer: the leading
		 * zeros turned into spaces by a mask, no libc call */
		uint64_t sp = 0x2020202020202020ULL;
		int z = 16 - n; /* leading zeros, 0..15 */
		uint64_t mhi = z >= 8 ? ~0ULL : z ? ~0ULL >> (64 - 8 * z) : 0;
		uint64_t mlo = z > 8 ? ~0ULL >> (64 - 8 * (z - 8)) : 0;
		/* little-endian: the first bytes are the low ones */
		hi = (hi & ~mhi) | (sp & mhi);
		lo = (lo & ~mlo) | (sp & mlo);
		char *d = o->buf + o->len;
		memcpy(d, &hi, 8);
		memcpy(d + 8, &lo, 8);
		o->len += 16;
		return;
	}
	if (width <= 0 && o->len + 16 <= o->cap) {
		copy_small(o->buf + o->len, tmp + 16 - n, (size_t)n);
		o->len += (size_t)n;
		return;
	}
	if (n < width)
		pd_out_pad(o, width - n);
	pd_out_mem(o, tmp + 16 - n, (size_t)n);
}

void pd_out_printf(pd_out *o, const char *fmt, ...)
{
	char tmp[1024];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n < sizeof(tmp)) {
		pd_out_mem(o, tmp, (size_t)n);
		return;
	}
	char *big = malloc((size_t)n + 1);
	if (!big)
		return;
	va_start(ap, fmt);
	vsnprintf(big, (size_t)n + 1, fmt, ap);
	va_end(ap);
	pd_out_mem(o, big, (size_t)n);
	free(big);
}
