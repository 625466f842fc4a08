/* Intel PT in perf.data dumps (report -D, script -D): the AUXTRACE_INFO
 * fields and the AUXTRACE data's packets, printed as perf 6.1 does. The
 * decoding is lib/intelpt's; this file only prints. */
#ifndef PMUKIT_PD_IPT_H
#define PMUKIT_PD_IPT_H

#include <pmukit/perfdata.h>

/* The Intel PT fields of an AUXTRACE_INFO record of type 1 (after its
 * " type: 1" line). */
void pd_ipt_dump_info(const pk_pd_event *ev);

/* ".\n. ... Intel Processor Trace data: size N bytes" and one line per
 * packet of an AUXTRACE record's data (after its record line). */
void pd_ipt_dump_data(const pk_pd_event *ev);

#endif
