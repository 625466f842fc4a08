/* Intel's perfmon metric files (tests/data/perfmon/<CPU>/metrics/, JSON) as
 * the metrics tests read them: the Metrics array, group membership, and a
 * Formula in perf's spelling (each alias replaced by its event's name, '-'
 * escaped), so that the metrics engine can evaluate it over named counts.
 * Shared by test_metrics.c and test_td_perf61.c. */
#ifndef PK_TEST_PERFMON_JSON_H
#define PK_TEST_PERFMON_JSON_H

#include <stdbool.h>
#include <jansson.h>

/* The array `key` ("Metrics", "Events") of tests/data/<rel> (a new
 * reference); fails the test when the file does not load. */
json_t *pk_perfmon_array(const char *rel, const char *key);
/* The "Metrics" array of a metric file. */
json_t *pk_perfmon_metrics(const char *rel);
/* The metric's ';'-separated MetricGroup holds group. */
bool pk_perfmon_in_group(json_t *metric, const char *group);
/* formula with the metric's event aliases replaced by the events' names
 * ("a / ( b )" -> "PERF_METRICS.RETIRING / ( ... )"); malloc'd. */
char *pk_perfmon_perf_style(json_t *metric, const char *formula);

#endif
