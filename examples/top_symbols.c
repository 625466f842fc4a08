/* The top symbols of a perf.data through libpmukit's session (session.h):
 * sample periods summed by symbol, printed as "percent symbol", most first
 * (the shares of `perf report --sort sym`).
 *   cc top_symbols.c $(pkg-config --cflags --libs libpmukit)
 *   ./top_symbols [perf.data] [N] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pmukit/session.h>

struct row { char *sym; unsigned long n; };
struct top { struct row *rows; size_t nr; unsigned long total; };

static int on_sample(void *arg, pk_session *s, const pk_pd_event *ev, const pk_pd_sample *smp)
{
	struct top *t = arg;
	const pk_addr_loc *loc = pk_machine_lookup(pk_session_machine(s), smp->pid,
						   ev->misc & PERF_RECORD_MISC_CPUMODE_MASK, smp->ip);
	const char *sym = loc->sym ? loc->sym : "[unknown]";
	size_t i = 0;
	while (i < t->nr && strcmp(t->rows[i].sym, sym))
		i++;
	if (i == t->nr) {
		struct row *r = realloc(t->rows, (t->nr + 1) * sizeof(*r));
		if (!r || !(r[i].sym = strdup(sym)))
			return 1;
		t->rows = r;
		t->rows[t->nr++].n = 0;
	}
	t->rows[i].n += smp->period;
	t->total += smp->period;
	return 0;
}

static int most_first(const void *a, const void *b)
{
	const struct row *x = a, *y = b;
	return x->n != y->n ? (x->n < y->n ? 1 : -1) : strcmp(x->sym, y->sym);
}

int main(int argc, char **argv)
{
	pk_session *s;
	pk_error err = {0};
	struct top t = {0};
	if (pk_session_open(argc > 1 ? argv[1] : NULL, NULL, &s, &err) < 0)
		return fprintf(stderr, "top_symbols: %s\n", err.msg), 1;
	if (pk_session_run(s, on_sample, &t, &err) != 0 || pk_session_finish(s, &err) < 0)
		return fprintf(stderr, "top_symbols: %s\n", err.msg[0] ? err.msg : "no memory"), 1;
	qsort(t.rows, t.nr, sizeof(*t.rows), most_first);
	for (size_t i = 0; i < t.nr && i < (argc > 2 ? strtoul(argv[2], NULL, 10) : 10); i++)
		printf("%6.2f%%  %s\n", 100.0 * (double)t.rows[i].n / (double)t.total, t.rows[i].sym);
	for (size_t i = 0; i < t.nr; i++)
		free(t.rows[i].sym);
	free(t.rows);
	pk_session_close(s);
	return 0;
}
