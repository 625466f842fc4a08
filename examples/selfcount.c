/* Embedding libpmukit: a program that counts events of its own code region.
 * Build against an installed library with
 *     cc selfcount.c $(pkg-config --cflags --libs libpmukit) -o selfcount
 * usage: selfcount [EVENTS]   (default: task-clock,page-faults) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pmukit/counting.h>
#include <pmukit/events.h>
#include <pmukit/pmu.h>

static void work(void)
{
	size_t n = 64u << 20;
	char *p = malloc(n);
	if (!p)
		return;
	memset(p, 1, n); /* page faults */
	unsigned long acc = 0;
	for (size_t i = 0; i < n; i += 64)
		acc += (unsigned char)p[i];
	if (acc == 1) /* keeps the loop: the sum is never 1 */
		puts("");
	free(p);
}

static int fail(const pk_error *err)
{
	char buf[2048];
	pk_error_render(err, buf, sizeof(buf));
	fprintf(stderr, "selfcount: %s", buf);
	return 1;
}

int main(int argc, char **argv)
{
	const char *events = argc > 1 ? argv[1] : "task-clock,page-faults";
	pk_error err;
	pk_error_clear(&err);
	pk_pmus *pmus = pk_pmus_load(NULL, &err);
	if (!pmus)
		return fail(&err);
	pk_evlist *evlist = pk_evlist_new();
	if (pk_evlist_parse(evlist, pmus, events, NULL, &err) < 0)
		return fail(&err);
	/* count this thread only, started and stopped around the region */
	pk_config_opts copts = {.mode = PK_CONFIG_STAT, .no_inherit = true};
	pk_evlist_config(evlist, &copts, &err);
	pid_t self = 0;
	pk_threadmap *threads = pk_threadmap_new(&self, 1);
	pk_counting_opts opts;
	pk_counting_opts_init(&opts);
	opts.threads = threads;
	pk_counting *c = pk_counting_new(evlist, &opts, &err);
	if (!c || pk_counting_open(c, &err) < 0)
		return fail(&err);
	pk_counting_enable(c, &err);
	work();
	pk_counting_disable(c, &err);
	if (pk_counting_read(c, &err) < 0)
		return fail(&err);
	for (size_t i = 0; i < pk_evlist_count(evlist); i++) {
		const pk_evsel *e = pk_evlist_at(evlist, i);
		if (pk_counting_status(c, i) != PK_OPEN_OK) {
			printf("%20s  %s\n", "<not supported>", pk_evsel_name(e));
			continue;
		}
		pk_counts sum;
		int key;
		pk_counting_aggr(c, i, PK_AGGR_GLOBAL, 0, false, &sum, &key);
		pk_scaled s;
		pk_counts_scale(&sum, &s);
		printf("%20.0f  %s\n", s.value, pk_evsel_name(e));
	}
	pk_counting_free(c);
	pk_threadmap_put(threads);
	pk_evlist_put(evlist);
	pk_pmus_put(pmus);
	return 0;
}
