/* record's run-time controls (record_ctl.h: what each does, the dump
 * names). */
#include "record_ctl.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "builtin.h"

/* The events named on stderr (perf 6.1's), one a line: the control
 * command "evlist". */
static void list_events(pk_recording *r)
{
	pk_evlist *l = pk_recording_evlist(r);
	for (size_t i = 0; i < pk_evlist_count(l); i++)
		fprintf(stderr, "%s\n", pk_evsel_name(pk_evlist_at(l, i)));
}

/* The events on or off: every one (perf's 'enable' without a name). */
static void enable(pk_recording *r, bool on, const char *arg)
{
	pk_error err;
	pk_error_clear(&err);
	if (*arg)
		fprintf(stderr, "pmukit record: control '%s %s': events are switched all together, "
				"not by name: nothing done\n", on ? "enable" : "disable", arg);
	else if (pk_recording_enable(r, on, &err) < 0)
		pk_cli_print_error("record", &err);
	else
		fprintf(stderr, "Events %s\n", on ? "enabled" : "disabled");
}

void rec_ctl_handle(ctl_chan *c, pk_recording *r, bool *stop)
{
	char arg[256];
	ctl_cmd cmd;
	while ((cmd = ctl_next(c, arg, sizeof(arg))) != CTL_NONE) {
		switch (cmd) {
		case CTL_ENABLE: enable(r, true, arg); break;
		case CTL_DISABLE: enable(r, false, arg); break;
		case CTL_STOP: *stop = true; break;
		case CTL_EVLIST: list_events(r); break;
		case CTL_SNAPSHOT:
			fprintf(stderr, "pmukit record: control 'snapshot': no AUX snapshot mode "
					"(-S): nothing done\n");
			break;
		case CTL_UNKNOWN:
			fprintf(stderr, "pmukit record: control: unknown command '%s'\n", arg);
			break;
		case CTL_PING:
		case CTL_NONE: break;
		}
		ctl_ack(c);
	}
}

void rec_dump_name(const char *output, char *buf, size_t n)
{
	for (int tries = 0; tries < 200; tries++) {
		char when[32];
		long ns = pk_cli_local_time("%Y%m%d%H%M%S", when, sizeof(when));
		snprintf(buf, n, "%s.%s%02ld", output, when, ns / 10000000);
		struct stat st;
		if (stat(buf, &st) < 0)
			return;
		usleep(5000); /* taken: the next hundredth */
	}
}

/* dump counted: with a limit, the dump N before it removed. */
static void dumps_add(rec_dumps *d, const char *dump)
{
	if (!d || !d->max)
		return;
	if (!d->names && !(d->names = calloc(d->max, sizeof(*d->names))))
		return; /* out of memory: no dump removed */
	char **slot = &d->names[d->next];
	d->next = (d->next + 1) % d->max;
	if (*slot && unlink(*slot) < 0)
		fprintf(stderr, "pmukit record: --switch-max-files: cannot remove '%s': %s\n",
			*slot, strerror(errno));
	free(*slot);
	*slot = strdup(dump);
}

void rec_dumps_free(rec_dumps *d)
{
	for (unsigned i = 0; d->names && i < d->max; i++)
		free(d->names[i]);
	free(d->names);
	d->names = NULL;
}

bool rec_switch_output(pk_recording *r, const char *output, rec_dumps *d)
{
	char dump[4200];
	rec_dump_name(output, dump, sizeof(dump));
	pk_error err;
	pk_error_clear(&err);
	if (pk_recording_switch(r, dump, &err) < 0) {
		pk_cli_print_error("record", &err);
		return false;
	}
	fprintf(stderr, "[ pmukit record: Dump %s ]\n", dump);
	dumps_add(d, dump);
	return true;
}

bool rec_dump_final(const char *output, rec_dumps *d)
{
	char dump[4200];
	rec_dump_name(output, dump, sizeof(dump));
	if (rename(output, dump) < 0) {
		fprintf(stderr, "pmukit record: cannot rename '%s' to '%s': %s\n", output, dump,
			strerror(errno));
		return false;
	}
	fprintf(stderr, "[ pmukit record: Dump %s ]\n", dump);
	dumps_add(d, dump);
	return true;
}
