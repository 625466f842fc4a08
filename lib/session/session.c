/* libpmukit: the public face of the perf.data session (session.h): a
 * session on the heap around the engine of pd_session.c, and the
 * accessors that keep its layout private. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pd_session.h"

int pk_session_open(const char *input, const pk_session_opts *o, pk_session **out, pk_error *err)
{
	*out = NULL;
	pk_session_opts dflt;
	if (!o) {
		pk_session_opts_init(&dflt);
		o = &dflt;
	} else if (o->size < sizeof(*o)) {
		return pk_err(err, -EINVAL, "pk_session_opts of %zu bytes: this library's are %zu "
			      "(set size with pk_session_opts_init)", o->size, sizeof(*o));
	}
	pk_session *s = calloc(1, sizeof(*s));
	if (!s)
		return pk_err(err, -ENOMEM, "out of memory");
	int rc = pki_session_init(s, input, o, err);
	if (rc < 0) {
		pk_session_close(s);
		return rc;
	}
	*out = s;
	return 0;
}

void pk_session_close(pk_session *s)
{
	if (!s)
		return;
	pki_session_release(s);
	free(s);
}

void pk_session_on_event(pk_session *s, pk_session_event_fn fn, void *arg)
{
	s->on_event = fn;
	s->event_arg = arg;
}

void pk_session_on_spe_record(pk_session *s, pk_session_spe_fn fn, void *arg)
{
	s->spe.record_fn = fn;
	s->spe.record_arg = arg;
}

int pk_session_set_itrace(pk_session *s, const char *itrace, pk_error *err)
{
	int rc = pki_spe_set_itrace(&s->spe, itrace, err);
	return rc < 0 ? rc : pki_ipt_set_itrace(&s->ipt, itrace, err);
}

static int no_sample(void *arg, pk_session *s, const pk_pd_event *ev, const pk_pd_sample *smp)
{
	(void)arg, (void)s, (void)ev, (void)smp;
	return 0;
}

int pk_session_run(pk_session *s, pk_session_sample_fn fn, void *arg, pk_error *err)
{
	return pki_session_run(s, fn ? fn : no_sample, arg, err);
}

int pk_session_set_switch(pk_session *s, const char *on, const char *off, bool show,
			  pk_error *err)
{
	const char *names[2] = {on, off};
	const pk_pd_evsel *found[2] = {NULL, NULL};
	for (int w = 0; w < 2; w++) {
		for (size_t i = 0; names[w] && !found[w] && i < pk_pd_nr_evsels(s->reader); i++)
			if (!strcmp(pk_pd_evsel_name(pk_pd_evsel_at(s->reader, i)), names[w]))
				found[w] = pk_pd_evsel_at(s->reader, i);
		if (names[w] && !found[w])
			return pk_err_at(err, -ENOENT, w ? "--switch-off" : "--switch-on", names[w], -1,
					 "switch-%s event not found (%s)", w ? "off" : "on", names[w]);
	}
	s->sw_on = found[0];
	s->sw_off = found[1];
	s->sw_show = show;
	s->sw_discarding = found[0] != NULL;
	return 0;
}

int pk_session_finish(pk_session *s, pk_error *err)
{
	return pki_session_finish(s, false, err);
}

pk_pd_reader *pk_session_reader(const pk_session *s)
{
	return s->reader;
}

pk_machine *pk_session_machine(const pk_session *s)
{
	return s->machine;
}

const char *pk_session_input(const pk_session *s)
{
	return s->input;
}

uint64_t pk_session_nr_samples(const pk_session *s)
{
	return s->nr_samples;
}

const char *pk_session_chain_inlined(const pk_session *s, const pk_pd_sample *smp, uint64_t i)
{
	return i < smp->callchain_nr ? pki_chain_inlined(s, smp, i) : NULL;
}

const char *pk_session_warning(const pk_session *s, size_t idx)
{
	return pki_warnings_at(&s->warnings, idx);
}

pk_session_event_fn pk_session_event_hook(const pk_session *s, void **arg)
{
	*arg = s->event_arg;
	return s->on_event;
}

void pk_session_after_dump(pk_session *s, pk_session_sample_fn fn, void *arg)
{
	s->after_dump = fn;
	s->after_dump_arg = arg;
}

void pk_session_on_feature(pk_session *s, pk_session_feature_fn fn, void *arg)
{
	s->on_feature = fn;
	s->feature_arg = arg;
}

void pk_session_spe_dump(pk_session *s, pk_session_spe_dump_fn fn, void *arg)
{
	s->spe.dump = fn != NULL;
	s->spe.dump_fn = fn;
	s->spe.dump_arg = arg;
}

void pk_session_spe_export(pk_session *s, pk_session_spe_export_fn fn, void *arg)
{
	s->spe.export_fmt = fn != NULL;
	s->spe.export_fn = fn;
	s->spe.export_arg = arg;
}

void pk_session_on_spe_sample(pk_session *s, pk_session_sample_fn fn)
{
	s->spe.sample_fn = fn;
}

bool pk_session_has_spe(const pk_session *s)
{
	return s->spe.have_info;
}

uint32_t pk_session_aux_type(const pk_session *s)
{
	return s->spe.info_type;
}

uint64_t pk_session_spe_nr_records(const pk_session *s)
{
	return s->spe.nr_records;
}

void pk_session_spe_same(const pk_session *s, bool *before, bool *after)
{
	*before = s->spe.same_before;
	*after = s->spe.same_after;
}

bool pk_session_trace_usable(pk_session *s, const pk_pd_evsel *e)
{
	return pki_trace_usable(&s->trace, s, e);
}

const char *pk_session_trace_text(pk_session *s, const pk_pd_evsel *e, const pk_pd_sample *smp,
				  pk_trace_mode mode, size_t *len)
{
	return pki_trace_text(&s->trace, e, smp, mode, len);
}

int pk_session_trace_field(pk_session *s, const pk_pd_evsel *e, const pk_pd_sample *smp,
			   const char *name, uint64_t *val)
{
	if (!s->trace.trace || e->attr.type != PERF_TYPE_TRACEPOINT)
		return -ENOENT;
	return pk_trace_field(s->trace.trace, e->attr.config, name, smp->raw, smp->raw_size, val);
}

int pk_session_set_machine(pk_session *s, const pk_machine_opts *o, pk_error *err)
{
	return pki_session_set_machine(s, o, err);
}

int pk_session_finish_failed(pk_session *s, pk_error *err)
{
	return pki_session_finish(s, true, err);
}

const char *const *pk_session_chain_inlines(const pk_session *s, const pk_pd_sample *smp)
{
	return pki_chain_inlines(s, smp);
}

void pk_session_on_itrace_error(pk_session *s, pk_session_itrace_error_fn fn, void *arg)
{
	s->ipt.error_fn = fn;
	s->ipt.error_arg = arg;
}

void pk_session_itrace_default(pk_session *s, pk_session_itrace_for which)
{
	s->ipt.report = which == PK_ITRACE_REPORT;
	s->ipt.no_decode = which == PK_ITRACE_NONE;
}

bool pk_session_synth_chains(const pk_session *s)
{
	return s->ipt.have_info && s->ipt.callchain;
}
