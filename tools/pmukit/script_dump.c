/* pmukit script --per-event-dump's files (script_dump.h). */
#include "script_dump.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "builtin.h"

int script_dumps_open(script_dumps *d, pk_session *s)
{
	const pk_pd_reader *r = pk_session_reader(s);
	size_t n = pk_pd_nr_evsels(r);
	memset(d, 0, sizeof(*d));
	d->f = calloc(n + 1, sizeof(*d->f));
	d->name = calloc(n + 1, sizeof(*d->name));
	d->samples = calloc(n + 1, sizeof(*d->samples));
	if (!d->f || !d->name || !d->samples) {
		fprintf(stderr, "pmukit script: out of memory\n");
		return 1;
	}
	d->n = n;
	for (size_t i = 0; i < n; i++) {
		const char *ev = pk_pd_evsel_name(pk_pd_evsel_at(r, i));
		size_t len = strlen(pk_session_input(s)) + strlen(ev) + 8;
		d->name[i] = malloc(len);
		if (!d->name[i]) {
			fprintf(stderr, "pmukit script: out of memory\n");
			return 1;
		}
		snprintf(d->name[i], len, "%s.%s.dump", pk_session_input(s), ev);
		d->f[i] = fopen(d->name[i], "w");
		if (!d->f[i]) {
			fprintf(stderr, "pmukit script: --per-event-dump: cannot create %s: %s\n",
				d->name[i], strerror(errno));
			return 1;
		}
	}
	return 0;
}

FILE *script_dumps_for(script_dumps *d, int idx)
{
	if (idx < 0 || (size_t)idx >= d->n)
		return NULL;
	d->samples[idx]++;
	return d->f[idx];
}

int script_dumps_close(script_dumps *d, FILE *out)
{
	int rc = 0;
	for (size_t i = 0; i < d->n; i++) {
		if (!d->f[i])
			continue;
		long at = ftell(d->f[i]);
		struct stat st;
		long blk = !fstat(fileno(d->f[i]), &st) && st.st_blksize > 0 ? (long)st.st_blksize : 4096;
		/* perf sizes the file before its stream's last write-out */
		long size = at > 0 ? at - at % blk : 0;
		if (out)
			fprintf(out, "[ perf script: Wrote %.3f MB %s (%" PRIu64 " samples) ]\n",
				(double)size / 1024.0 / 1024.0, d->name[i], d->samples[i]);
		rc |= pk_cli_fclose(d->f[i], "script", d->name[i]);
	}
	for (size_t i = 0; i < d->n; i++)
		free(d->name[i]);
	free(d->f);
	free(d->name);
	free(d->samples);
	memset(d, 0, sizeof(*d));
	return rc ? 1 : 0;
}
