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
#include "report_print.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>


static bool same_field(pk_hist_field a, pk_hist_field b)
{
	return a.val == b.val && (a.val != PK_HIST_V_KEY || a.key == b.key);
}

static bool has_field(const pk_hist_field *v, int n, pk_hist_field f)
{
	for (int i = 0; i < n; i++)
		if (same_field(v[i], f))
			return true;
	return false;
}

/* One name of the list as a field (a key added to o->keys when new). */
static int parse_field(pk_hist_opts *o, const char *t, pk_hist_field *f)
{
	for (size_t i = 0; pk_hist_value_nth(i); i++) {
		const pk_hist_value *v = pk_hist_value_nth(i);
		if (!strcmp(t, v->name)) {
			*f = (pk_hist_field){v->val, 0};
			return 0;
		}
	}
	const pk_hist_key *k = pk_hist_key_find(t);
	if (!k) {
		fprintf(stderr, "Error:\nUnknown --fields key: `%s'\n", t);
		return -EINVAL;
	}
	for (int i = 0; i < o->nr_keys; i++)
		if (o->keys[i] == k) {
			*f = (pk_hist_field){PK_HIST_V_KEY, i};
			return 0;
		}
	if (o->nr_keys == PK_HIST_MAX_KEYS)
		return -EINVAL;
	o->keys[o->nr_keys] = k;
	*f = (pk_hist_field){PK_HIST_V_KEY, o->nr_keys++};
	return 0;
}

int report_fields_setup(pk_hist_opts *o, const char *list)
{
	char *copy = strdup(list[0] == '+' ? list + 1 : list);
	if (!copy)
		return -ENOMEM;
	o->fields = true;
	bool plus = list[0] == '+';
	/* "+list" keeps the default keys; else only -s's */
	int nr_sort_keys = o->sort_given || plus ? o->nr_keys : 0;
	o->nr_keys = nr_sort_keys;
	o->nr_out = o->nr_sort = 0;
	if (plus) { /* the default order: overhead, then the keys */
		o->out[o->nr_out++] = (pk_hist_field){PK_HIST_V_OVERHEAD, 0};
		o->sort[o->nr_sort++] = (pk_hist_field){PK_HIST_V_OVERHEAD, 0};
	}
	int rc = 0;
	for (char *t = strtok(copy, ","); t && !rc; t = strtok(NULL, ",")) {
		pk_hist_field f;
		rc = parse_field(o, t, &f);
		if (!rc && !has_field(o->out, o->nr_out, f) && o->nr_out < PK_HIST_MAX_FIELDS)
			o->out[o->nr_out++] = f;
	}
	free(copy);
	if (rc)
		return rc;
	for (int k = 0; k < nr_sort_keys; k++)
		o->sort[o->nr_sort++] = (pk_hist_field){PK_HIST_V_KEY, k};
	for (int i = 0; i < o->nr_out; i++)
		if (!has_field(o->sort, o->nr_sort, o->out[i]))
			o->sort[o->nr_sort++] = o->out[i];
	for (int k = 0; k < nr_sort_keys; k++) /* the -s keys shown after */
		if (!has_field(o->out, o->nr_out, (pk_hist_field){PK_HIST_V_KEY, k}))
			o->out[o->nr_out++] = (pk_hist_field){PK_HIST_V_KEY, k};
	return 0;
}

static bool hidden(const pk_hist_opts *o, pk_hist_field f)
{
	return f.val == PK_HIST_V_KEY && (o->hidden_cols & (1u << f.key));
}

void report_fields_heads(const pk_hist *h, int nm, const int *w)
{
	const pk_hist_opts *o = pk_hist_config(h);
	for (int dots = 0; dots < 2; dots++) {
		printf("#");
		bool first = true;
		for (int i = 0; i < o->nr_out; i++) {
			pk_hist_field f = o->out[i];
			if (hidden(o, f))
				continue;
			printf(first ? " " : "  ");
			first = false;
			bool key = f.val == PK_HIST_V_KEY;
			int width = key ? w[f.key] : pk_hist_value_of(f.val)->width * nm;
			const char *title = key ? o->keys[f.key]->title : pk_hist_value_of(f.val)->title;
			if (dots)
				for (int j = 0; j < width; j++)
					putchar('.');
			else
				printf(key && !o->keys[f.key]->right ? "%-*s" : "%*s", width, title);
		}
		printf("\n");
	}
	printf("#\n");
}

void report_fields_row(const pk_hist *h, const pk_hist_entry *e, int nm, const int *w)
{
	const pk_hist_opts *o = pk_hist_config(h);
	int last = o->nr_out - 1; /* perf pads a column before an elided last one */
	printf("  ");
	bool first = true;
	for (int i = 0; i <= last; i++) {
		pk_hist_field f = o->out[i];
		if (hidden(o, f))
			continue;
		printf(first ? "" : "  ");
		first = false;
		if (f.val == PK_HIST_V_KEY) {
			char t[PK_HIST_NAME_MAX];
			pk_hist_col_text(h, e, f.key, t, sizeof(t));
			bool pad = i < last || o->keys[f.key]->pad_last;
			printf("%-*s", pad ? w[f.key] : 0, t);
			continue;
		}
		const pk_hist_value *v = pk_hist_value_of(f.val);
		int wv = v->width; /* per group member */
		for (int m = 0; m < nm; m++)
			if (f.val == PK_HIST_V_SAMPLE || f.val == PK_HIST_V_PERIOD)
				printf("%*" PRIu64, wv, pk_hist_entry_value(e, m, v->which));
			else if (f.val == PK_HIST_V_CHILDREN && !o->children)
				printf("%*s", wv, m ? "" : "N/A");
			else
				printf("%*.2f%%", wv - 1, pk_hist_pct(h, e, m, v->which));
	}
	printf("\n");
}
