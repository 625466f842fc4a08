/* perf script 6.1's `metric` field (pmukit/script.h): the shadow metrics
 * of group samples. perf keeps one running state for the whole file:
 * a count of the samples printed since the last metric lines (gnum) and
 * the period of the latest one (val), each period scaled as perf scales
 * the event (the software clocks by 1e-6, the product truncated to an
 * integer). The first sample of a round clears the store of counts; each
 * sample adds its scaled period to the store under its event's kind, the
 * CPU of the sample and its exclude bits (a mean when one kind comes more
 * than once). When the round has as many samples as the sample's group
 * has members, every member but the leader gets the metric the stat table
 * (lib/metrics) gives it, evaluated with the latest period as its own
 * count and the store's means as the others (same CPU, same exclude
 * bits), then the further lines of the table's NEW_LINE rows ("stalled
 * cycles per insn" under the IPC, started twice as perf starts them);
 * then the round starts over. An event outside a group has no
 * members (perf 6.1: nr_members 0): its samples count in the round but
 * never end it, so once one comes into a round, no later round of any
 * group prints (what perf does on such files). */
#include <pmukit/script.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pmukit/events.h>
#include <pmukit/metrics.h>
#include <pmukit/util.h>

typedef struct pm_slot pm_slot;

struct pk_script_metric {
	pk_metric_table *table;
	pk_evlist *evlist;           /* one evsel per session evsel, for the engine */
	uint32_t *leader;            /* per session evsel: its group's leader */
	uint32_t *nr_members;        /* per session evsel: its group's size (leaders) */
	size_t nr_evsels;
	unsigned gnum;               /* samples of the current round */
	uint64_t val;                /* the latest sample's scaled period */
	pm_slot *slots;
	size_t nr_slots, cap_slots;
	pk_script_metric_line *lines; /* the metric lines of the last round */
	size_t nr_lines;
};

/* perf's scale of an event's count: the software clocks' ns in msec, a
 * sysfs alias's scale. */
static double scale_of(const pk_evsel *e)
{
	const struct perf_event_attr *a = pk_evsel_attr(e);
	if (a->type == PERF_TYPE_SOFTWARE &&
	    (a->config == PERF_COUNT_SW_TASK_CLOCK || a->config == PERF_COUNT_SW_CPU_CLOCK))
		return 1e-6;
	double s = pk_evsel_scale(e);
	return s > 0 ? s : 1.0;
}

/* The store: one mean per event kind, CPU and exclude bits, as perf's
 * runtime stats are kept (cpu-clock and task-clock are one kind). */
struct pm_slot {
	uint32_t type;
	uint64_t config;
	uint32_t cpu;
	unsigned ctx;
	double n, mean;
	const pk_evsel *evsel;      /* the first of its kind: what the engine matches */
};

enum { PM_MAX_LINES = 8 };

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

/* The groups of the session's file: each member's leader, each leader's
 * size (an event outside a group has none: perf 6.1's nr_members 0). */
static int read_groups(pk_script_metric *m, pk_session *s, pk_error *err)
{
	size_t n = m->nr_evsels;
	for (size_t i = 0; i < n; i++) {
		const pk_pd_evsel *e = pk_session_evsel_at(s, i);
		if (!pk_evlist_add(m->evlist, &e->attr, pk_pd_evsel_name(e), NULL))
			return pk_err(err, -ENOMEM, "metric: out of memory");
		m->leader[i] = (uint32_t)i;
	}
	pk_pd_header h;
	if (pk_pd_header_read(pk_session_reader(s), &h, err) < 0)
		return err->code ? err->code : -EINVAL;
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

pk_script_metric *pk_script_metric_new(pk_session *s, pk_error *err)
{
	pk_script_metric *m = calloc(1, sizeof(*m));
	if (!m) {
		pk_err(err, -ENOMEM, "metric: out of memory");
		return NULL;
	}
	pk_error e;
	pk_error_clear(&e);
	size_t n = pk_session_nr_evsels(s);
	m->nr_evsels = n;
	m->table = pk_metric_table_stat(&e);
	m->evlist = pk_evlist_new();
	m->leader = calloc(n ? n : 1, sizeof(*m->leader));
	m->nr_members = calloc(n ? n : 1, sizeof(*m->nr_members));
	m->lines = calloc(PM_MAX_LINES, sizeof(*m->lines));
	if (!m->table || !m->evlist || !m->leader || !m->nr_members || !m->lines)
		pk_err(err, m->table ? -ENOMEM : e.code, "metric: %s",
		       m->table ? "out of memory" : e.msg);
	else if (read_groups(m, s, err) == 0)
		return m;
	pk_script_metric_free(m);
	return NULL;
}

void pk_script_metric_free(pk_script_metric *m)
{
	if (!m)
		return;
	pk_metric_table_free(m->table);
	pk_evlist_put(m->evlist);
	free(m->leader);
	free(m->nr_members);
	free(m->slots);
	free(m->lines);
	free(m);
}

/* Adds v to the mean of its slot (perf's running mean). */
static int store(pk_script_metric *m, const pk_evsel *ev, uint32_t cpu, double v)
{
	const struct perf_event_attr *a = pk_evsel_attr(ev);
	pm_slot *sl = NULL;
	for (size_t i = 0; i < m->nr_slots && !sl; i++) {
		pm_slot *c = &m->slots[i];
		if (c->type == a->type && c->config == kind_config(a) && c->cpu == cpu &&
		    c->ctx == exclude_bits(a))
			sl = c;
	}
	if (!sl) {
		if (pk_grow(&m->slots, &m->cap_slots, m->nr_slots + 1, sizeof(*m->slots)) < 0)
			return -1;
		sl = &m->slots[m->nr_slots++];
		*sl = (pm_slot){.type = a->type, .config = kind_config(a), .cpu = cpu,
				.ctx = exclude_bits(a), .evsel = ev};
	}
	sl->n++;
	sl->mean += (v - sl->mean) / sl->n;
	return 0;
}

/* A metric line "value unit", started `starts` times. */
static void add_line(pk_script_metric *m, const pk_metric_value *mv, unsigned starts)
{
	if (m->nr_lines == PM_MAX_LINES)
		return;
	pk_script_metric_line *l = &m->lines[m->nr_lines++];
	l->starts = starts;
	int len = pk_metric_format(mv->def->style, mv->value, l->text, sizeof(l->text));
	if (len > 0 && (size_t)len < sizeof(l->text))
		snprintf(l->text + len, sizeof(l->text) - (size_t)len, " %s", mv->unit);
}

/* Member ev's metric lines: itself counted as the latest
 * period, the store's slots of its CPU and exclude bits as the others. */
static void member_line(pk_script_metric *m, const pk_evsel *ev, uint32_t cpu)
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

size_t pk_script_metric_sample(pk_script_metric *m, const pk_pd_evsel *e, const pk_pd_sample *smp)
{
	size_t i = (size_t)e->idx;
	m->nr_lines = 0;
	if (i >= m->nr_evsels)
		return 0;
	const pk_evsel *ev = pk_evlist_at(m->evlist, i);
	if (m->gnum++ == 0) /* a new round: the store starts empty */
		for (size_t k = 0; k < m->nr_slots; k++)
			m->slots[k].n = m->slots[k].mean = 0;
	m->val = (uint64_t)((double)smp->period * scale_of(ev));
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

const pk_script_metric_line *pk_script_metric_line_at(const pk_script_metric *m, size_t i)
{
	static const pk_script_metric_line none = {.text = "", .starts = 1};
	return i < m->nr_lines ? &m->lines[i] : &none;
}
