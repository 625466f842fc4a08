/* pmukit report: the overhead table of a perf.data file (perf report --stdio). */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>

#include "builtin.h"
#include "pd_header.h"
#include "pd_session.h"

const char report_usage[] =
	"usage: pmukit report [--stdio] [-i FILE] [-s KEYS] [-n] [--header | --header-only]\n"
	"\n"
	"Summarizes the samples of a perf.data file as perf report --stdio does.\n"
	"\n"
	"  -i, --input FILE        input file (default perf.data; '-' standard input)\n"
	"  -s, --sort KEYS         comma-separated keys: comm, dso, sym, pid (default\n"
	"                          comm,dso,sym)\n"
	"  -n, --show-nr-samples   add a Samples column\n"
	"      --header            show the header features before the table\n"
	"      --header-only       show only the header features\n"
	"      --stdio             text output (the only one there is)\n";

enum key { K_COMM, K_DSO, K_SYM, K_PID };

typedef struct entry {
	char *key;                   /* the row's key, for the hash */
	int evsel;
	char *cols[4];               /* printed values, per sort key */
	uint64_t period, count;
	struct entry *next;
} entry;

#define NBUCKETS 65536

typedef struct report {
	enum key keys[4];
	int nr_keys;
	bool show_nr;
	entry *buckets[NBUCKETS];
	size_t nr_entries;
	uint64_t *ev_period, *ev_count;
	size_t nr_ev;
} report;

static const char *const key_names[] = {"comm", "dso", "sym", "pid"};
static const char *const key_titles[] = {"Command", "Shared Object", "Symbol", "Pid:Command"};

static size_t hash_str(const char *s)
{
	size_t h = 1469598103934665603ULL;
	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211ULL;
	return h;
}

static const char *basename_of(const char *p)
{
	const char *s = strrchr(p, '/');
	return s ? s + 1 : p;
}

static int on_sample(void *arg, pd_session *s, const pk_pd_event *ev, const pk_pd_sample *smp)
{
	report *rp = arg;
	int ei = ev->evsel->idx;
	if ((size_t)ei >= rp->nr_ev) {
		size_t n = (size_t)ei + 1;
		uint64_t *np = realloc(rp->ev_period, n * sizeof(uint64_t));
		uint64_t *nc = np ? realloc(rp->ev_count, n * sizeof(uint64_t)) : NULL;
		if (!np || !nc) {
			if (np)
				rp->ev_period = np;
			return 1;
		}
		memset(np + rp->nr_ev, 0, (n - rp->nr_ev) * sizeof(uint64_t));
		memset(nc + rp->nr_ev, 0, (n - rp->nr_ev) * sizeof(uint64_t));
		rp->ev_period = np;
		rp->ev_count = nc;
		rp->nr_ev = n;
	}
	rp->ev_period[ei] += smp->period;
	rp->ev_count[ei]++;
	unsigned cpumode = ev->misc & PERF_RECORD_MISC_CPUMODE_MASK;
	pk_addr_loc loc;
	pk_machine_resolve(s->machine, smp->pid, cpumode, smp->ip, &loc);
	char cols[4][512];
	for (int k = 0; k < rp->nr_keys; k++) {
		switch (rp->keys[k]) {
		case K_COMM:
			snprintf(cols[k], sizeof(cols[k]), "%s", pk_machine_comm(s->machine, smp->pid, smp->tid));
			break;
		case K_PID:
			snprintf(cols[k], sizeof(cols[k]), "%7d:%s", (int)smp->pid,
				 pk_machine_comm(s->machine, smp->pid, smp->pid));
			break;
		case K_DSO:
			snprintf(cols[k], sizeof(cols[k]), "%s", basename_of(loc.dso));
			break;
		case K_SYM:
			if (loc.sym)
				snprintf(cols[k], sizeof(cols[k]), "[%c] %s", loc.kernel ? 'k' : '.', loc.sym);
			else
				snprintf(cols[k], sizeof(cols[k]), "[%c] 0x%016" PRIx64, loc.kernel ? 'k' : '.',
					 loc.has_map ? loc.dso_addr : smp->ip);
			break;
		}
	}
	char key[2100];
	int n = snprintf(key, sizeof(key), "%d", ei);
	for (int k = 0; k < rp->nr_keys && n > 0 && (size_t)n < sizeof(key); k++)
		n += snprintf(key + n, sizeof(key) - (size_t)n, "\x01%s", cols[k]);
	size_t h = hash_str(key) % NBUCKETS;
	entry *e;
	for (e = rp->buckets[h]; e; e = e->next)
		if (!strcmp(e->key, key))
			break;
	if (!e) {
		e = calloc(1, sizeof(*e));
		if (!e || !(e->key = strdup(key)))
			return 1;
		e->evsel = ei;
		for (int k = 0; k < rp->nr_keys; k++)
			if (!(e->cols[k] = strdup(cols[k])))
				return 1;
		e->next = rp->buckets[h];
		rp->buckets[h] = e;
		rp->nr_entries++;
	}
	e->period += smp->period;
	e->count++;
	return 0;
}

static int cmp_entries(const void *a, const void *b)
{
	const entry *x = *(entry *const *)a, *y = *(entry *const *)b;
	if (x->period != y->period)
		return x->period > y->period ? -1 : 1;
	for (int k = 0; k < 4; k++) {
		if (!x->cols[k] || !y->cols[k])
			break;
		int c = strcmp(x->cols[k], y->cols[k]);
		if (c)
			return c;
	}
	return 0;
}

static void print_table(report *rp, pd_session *s)
{
	entry **all = malloc((rp->nr_entries ? rp->nr_entries : 1) * sizeof(entry *));
	if (!all)
		return;
	size_t n = 0;
	for (size_t b = 0; b < NBUCKETS; b++)
		for (entry *e = rp->buckets[b]; e; e = e->next)
			all[n++] = e;
	qsort(all, n, sizeof(*all), cmp_entries);
	const pk_pd_stats *st = pk_pd_get_stats(s->reader);
	printf("#\n# Total Lost Samples: %" PRIu64 "\n#\n", st->nr_lost_samples);
	for (size_t ei = 0; ei < rp->nr_ev; ei++) {
		if (!rp->ev_count[ei])
			continue;
		const pk_pd_evsel *ev = pk_pd_evsel_at(s->reader, ei);
		printf("# Samples: %" PRIu64 "  of event '%s'\n", rp->ev_count[ei], pk_pd_evsel_name(ev));
		printf("# Event count (approx.): %" PRIu64 "\n#\n", rp->ev_period[ei]);
		int width[4];
		for (int k = 0; k < rp->nr_keys; k++)
			width[k] = (int)strlen(key_titles[rp->keys[k]]);
		for (size_t i = 0; i < n; i++) {
			if (all[i]->evsel != (int)ei)
				continue;
			for (int k = 0; k < rp->nr_keys; k++) {
				int w = (int)strlen(all[i]->cols[k]);
				if (w > width[k])
					width[k] = w;
			}
		}
		printf("# Overhead");
		if (rp->show_nr)
			printf("       Samples");
		for (int k = 0; k < rp->nr_keys; k++)
			printf("  %-*s", k + 1 < rp->nr_keys ? width[k] : 0, key_titles[rp->keys[k]]);
		printf("\n# ........");
		if (rp->show_nr)
			printf("  ............");
		for (int k = 0; k < rp->nr_keys; k++) {
			printf("  ");
			for (int j = 0; j < width[k]; j++)
				putchar('.');
		}
		printf("\n#\n");
		for (size_t i = 0; i < n; i++) {
			entry *e = all[i];
			if (e->evsel != (int)ei)
				continue;
			double pct = rp->ev_period[ei] ? 100.0 * (double)e->period / (double)rp->ev_period[ei] : 0;
			printf("%9.2f%%", pct);
			if (rp->show_nr)
				printf("  %12" PRIu64, e->count);
			for (int k = 0; k < rp->nr_keys; k++) {
				if (k + 1 < rp->nr_keys)
					printf("  %-*s", width[k], e->cols[k]);
				else
					printf("  %s", e->cols[k]);
			}
			printf("\n");
		}
		printf("\n\n");
	}
	free(all);
}

static void free_entries(report *rp)
{
	for (size_t b = 0; b < NBUCKETS; b++) {
		entry *e = rp->buckets[b];
		while (e) {
			entry *nx = e->next;
			free(e->key);
			for (int k = 0; k < 4; k++)
				free(e->cols[k]);
			free(e);
			e = nx;
		}
	}
	free(rp->ev_period);
	free(rp->ev_count);
}

static int parse_sort(report *rp, const char *arg)
{
	char *copy = strdup(arg);
	if (!copy)
		return -ENOMEM;
	rp->nr_keys = 0;
	for (char *t = strtok(copy, ","); t; t = strtok(NULL, ",")) {
		int k = -1;
		for (int i = 0; i < 4; i++)
			if (!strcmp(t, key_names[i]))
				k = i;
		if (k < 0 || rp->nr_keys == 4) {
			fprintf(stderr, "pmukit report: unknown --sort key '%s' (comm, dso, sym, pid)\n", t);
			free(copy);
			return -EINVAL;
		}
		rp->keys[rp->nr_keys++] = (enum key)k;
	}
	free(copy);
	/* no keys ("-s ''"): one row per event with its total, as perf 6.1 */
	return 0;
}

int cmd_report(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"input", required_argument, NULL, 'i'},
		{"sort", required_argument, NULL, 's'},
		{"show-nr-samples", no_argument, NULL, 'n'},
		{"header", no_argument, NULL, 'H'},
		{"header-only", no_argument, NULL, 'O'},
		{"stdio", no_argument, NULL, 'S'},
		{"dump-raw-trace", no_argument, NULL, 'D'},
		{"itrace", required_argument, NULL, 'T'},
		{NULL, 0, NULL, 0},
	};
	report *rp = calloc(1, sizeof(*rp));
	if (!rp)
		return 1;
	rp->keys[0] = K_COMM;
	rp->keys[1] = K_DSO;
	rp->keys[2] = K_SYM;
	rp->nr_keys = 3;
	const char *input = NULL;
	bool header = false, header_only = false, dump = false;
	const char *itrace = NULL;
	int c, status = 0;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+i:s:nD", longopts, NULL)) != -1) {
		switch (c) {
		case 'i': input = optarg; break;
		case 's':
			if (parse_sort(rp, optarg) < 0) {
				free(rp);
				return 129;
			}
			break;
		case 'n': rp->show_nr = true; break;
		case 'D': dump = true; break;
		case 'T': itrace = optarg; break;
		case 'H': header = true; break;
		case 'O': header_only = true; break;
		case 'S': break;
		default:
			free(rp);
			return pk_cli_usage_error("report", "unknown option '%s'", argv[optind - 1]);
		}
	}
	pd_session s;
	if (pd_session_open(&s, "report", input, false)) {
		free(rp);
		return 1;
	}
	if (itrace && pd_spe_set_itrace(&s.spe, "report", itrace)) {
		pd_session_close(&s);
		free(rp);
		return 129;
	}
	if (header || header_only)
		pd_header_print(s.reader, s.input, stdout);
	else
		printf("# To display the perf.data header info, please use --header/--header-only options.\n#\n");
	if (!header_only) {
		s.spe.dump = dump;
		status = pd_session_run(&s, on_sample, rp);
		if (!dump) /* -D: the dump instead of the report (perf's way) */
			print_table(rp, &s);
		const pk_pd_stats *st = pk_pd_get_stats(s.reader);
		if (st->nr_lost_events)
			fprintf(stderr, "warning: %" PRIu64 " events were lost while recording\n",
				st->nr_lost_events);
	}
	status = pd_session_finish(&s, status);
	pd_session_close(&s);
	free_entries(rp);
	free(rp);
	return status;
}
