/* Internal to the counting module. */
#ifndef PK_COUNTING_INTERNAL_H
#define PK_COUNTING_INTERNAL_H

/* /proc/sys/kernel/perf_event_paranoid, INT_MIN when unreadable. */
int pki_perf_event_paranoid(void);

#endif
