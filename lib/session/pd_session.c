/* libpmukit: the perf.data session (include/pmukit/session.h), the read
 * loop of `pmukit script` and `pmukit report`, and its closing words: what
 * the reader warned about and what it had to leave out (per kind, how
 * many, the first file offset), so that no sample is lost without a word;
 * a file of which nothing could be decoded fails. Messages go to the
 * caller's callback as they arise, errors are returned (negative errno and
 * a pk_error); nothing is printed here. */
#include "pd_session.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>


void pki_session_msg(pk_session *s, pk_session_msg kind, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	if (s->msg_fn) {
		char text[1024];
		vsnprintf(text, sizeof(text), fmt, ap);
		s->msg_fn(s->msg_arg, kind, text);
	} else {
		pki_warnings_vadd(&s->warnings, fmt, ap);
	}
	va_end(ap);
}

/* perf's check of whose file it reads: the owner must be the effective
 * user or root, unless forced (perf's "don't complain, do it"). Pipes and
 * files that cannot be stat'ed are left to the reader. */
static int check_owner(const char *input, pk_error *err)
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
	return pk_err(err, -EPERM, "file %s not owned by current user or root (use -f to override)",
		      path);
}

void pk_session_opts_init(pk_session_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->size = sizeof(*o);
}

/* The machine of the options (o NULL: the defaults) with the file's build
 * ids: binaries rebuilt or deleted since the recording come from perf's
 * build-id cache, as perf reads them. */
static int new_machine(pk_session *s, const pk_machine_opts *o, pk_error *err)
{
	pk_machine *m = pk_machine_new(o);
	if (!m)
		return pk_err(err, -ENOMEM, "out of memory");
	pk_machine_free(s->machine);
	s->machine = m;
	pk_error e;
	pk_error_clear(&e);
	if (pk_machine_read_build_ids(s->machine, s->reader, &e) < 0)
		pki_session_msg(s, PK_SESSION_WARNING, "build ids not used: %s", e.msg);
	return 0;
}

int pki_session_init(pk_session *s, const char *input, const pk_session_opts *o, pk_error *err)
{
	memset(s, 0, sizeof(*s));
	if (o) {
		s->msg_fn = o->msg_fn;
		s->msg_arg = o->msg_arg;
	}
	if (!input) {
		struct stat st;
		input = fstat(0, &st) == 0 && S_ISFIFO(st.st_mode) ? "-" : "perf.data";
	}
	s->input = strdup(input);
	if (!s->input)
		return pk_err(err, -ENOMEM, "out of memory");
	int rc = o && o->force ? 0 : check_owner(input, err);
	if (rc < 0) {
		s->refused = true;
		return rc;
	}
	pk_pd_open_opts po = {.no_order = o && o->no_order, .rounds = o && o->rounds};
	rc = pk_pd_reader_open(input, &po, &s->reader, err);
	if (rc < 0) {
		if (err && err->code == -ENOENT) /* perf's hint */
			pk_err_hint(err, "(try 'pmukit record' first)");
		return rc;
	}
	rc = new_machine(s, o ? o->machine : NULL, err);
	if (rc < 0)
		return rc;
	pki_trace_open(&s->trace, s);
	return 0;
}

int pki_session_set_machine(pk_session *s, const pk_machine_opts *o, pk_error *err)
{
	return new_machine(s, o, err);
}

/* The slot of a counter id in the read-value table (grown as needed);
 * NULL when out of memory. */
static struct pd_read_prev *read_slot(pk_session *s, uint64_t id)
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
static int deliver_read(pk_session *s, const pk_pd_event *ev, const pk_pd_sample *smp,
			pk_session_sample_fn fn, void *arg)
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
			return -ENOMEM;
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

/* The callback's nonzero result, or a failure of the SPE path (-ENOMEM). */
static int spe_failed(pk_error *err, int r)
{
	return r > 0 ? r : pk_err(err, r, "out of memory");
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
static const char *file_arch(pk_session *s)
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
static bool uw_reserve(pk_session *s, size_t n)
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
static const char *uw_intern(pk_session *s, const char *name)
{
	char text[512];
	snprintf(text, sizeof(text), "%s (inlined)", name);
	return pki_strmap_intern(&s->uw_names, text);
}

/* Entry n of the chain: ip, shown as the inlined function name (NULL: as
 * usual). false when out of memory. */
static bool uw_put(pk_session *s, size_t n, uint64_t ip, const char *name)
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
static size_t uw_frame(pk_session *s, size_t n, uint32_t pid, uint64_t ip)
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
static int unwind_sample(pk_session *s, const pk_pd_event *ev, pk_pd_sample *smp)
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
static int lbr_sample(pk_session *s, pk_pd_sample *smp)
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
static int sample_chain(pk_session *s, const pk_pd_event *ev, pk_pd_sample *smp)
{
	if ((smp->type & UW_BOTH) == UW_BOTH)
		return unwind_sample(s, ev, smp);
	if ((smp->type & (PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_BRANCH_STACK)) ==
		    (PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_BRANCH_STACK) &&
	    (ev->evsel->attr.branch_sample_type & PERF_SAMPLE_BRANCH_CALL_STACK))
		return lbr_sample(s, smp);
	return 0;
}

/* A record other than a sample: the AUX decoders, tracing data, the
 * caller's hooks around the machine's own reading of it. */
static int session_record(pk_session *s, const pk_pd_event *ev)
{
	int aux = ev->type == PK_RECORD_AUXTRACE || ev->type == PK_RECORD_AUXTRACE_INFO
			  ? pki_ipt_event(&s->ipt, s, ev)
			  : 1;
	if (aux < 0 || (!aux && pki_spe_event(&s->spe, s, ev) < 0))
		return -ENOMEM;
	s->aux_samples = s->spe.have_info || s->ipt.have_info;
	if (ev->type == PK_RECORD_HEADER_TRACING_DATA)
		pki_trace_record(&s->trace, s, ev);
	if (s->on_feature && ev->type == PK_RECORD_HEADER_FEATURE)
		s->on_feature(s->feature_arg, s, ev);
	if (s->on_event)
		s->on_event(s->event_arg, s, ev, true);
	if (s->ipt.have_info)
		pki_ipt_record(&s->ipt, s, ev);
	if (pk_machine_event(s->machine, ev) < 0)
		return -ENOMEM;
	if (s->on_event)
		s->on_event(s->event_arg, s, ev, false);
	return 0;
}

/* A file sample in an Intel PT session: perf reads the code at its IP
 * (which tries the dso's file), and its report gives the sample a chain
 * (on a copy: the reader's fast path keeps `sample` as filled). */
static const pk_pd_sample *ipt_sample(pk_session *s, const pk_pd_sample *sample)
{
	pki_ipt_read_code(&s->ipt, s, sample->pid, sample->ip);
	if (!s->ipt.callchain || (sample->type & PERF_SAMPLE_CALLCHAIN))
		return sample;
	s->ipt.fsmp = *sample;
	s->ipt.fsmp.callchain = s->ipt.chain;
	s->ipt.fsmp.callchain_nr = pki_ipt_chain(&s->ipt, NULL, sample->ip);
	return &s->ipt.fsmp;
}

/* Whether --switch-on/--switch-off drop a sample of e (perf's evswitch). */
static bool switched_off(pk_session *s, const pk_pd_evsel *e)
{
	if (s->sw_on && s->sw_discarding) {
		if (e != s->sw_on)
			return true;
		s->sw_discarding = false;
		return !s->sw_show;
	}
	if (s->sw_off && !s->sw_discarding && e == s->sw_off) {
		s->sw_discarding = true;
		return !s->sw_show;
	}
	return false;
}

int pki_session_run(pk_session *s, pk_session_sample_fn fn, void *arg, pk_error *err)
{
	pk_pd_event ev;
	pk_pd_sample sample = PK_PD_SAMPLE_INIT;
	int rc;
	s->ran = true;
	/* the internal path: each sample parsed once, those that do not parse
	 * counted by the reader and reported by pki_session_finish */
	while ((rc = pk_pd_next_parsed(s->reader, &ev, &sample, err)) > 0) {
		uint64_t t;
		if (s->aux_samples && record_time(&ev, &sample, &t)) {
			/* the Arm SPE / Intel PT samples older than this record come first */
			int r = s->spe.have_info ? pki_spe_before(&s->spe, s, &ev, t, fn, arg)
						 : pki_ipt_before(&s->ipt, s, &ev, t, fn, arg);
			if (r)
				return spe_failed(err, r);
		}
		if (ev.type != PERF_RECORD_SAMPLE) {
			if (session_record(s, &ev) < 0)
				return pk_err(err, -ENOMEM, "out of memory");
			continue;
		}
		if ((s->sw_on || s->sw_off) && switched_off(s, ev.evsel))
			continue;
		s->nr_samples++;
		pk_session_sample_fn to = fn;
		void *to_arg = arg;
		if (s->spe.dump) { /* -D: each sample as it is in the file */
			int r = fn(arg, s, &ev, &sample);
			if (r)
				return r;
			if (!s->after_dump)
				continue;
			to = s->after_dump, to_arg = s->after_dump_arg;
		}
		if (sample_chain(s, &ev, &sample) < 0)
			return pk_err(err, -ENOMEM, "out of memory");
		const pk_pd_sample *smp = s->aux_samples && s->ipt.have_info
						  ? ipt_sample(s, &sample)
						  : &sample;
		int r = (sample.type & PERF_SAMPLE_READ) && sample.read_nr
				? deliver_read(s, &ev, &sample, to, to_arg)
				: to(to_arg, s, &ev, smp);
		if (r)
			return r == -ENOMEM ? pk_err(err, r, "out of memory") : r;
	}
	if (rc < 0)
		return rc;
	rc = s->spe.have_info  ? pki_spe_before(&s->spe, s, NULL, UINT64_MAX, fn, arg)
	     : s->ipt.have_info ? pki_ipt_before(&s->ipt, s, NULL, UINT64_MAX, fn, arg)
				: 0;
	return rc ? spe_failed(err, rc) : 0;
}

size_t pk_session_nr_evsels(const pk_session *s)
{
	return pk_pd_nr_evsels(s->reader) + s->spe.nr_synth + s->ipt.nr_synth;
}

const pk_pd_evsel *pk_session_evsel_at(const pk_session *s, size_t idx)
{
	size_t n = pk_pd_nr_evsels(s->reader);
	return idx < n ? pk_pd_evsel_at(s->reader, idx)
	       : idx - n < s->spe.nr_synth ? &s->spe.synth[idx - n]
	       : idx - n - s->spe.nr_synth < s->ipt.nr_synth
		       ? &s->ipt.synth[idx - n - s->spe.nr_synth]
		       : NULL;
}

bool pk_session_samples_with(const pk_session *s, uint64_t sample_type)
{
	for (size_t i = 0; i < pk_pd_nr_evsels(s->reader); i++)
		if ((pk_pd_evsel_at(s->reader, i)->attr.sample_type & sample_type) == sample_type)
			return true;
	return false;
}

/* One line about one kind of dropped record. */
static void drop_msg(pk_session *s, int kind, const pk_pd_drop *d)
{
	char why[320] = "";
	switch (kind) {
	case PK_PD_DROP_BAD_SAMPLE:
		snprintf(why, sizeof(why), " (field %s runs past the record end: is the event's "
			 "sample_type damaged?)", d->first_detail ? d->first_detail : "?");
		break;
	case PK_PD_DROP_UNKNOWN_ID:
		snprintf(why, sizeof(why), " (their id matches no event of the file)");
		break;
	case PK_PD_DROP_NO_EVENT:
		snprintf(why, sizeof(why), " (the file has no event attributes to decode them)");
		break;
	case PK_PD_DROP_UNKNOWN_TYPE:
		snprintf(why, sizeof(why), " (first of type %" PRIu32 ")", d->first_type);
		break;
	}
	pki_session_msg(s, PK_SESSION_WARNING,
			"%" PRIu64 " %s skipped%s; first at file offset %" PRIu64 " (0x%" PRIx64 ")",
			d->count, pk_pd_drop_name(kind), why, d->first_offset, d->first_offset);
}

/* One note of pk_session_aux_flags. */
static void aux_note(pk_session_msg_fn fn, void *arg, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void aux_note(pk_session_msg_fn fn, void *arg, const char *fmt, ...)
{
	char text[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	fn(arg, PK_SESSION_NOTE, text);
}

void pk_session_aux_flags(pk_session_msg_fn fn, void *arg, uint64_t truncated, uint64_t partial,
			  uint64_t collision, uint64_t nr_aux, const char *lost_hint,
			  const char *collision_hint)
{
	if (truncated)
		aux_note(fn, arg, "warning: AUX data lost %" PRIu64 " times out of %" PRIu64 "!%s",
			 truncated, nr_aux, lost_hint);
	if (partial)
		aux_note(fn, arg, "warning: AUX data had gaps in it %" PRIu64 " times out of %" PRIu64
			 "!", partial, nr_aux);
	if (collision)
		aux_note(fn, arg, "warning: AUX data detected collision %" PRIu64 " times out of %"
			 PRIu64 "!%s", collision, nr_aux, collision_hint);
}

/* pk_session_aux_flags' notes into the session's messages. */
static void session_note(void *arg, pk_session_msg kind, const char *text)
{
	pki_session_msg(arg, kind, "%s", text);
}

int pki_session_finish(pk_session *s, bool failed, pk_error *err)
{
	if (!s->reader)
		return 0;
	int rc = pki_spe_finish(&s->spe, s, failed, err);
	pki_ipt_finish(&s->ipt, s);
	pk_pd_reader *r = s->reader;
	for (size_t i = 0; i < pk_pd_nr_warnings(r); i++)
		pki_session_msg(s, PK_SESSION_WARNING, "%s", pk_pd_warning(r, i));
	if (s->uw_failed)
		pki_session_msg(s, PK_SESSION_WARNING,
				"%" PRIu64 " --call-graph dwarf samples not unwound (their chains "
				"have the kernel's part only); the first: %s", s->uw_failed,
				s->uw_err.msg);
	const pk_pd_stats *st = pk_pd_get_stats(r);
	pk_session_aux_flags(session_note, s, st->nr_aux_truncated, st->nr_aux_partial,
			     st->nr_aux_collision, st->nr_records[PERF_RECORD_AUX], "", "");
	uint64_t dropped = 0;
	for (int k = 0; k < PK_PD_DROP_MAX; k++) {
		if (!st->drops[k].count)
			continue;
		drop_msg(s, k, &st->drops[k]);
		if (k != PK_PD_DROP_UNKNOWN_TYPE)
			dropped += st->drops[k].count;
	}
	if (rc < 0 || failed)
		return rc;
	if (s->ran && dropped && !s->nr_samples)
		return pk_err(err, -ENODATA, "none of the %" PRIu64 " samples of %s could be decoded",
			      dropped, s->input);
	return 0;
}

void pki_session_release(pk_session *s)
{
	free(s->uw_chain);
	free(s->uw_inl);
	pki_strmap_free(&s->uw_names, NULL);
	free(s->uw_arch);
	pki_spe_release(&s->spe);
	pki_ipt_release(&s->ipt);
	pki_trace_release(&s->trace);
	free(s->read_prev);
	s->read_prev = NULL;
	pk_machine_free(s->machine);
	pk_pd_reader_close(s->reader);
	pki_warnings_free(&s->warnings);
	free(s->input);
	memset(s, 0, sizeof(*s));
}
