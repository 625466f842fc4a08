/* script -F metric: perf script 6.1's shadow metrics of group samples
 * (the rules in script_metric.h). The formulas, their order and how each
 * is printed are lib/metrics' stat table, evaluated by its engine; this
 * file keeps only perf script's running state: the round, the latest
 * period and the store of scaled periods the formulas read. */
#include "script_metric.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pmukit/util.h>

#include "builtin.h"
#include "stat_print.h"

/* The store: one mean per event kind, CPU and exclude bits, as perf's
 * runtime stats are kept (cpu-clock and task-clock are one kind). */
struct sm_slot {
	uint32_t type;
	uint64_t config;
	uint32_t cpu;
	unsigned ctx;
	double n, mean;
	const pk_evsel *evsel;      /* the first of its kind: what the engine matches */
};

enum { SM_MAX_LINES = 8 };

static unsigned exclude_bits(const struct perf_event_attr *a)
{
	return (unsigned)a->exclude_kernel | (unsigned)a->exclude_user << 1 |
	       (unsigned)a->exclude_hv << 2 | (unsigned)a->exclude_host << 3 |
	       (unsigned)a->exclude_idle << 4;
}

static uint64_t kind_config(const struct perf_event_attr *a)
{
	if (a->type == PERF_TYPE_SOFTWARE && a->config == PERF_COUNT_SW_TASK_CLOCK)
		return PERF_COUNT_SW_CPU_CLOCK;
	return a->config;
}

int script_metric_open(script_metric *m, pk_session *s)
{
	memset(m, 0, sizeof(*m));
	pk_error err;
	pk_error_clear(&err);
	size_t n = pk_session_nr_evsels(s);
	m->nr_evsels = n;
	m->table = pk_metric_table_stat(&err);
	m->evlist = pk_evlist_new();
	m->leader = calloc(n ? n : 1, sizeof(*m->leader));
	m->nr_members = calloc(n ? n : 1, sizeof(*m->nr_members));
	m->lines = calloc(SM_MAX_LINES, sizeof(*m->lines));
	if (!m->table || !m->evlist || !m->leader || !m->nr_members || !m->lines) {
		fprintf(stderr, "pmukit script: metric: %s\n", m->table ? "out of memory" : err.msg);
		return 1;
	}
	for (size_t i = 0; i < n; i++) {
		const pk_pd_evsel *e = pk_session_evsel_at(s, i);
		if (!pk_evlist_add(m->evlist, &e->attr, pk_pd_evsel_name(e), NULL)) {
			fprintf(stderr, "pmukit script: metric: out of memory\n");
			return 1;
		}
		m->leader[i] = (uint32_t)i;
		m->nr_members[i] = 0; /* perf: outside a group, no round ends */
	}
	pk_pd_header h;
	if (pk_pd_header_read(pk_session_reader(s), &h, &err) < 0) {
		pk_cli_print_error("script", &err);
		return 1;
	}
	for (uint32_t g = 0; g < h.nr_groups; g++) {
		uint32_t l = h.groups[g].leader_idx, nr = h.groups[g].nr_members;
		if (l >= n || nr > n - l)
			continue; /* a group past the file's events: none */
		m->nr_members[l] = nr;
		for (uint32_t k = 1; k < nr; k++)
			m->leader[l + k] = l;
	}
	pk_pd_header_release(&h);
	return 0;
}

void script_metric_close(script_metric *m)
{
	pk_metric_table_free(m->table);
	pk_evlist_put(m->evlist);
	free(m->leader);
	free(m->nr_members);
	free(m->slots);
	free(m->lines);
	memset(m, 0, sizeof(*m));
}

/* Adds v to the mean of its slot (perf's running mean). */
static int store(script_metric *m, const pk_evsel *ev, uint32_t cpu, double v)
{
	const struct perf_event_attr *a = pk_evsel_attr(ev);
	sm_slot *sl = NULL;
	for (size_t i = 0; i < m->nr_slots && !sl; i++) {
		sm_slot *c = &m->slots[i];
		if (c->type == a->type && c->config == kind_config(a) && c->cpu == cpu &&
		    c->ctx == exclude_bits(a))
			sl = c;
	}
	if (!sl) {
		if (pk_grow(&m->slots, &m->cap_slots, m->nr_slots + 1, sizeof(*m->slots)) < 0)
			return -1;
		sl = &m->slots[m->nr_slots++];
		*sl = (sm_slot){.type = a->type, .config = kind_config(a), .cpu = cpu,
				.ctx = exclude_bits(a), .evsel = ev};
	}
	sl->n++;
	sl->mean += (v - sl->mean) / sl->n;
	return 0;
}

/* A metric line "value unit", started `starts` times. */
static void add_line(script_metric *m, const pk_metric_value *mv, unsigned starts)
{
	if (m->nr_lines == SM_MAX_LINES)
		return;
	sm_line *l = &m->lines[m->nr_lines++];
	l->starts = starts;
	int len = pk_metric_format(mv->def->style, mv->value, l->text, sizeof(l->text));
	if (len > 0 && (size_t)len < sizeof(l->text))
		snprintf(l->text + len, sizeof(l->text) - (size_t)len, " %s", mv->unit);
}

/* Member ev's metric lines: itself counted as the latest
 * period, the store's slots of its CPU and exclude bits as the others. */
static void member_line(script_metric *m, const pk_evsel *ev, uint32_t cpu)
{
	pk_metric_count v[1 + 64];
	size_t nr = 0;
	unsigned ctx = exclude_bits(pk_evsel_attr(ev));
	v[nr++] = (pk_metric_count){.evsel = ev, .key = (int)cpu, .value = (double)m->val,
				    .counted = true};
	for (size_t i = 0; i < m->nr_slots && nr < sizeof(v) / sizeof(v[0]); i++)
		if (m->slots[i].cpu == cpu && m->slots[i].ctx == ctx && m->slots[i].n > 0)
			v[nr++] = (pk_metric_count){.evsel = m->slots[i].evsel, .key = (int)cpu,
						    .value = m->slots[i].mean, .counted = true};
	pk_metric_counts in = {.v = v, .nr = nr};
	pk_metric_value mv;
	if (pk_metric_shadow(m->table, &in, 0, &mv))
		add_line(m, &mv, 1);
	for (size_t pos = 0; pk_metric_shadow_line(m->table, &in, 0, &pos, &mv);)
		add_line(m, &mv, 2);
}

size_t script_metric_sample(script_metric *m, const pk_pd_evsel *e, const pk_pd_sample *smp)
{
	size_t i = (size_t)e->idx;
	m->nr_lines = 0;
	if (i >= m->nr_evsels)
		return 0;
	const pk_evsel *ev = pk_evlist_at(m->evlist, i);
	if (m->gnum++ == 0) /* a new round: the store starts empty */
		for (size_t k = 0; k < m->nr_slots; k++)
			m->slots[k].n = m->slots[k].mean = 0;
	double scale;
	stat_evsel_unit(ev, &scale);
	m->val = (uint64_t)((double)smp->period * scale);
	if (store(m, ev, smp->cpu, (double)m->val) < 0)
		return 0;
	uint32_t l = m->leader[i];
	if (m->gnum != m->nr_members[l])
		return 0;
	for (uint32_t k = 1; k < m->nr_members[l]; k++)
		member_line(m, pk_evlist_at(m->evlist, l + k), smp->cpu);
	m->gnum = 0;
	return m->nr_lines;
}

const sm_line *script_metric_line(const script_metric *m, size_t i)
{
	static const sm_line none = {.text = "", .starts = 1};
	return i < m->nr_lines ? &m->lines[i] : &none;
}
