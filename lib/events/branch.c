/* Branch stack filters: record's -b / -j words and the branch_sample_type
 * bits they stand for (linux/perf_event.h), as perf 6.1 spells and combines
 * them. One table; the parser and the listing walk it.
 *
 * perf 6.1's rule, followed: a list of privilege words only (u, k, hv)
 * becomes "any" without them (the event's own privilege levels then apply
 * to the branch filter). */
#include <pmukit/events.h>

#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>

static const struct {
	const char *name;
	uint64_t bit;
} filters[] = {
	{"u", PERF_SAMPLE_BRANCH_USER},
	{"k", PERF_SAMPLE_BRANCH_KERNEL},
	{"hv", PERF_SAMPLE_BRANCH_HV},
	{"any", PERF_SAMPLE_BRANCH_ANY},
	{"any_call", PERF_SAMPLE_BRANCH_ANY_CALL},
	{"any_ret", PERF_SAMPLE_BRANCH_ANY_RETURN},
	{"ind_call", PERF_SAMPLE_BRANCH_IND_CALL},
	{"abort_tx", PERF_SAMPLE_BRANCH_ABORT_TX},
	{"in_tx", PERF_SAMPLE_BRANCH_IN_TX},
	{"no_tx", PERF_SAMPLE_BRANCH_NO_TX},
	{"cond", PERF_SAMPLE_BRANCH_COND},
	{"ind_jmp", PERF_SAMPLE_BRANCH_IND_JUMP},
	{"call", PERF_SAMPLE_BRANCH_CALL},
	{"save_type", PERF_SAMPLE_BRANCH_TYPE_SAVE},
	{"stack", PERF_SAMPLE_BRANCH_CALL_STACK},
	{"priv", PERF_SAMPLE_BRANCH_PRIV_SAVE},
};

#define NR_FILTERS (sizeof(filters) / sizeof(filters[0]))
#define PRIV_ONLY (PERF_SAMPLE_BRANCH_USER | PERF_SAMPLE_BRANCH_KERNEL | PERF_SAMPLE_BRANCH_HV)

/* The bit of one word of length n, or 0. */
static uint64_t filter_bit(const char *w, size_t n)
{
	for (size_t i = 0; i < NR_FILTERS; i++)
		if (strlen(filters[i].name) == n && !strncmp(filters[i].name, w, n))
			return filters[i].bit;
	return 0;
}

static void known_list(char *buf, size_t len)
{
	size_t used = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < NR_FILTERS && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? ", " : "",
					 filters[i].name);
}

int pk_branch_filter_parse(const char *s, uint64_t *mask, pk_error *err)
{
	uint64_t m = 0;
	const char *p = s;
	for (;;) {
		size_t n = strcspn(p, ",");
		uint64_t bit = filter_bit(p, n);
		if (!bit) {
			char known[256];
			known_list(known, sizeof(known));
			pk_err_at(err, -EINVAL, "branch filter", s, (long)(p - s),
				  "unknown branch filter '%.*s'", (int)n, p);
			pk_err_hint(err, "known filters: %s", known);
			return -EINVAL;
		}
		m |= bit;
		if (!p[n])
			break;
		p += n + 1;
	}
	if (!(m & ~(uint64_t)PRIV_ONLY))
		m = PERF_SAMPLE_BRANCH_ANY;
	*mask = m;
	return 0;
}
