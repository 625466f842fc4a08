/* pmukit report -F/--fields: the columns perf report 6.1 prints when they
 * are named, and the order it then sorts in.
 *
 * perf's rules: the columns are -F's list ("+list": after the default
 * "overhead"), then the -s keys not in it. The order is by the -s keys,
 * then by the columns not among them, in their order; without -s, by the
 * columns alone (so "-F sym" sorts by name). The entries are made by the
 * sort keys of both lists. Value columns sort high first: overhead (the
 * period), overhead_sys/_us/_guest_sys/_guest_us (the period of kernel,
 * user, guest kernel, guest user samples), sample, period; overhead_children
 * prints N/A without call chains; in the group view each member has its
 * value. -n and --show-total-period add nothing under -F, as in perf.
 * "+list" keeps the default keys, and the order starts with overhead. */
#include "report.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "report_keys.h"

static bool same_field(rp_field a, rp_field b)
{
	return a.val == b.val && (a.val != RP_V_KEY || a.key == b.key);
}

static bool has_field(const rp_field *v, int n, rp_field f)
{
	for (int i = 0; i < n; i++)
		if (same_field(v[i], f))
			return true;
	return false;
}

/* One name of the list as a field (a key added to rp->keys when new). */
static int parse_field(report *rp, const char *t, rp_field *f)
{
	for (size_t i = 0; i < rp_nr_values; i++)
		if (!strcmp(t, rp_values[i].name)) {
			*f = (rp_field){rp_values[i].val, 0};
			return 0;
		}
	const rp_key *k = rp_key_find(t);
	if (!k) {
		fprintf(stderr, "Error:\nUnknown --fields key: `%s'\n", t);
		return -EINVAL;
	}
	for (int i = 0; i < rp->nr_keys; i++)
		if (rp->keys[i] == k) {
			*f = (rp_field){RP_V_KEY, i};
			return 0;
		}
	if (rp->nr_keys == RP_MAX_KEYS)
		return -EINVAL;
	rp->keys[rp->nr_keys] = k;
	*f = (rp_field){RP_V_KEY, rp->nr_keys++};
	return 0;
}

int rp_fields_setup(report *rp, const char *list)
{
	char *copy = strdup(list[0] == '+' ? list + 1 : list);
	if (!copy)
		return -ENOMEM;
	rp->fields = true;
	bool plus = list[0] == '+';
	/* "+list" keeps the default keys; else only -s's */
	int nr_sort_keys = rp->sort_given || plus ? rp->nr_keys : 0;
	rp->nr_keys = nr_sort_keys;
	rp->nr_out = rp->nr_sort = 0;
	if (plus) { /* the default order: overhead, then the keys */
		rp->out[rp->nr_out++] = (rp_field){RP_V_OVERHEAD, 0};
		rp->sort[rp->nr_sort++] = (rp_field){RP_V_OVERHEAD, 0};
	}
	int rc = 0;
	for (char *t = strtok(copy, ","); t && !rc; t = strtok(NULL, ",")) {
		rp_field f;
		rc = parse_field(rp, t, &f);
		if (!rc && !has_field(rp->out, rp->nr_out, f) && rp->nr_out < RP_MAX_FIELDS)
			rp->out[rp->nr_out++] = f;
	}
	free(copy);
	if (rc)
		return rc;
	for (int k = 0; k < nr_sort_keys; k++)
		rp->sort[rp->nr_sort++] = (rp_field){RP_V_KEY, k};
	for (int i = 0; i < rp->nr_out; i++)
		if (!has_field(rp->sort, rp->nr_sort, rp->out[i]))
			rp->sort[rp->nr_sort++] = rp->out[i];
	for (int k = 0; k < nr_sort_keys; k++) /* the -s keys shown after */
		if (!has_field(rp->out, rp->nr_out, (rp_field){RP_V_KEY, k}))
			rp->out[rp->nr_out++] = (rp_field){RP_V_KEY, k};
	return 0;
}

static bool hidden(const report *rp, rp_field f)
{
	return f.val == RP_V_KEY && (rp->hidden_cols & (1u << f.key));
}

void rp_fields_heads(const report *rp, int nm, const int *w)
{
	for (int dots = 0; dots < 2; dots++) {
		printf("#");
		bool first = true;
		for (int i = 0; i < rp->nr_out; i++) {
			rp_field f = rp->out[i];
			if (hidden(rp, f))
				continue;
			printf(first ? " " : "  ");
			first = false;
			bool key = f.val == RP_V_KEY;
			int width = key ? w[f.key] : rp_values[rp_value_at(f.val)].width * nm;
			const char *title = key ? rp->keys[f.key]->title : rp_values[rp_value_at(f.val)].title;
			if (dots)
				for (int j = 0; j < width; j++)
					putchar('.');
			else
				printf(key && !rp->keys[f.key]->right ? "%-*s" : "%*s", width, title);
		}
		printf("\n");
	}
	printf("#\n");
}

void rp_fields_row(const report *rp, const rp_entry *e, int nm, const int *w)
{
	int last = rp->nr_out - 1; /* perf pads a column before an elided last one */
	printf("  ");
	bool first = true;
	for (int i = 0; i <= last; i++) {
		rp_field f = rp->out[i];
		if (hidden(rp, f))
			continue;
		printf(first ? "" : "  ");
		first = false;
		if (f.val == RP_V_KEY) {
			char t[RP_NAME_MAX];
			rp_col_text(rp, e, f.key, t, sizeof(t));
			bool pad = i < last || rp->keys[f.key]->pad_last;
			printf("%-*s", pad ? w[f.key] : 0, t);
			continue;
		}
		int v = rp_value_at(f.val), wv = rp_values[v].width; /* per group member */
		for (int m = 0; m < nm; m++)
			if (f.val == RP_V_SAMPLE || f.val == RP_V_PERIOD)
				printf("%*" PRIu64, wv, e->v[m * RP_NV + rp_values[v].which]);
			else if (f.val == RP_V_CHILDREN && !rp->children)
				printf("%*s", wv, m ? "" : "N/A");
			else
				printf("%*.2f%%", wv - 1, rp_pct(rp, e, m, rp_values[v].which));
	}
	printf("\n");
}
