/* The widths of report's key columns, as perf report 6.1 computes them
 * from the entries before printing (pmukit/hist.h: pk_hist_widths): each
 * key's minimum (its title), widened by the texts of an event's listed
 * entries, with perf's exceptions (the comm column by the thread's last
 * name, a trace key's text only once perf made it, the cpu column's 3,
 * an address's 16 digits for entries without a symbol in the dso column).
 * Nothing here prints. */
#include <pmukit/hist.h>

#include <stdlib.h>
#include <string.h>

/* perf sizes the comm column by the length of each entry's thread's name
 * when the table is made (its last COMM), not by the names the entries
 * print (a sample's own, "perf-exec" before the exec): those are cut to the
 * width, as perf cuts them ("perf-ex"). */
static int comm_width(const pk_hist *h, const pk_hist_entry *e)
{
	uint32_t pid, tid;
	pk_hist_entry_thread(e, &pid, &tid);
	return (int)strlen(pk_machine_comm(pk_session_machine(pk_hist_session(h)), pid, tid));
}

/* perf makes a trace key's text only when it compares two entries on it: a
 * sample's with an equal one (an entry of two samples or more), or two
 * entries equal in the keys before it; the column is sized with the texts
 * made by then (an entry of one sample, alone in the keys before trace,
 * keeps the title's width and is cut to it). */
struct prefix {
	pk_hist_entry **all;
	int kt;                      /* the trace key: the keys before it compared */
};

static int prefix_cmp(const void *a, const void *b, void *arg)
{
	const struct prefix *p = arg;
	const pk_hist_entry *x = p->all[*(const size_t *)a], *y = p->all[*(const size_t *)b];
	for (int k = 0; k < p->kt; k++) {
		int c = strcmp(pk_hist_entry_text(x, k), pk_hist_entry_text(y, k));
		if (c)
			return c;
	}
	return 0;
}

static void trace_known(pk_hist_entry **all, size_t n, int ev, int kt, bool *known)
{
	size_t *v = malloc((n ? n : 1) * sizeof(*v)), m = 0;
	for (size_t i = 0; i < n; i++) {
		known[i] = pk_hist_entry_value(all[i], 0, PK_HIST_SELF_NR) > 1;
		if (v && pk_hist_entry_event(all[i]) == ev)
			v[m++] = i;
	}
	if (!v)
		return;
	struct prefix p = {all, kt};
	qsort_r(v, m, sizeof(*v), prefix_cmp, &p);
	for (size_t i = 0; i + 1 < m; i++)
		if (!prefix_cmp(&v[i], &v[i + 1], &p))
			known[v[i]] = known[v[i + 1]] = true;
	free(v);
}

/* perf's least width of a key once an entry is listed: its column
 * length (a memory key's data or code symbol: the name and 22 more,
 * dcacheline 23; an unknown data object the address's 16; transaction
 * flags perf's 32), else 0. */
static int entry_width(const pk_hist_opts *o, const pk_hist_key *key, const char *t)
{
	bool named = strlen(t) > 4 && !(t[4] == '0' && (t[5] == 'x' || !t[5] || t[5] == '0'));
	bool sym = !strcmp(key->name, "symbol_daddr") || !strcmp(key->name, "symbol_iaddr");
	if ((sym || !strcmp(key->name, "dcacheline")) && named && o->mem_mode)
		return (int)strlen(t) - 4 + 22 + !sym;
	if (!strcmp(key->name, "transaction") && t[0]) /* the names' length, ":XX " */
		return 32;
	if (!strcmp(key->name, "dso_daddr") && !strcmp(t, "[unknown]") && !o->dsos.n &&
	    !o->field_sep)
		return 16;
	return key->entry_w;
}

void pk_hist_widths(const pk_hist *h, pk_hist_entry **all, size_t n, int ev, int *w)
{
	const pk_hist_opts *o = pk_hist_config(h);
	for (int k = 0; k < o->nr_keys; k++) /* perf: time 16 wide with --ns */
		w[k] = o->ns && !strcmp(o->keys[k]->name, "time") ? 16 : pk_hist_key_width_min(o->keys[k]);
	int kt = -1;
	for (int k = 0; k < o->nr_keys; k++)
		if (!strcmp(o->keys[k]->name, "trace"))
			kt = k;
	bool *known = kt >= 0 ? calloc(n ? n : 1, sizeof(bool)) : NULL;
	if (known)
		trace_known(all, n, ev, kt, known);
	int dso_k = -1;
	for (int k = 0; k < o->nr_keys; k++)
		if (!strcmp(o->keys[k]->name, "dso"))
			dso_k = k;
	for (size_t i = 0; i < n; i++) {
		if (pk_hist_entry_event(all[i]) != ev || !pk_hist_listed(h, all[i]))
			continue;
		for (int k = 0; k < o->nr_keys; k++) {
			char t[PK_HIST_NAME_MAX];
			if (o->keys[k]->fixed_w)
				continue;
			pk_hist_col_text(h, all[i], k, t, sizeof(t));
			int l = o->keys[k]->order == PK_HIST_ORD_SYM ? pk_hist_sym_width(t) : (int)strlen(t);
			const pk_hist_key *vk = o->keys[k];
			if (o->verbose && (vk->order == PK_HIST_ORD_SYM || vk->unres == PK_HIST_U_SYM) &&
			    pk_hist_entry_nosym(all[i], vk->order == PK_HIST_ORD_SYM ? PK_HIST_SIDE_ENTRY
										   : vk->side))
				l -= 21; /* perf: -v's address widens only a named symbol's column */
			if (!strcmp(o->keys[k]->name, "comm"))
				l = comm_width(h, all[i]);
			if (k == kt && !(known && known[i]))
				l = 0; /* text not made yet: the title's width */
			if (!strcmp(o->keys[k]->name, "cpu"))
				l = 3; /* perf's fixed width, "-001" too */
			int least = entry_width(o, o->keys[k], t);
			l = l > least ? l : least;
			/* perf: an entry without a symbol widens the dso column
			 * to an address's 16 digits (not under --dsos); a
			 * branch end's dso is counted only with its symbol */
			const pk_hist_key *key = o->keys[k];
			bool end_dso = key->unres == PK_HIST_U_MAP && key->side != PK_HIST_SIDE_ENTRY;
			bool nosym = pk_hist_entry_nosym(all[i], end_dso ? key->side : PK_HIST_SIDE_ENTRY);
			if (end_dso && nosym)
				l = 0;
			if (nosym && (k == dso_k || end_dso) && !o->dsos.n && l < 16)
				l = 16;
			if (l > w[k])
				w[k] = l;
		}
	}
	free(known);
}
