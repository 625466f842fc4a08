/* Why events could not be counted, each reason once (counting.h,
 * pk_counting_notes): what stat says after its counts.
 *
 * Invariants: notes in the order of their first event in the list; two
 * events with the same message (all hardware events of a PMU-less VM) make
 * one note counting both; an event that is open, or failed otherwise than
 * unsupported or on no CPU of its PMU, has none. */
#include <pmukit/counting.h>
#include <pmukit/util.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int pk_counting_notes(const pk_counting *c, const pk_pmus *pmus, pk_counting_note **out,
		      size_t *nr)
{
	pk_counting_note *v = NULL;
	size_t n = 0, cap = 0;
	const pk_evlist *l = pk_counting_evlist(c);
	for (size_t i = 0; i < pk_evlist_count(l); i++) {
		pk_open_status st = pk_counting_status(c, i);
		if (st != PK_OPEN_UNSUPPORTED && st != PK_OPEN_NO_CPUS)
			continue;
		pk_error e;
		pk_error_clear(&e);
		if (pk_counting_explain(c, i, pmus, &e) == 0)
			continue;
		size_t k = 0;
		while (k < n && strcmp(v[k].why.msg, e.msg))
			k++;
		if (k == n && pk_grow(&v, &cap, n + 1, sizeof(*v)) < 0) {
			free(v);
			return -ENOMEM;
		}
		if (k == n)
			v[n++] = (pk_counting_note){.why = e};
		v[k].nr_events++;
	}
	*out = v;
	*nr = n;
	return 0;
}
