/* perf.data: the internal read path of the pmukit CLI's sample loop (script
 * and report), not exported. pki_pd_next_parsed gives what pk_pd_next and
 * pk_pd_reader_parse_sample give, with less work per sample: the id fields
 * of a sample held in place are read once, by the parse, into the sample
 * only, and the checks that the public parse makes on an event from
 * anywhere are left out (the event is the reader's own). tests/perfdata/test_fast_path.c holds it
 * equal to the public path, field by field. */
#ifndef PK_PERFDATA_FAST_H
#define PK_PERFDATA_FAST_H

#include <pmukit/perfdata.h>

/* pk_pd_next, but each sample comes parsed into *s; samples of no known
 * event or that do not parse are counted (pk_pd_get_stats) and skipped, as
 * pk_pd_reader_parse_sample counts them. A sample's ev->id may be left
 * unread (id.fields 0): its fields are in *s. For other records *s is not
 * touched and ev is all pk_pd_next gives. The caller leaves *s as the call
 * filled it until the next call: a sample of the same event as the one
 * before, with a simple layout (the head, PERIOD, CALLCHAIN, RAW), then
 * only has those fields written again, not all 336 bytes cleared. */
int pki_pd_next_parsed(pk_pd_reader *r, pk_pd_event *ev, pk_pd_sample *s, pk_error *err);
/* A number that changes whenever pk_pd_evsel_name of one of the reader's
 * evsels may have (an evsel added, EVENT_UPDATE, EVENT_DESC): a name kept
 * with the number it was read under needs no check while it is the same. */
uint64_t pki_pd_names_version(const pk_pd_reader *r);

#endif
