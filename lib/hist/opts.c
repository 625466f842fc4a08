/* perf report 6.1's option words read into pk_hist_opts (pmukit/hist.h):
 * -s's key list, -g's words (mode, order, value, then the threshold and
 * the limit), the comma lists of --comms, --pid, --tid, -d and -S, -C's
 * CPU list and --time's range, -p's and --ignore-callees' regular
 * expressions checked, --time-quantum's unit, whether a file can take -C, and -F's
 * columns with the order they sort in (the rules in pmukit/hist.h). Every
 * option is parsed once here; a word that is not one leaves the options
 * as they were (-g) or returns -EINVAL, the caller printing the words. */
#include "report.h"

#include <pmukit/timerange.h>

#include <errno.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

int pk_hist_opts_sort(pk_hist_opts *o, const char *arg, pk_error *err)
{
	char *copy = strdup(arg);
	if (!copy)
		return pk_err(err, -ENOMEM, "--sort: out of memory");
	o->nr_keys = 0;
	o->sort_given = true;
	o->sort_list = arg;
	o->sort_ipc_null = strstr(arg, "symbol") != NULL;
	o->sort_ipc = strstr(arg, "ipc") != NULL;
	o->bad_key = NULL;
	o->sym_first = !strncmp(arg, "sym", 3);
	for (char *t = strtok(copy, ","); t; t = strtok(NULL, ",")) {
		const pk_hist_key *k = pk_hist_key_find(t);
		if (!k || o->nr_keys == PK_HIST_MAX_KEYS) {
			o->bad_key = arg + (t - copy), o->bad_key_len = strlen(t);
			pk_err_at(err, -EINVAL, "--sort key", t, -1, "unknown --sort key");
			free(copy);
			o->nr_keys = 0;
			return -EINVAL;
		}
		if (k->arch && !strcasecmp(t, k->name))
			continue; /* perf 6.1 on x86: dropped without a word */
		o->keys[o->nr_keys++] = k;
	}
	free(copy);
	o->nr_sort_keys = o->nr_keys;
	/* no keys ("-s ''"): one row per event with its total, as perf 6.1 */
	return 0;
}

/* One word of -g: a mode, an order, a key, a value, or a number. */
static bool cg_word(pk_hist_opts *o, const char *t, int *nums)
{
	static const char *const modes[] = {"graph", "fractal", "flat", "folded", "none"};
	for (int i = 0; i < 5; i++)
		if (!strcmp(t, modes[i])) {
			o->cg.mode = (enum pk_hist_cg_mode)i;
			return true;
		}
	if (!strcmp(t, "caller") || !strcmp(t, "callee")) {
		o->cg.caller = t[4] == 'e' && t[5] == 'r';
		o->cg.order_set = true;
		return true;
	}
	if (!strcmp(t, "function") || !strcmp(t, "address")) {
		o->cg.by_address = t[0] == 'a';
		return true;
	}
	if (!strcmp(t, "percent") || !strcmp(t, "period") || !strcmp(t, "count")) {
		o->cg.show_period = t[1] == 'e' && t[2] == 'r' && t[3] == 'i';
		o->cg.show_count = t[0] == 'c';
		return true;
	}
	char *end;
	double v = strtod(t, &end);
	if (end == t || *end)
		return false;
	if ((*nums)++ == 0)
		o->cg.min_percent = v;
	else
		o->cg.print_limit = (unsigned)v;
	return true;
}

bool pk_hist_opts_callgraph(pk_hist_opts *o, const char *arg)
{
	pk_hist_cg_opts save = o->cg;
	char *copy = strdup(arg);
	if (!copy)
		return false;
	int nums = 0;
	bool ok = true;
	for (char *t = strtok(copy, ","); t && ok; t = strtok(NULL, ","))
		ok = cg_word(o, t, &nums);
	free(copy);
	if (!ok)
		o->cg = save;
	return ok;
}

int pk_hist_list_add(pk_hist_list *l, const char *arg)
{
	char *copy = strdup(arg);
	if (!copy)
		return -ENOMEM;
	for (char *t = strtok(copy, ","); t; t = strtok(NULL, ",")) {
		char **n = realloc(l->items, (l->n + 1) * sizeof(*n));
		if (!n || !(n[l->n] = strdup(t))) {
			if (n)
				l->items = n;
			free(copy);
			return -ENOMEM;
		}
		l->items = n;
		l->n++;
	}
	free(copy);
	return 0;
}

static void free_list(pk_hist_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->items[i]);
	free(l->items);
	*l = (pk_hist_list){0};
}

void pk_hist_opts_release(pk_hist_opts *o)
{
	free_list(&o->comms);
	free_list(&o->dsos);
	free_list(&o->syms);
	free_list(&o->pids);
	free_list(&o->tids);
	free(o->cpus);
	o->cpus = NULL;
	o->nr_cpus = 0;
}

int pk_hist_opts_cpus(pk_hist_opts *o, const char *arg)
{
	o->nr_cpus = 4096;
	o->cpus = calloc(o->nr_cpus, sizeof(bool));
	if (!o->cpus)
		return -ENOMEM;
	const char *p = arg;
	while (*p) {
		char *end;
		unsigned long a = strtoul(p, &end, 10), b = a;
		if (end == p)
			return -EINVAL;
		if (*end == '-') {
			p = end + 1;
			b = strtoul(p, &end, 10);
			if (end == p)
				return -EINVAL;
		}
		for (unsigned long c = a; c <= b && c < o->nr_cpus; c++)
			o->cpus[c] = true;
		p = *end == ',' ? end + 1 : end;
		if (*end && *end != ',')
			return -EINVAL;
	}
	return 0;
}

int pk_hist_opts_time(pk_hist_opts *o, const char *arg)
{
	pk_time_window *w = NULL;
	size_t n = 0;
	/* kept either way: pk_hist_settle makes (or refuses) it on the file's
	 * span, after what perf prints before; checked here on a span of 1 s */
	o->time_arg = arg;
	int rc = pk_time_windows_parse(arg, true, 0, 1000000000, &w, &n, NULL);
	free(w);
	return rc;
}

int pk_hist_opts_regex(pk_hist_opts *o, bool ignore_callees, const char *re, pk_error *err)
{
	regex_t r;
	int rc = regcomp(&r, re, REG_EXTENDED | REG_NOSUB);
	if (rc) {
		char why[128];
		regerror(rc, &r, why, sizeof(why));
		return pk_err_at(err, -EINVAL, ignore_callees ? "--ignore-callees" : "--parent", re, -1,
				 "%s", why);
	}
	regfree(&r);
	if (ignore_callees)
		o->ignore_callees = re;
	else
		o->parent = re;
	return 0;
}

int pk_hist_opts_time_quantum(pk_hist_opts *o, const char *arg)
{
	static const struct { const char *unit; uint64_t ns; } units[] = {
		{"", 1}, {"ns", 1}, {"us", 1000}, {"ms", 1000000}, {"s", 1000000000}};
	char *end;
	errno = 0;
	unsigned long long v = strtoull(arg, &end, 10);
	if (end == arg || errno || arg[0] == '-')
		return -EINVAL;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcmp(end, units[i].unit))
			continue;
		if (!v)
			return -ERANGE;
		o->time_quantum = v * units[i].ns;
		return 0;
	}
	return -EINVAL;
}

int pk_hist_opts_cpus_fit(const pk_hist_opts *o, pk_session *s, const pk_pd_header *h,
			  size_t *cpu)
{
	if (!o->cpus)
		return 0;
	if (!pk_session_samples_with(s, PERF_SAMPLE_CPU))
		return -ENODATA;
	size_t c = h->nr_cpus_avail;
	while (c && c < o->nr_cpus && !o->cpus[c])
		c++;
	if (!c || c >= o->nr_cpus)
		return 0;
	*cpu = c;
	return -ERANGE;
}

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
static int parse_field(pk_hist_opts *o, const char *t, pk_hist_field *f, pk_error *err)
{
	for (size_t i = 0; pk_hist_value_nth(i); i++) {
		const pk_hist_value *v = pk_hist_value_nth(i);
		if (!strcmp(t, v->name)) {
			*f = (pk_hist_field){v->val, 0};
			return 0;
		}
	}
	const pk_hist_key *k = pk_hist_key_find(t);
	if (!k)
		return pk_err_at(err, -EINVAL, "--fields key", t, -1, "unknown --fields key");
	for (int i = 0; i < o->nr_keys; i++)
		if (o->keys[i] == k) {
			*f = (pk_hist_field){PK_HIST_V_KEY, i};
			return 0;
		}
	if (o->nr_keys == PK_HIST_MAX_KEYS)
		return pk_err(err, -EINVAL, "--fields: more than %d keys", PK_HIST_MAX_KEYS);
	o->keys[o->nr_keys] = k;
	*f = (pk_hist_field){PK_HIST_V_KEY, o->nr_keys++};
	return 0;
}

int pki_hist_fields_apply(pk_hist_opts *o, bool no_children, pk_error *err)
{
	const char *list = o->fields_list;
	char *copy = strdup(list[0] == '+' ? list + 1 : list);
	if (!copy)
		return pk_err(err, -ENOMEM, "--fields: out of memory");
	o->fields = true;
	bool plus = list[0] == '+';
	/* "+list" keeps the default keys; else only -s's */
	int nr_sort_keys = o->sort_given || plus ? o->fields_base : 0;
	o->nr_keys = nr_sort_keys;
	o->nr_out = o->nr_sort = 0;
	if (plus && o->children) /* the default's columns: Children, Self */
		o->out[o->nr_out++] = (pk_hist_field){PK_HIST_V_CHILDREN, 0};
	if (plus) /* the default order: overhead, then the keys */
		o->out[o->nr_out++] = (pk_hist_field){o->children ? PK_HIST_V_SELF : PK_HIST_V_OVERHEAD, 0};
	for (int i = 0; i < o->nr_out; i++)
		o->sort[o->nr_sort++] = o->out[i];
	int rc = 0;
	for (char *t = strtok(copy, ","); t && !rc; t = strtok(NULL, ",")) {
		pk_hist_field f;
		rc = parse_field(o, t, &f, err);
		if (plus && o->children && f.val == PK_HIST_V_OVERHEAD)
			f.val = PK_HIST_V_SELF; /* the default's own */
		if (plus && no_children && f.val == PK_HIST_V_CHILDREN)
			continue; /* perf drops the column it cancelled */
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

bool pki_hist_fields_order(const pk_hist_opts *o)
{
	return o->fields && !(o->children && o->fields_list && o->fields_list[0] == '+');
}

int pk_hist_opts_fields(pk_hist_opts *o, const char *list, pk_error *err)
{
	o->fields_list = list;
	o->fields_base = o->nr_keys;
	return pki_hist_fields_apply(o, false, err);
}

const pk_hist_list *pk_hist_key_filter(const pk_hist_opts *o, int k, const char **what)
{
	*what = NULL;
	if (k < 0 || k >= o->nr_keys)
		return NULL;
	if (!strcmp(o->keys[k]->name, "comm"))
		return *what = "comm", &o->comms;
	if (!strcmp(o->keys[k]->name, "dso"))
		return *what = "dso", &o->dsos;
	if (o->keys[k]->order == PK_HIST_ORD_SYM)
		return *what = "symbol", &o->syms;
	return NULL;
}
