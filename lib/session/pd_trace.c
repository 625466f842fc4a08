/* libpmukit: tracepoint payloads for the session (pd_trace.h). The
 * kernel functions that print formats name (%pS) are looked up in the
 * session's kernel symbols, as perf resolves them. */
#include "pd_trace.h"

#include <stdio.h>

#include "pd_session.h"

static const char *resolve_kernel(void *arg, uint64_t addr, uint64_t *start)
{
	pk_addr_loc loc;
	pk_machine_resolve(arg, (uint32_t)-1, PERF_RECORD_MISC_KERNEL, addr, &loc);
	if (!loc.sym)
		return NULL;
	*start = addr - loc.symoff;
	return loc.sym;
}

static void load(pki_trace *t, pk_session *s, const void *data, size_t len)
{
	pk_error err;
	pk_error_clear(&err);
	pk_trace *tr = NULL;
	if (pk_trace_new(data, len, &tr, &err) < 0) {
		pki_session_msg(s, PK_SESSION_WARNING, "tracing data not used: %s", err.msg);
		return;
	}
	for (size_t i = 0; pk_trace_warning(tr, i); i++)
		pki_session_msg(s, PK_SESSION_WARNING, "%s", pk_trace_warning(tr, i));
	pk_trace_free(t->trace);
	t->trace = tr;
	t->machine = s->machine;
	pk_trace_set_resolver(tr, resolve_kernel, s->machine);
	pk_trace_name_evsels(tr, s->reader);
}

void pki_trace_open(pki_trace *t, pk_session *s)
{
	t->tried = true;
	if (!pk_pd_has_feature(s->reader, PK_FEAT_TRACING_DATA))
		return;
	const uint8_t *data;
	size_t len;
	pk_error err;
	pk_error_clear(&err);
	if (pk_pd_feature_raw(s->reader, PK_FEAT_TRACING_DATA, &data, &len, &err) < 0) {
		pki_session_msg(s, PK_SESSION_WARNING, "tracing data not read: %s", err.msg);
		return;
	}
	load(t, s, data, len);
}

void pki_trace_record(pki_trace *t, pk_session *s, const pk_pd_event *ev)
{
	uint32_t size = ev->size >= 12 ? *(const uint32_t *)(const void *)(ev->data + 8) : 0;
	if (!ev->aux || ev->aux_size < size) {
		pki_session_msg(s, PK_SESSION_WARNING, "tracing data record at offset %llu is short",
				(unsigned long long)ev->offset);
		return;
	}
	load(t, s, ev->aux, size);
}

bool pki_trace_usable(pki_trace *t, pk_session *s, const pk_pd_evsel *e)
{
	if (e->attr.type != PERF_TYPE_TRACEPOINT)
		return false;
	if (t->trace && pk_trace_event_name(t->trace, e->attr.config))
		return true;
	if (!t->warned) {
		t->warned = true;
		if (!t->trace)
			pki_session_msg(s, PK_SESSION_WARNING,
					"%s has no tracing data (TRACING_DATA): tracepoint payloads "
					"not decoded, numeric fields shown", s->input);
		else
			pki_session_msg(s, PK_SESSION_WARNING,
					"the tracing data has no format for '%s' (id %llu): its payloads "
					"not decoded, numeric fields shown", pk_pd_evsel_name(e),
					(unsigned long long)e->attr.config);
	}
	return false;
}

const char *pki_trace_text(pki_trace *t, const pk_pd_evsel *e, const pk_pd_sample *smp,
			  pk_trace_mode mode, size_t *len)
{
	if (!t->trace || !smp->raw)
		return NULL;
	return pk_trace_print(t->trace, e->attr.config, smp->raw, smp->raw_size,
			      (int)smp->cpu, mode, len);
}

void pki_trace_release(pki_trace *t)
{
	pk_trace_free(t->trace);
	t->trace = NULL;
}
